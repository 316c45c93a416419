//! The application's idle keep-alive, detected from a container's image, command, args and env,
//! or declared with the `kubegap.io/keepalive-timeout` annotation.
//!
//! Unknown stays unknown: a value is only produced with a stated source (a flag, an env var, an
//! annotation, or the documented default of a detected server and version). Where the default
//! depends on a version kubegap cannot see (Node.js before/from v26), the value is a range and
//! rules only fire when the whole range is too short.

use super::Stage;
use crate::k8s::{Container, Workload};
use crate::source::Span;
use crate::value::duration::{decimal, Millis};
use crate::value::provenance::Source;
use crate::yaml::NodeRef;

/// The annotation that declares an application's idle keep-alive, e.g. `65s`.
pub const KEEPALIVE_ANNOTATION: &str = crate::value::declarations::KEEPALIVE_TIMEOUT;

/// A detected application server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Server {
    /// Node.js (`node …`, `npm start`, `next start`, node images).
    Node,
    /// gunicorn.
    Gunicorn,
    /// uvicorn.
    Uvicorn,
    /// puma.
    Puma,
    /// Tomcat or Spring Boot's embedded Tomcat.
    Tomcat,
    /// Apache httpd.
    Httpd,
    /// Declared by annotation; the server is not identified.
    Declared,
}

impl Server {
    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Server::Node => "Node.js",
            Server::Gunicorn => "gunicorn",
            Server::Uvicorn => "uvicorn",
            Server::Puma => "puma",
            Server::Tomcat => "Tomcat",
            Server::Httpd => "Apache httpd",
            Server::Declared => "the application",
        }
    }
}

/// An idle keep-alive: `low..=high` (equal when known exactly).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    /// Lowest possible value.
    pub low: Millis,
    /// Highest possible value.
    pub high: Millis,
}

impl Range {
    /// An exact value.
    pub const fn exact(v: Millis) -> Range {
        Range { low: v, high: v }
    }

    /// `5s`, or `5s–65s` for a range.
    pub fn show(&self) -> String {
        if self.low == self.high {
            self.low.to_string()
        } else {
            format!("{}–{}", self.low, self.high)
        }
    }
}

/// The application's keep-alive and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct AppKeepAlive {
    /// The server.
    pub server: Server,
    /// The idle keep-alive.
    pub range: Range,
    /// Where the value came from: an argument, an env value, an annotation, or the default of
    /// the server implied by an image or a command word.
    pub source: Source,
    /// The span to point at: the flag, env value, annotation, or the image/command implying it.
    pub span: Span,
    /// Node's `headersTimeout`, when declared (`kubegap.io/headers-timeout`).
    pub headers_timeout: Option<(Millis, Span)>,
}

/// Parses a declared duration (`65s`, `1m30s`, `500ms`, `1h`, or bare seconds): see
/// [`crate::value::duration::declared`].
pub fn parse_declared(text: &str) -> Option<Millis> {
    crate::value::duration::declared(text)
}

/// Whole seconds, for a server's documented default.
const fn secs(n: u64) -> Range {
    Range::exact(Millis::from_secs(n))
}

/// The command line of a container as words (command + args), with the node of each word.
fn words<'a>(container: NodeRef<'a>) -> Vec<(&'a str, NodeRef<'a>)> {
    let mut out = Vec::new();
    for key in ["command", "args"] {
        for item in container.get(key).into_iter().flat_map(|n| n.items()) {
            let Some(text) = item.as_str() else { continue };
            // `sh -c "gunicorn --keep-alive 5 app:app"`: split shell strings into words.
            for word in text.split_whitespace() {
                out.push((word.trim_matches(|c| c == '"' || c == '\''), item));
            }
        }
    }
    out
}

/// Whether a command word is the program `name`, by itself or as the last part of a path
/// (`/usr/local/bin/gunicorn`).
fn is_program(word: &str, name: &str) -> bool {
    word == name
        || word
            .strip_suffix(name)
            .is_some_and(|path| path.ends_with('/'))
}

/// The value of `--flag N`, `--flag=N` among words.
fn flag<'a>(words: &[(&str, NodeRef<'a>)], names: &[&str]) -> Option<(String, NodeRef<'a>)> {
    for (i, (w, node)) in words.iter().enumerate() {
        for name in names {
            if w == name {
                if let Some((v, n)) = words.get(i + 1) {
                    return Some((v.to_string(), *n));
                }
            } else if let Some(v) = w.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                return Some((v.to_string(), *node));
            }
        }
    }
    None
}

fn env<'a>(container: NodeRef<'a>, name: &str) -> Option<(String, NodeRef<'a>)> {
    container
        .get("env")
        .into_iter()
        .flat_map(|e| e.items())
        .find(|e| e.str_at(&["name"]) == Some(name))
        .and_then(|e| e.get("value"))
        .and_then(|v| v.as_str().map(|s| (s.to_string(), v)))
}

