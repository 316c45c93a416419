//! `haproxy-websocket-without-tunnel-timeout`: idle WebSockets are cut by the client and
//! server timeouts when no `timeout tunnel` applies.

use crate::haproxy::cite;
use crate::rule::prelude::*;

declare_rule! {
    /// A WebSocket backend without an effective `timeout tunnel`.
    ///
    /// ## What it does
    /// Flags a backend (or listen) that receives WebSocket traffic (a `use_backend` whose
    /// condition is an ACL on `hdr(Upgrade)` / `req.hdr(upgrade)`, or such an ACL in a
    /// listen) when neither it nor its defaults section sets `timeout tunnel`.
    ///
    /// A backend without servers (one that answers itself, with `http-request return` or an
    /// applet) tunnels nothing and is not flagged.
    ///
    /// ## Why is this bad?
    /// Once a connection is upgraded, HAProxy uses `timeout tunnel` for it; without one, the
    /// client and server timeouts apply to the tunnel. These are tuned for HTTP requests
    /// (30 s in OpenShift's router, 50 s in the HAProxy controllers), so a WebSocket that
    /// stays quiet for that long is cut, and clients reconnect over and over
    /// (ApicurioArchive/apicurio-studio#221: WebSockets dropped after 60 s idle). HAProxy's
    /// documentation gives `timeout tunnel 1h` as the example "to use with WebSocket and
    /// CONNECT".
    ///
    /// `timeout tunnel` exists since HAProxy 1.5.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s
    ///
    /// frontend fe
    ///     bind :80
    ///     acl is_ws hdr(Upgrade) -i websocket
    ///     use_backend ws if is_ws
    ///     default_backend web
    ///
    /// backend ws
    ///     server ws1 10.0.0.1:8080
    ///
    /// backend web
    ///     server web1 10.0.0.2:8080
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
    ///     acl is_ws hdr(Upgrade) -i websocket
    ///     use_backend ws if is_ws
    ///     default_backend web
    ///
    /// backend ws
    ///     timeout tunnel 1h
    ///     server ws1 10.0.0.1:8080
    ///
    /// backend web
    ///     server web1 10.0.0.2:8080
    /// ```
    pub static HAPROXY_WEBSOCKET_WITHOUT_TUNNEL_TIMEOUT = {
        id: "haproxy-websocket-without-tunnel-timeout",
        severity: Warning,
        domain: Haproxy,
        summary: "a WebSocket backend without `timeout tunnel`: idle sockets end after the client or server timeout",
        evidence: &[
            "https://docs.haproxy.org/2.8/configuration.html#4.2-timeout%20tunnel",
            "https://github.com/ApicurioArchive/apicurio-studio/issues/221",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for view in cx.haproxy_views {
        for (&index, &route) in view.websocket_proxies() {
            if view.timeout(index, "tunnel").line.is_some() {
                continue;
            }
            // A backend without servers (an applet, `http-request return`) tunnels nothing.
            let section_kind = view.section(index).kind;
            if section_kind.has_backend()
                && crate::haproxy::Server::total(&view.servers(index)) == 0
            {
                continue;
            }
            let section = view.section(index);
            let mut cut_by = Vec::new();
            for name in ["server", "client"] {
                if name == "client" && !section.kind.has_frontend() {
                    continue;
                }
                let timeout = view.timeout(index, name);
                match timeout.line {
                    Some(line) => cut_by.push(cite(cx.files, line)),
                    None => cut_by.push(format!(
                        "no `timeout {name}` (no limit: HAProxy's built-in default)"
                    )),
                }
            }
            let timeouts = cut_by.join(" and ");
            sink.report(
                section.header_span(),
                format!(
                    "{} receives WebSocket traffic (at {}) but has no `timeout tunnel`, so idle WebSockets are cut by {timeouts}{}",
                    section.describe(),
                    cx.cite(route),
                    if section.kind.has_frontend() {
                        ""
                    } else {
                        " and the frontend's `timeout client`"
                    }
                ),
            )
            .label(route, "WebSocket traffic is routed here")
            .help("set `timeout tunnel` (e.g. `timeout tunnel 1h`) in the backend, or make the application ping more often than half the client and server timeouts");
        }
    }
}
