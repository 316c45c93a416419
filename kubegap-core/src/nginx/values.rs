//! Units and effective values: what a directive is set to at a given place once nginx's
//! inheritance and built-in defaults are applied, and where that value came from.

use crate::config::Settings;
use crate::value::duration::Millis;
use crate::value::provenance::{Setting, Source};

use super::{DirectiveId, NginxConfig};

/// Parses an nginx time (`ngx_parse_time`): `500ms`, `30s`, `1h30m`, a bare number is seconds.
/// Units: ms, s, m, h, d, w, M (30 days), y (365 days). `None` for anything else.
pub fn parse_time(text: &str) -> Option<Millis> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let mut total_ms: u128 = 0;
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if start == i {
            return None;
        }
        let n: u128 = text[start..i].parse().ok()?;
        let unit_ms: u128 = if text[i..].starts_with("ms") {
            i += 2;
            1
        } else {
            let unit = bytes.get(i).copied();
            if unit.is_some() {
                i += 1;
            }
            match unit {
                None | Some(b's') => 1_000,
                Some(b'm') => 60_000,
                Some(b'h') => 3_600_000,
                Some(b'd') => 86_400_000,
                Some(b'w') => 7 * 86_400_000,
                Some(b'M') => 30 * 86_400_000,
                Some(b'y') => 365 * 86_400_000,
                Some(_) => return None,
            }
        };
        total_ms = total_ms.checked_add(n.checked_mul(unit_ms)?)?;
    }
    Some(Millis(u64::try_from(total_ms).ok()?))
}

/// Parses an nginx size: `512`, `8k`, `1m`, `2g` (either case). `None` for anything else.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, factor) = match text.as_bytes().last()? {
        b'k' | b'K' => (&text[..text.len() - 1], 1024),
        b'm' | b'M' => (&text[..text.len() - 1], 1024 * 1024),
        b'g' | b'G' => (&text[..text.len() - 1], 1024 * 1024 * 1024),
        _ => (text, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(factor)
}

fn directive_source(d: &super::Directive) -> Source {
    Source::Directive {
        name: d.name.clone(),
        span: d.span,
    }
}

/// The first nginx version whose `proxy_http_version` defaults to 1.1 (and whose upstreams keep
/// connections alive by default).
pub const HTTP11_DEFAULT_SINCE: [u32; 3] = [1, 29, 7];

impl NginxConfig {
    /// The directive named `name` in effect at `at`: the one in the innermost block (starting at
    /// `at` itself if it is a block, else at its parent) that has one, walking out to the main
    /// context. Blocks that do not inherit (`upstream`) stop the walk.
    pub fn effective(&self, at: Option<DirectiveId>, name: &str) -> Option<DirectiveId> {
        let mut scope = match at {
            Some(id) if self.get(id).is_block() => Some(id),
            Some(id) => self.get(id).parent,
            None => None,
        };
        loop {
            if let Some(found) = self.find_children(scope, name).next() {
                return Some(found);
            }
            let current = scope?;
            if matches!(self.get(current).name.as_str(), "upstream") {
                return None;
            }
            scope = self.get(current).parent;
        }
    }

    /// Every directive named `name` at the innermost level that has any (nginx's rule for array
    /// directives such as `proxy_set_header`: a level that sets one drops all inherited ones).
    pub fn effective_all(&self, at: Option<DirectiveId>, name: &str) -> Vec<DirectiveId> {
        let mut scope = match at {
            Some(id) if self.get(id).is_block() => Some(id),
            Some(id) => self.get(id).parent,
            None => None,
        };
        loop {
            let found: Vec<DirectiveId> = self.find_children(scope, name).collect();
            if !found.is_empty() {
                return found;
            }
            let Some(current) = scope else {
                return found;
            };
            scope = self.get(current).parent;
        }
    }

    fn effective_time(
        &self,
        at: Option<DirectiveId>,
        name: &str,
        default: Millis,
    ) -> Setting<Millis> {
        self.time_or_default(
            self.effective(at, name),
            default,
            Source::default_setting("nginx", name.to_string()),
        )
    }

