//! `nginx-no-worker-shutdown-timeout`: long-lived locations and no deadline for old workers.

use crate::rule::prelude::*;
use crate::rules::helpers::nginx::primary_span;

declare_rule! {
    /// A complete nginx.conf proxies WebSockets but sets no `worker_shutdown_timeout`.
    ///
    /// ## What it does
    /// Flags a configuration with a main context (`events`, `http` or `stream` at the top level;
    /// fragments such as `conf.d/*.conf` cannot set it) that has WebSocket locations (recognised as
    /// in `nginx-websocket-missing-upgrade`) and no `worker_shutdown_timeout`. The finding points at
    /// the first such location and labels the others. When a main-context `include` could not be
    /// read (an absolute path without `--nginx-prefix`), a note says the directive may be there.
    ///
    /// ## Why is this bad?
    /// Without the directive, old workers wait for their last connection to close after a reload.
    /// A WebSocket can stay open for hours, so each reload leaves a worker behind: memory and
    /// connection slots pile up, and those connections keep running the old configuration (removed
    /// upstreams included). The opposite choice, a short deadline, cuts every socket at each reload
    /// (`nginx-worker-shutdown-cuts-long-lived`): pick a deadline on purpose.
    ///
    /// ## Example
    /// ```nginx,invalid
    /// events {}
    /// http {
    ///     server {
    ///         listen 80;
    ///         location /cable {
    ///             proxy_pass http://rails:3000;
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
    /// ```nginx,valid
    /// worker_shutdown_timeout 2h;
    /// events {}
    /// http {
    ///     server {
    ///         listen 80;
    ///         location /cable {
    ///             proxy_pass http://rails:3000;
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
    pub static NGINX_NO_WORKER_SHUTDOWN_TIMEOUT = {
        id: "nginx-no-worker-shutdown-timeout",
        severity: Info,
        domain: Nginx,
        summary: "WebSocket locations and no `worker_shutdown_timeout`: old workers pile up across reloads",
        evidence: &[
            "https://www.netdata.cloud/guides/nginx/nginx-old-worker-processes-accumulating/",
            "https://github.com/kubernetes/ingress-nginx/issues/2461",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for cfg in cx.nginx {
        if !cfg.is_complete() || cfg.main_directive("worker_shutdown_timeout").is_some() {
            continue;
        }
        let long_lived = cfg.long_lived(cx.files);
        let Some(first) = long_lived.first() else {
            continue;
        };
        let count = long_lived.len();
        let finding = sink.report(
            primary_span(cfg, first.location, first.proxy_pass),
            format!(
                "`{}` proxies WebSockets and there is no `worker_shutdown_timeout` (nginx default: \
                 none), so after each reload old workers run until their last connection closes{}",
                cfg.describe(first.location),
                if count > 1 {
                    format!(" ({count} long-lived locations)")
                } else {
                    String::new()
                }
            ),
        );
        finding.note(format!(
            "kubegap treats it as a WebSocket location because {}",
            first.reason
        ));
        for include in &cfg.unresolved_includes {
            if cfg.get(*include).parent.is_none() {
                finding.note(format!(
                    "kubegap did not read `{}` (absolute paths are read only under --nginx-prefix), \
                     which may set it",
                    cfg.describe(*include)
                ));
            }
        }
        for other in long_lived.iter().skip(1) {
            finding.label(
                primary_span(cfg, other.location, other.proxy_pass),
                "another long-lived location",
            );
        }
        finding.help(
            "set `worker_shutdown_timeout` in the main context to a deadline chosen on purpose \
             (longer than the WebSockets' read timeout, shorter than the pod's grace period)",
        );
    }
}
