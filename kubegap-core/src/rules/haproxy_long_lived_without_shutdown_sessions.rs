//! `haproxy-long-lived-without-shutdown-sessions`: connections to a server marked down stay
//! open until they time out.

use crate::haproxy::logic;
use crate::rule::prelude::*;

declare_rule! {
    /// A long-lived backend with health checks but no `on-marked-down shutdown-sessions`.
    ///
    /// ## What it does
    /// Flags a backend (or listen) that carries long-lived connections (an explicit
    /// `timeout tunnel`, or in `mode tcp` `timeout server`, of five minutes or more; or
    /// WebSocket routes) whose servers are health-checked (`check` on the server or a
    /// `default-server`) but do not have `on-marked-down shutdown-sessions`.
    ///
    /// ## Why is this bad?
    /// When a health check marks a server down, HAProxy stops sending it new connections but
    /// leaves the established ones alone ("Actions are disabled by default"). Tunnels and
    /// long TCP sessions then stay bound to a dead or draining server until their timeout,
    /// up to hours, instead of reconnecting to a healthy one. After backends were replaced,
    /// OpenShift's router kept sending traffic to pods that were gone for minutes
    /// (openshift/router#654, founding incident e), and idle server connections to a server
    /// in maintenance were not purged (haproxy/haproxy#1236).
    ///
    /// `on-marked-down shutdown-sessions` exists since HAProxy 1.5.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// defaults
    ///     mode tcp
    ///     timeout connect 5s
    ///     timeout client 1h
    ///     timeout server 1h
    ///
    /// listen db
    ///     bind :5432
    ///     server db1 10.0.0.1:5432 check
    ///     server db2 10.0.0.2:5432 check backup
    /// ```
    ///
    /// Use instead:
    /// ```haproxy,valid
    /// defaults
    ///     mode tcp
    ///     timeout connect 5s
    ///     timeout client 1h
    ///     timeout server 1h
    ///
    /// listen db
    ///     bind :5432
    ///     default-server on-marked-down shutdown-sessions
    ///     server db1 10.0.0.1:5432 check
    ///     server db2 10.0.0.2:5432 check backup
    /// ```
    pub static HAPROXY_LONG_LIVED_WITHOUT_SHUTDOWN_SESSIONS = {
        id: "haproxy-long-lived-without-shutdown-sessions",
        severity: Info,
        domain: Haproxy,
        summary: "long-lived connections stay on a server marked down: no `on-marked-down shutdown-sessions`",
        evidence: &[
            "https://github.com/openshift/router/issues/654",
            "https://github.com/haproxy/haproxy/issues/1236",
            "https://docs.haproxy.org/2.8/configuration.html#5.2-on-marked-down",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for view in cx.haproxy_views {
        let websocket = view.websocket_proxies();
        for (index, section) in view.backends() {
            let Some(reason) = view.long_lived(index, websocket, logic::is_long_lived) else {
                continue;
            };
            let servers = view.servers(index);
            let defaults = view.default_servers(index);
            let unprotected: Vec<_> = servers
                .iter()
                .filter(|s| view.server_checked(&defaults, s))
                .filter(|s| !view.server_param(&defaults, s, "on-marked-down", "shutdown-sessions"))
                .collect();
            let Some(first) = unprotected.first() else {
                continue;
            };
            sink.report(
                section.header_span(),
                format!(
                    "{} carries long-lived connections ({}) and health-checks {} without `on-marked-down shutdown-sessions`: connections to a server marked down stay open until they time out",
                    section.describe(),
                    reason.describe(cx.files),
                    if unprotected.len() == 1 {
                        "1 server".to_string()
                    } else {
                        format!("{} servers", unprotected.len())
                    }
                ),
            )
            .label(first.line.span, "checked, but sessions survive a failed check")
            .label(reason.span(), "long-lived")
            .help("add `default-server on-marked-down shutdown-sessions` so clients reconnect to a healthy server (check first that they reconnect gracefully)");
        }
    }
}
