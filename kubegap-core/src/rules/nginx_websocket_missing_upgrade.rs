//! `nginx-websocket-missing-upgrade`: a WebSocket location that does not pass the handshake on.

use crate::nginx::NginxConfig;
use crate::rule::prelude::*;
use crate::rules::helpers::nginx::primary_span;

declare_rule! {
    /// A location proxies WebSocket traffic without passing the `Upgrade` handshake to the upstream.
    ///
    /// ## What it does
    /// Finds proxied locations that carry WebSockets (a path such as `/ws`, `/socket.io/`,
    /// `/websocket`, `/cable`, `/hub` or `/sockjs`, an upstream named for WebSockets, a
    /// `# kubegap: long-lived` comment, or an `Upgrade` header already forwarded) and flags those
    /// that lack `proxy_set_header Upgrade $http_upgrade`, a `Connection` header carrying the
    /// upgrade (`"upgrade"` or a `map` variable such as `$connection_upgrade`), or
    /// `proxy_http_version 1.1` where the nginx version still defaults to 1.0 (before 1.29.7; when
    /// the version is unknown, kubegap assumes an older nginx and says so).
    ///
    /// ## Why is this bad?
    /// `Upgrade` and `Connection` are hop-by-hop headers: nginx does not forward them unless told
    /// to, and HTTP/1.0 has no upgrade at all. The handshake then fails (the client sees a 400 or
    /// a plain HTTP response) or, behind some backends, silently falls back to long polling. The
    /// nginx WebSocket guide lists the three directives as required.
    ///
    /// ## Example
    /// ```nginx,invalid
    /// events {}
    /// http {
    ///     server {
    ///         listen 80;
    ///         location /ws/ {
    ///             proxy_pass http://chat:8080;
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```nginx,valid
    /// events {}
    /// http {
    ///     map $http_upgrade $connection_upgrade {
    ///         default upgrade;
    ///         ''      close;
    ///     }
    ///     server {
    ///         listen 80;
    ///         location /ws/ {
    ///             proxy_pass http://chat:8080;
    ///             proxy_http_version 1.1;
    ///             proxy_set_header Upgrade $http_upgrade;
    ///             proxy_set_header Connection $connection_upgrade;
    ///             proxy_read_timeout 1h;
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// ## References
    /// - <https://nginx.org/en/docs/http/websocket.html>
    pub static NGINX_WEBSOCKET_MISSING_UPGRADE = {
        id: "nginx-websocket-missing-upgrade",
        severity: Error,
        domain: Nginx,
        summary: "a WebSocket location does not forward `Upgrade`/`Connection` or uses HTTP/1.0 upstream",
        evidence: &["https://nginx.org/en/docs/http/websocket.html"],
        check: check,
    }
}

/// Whether a `Connection` header value carries the upgrade: a literal containing `upgrade`, the
/// client's own `$http_connection`, or a variable that a `map` sets to an `upgrade` value.
fn connection_carries_upgrade(cfg: &NginxConfig, value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    if lower.contains("upgrade") || lower == "$http_connection" {
        return true;
    }
    let Some(var) = value.strip_prefix('$') else {
        return false;
    };
    cfg.iter().any(|(id, d)| {
        d.name == "map"
            && d.arg(1).is_some_and(|v| v.strip_prefix('$') == Some(var))
            && cfg.children(Some(id)).iter().any(|e| {
                cfg.get(*e)
                    .args
                    .iter()
                    .any(|a| a.value.to_ascii_lowercase().contains("upgrade"))
            })
    })
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for cfg in cx.nginx {
        for ll in cfg.long_lived(cx.files) {
            let at = Some(ll.proxy_pass);
            let mut missing: Vec<String> = Vec::new();
            let mut labels: Vec<(Span, String)> = Vec::new();

            match cfg.proxy_header(at, "Upgrade") {
                Some(id) => {
                    let v = cfg.get(id).arg(1).unwrap_or("");
                    // A constant (`websocket`, or any token) with `Connection: upgrade` passes the
                    // upgrade on as well; only an empty value drops it.
                    if v.is_empty() || v == "\"\"" {
                        missing.push(
                            "`Upgrade` is set to an empty value, not `$http_upgrade`".to_string(),
                        );
                        labels.push((cfg.get(id).span, "`Upgrade` set here".into()));
                    }
                }
                None => missing.push("no `proxy_set_header Upgrade $http_upgrade`".into()),
            }
            match cfg.proxy_header(at, "Connection") {
                Some(id) => {
                    let v = cfg.get(id).arg(1).unwrap_or("");
                    if !connection_carries_upgrade(cfg, v) {
                        let shown = if v.is_empty() { "\"\"" } else { v };
                        missing.push(format!(
                            "`Connection` is set to `{shown}`, which does not carry `upgrade`"
                        ));
                        labels.push((cfg.get(id).span, "`Connection` set here".into()));
                    }
                }
                None => missing.push(
                    "no `proxy_set_header Connection` with `upgrade` (nginx sends `Connection: close`)"
                        .into(),
                ),
            }
            let version = cfg.proxy_http_version(at, cx.settings);
            if version.value != "1.1" {
                let source = version.source.cite(cx.files);
                missing.push(format!(
                    "`proxy_http_version` is {} ({source})",
                    version.value
                ));
                if let Some(span) = version.source.span() {
                    labels.push((span, format!("HTTP/{} set here", version.value)));
                }
            }
            if missing.is_empty() {
                continue;
            }
            let primary = primary_span(cfg, ll.location, ll.proxy_pass);
            let finding = sink.report(
                primary,
                format!(
                    "`{}` proxies WebSockets but does not pass the upgrade on: {}",
                    cfg.describe(ll.location),
                    missing.join("; ")
                ),
            );
            finding.note(format!(
                "kubegap treats it as a WebSocket location because {}",
                ll.reason
            ));
            if primary != cfg.get(ll.proxy_pass).span {
                finding.label(cfg.get(ll.proxy_pass).span, "proxied here");
            }
            for (span, message) in labels {
                finding.label(span, message);
            }
            finding.help(
                "add `proxy_http_version 1.1;`, `proxy_set_header Upgrade $http_upgrade;` and \
                 `proxy_set_header Connection $connection_upgrade;` (with the usual \
                 `map $http_upgrade $connection_upgrade { default upgrade; '' close; }`)",
            );
        }
    }
}
