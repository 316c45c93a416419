//! `haproxy-no-old-process-deadline`: without `hard-stop-after`, old processes live as long
//! as their longest connection and keep serving a stale configuration.

use crate::haproxy::{cite, logic, Line, SectionKind};
use crate::rule::prelude::*;
use crate::value::duration::{format_timeout, Millis};

declare_rule! {
    /// No `hard-stop-after` while tunnel or client timeouts are long (≥ 10 min or infinite)
    /// or HTTP keep-alive is long (≥ 60 s).
    ///
    /// ## What it does
    /// Flags the `global` section of a configuration without `hard-stop-after` when some proxy
    /// has a written `timeout tunnel` or `timeout client` of 10 minutes or more (or `0`, no
    /// limit), or an explicit `timeout http-keep-alive` of 60 seconds or more. A missing
    /// `timeout client` is not a reason here: `haproxy-missing-timeouts` reports it, and one
    /// cause is one finding.
    ///
    /// ## Why is this bad?
    /// After every reload the old process keeps serving the connections it already has, with
    /// the configuration it was started with, until the last of them closes. Kept-alive
    /// clients go on sending requests to servers that were removed from the configuration:
    /// in kubegap's founding incident (seed 002) an OpenShift router's old process answered a
    /// browser's kept-alive requests by retrying deleted pods for 20 seconds before a 503
    /// (openshift/router#654 reports minutes of 503s after an HAProxy upgrade;
    /// kubernetes-retired/contrib#373 and docker-archive/dockercloud-haproxy#172 the same
    /// stale process). Long tunnels also pile up old processes and their memory
    /// (openshift/origin#19382); OpenShift added a hard-stop knob as an urgent fix
    /// (openshift/cluster-ingress-operator#522). This rule is the counterweight of
    /// `haproxy-hard-stop-cuts-long-lived`: choose the deadline deliberately.
    ///
    /// `hard-stop-after` exists since HAProxy 1.8.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// global
    ///     daemon
    ///
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 50s
    ///     timeout server 50s
    ///     timeout tunnel 1h
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    ///
    /// Use instead: a deadline that is also the longest session you promise, with spread
    /// closing (`close-spread-time`, HAProxy ≥ 2.6):
    /// ```haproxy,valid
    /// global
    ///     daemon
    ///     hard-stop-after 2h
    ///     close-spread-time 90m
    ///
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 50s
    ///     timeout server 50s
    ///     timeout tunnel 1h
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    pub static HAPROXY_NO_OLD_PROCESS_DEADLINE = {
        id: "haproxy-no-old-process-deadline",
        severity: Warning,
        domain: Haproxy,
        summary: "no `hard-stop-after`: after a reload, old processes serve kept-alive clients with a stale configuration",
        evidence: &[
            "https://github.com/openshift/router/issues/654",
            "https://github.com/kubernetes-retired/contrib/pull/373",
            "https://github.com/docker-archive/dockercloud-haproxy/issues/172",
            "https://github.com/openshift/origin/issues/19382",
            "https://github.com/openshift/cluster-ingress-operator/pull/522",
        ],
        check: check,
    }
}

/// `` `timeout http-keep-alive 300s` at haproxy.cfg:11 (5m) ``: the line, with the normalised value
/// when it reads differently.
fn describe(files: &crate::source::SourceMap, line: &Line, limit: Option<Millis>) -> String {
    let value = format_timeout(limit);
    let cited = cite(files, line);
    if line.text(2) == value {
        cited
    } else {
        format!("{cited} ({value})")
    }
}

/// At most this many long timeouts are labelled.
const MAX_LABELS: usize = 3;

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for view in cx.haproxy_views {
        let config = view.config;
        if let Some(line) = view.global("hard-stop-after") {
            // `hard-stop-after 0` means no deadline; a variable or an invalid value is not
            // second-guessed.
            let limit = crate::haproxy::parse_time(line.text(1), false)
                .ok()
                .map(|(value, _)| value);
            if limit
                != Some(crate::haproxy::DurationValue::Ms(
                    crate::value::duration::Millis(0),
                ))
            {
                continue;
            }
        }
        // (what, where: a line or the proxy header for built-in defaults)
        let mut reasons: Vec<(String, Span)> = Vec::new();
        let mut seen: Vec<Span> = Vec::new();
        let mut push = |what: String, span: Span, reasons: &mut Vec<(String, Span)>| {
            if !seen.contains(&span) {
                seen.push(span);
                reasons.push((what, span));
            }
        };
        for (index, section) in view.proxies() {
            let long_line = |name: &str, threshold: Millis| -> Option<(&Line, Option<Millis>)> {
                let effective = view.timeout(index, name);
                let line = effective.line?;
                let limit = effective.value.as_ref()?.limit()?;
                let long = match limit {
                    Some(ms) => ms >= threshold,
                    None => true,
                };
                long.then_some((line, limit))
            };
            if section.kind.has_backend() {
                if let Some((line, limit)) = long_line("tunnel", logic::NO_DEADLINE_TIMEOUT_MS) {
                    push(describe(cx.files, line, limit), line.span, &mut reasons);
                }
            }
            if !section.kind.has_frontend() {
                continue;
            }
            // A missing `timeout client` is `haproxy-missing-timeouts`'s finding; only a long
            // written one is a reason here, so one cause is reported once.
            if let Some((line, limit)) = long_line("client", logic::NO_DEADLINE_TIMEOUT_MS) {
                push(describe(cx.files, line, limit), line.span, &mut reasons);
            }
            if view.mode(index).value == "http" {
                if let Some((line, limit)) =
                    long_line("http-keep-alive", logic::NO_DEADLINE_KEEP_ALIVE_MS)
                {
                    push(describe(cx.files, line, limit), line.span, &mut reasons);
                }
            }
        }
        if reasons.is_empty() {
            continue;
        }
        let whats: Vec<String> = reasons.iter().map(|(w, _)| w.clone()).collect();
        let has_global = config
            .sections
            .iter()
            .any(|s| s.kind == SectionKind::Global);
        let finding = sink.report(
            config.global_span(),
            format!(
                "no `hard-stop-after`{}: after every reload the old process keeps serving its open connections with the old configuration and server list until the last one closes, and connections can stay open a long time here: {}",
                if has_global { "" } else { " (and no `global` section)" },
                logic::enumerate(&whats)
            ),
        );
        for (what, span) in reasons.iter().take(MAX_LABELS) {
            finding.label(*span, format!("long-lived: {what}"));
        }
        finding.help(
            "set `hard-stop-after` to the longest session you accept (e.g. `hard-stop-after 1h`), with `close-spread-time` (HAProxy 2.6+) and a short `timeout http-keep-alive` so kept-alive clients move to the new process",
        );
    }
}
