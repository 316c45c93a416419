//! `nginx-websocket-read-timeout-default`: a WebSocket location that closes idle sockets after a
//! minute or less.

use crate::rule::prelude::*;
use crate::rules::helpers::nginx::primary_span;

declare_rule! {
    /// A WebSocket location keeps `proxy_read_timeout` at 60 seconds or less.
    ///
    /// ## What it does
    /// For every proxied location that carries WebSockets (see `nginx-websocket-missing-upgrade`
    /// for how they are recognised), computes the effective `proxy_read_timeout` (location, then
    /// enclosing locations, server, http, then nginx's default of 60s) and flags values of 60
    /// seconds or less. The message says whether the value is nginx's default or which line set it.
    ///
    /// ## Why is this bad?
    /// `proxy_read_timeout` is the longest silence nginx accepts from the upstream. A WebSocket is
    /// mostly silent: with the default, nginx closes every connection that has not received a
    /// message for a minute, and all clients reconnect. The nginx guide says so ("the connection
    /// will be closed if the proxied server does not transmit any data within 60 seconds"), and
    /// ingress-nginx recommends more than an hour for WebSockets. Keep the value bounded by
    /// reloads (`worker_shutdown_timeout`) or have the server ping more often than half the timeout.
    ///
    /// ## Example
    /// ```nginx,invalid
    /// events {}
    /// http {
    ///     server {
    ///         listen 80;
    ///         location /socket.io/ {
    ///             proxy_pass http://realtime:3000;
    ///             proxy_http_version 1.1;
    ///             proxy_set_header Upgrade $http_upgrade;
    ///             proxy_set_header Connection "upgrade";
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
    ///         location /socket.io/ {
    ///             proxy_pass http://realtime:3000;
    ///             proxy_http_version 1.1;
    ///             proxy_set_header Upgrade $http_upgrade;
    ///             proxy_set_header Connection "upgrade";
    ///             proxy_read_timeout 1h;
    ///             proxy_send_timeout 1h;
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// ## References
    /// - <https://nginx.org/en/docs/http/websocket.html>
    /// - <https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_read_timeout>
    pub static NGINX_WEBSOCKET_READ_TIMEOUT_DEFAULT = {
        id: "nginx-websocket-read-timeout-default",
        severity: Warning,
        domain: Nginx,
        summary: "a WebSocket location closes connections idle for 60s or less (`proxy_read_timeout`)",
        evidence: &[
            "https://nginx.org/en/docs/http/websocket.html",
            "https://kubernetes.github.io/ingress-nginx/user-guide/miscellaneous/#websockets",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for cfg in cx.nginx {
        for ll in cfg.long_lived(cx.files) {
            let timeout = cfg.proxy_read_timeout(Some(ll.proxy_pass));
            if timeout.value > crate::value::duration::Millis::from_secs(60) {
                continue;
            }
            let finding = sink.report(
                primary_span(cfg, ll.location, ll.proxy_pass),
                format!(
                    "`{}` proxies WebSockets but closes them after {} without upstream data \
                     ({})",
                    cfg.describe(ll.location),
                    timeout.value,
                    timeout.source.cite(cx.files)
                ),
            );
            finding.note(format!(
                "kubegap treats it as a WebSocket location because {}",
                ll.reason
            ));
            if let Some(span) = timeout.source.span() {
                finding.label(span, "read timeout set here");
            }
            finding.help(
                "raise `proxy_read_timeout` (and `proxy_send_timeout`) above the longest expected \
                 silence, e.g. `1h`, or make the server ping more often than half the timeout",
            );
        }
    }
}
