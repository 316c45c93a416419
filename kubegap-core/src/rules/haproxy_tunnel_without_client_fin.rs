//! `haproxy-tunnel-without-client-fin`: half-closed tunnels linger for the whole tunnel
//! timeout.

use std::collections::BTreeMap;

use crate::haproxy::{cite, logic, Line};
use crate::rule::prelude::*;
use crate::value::duration::format_timeout;

declare_rule! {
    /// A long `timeout tunnel` (≥ 5 min) without `timeout client-fin`.
    ///
    /// ## What it does
    /// Flags a `timeout tunnel` of five minutes or more (or no limit) that applies to a
    /// backend when neither the backend's defaults nor any frontend routing to it sets
    /// `timeout client-fin`.
    ///
    /// ## Why is this bad?
    /// When a client closes its side of a tunnel (a WebSocket, RDP or CONNECT session) but
    /// never acknowledges the end, HAProxy keeps the half-closed connection until the tunnel
    /// timeout: with `timeout tunnel 1h`, a vanished mobile client holds a connection, a file
    /// descriptor and a conntrack entry for an hour, and after a reload it keeps the old
    /// process alive. HAProxy's documentation recommends `timeout client-fin` with long
    /// tunnels, as the problem is "particularly common long connections such as RDP or
    /// WebSocket".
    ///
    /// `timeout client-fin` exists since HAProxy 1.5.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s
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
    /// Use instead:
    /// ```haproxy,valid
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s
    ///     timeout tunnel 1h
    ///     timeout client-fin 30s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    pub static HAPROXY_TUNNEL_WITHOUT_CLIENT_FIN = {
        id: "haproxy-tunnel-without-client-fin",
        severity: Info,
        domain: Haproxy,
        summary: "a long `timeout tunnel` without `timeout client-fin`: half-closed tunnels linger",
        evidence: &["https://docs.haproxy.org/2.8/configuration.html#4.2-timeout%20client-fin"],
        check: check,
    }
}

/// A tunnel timeout line, its limit, and the backends it applies to.
type TunnelGroup<'a> = (
    &'a Line,
    Option<crate::value::duration::Millis>,
    Vec<String>,
);

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for view in cx.haproxy_views {
        // Frontends that route to each backend.
        let mut routed_from: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let by_name = view.backends_by_name();
        for (index, section) in view.proxies() {
            if !section.kind.has_frontend() {
                continue;
            }
            for route in view.routes(index) {
                if let Some(backend) = by_name.get(route.backend.text) {
                    routed_from.entry(*backend).or_default().push(index);
                }
            }
        }
        let has_client_fin = |index: usize| view.timeout(index, "client-fin").line.is_some();
        // Backends grouped by the tunnel line that applies to them.
        let mut groups: BTreeMap<(u32, u32), TunnelGroup<'_>> = BTreeMap::new();
        for (index, section) in view.backends() {
            let tunnel = view.timeout(index, "tunnel");
            let Some(line) = tunnel.line else {
                continue;
            };
            let Some(limit) = tunnel.value.as_ref().and_then(|d| d.limit()) else {
                continue;
            };
            if !logic::is_long_lived(limit) {
                continue;
            }
            let frontends = routed_from.get(&index).map(Vec::as_slice).unwrap_or(&[]);
            if has_client_fin(index) || frontends.iter().any(|f| has_client_fin(*f)) {
                continue;
            }
            groups
                .entry((line.span.start, line.span.end))
                .or_insert_with(|| (line, limit, Vec::new()))
                .2
                .push(section.describe());
        }
        for (line, limit, backends) in groups.into_values() {
            let value = line.word(2).map_or(line.span, |w| w.span);
            sink.report(
                value,
                format!(
                    "{} keeps half-closed tunnels of {} for up to {} because no `timeout client-fin` applies: a client that closed its side without finishing the close holds the connection that long",
                    cite(cx.files, line),
                    logic::enumerate(&backends),
                    format_timeout(limit)
                ),
            )
            .help("add `timeout client-fin 30s` (and `timeout server-fin`) next to the tunnel timeout");
        }
    }
}
