//! `nginx-retry-non-idempotent`: nginx retries POSTs on another server.

use crate::rule::prelude::*;

declare_rule! {
    /// `proxy_next_upstream` (or another `*_next_upstream`) includes `non_idempotent`.
    ///
    /// ## What it does
    /// Flags the `non_idempotent` argument of `proxy_next_upstream`, `grpc_next_upstream`,
    /// `fastcgi_next_upstream`, `uwsgi_next_upstream`, `scgi_next_upstream` and
    /// `memcached_next_upstream`.
    ///
    /// ## Why is this bad?
    /// Since 1.9.13 nginx does not pass a request with a non-idempotent method (POST, LOCK, PATCH)
    /// to the next server once it was sent to one, because the first server may have executed it.
    /// `non_idempotent` turns that protection off: on a timeout or a reset (a pod being drained, a
    /// keep-alive race with the application) the request runs twice, which means double payments,
    /// duplicated messages and repeated side effects during every rollout.
    ///
    /// ## Example
    /// ```nginx,invalid
    /// events {}
    /// http {
    ///     server {
    ///         listen 80;
    ///         location /api/ {
    ///             proxy_pass http://orders:8080;
    ///             proxy_next_upstream error timeout non_idempotent;
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```nginx,valid
    /// events {}
    /// http {
    ///     server {
    ///         listen 80;
    ///         location /api/ {
    ///             proxy_pass http://orders:8080;
    ///             proxy_next_upstream error timeout;
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// ## References
    /// - <https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_next_upstream>
    pub static NGINX_RETRY_NON_IDEMPOTENT = {
        id: "nginx-retry-non-idempotent",
        severity: Warning,
        domain: Nginx,
        summary: "`proxy_next_upstream non_idempotent` retries POST/PATCH on another server",
        evidence: &[
            "https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_next_upstream",
            "https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/configmap/#proxy-next-upstream",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for cfg in cx.nginx {
        for (_, d) in cfg.iter() {
            if !d.name.ends_with("_next_upstream") {
                continue;
            }
            let Some(arg) = d.args.iter().find(|a| a.value == "non_idempotent") else {
                continue;
            };
            sink.report(
                arg.span,
                format!(
                    "`{}` retries non-idempotent requests (POST, LOCK, PATCH) on another server \
                     after one already received them, so they can run twice",
                    d.name
                ),
            )
            .help("remove `non_idempotent`; make clients retry with idempotency keys instead");
        }
    }
}