    /// The time a directive sets, or `default` when there is none or nginx could not read it.
    fn time_or_default(
        &self,
        directive: Option<DirectiveId>,
        default: Millis,
        default_source: Source,
    ) -> Setting<Millis> {
        if let Some(id) = directive {
            let d = self.get(id);
            if let Some(value) = d.arg(0).and_then(parse_time) {
                return Setting {
                    value,
                    source: directive_source(d).into(),
                };
            }
        }
        Setting {
            value: default,
            source: default_source.into(),
        }
    }

    /// Setting `proxy_read_timeout` (default 60s).
    pub fn proxy_read_timeout(&self, at: Option<DirectiveId>) -> Setting<Millis> {
        self.effective_time(at, "proxy_read_timeout", Millis::from_secs(60))
    }

    /// Setting `proxy_send_timeout` (default 60s).
    pub fn proxy_send_timeout(&self, at: Option<DirectiveId>) -> Setting<Millis> {
        self.effective_time(at, "proxy_send_timeout", Millis::from_secs(60))
    }

    /// Setting client `keepalive_timeout` (default 75s).
    pub fn keepalive_timeout(&self, at: Option<DirectiveId>) -> Setting<Millis> {
        self.effective_time(at, "keepalive_timeout", Millis::from_secs(75))
    }

    /// The upstream block's `keepalive_timeout` (default 60s; not inherited from `http`).
    pub fn upstream_keepalive_timeout(&self, upstream: DirectiveId) -> Setting<Millis> {
        self.time_or_default(
            self.find_children(Some(upstream), "keepalive_timeout")
                .next(),
            Millis::from_secs(60),
            Source::default_setting("nginx", "keepalive_timeout").with_note("in an upstream block"),
        )
    }

    /// `worker_shutdown_timeout` of the main context (no default: old workers wait forever).
    pub fn worker_shutdown_timeout(&self) -> Option<Setting<Millis>> {
        let id = self.main_directive("worker_shutdown_timeout")?;
        let d = self.get(id);
        Some(Setting {
            value: d.arg(0).and_then(parse_time)?,
            source: directive_source(d).into(),
        })
    }

    /// Setting `proxy_http_version`: `1.0` before nginx 1.29.7, `1.1` from then. When the
    /// version is unknown, kubegap assumes an older nginx (the worst plausible default) and says
    /// so in the source text.
    pub fn proxy_http_version(
        &self,
        at: Option<DirectiveId>,
        settings: &Settings,
    ) -> Setting<String> {
        if let Some(id) = self.effective(at, "proxy_http_version") {
            let d = self.get(id);
            if let Some(v) = d.arg(0) {
                return Setting {
                    value: v.to_string(),
                    source: directive_source(d).into(),
                };
            }
        }
        let (value, note) = match &settings.nginx_version {
            Some(v) if v.at_least(&HTTP11_DEFAULT_SINCE) => ("1.1", "since 1.29.7"),
            Some(_) => ("1.0", "before 1.29.7"),
            None => (
                "1.0",
                "before 1.29.7; nginx version unknown, kubegap assumes an older nginx",
            ),
        };
        let source = Source::default_setting("nginx", "proxy_http_version")
            .at_version(settings.nginx_version.clone())
            .with_note(note);
        Setting {
            value: value.to_string(),
            source: source.into(),
        }
    }

    /// The `proxy_set_header` for `header` (case-insensitive) in effect at `at`: `Some` with the
    /// directive when set, `None` when the effective set does not mention it (nginx then sends
    /// its default: `Connection: close`, and no `Upgrade`).
    pub fn proxy_header(&self, at: Option<DirectiveId>, header: &str) -> Option<DirectiveId> {
        self.effective_all(at, "proxy_set_header")
            .into_iter()
            .find(|id| {
                self.get(*id)
                    .arg(0)
                    .is_some_and(|h| h.eq_ignore_ascii_case(header))
            })
    }
}