/// The numeric major version in an image tag (`node:20-alpine` → 20), if the image is one of
/// `repos` (by last path segment).
fn image_major(image: &str, repos: &[&str]) -> Option<Option<u32>> {
    let without_digest = image.split('@').next().unwrap_or(image);
    let (repo, tag) = match without_digest.rsplit_once(':') {
        Some((r, t)) if !t.contains('/') => (r, Some(t)),
        _ => (without_digest, None),
    };
    let last = repo.rsplit('/').next().unwrap_or(repo);
    if !repos.contains(&last) {
        return None;
    }
    Some(tag.and_then(|t| {
        let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    }))
}

/// Detects the keep-alive of a workload's serving container (the first non-init container
/// that declares `port` when given, else the first one).
pub fn detect(cx: &Stage<'_>, workload: &Workload, port: Option<&str>) -> Option<AppKeepAlive> {
    // The declared annotation always wins.
    if let Some(declared) = declared(cx, workload) {
        return declared;
    }
    let containers: Vec<&Container> = workload.containers.iter().filter(|c| !c.init).collect();
    let serving = port
        .and_then(|p| {
            containers.iter().find(|c| {
                c.ports.iter().any(|cp| {
                    cp.name.as_deref() == Some(p)
                        || cp.number.map(|n| n.to_string()).as_deref() == Some(p)
                })
            })
        })
        .or_else(|| containers.first())?;
    detect_container(cx.node(serving.at))
}

/// The keep-alive declared with `kubegap.io/keepalive-timeout` on the workload, else on its pod
/// template, with the `kubegap.io/headers-timeout` declared beside it: `Some(None)` when the
/// annotation is written but is not a duration (nothing is detected then), `None` when it is
/// not written. Only a declared keep-alive has a headers timeout.
pub fn declared(cx: &Stage<'_>, workload: &Workload) -> Option<Option<AppKeepAlive>> {
    let annotations = crate::value::declarations::mapping_with(
        cx.k8s,
        cx.documents,
        workload.obj,
        KEEPALIVE_ANNOTATION,
    )?;
    let (key, value) = annotations.get_entry(KEEPALIVE_ANNOTATION)?;
    let Some(ms) = value.as_str().and_then(parse_declared) else {
        return Some(None);
    };
    Some(Some(AppKeepAlive {
        server: Server::Declared,
        range: Range::exact(ms),
        source: Source::Annotation {
            key: KEEPALIVE_ANNOTATION.to_string(),
            key_span: key.span(),
            value_span: value.span(),
        },
        span: value.span(),
        headers_timeout: declared_headers_timeout(annotations),
    }))
}

/// `kubegap.io/headers-timeout` in the annotations that declare the keep-alive.
fn declared_headers_timeout(annotations: NodeRef<'_>) -> Option<(Millis, Span)> {
    let node = annotations.get(crate::value::declarations::HEADERS_TIMEOUT)?;
    Some((node.as_str().and_then(parse_declared)?, node.span()))
}

