//! `nginx-upstream-keepalive-ineffective`: an upstream keep-alive pool that is never used.

use crate::rule::prelude::*;

declare_rule! {
    /// An upstream with `keepalive` is proxied to over HTTP/1.0 or with `Connection: close`.
    ///
    /// ## What it does
    /// For every `proxy_pass` to an upstream block that has `keepalive N`, computes the effective
    /// `proxy_http_version` (location → server → http → nginx's default: 1.0 before 1.29.7, 1.1
    /// from then; an unknown version is assumed older) and the effective `proxy_set_header` set,
    /// and flags the `proxy_pass` when the version is 1.0 or, before 1.29.7, when the `Connection`
    /// header is not cleared (`proxy_set_header Connection "";`).
    ///
    /// ## Why is this bad?
    /// nginx only keeps upstream connections open for HTTP/1.1 requests without
    /// `Connection: close`, and by default (before 1.29.7) it sends HTTP/1.0 with
    /// `Connection: close`. The pool then stays empty: every request opens a new TCP (and TLS)
    /// connection, which costs latency, ephemeral ports and conntrack entries under load (the
    /// connection-churn family of incidents), while the configuration looks tuned.
    ///
    /// ## Example
    /// ```nginx,invalid
    /// events {}
    /// http {
    ///     upstream api {
    ///         server 10.0.0.10:8080;
    ///         keepalive 32;
    ///     }
    ///     server {
    ///         listen 80;
    ///         location / {
    ///             proxy_pass http://api;
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```nginx,valid
    /// events {}
    /// http {
    ///     upstream api {
    ///         server 10.0.0.10:8080;
    ///         keepalive 32;
    ///     }
    ///     server {
    ///         listen 80;
    ///         location / {
    ///             proxy_pass http://api;
    ///             proxy_http_version 1.1;
    ///             proxy_set_header Connection "";
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// ## References
    /// - <https://nginx.org/en/docs/http/ngx_http_upstream_module.html#keepalive>
    pub static NGINX_UPSTREAM_KEEPALIVE_INEFFECTIVE = {
        id: "nginx-upstream-keepalive-ineffective",
        severity: Warning,
        domain: Nginx,
        summary: "an upstream `keepalive` pool is unused (HTTP/1.0 or `Connection: close` to the upstream)",
        evidence: &[
            "https://nginx.org/en/docs/http/ngx_http_upstream_module.html#keepalive",
            "https://github.com/nginx/nginx-gateway-fabric/issues/4291",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let new_defaults = cx
        .settings
        .nginx_version
        .as_ref()
        .is_some_and(|v| v.at_least(&crate::nginx::HTTP11_DEFAULT_SINCE));
    for cfg in cx.nginx {
        let upstreams = cfg.upstreams();
        for pass in cfg.proxy_passes() {
            if cfg.get(pass.directive).name != "proxy_pass" {
                continue;
            }
            let Some(upstream) = pass.upstream.and_then(|i| upstreams.get(i)) else {
                continue;
            };
            let Some(keepalive) = upstream.keepalive else {
                continue;
            };
            let at = Some(pass.directive);
            let mut problems = Vec::new();
            let mut labels = Vec::new();
            let version = cfg.proxy_http_version(at, cx.settings);
            // HTTP/1.1 and HTTP/2 (`proxy_http_version 2`, nginx 1.29+) both reuse connections.
            let old_http = version.value == "1.0";
            if old_http {
                problems.push(format!(
                    "`proxy_http_version` is {} ({})",
                    version.value,
                    version.source.cite(cx.files)
                ));
                if let Some(span) = version.source.span() {
                    labels.push((span, format!("HTTP/{} set here", version.value)));
                }
            }
            match cfg.proxy_header(at, "Connection") {
                Some(id) => {
                    let value = cfg.get(id).arg(1).unwrap_or("");
                    if value.to_ascii_lowercase().contains("close") {
                        problems.push(format!("the `Connection` header is set to `{value}`"));
                        labels.push((cfg.get(id).span, "`Connection` set here".to_string()));
                    }
                }
                None if !new_defaults && version.value != "2" => problems.push(
                    "the `Connection` header is not cleared (nginx default: `Connection: close`)"
                        .to_string(),
                ),
                None => {}
            }
            if problems.is_empty() {
                continue;
            }
            let finding = sink.report(
                cfg.get(pass.directive).span,
                format!(
                    "upstream `{}` keeps idle connections ({}) but this `proxy_pass` never \
                     reuses them: {}",
                    upstream.name,
                    crate::value::provenance::Source::Directive {
                        name: cfg.describe(keepalive),
                        span: cfg.get(keepalive).span
                    }
                    .cite(cx.files),
                    problems.join("; ")
                ),
            );
            finding.label(cfg.get(keepalive).span, "keep-alive pool declared here");
            for (span, message) in labels {
                finding.label(span, message);
            }
            finding.help(
                "add `proxy_http_version 1.1;` and `proxy_set_header Connection \"\";` to the \
                 location (or the server or http block)",
            );
        }
    }
}
