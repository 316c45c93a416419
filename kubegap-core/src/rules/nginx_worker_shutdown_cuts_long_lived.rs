//! `nginx-worker-shutdown-cuts-long-lived`: reloads end WebSockets before their read timeout.

use crate::rule::prelude::*;
use crate::rules::helpers::nginx::primary_span;

declare_rule! {
    /// `worker_shutdown_timeout` is shorter than a WebSocket location's read timeout.
    ///
    /// ## What it does
    /// Compares the main-context `worker_shutdown_timeout` with the effective `proxy_read_timeout`
    /// of every WebSocket location (recognised as in `nginx-websocket-missing-upgrade`) and flags
    /// locations whose read timeout is longer.
    ///
    /// ## Why is this bad?
    /// On every reload nginx starts new workers and asks the old ones to finish; after
    /// `worker_shutdown_timeout` the old workers close whatever is still open. The effective
    /// lifetime of a WebSocket is then the time to the next reload, capped at that deadline,
    /// whatever `proxy_read_timeout` promises, and every client of every such location reconnects at
    /// the same moment. Behind a controller that reloads on any change of any tenant, this is the
    /// founding incident of kubegap (a shared proxy's reload cut all WebSockets at its deadline and
    /// the reconnect storm overloaded the token API), the same trap as HAProxy's `hard-stop-after`,
    /// and ingress-nginx issues #8977, #7115 and #2461 (WebSockets cut 240s after each reload).
    ///
    /// ## Example
    /// ```nginx,invalid
    /// worker_shutdown_timeout 10s;
    /// events {}
    /// http {
    ///     server {
    ///         listen 80;
    ///         location /ws {
    ///             proxy_pass http://chat:8080;
    ///             proxy_http_version 1.1;
    ///             proxy_set_header Upgrade $http_upgrade;
    ///             proxy_set_header Connection "upgrade";
    ///             proxy_read_timeout 1h;
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Use instead:
    ///
    /// (a deadline chosen knowingly, longer than the read timeout; or move long-lived traffic to a
    /// proxy that rarely reloads)
    /// ```nginx,valid
    /// worker_shutdown_timeout 2h;
    /// events {}
    /// http {
    ///     server {
    ///         listen 80;
    ///         location /ws {
    ///             proxy_pass http://chat:8080;
    ///             proxy_http_version 1.1;
    ///             proxy_set_header Upgrade $http_upgrade;
    ///             proxy_set_header Connection "upgrade";
    ///             proxy_read_timeout 1h;
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// ## References
    /// - <https://nginx.org/en/docs/ngx_core_module.html#worker_shutdown_timeout>
    pub static NGINX_WORKER_SHUTDOWN_CUTS_LONG_LIVED = {
        id: "nginx-worker-shutdown-cuts-long-lived",
        severity: Warning,
        domain: Nginx,
        summary: "`worker_shutdown_timeout` cuts WebSockets at every reload before their read timeout",
        evidence: &[
            "https://github.com/kubernetes/ingress-nginx/issues/8977",
            "https://github.com/kubernetes/ingress-nginx/issues/7115",
            "https://github.com/kubernetes/ingress-nginx/issues/2461",
            "https://github.com/Octops/gameserver-ingress-controller/issues/21",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for cfg in cx.nginx {
        let Some(shutdown) = cfg.worker_shutdown_timeout() else {
            continue;
        };
        for ll in cfg.long_lived(cx.files) {
            let read = cfg.proxy_read_timeout(Some(ll.proxy_pass));
            if shutdown.value >= read.value {
                continue;
            }
            let finding = sink.report(
                primary_span(cfg, ll.location, ll.proxy_pass),
                format!(
                    "every reload cuts the WebSockets of `{}` after {} ({}), \
                     before their read timeout of {} ({})",
                    cfg.describe(ll.location),
                    shutdown.value,
                    shutdown.source.cite(cx.files),
                    read.value,
                    read.source.cite(cx.files),
                ),
            );
            if let Some(span) = shutdown.source.span() {
                finding.label(span, "old workers are stopped after this deadline");
            }
            if let Some(span) = read.source.span() {
                finding.label(span, "read timeout set here");
            }
            finding.note(format!(
                "kubegap treats it as a WebSocket location because {}",
                ll.reason
            ));
            finding.help(
                "serve long-lived traffic from an nginx that rarely reloads, or raise \
                 `worker_shutdown_timeout` knowingly (and the pod's termination grace period with it); \
                 clients should reconnect with jitter",
            );
        }
    }
}
