//! `haproxy-missing-timeouts`: an unset client, server or connect timeout means no timeout.

use crate::haproxy::logic;
use crate::rule::prelude::*;

declare_rule! {
    /// A proxy whose effective `timeout client`, `timeout server` or `timeout connect` is unset
    /// (or `0`), which means no timeout at all.
    ///
    /// ## What it does
    /// Flags each `frontend` or `listen` without an effective `timeout client`, and each
    /// `backend` or `listen` with servers without an effective `timeout connect` or
    /// `timeout server`, looking at the proxy and the defaults section it inherits from.
    ///
    /// ## Why is this bad?
    /// HAProxy's built-in default for these timeouts is infinite. HAProxy warns about it at
    /// startup: "an unspecified timeout results in an infinite timeout, which is not
    /// recommended. Such a usage is accepted and works but reports a warning during startup
    /// because it may result in accumulation of expired sessions in the system if the system's
    /// timeouts are not configured either." Sessions to vanished clients or servers pile up,
    /// and after a reload they keep the old process alive indefinitely.
    ///
    /// These timeouts exist in every HAProxy version.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// defaults
    ///     mode http
    ///     timeout client 30s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    ///
    /// Use instead:
    /// ```haproxy,valid
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    pub static HAPROXY_MISSING_TIMEOUTS = {
        id: "haproxy-missing-timeouts",
        severity: Warning,
        domain: Haproxy,
        summary: "a proxy without `timeout client`, `server` or `connect`: HAProxy then waits forever",
        evidence: &["https://docs.haproxy.org/2.8/configuration.html#4.2-timeout%20client"],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for view in cx.haproxy_views {
        for (index, section) in view.proxies() {
            let mut names: Vec<&str> = Vec::new();
            if section.kind.has_frontend() {
                names.push("client");
            }
            if section.kind.has_backend() && !view.servers(index).is_empty() {
                names.extend(["connect", "server"]);
            }
            let mut missing = Vec::new();
            let mut zero_lines = Vec::new();
            for name in names {
                let timeout = view.timeout(index, name);
                match (timeout.line, timeout.value.as_ref().and_then(|d| d.limit())) {
                    (None, _) => missing.push(format!("`timeout {name}`")),
                    (Some(line), Some(None)) => {
                        missing.push(format!(
                            "`timeout {name}` (`{}` at {} means no timeout)",
                            line.text(2),
                            cx.cite(line.span)
                        ));
                        zero_lines.push(line.span);
                    }
                    _ => {}
                }
            }
            if missing.is_empty() {
                continue;
            }
            let finding = sink.report(
                section.header_span(),
                format!(
                    "{} has no effective {}: HAProxy's built-in default is no timeout, so idle or dead connections are kept forever",
                    section.describe(),
                    logic::enumerate(&missing)
                ),
            );
            for span in zero_lines {
                finding.label(span, "no timeout");
            }
            finding.help("set `timeout connect`, `timeout client` and `timeout server` with units in the defaults section (e.g. `5s`, `30s`, `30s`)");
        }
    }
}