/// Detects the keep-alive of one container.
pub fn detect_container(container: NodeRef<'_>) -> Option<AppKeepAlive> {
    let words = words(container);
    let image_node = container.get("image");
    let image = image_node.and_then(|n| n.as_str()).unwrap_or_default();
    let has = |name: &str| words.iter().any(|(w, _)| is_program(w, name));
    let first_word_span = |name: &str| {
        words
            .iter()
            .find(|(w, _)| is_program(w, name))
            .map(|(_, n)| n.span())
    };
    let implied = |what: &str, span: Option<Span>| -> (String, Span) {
        match span {
            Some(span) => (what.to_string(), span),
            None => {
                let span = image_node.map_or_else(|| container.span(), |n| n.span());
                (format!("image `{image}`"), span)
            }
        }
    };

    // gunicorn (also with uvicorn workers: gunicorn owns the keep-alive then).
    if has("gunicorn") {
        if let Some((value, node)) = flag(&words, &["--keep-alive"]) {
            let ms = decimal(&value, "s")?;
            return Some(AppKeepAlive {
                server: Server::Gunicorn,
                range: Range::exact(ms),
                source: Source::Argument {
                    text: format!("--keep-alive {value}"),
                    span: node.span(),
                },
                span: node.span(),
                headers_timeout: None,
            });
        }
        if let Some((value, node)) = env(container, "GUNICORN_CMD_ARGS") {
            let env_words: Vec<(&str, NodeRef<'_>)> =
                value.split_whitespace().map(|w| (w, node)).collect();
            if let Some((v, _)) = flag(&env_words, &["--keep-alive"]) {
                let ms = decimal(&v, "s")?;
                return Some(AppKeepAlive {
                    server: Server::Gunicorn,
                    range: Range::exact(ms),
                    source: Source::Field {
                        what: format!("env `GUNICORN_CMD_ARGS` `--keep-alive {v}`"),
                        span: node.span(),
                    },
                    span: node.span(),
                    headers_timeout: None,
                });
            }
        }
        // A config file that is not in the input may set `keepalive`: unknown, not a finding.
        if flag(&words, &["-c", "--config"]).is_some() {
            return None;
        }
        let (what, span) = implied("`gunicorn`", first_word_span("gunicorn"));
        return Some(AppKeepAlive {
            server: Server::Gunicorn,
            range: secs(2),
            source: Source::default_setting("gunicorn", "keepalive").implied_by(what, span),
            span,
            headers_timeout: None,
        });
    }
    if has("uvicorn") {
        if let Some((value, node)) = flag(&words, &["--timeout-keep-alive"]) {
            let ms = decimal(&value, "s")?;
            return Some(AppKeepAlive {
                server: Server::Uvicorn,
                range: Range::exact(ms),
                source: Source::Argument {
                    text: format!("--timeout-keep-alive {value}"),
                    span: node.span(),
                },
                span: node.span(),
                headers_timeout: None,
            });
        }
        let (what, span) = implied("`uvicorn`", first_word_span("uvicorn"));
        return Some(AppKeepAlive {
            server: Server::Uvicorn,
            range: secs(5),
            source: Source::default_setting("uvicorn", "--timeout-keep-alive")
                .implied_by(what, span),
            span,
            headers_timeout: None,
        });
    }
    if has("puma") {
        if flag(&words, &["-C", "--config"]).is_some() {
            return None;
        }
        let (what, span) = implied("`puma`", first_word_span("puma"));
        return Some(AppKeepAlive {
            server: Server::Puma,
            range: secs(20),
            source: Source::default_setting("puma", "persistent_timeout").implied_by(what, span),
            span,
            headers_timeout: None,
        });
    }
    // Spring Boot / Tomcat: only an explicit setting is a value; the default depends on
    // `connectionTimeout` and on server.xml, which kubegap does not see.
    if let Some((value, node)) = env(container, "SERVER_TOMCAT_KEEP_ALIVE_TIMEOUT")
        .or_else(|| flag(&words, &["--server.tomcat.keep-alive-timeout"]))
        .or_else(|| {
            words.iter().find_map(|(w, n)| {
                w.strip_prefix("-Dserver.tomcat.keep-alive-timeout=")
                    .map(|v| (v.to_string(), *n))
            })
        })
    {
        // Spring's Duration: a bare number is milliseconds.
        let ms = if value.chars().all(|c| c.is_ascii_digit()) {
            decimal(&value, "ms")?
        } else {
            parse_declared(&value)?
        };
        return Some(AppKeepAlive {
            server: Server::Tomcat,
            range: Range::exact(ms),
            source: Source::Argument {
                text: format!("server.tomcat.keep-alive-timeout={value}"),
                span: node.span(),
            },
            span: node.span(),
            headers_timeout: None,
        });
    }
    // Node.js: `next start --keepAliveTimeout MS`, else the default of the version.
    let node_cmd = has("node")
        || has("nodejs")
        || has("next")
        || (has("npm") && has("start"))
        || (has("yarn") && has("start"));
    let node_image = image_major(image, &["node"]);
    if node_cmd || node_image.is_some() {
        if let Some((value, node)) = flag(&words, &["--keepAliveTimeout"]) {
            let ms = decimal(&value, "ms")?;
            return Some(AppKeepAlive {
                server: Server::Node,
                range: Range::exact(ms),
                source: Source::Argument {
                    text: format!("--keepAliveTimeout {value}"),
                    span: node.span(),
                },
                span: node.span(),
                headers_timeout: None,
            });
        }
        let span = image_node.map_or_else(|| container.span(), |n| n.span());
        let default = Source::default_setting("Node.js", "keepAliveTimeout");
        let (range, default) = match node_image.flatten() {
            Some(major) => {
                let range = if major >= 26 { secs(65) } else { secs(5) };
                let default = default.at_version(Some(crate::config::Version(vec![major])));
                (range, default)
            }
            None => (
                Range {
                    low: Millis::from_secs(5),
                    high: Millis::from_secs(65),
                },
                default.with_note("version unknown: 5s before v26, 65s from v26"),
            ),
        };
        return Some(AppKeepAlive {
            server: Server::Node,
            range,
            source: default.implied_by(format!("image `{image}`"), span),
            span,
            headers_timeout: None,
        });
    }
    if image_major(image, &["httpd"]).is_some() {
        let span = image_node.map_or_else(|| container.span(), |n| n.span());
        return Some(AppKeepAlive {
            server: Server::Httpd,
            range: secs(5),
            source: Source::default_setting("Apache httpd 2.4", "KeepAliveTimeout")
                .implied_by(format!("image `{image}`"), span),
            span,
            headers_timeout: None,
        });
    }
    None
}
