//! `route-long-lived-defaults`: a long-lived OpenShift Route on the router's short defaults, or
//! with a tunnel timeout the hard stop overrides.

use crate::controllers::RouteKind;
use crate::reload::{idle_survives_ping, outlives};
use crate::rule::prelude::*;
use crate::value::duration::format_ms;

declare_rule! {
    /// A long-lived OpenShift Route that relies on the router's 30 s server and client
    /// timeouts, or whose tunnel timeout is longer than the router's hard stop.
    ///
    /// ## What it does
    /// For each Route that is long-lived (declared with `kubegap.io/long-lived`, or a sign such
    /// as `haproxy.router.openshift.io/timeout-tunnel` or a WebSocket path), resolves its
    /// effective timeouts: `haproxy.router.openshift.io/timeout`, else the IngressController's
    /// `spec.tuningOptions.serverTimeout`, else 30 s; the tunnel timeout likewise (default 1h);
    /// the hard stop from `ingress.operator.openshift.io/hard-stop-after`. Reports:
    /// - a streaming route that is not a tunnel (server-sent events, gRPC streams) whose server
    ///   timeout is the 30 s default, or not longer than its declared `kubegap.io/ping-interval`;
    /// - a tunnel timeout longer than the hard stop, which then is the real limit.
    ///
    /// ## Why is this bad?
    /// SSE and long polls are not tunnels: HAProxy applies the server and client timeouts to
    /// them, so with the defaults a quiet stream is cut after 30 s. A WebSocket's tunnel
    /// timeout of hours promises a lifetime the router does not keep: every reload ends it at
    /// the hard stop (apicurio-studio#221: WebSockets dropped after 60 s on OpenShift).
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: route.openshift.io/v1
    /// kind: Route
    /// metadata:
    ///   name: feed
    ///   annotations:
    ///     kubegap.io/long-lived: sse
    /// spec:
    ///   to: {kind: Service, name: feed}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: route.openshift.io/v1
    /// kind: Route
    /// metadata:
    ///   name: feed
    ///   annotations:
    ///     kubegap.io/long-lived: sse
    ///     haproxy.router.openshift.io/timeout: 10m
    /// spec:
    ///   to: {kind: Service, name: feed}
    /// ```
    ///
    /// ## References
    /// OpenShift route configuration (`haproxy.router.openshift.io/timeout`,
    /// `timeout-tunnel`); router defaults (client/server 30 s, tunnel 1h);
    /// openshift/cluster-ingress-operator#522; ApicurioArchive/apicurio-studio#221.
    pub static ROUTE_LONG_LIVED_DEFAULTS = {
        id: "route-long-lived-defaults",
        severity: Warning,
        domain: Controller,
        summary: "a long-lived OpenShift Route on the 30 s server/client defaults, or with a tunnel timeout above the hard stop",
        evidence: &[
            "https://docs.openshift.com/container-platform/4.2/networking/routes/route-configuration.html",
            "https://access.redhat.com/node/5357081",
            "https://github.com/ApicurioArchive/apicurio-studio/issues/221",
            "https://github.com/openshift/cluster-ingress-operator/pull/522",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let model = cx.controllers;
    for route in &model.routes {
        if route.kind != RouteKind::Route {
            continue;
        }
        let Some(long_lived) = &route.long_lived else {
            continue;
        };
        if !long_lived.kind.is_tunnel() {
            if let Some(server) = &route.read_timeout {
                let ping = route.ping_interval.as_ref();
                let too_short = ping.is_some_and(|p| !idle_survives_ping(server.value, p.value));
                if server.source.is_default() || too_short {
                    let client = route
                        .client_timeout
                        .as_ref()
                        .map(|c| format!(" and client timeout {}", c.describe(cx.files)))
                        .unwrap_or_default();
                    let why = match ping {
                        Some(p) if too_short => {
                            format!("not longer than its ping interval {}", p.describe(cx.files))
                        }
                        _ => "so a stream quiet for that long is cut".to_string(),
                    };
                    let f = sink.report(
                        server.source.span().unwrap_or(long_lived.span),
                        format!(
                            "{} carries {} traffic ({}), which is not a tunnel: its server timeout is {}{client}, {why}",
                            cx.describe(route.obj),
                            long_lived.kind.name(),
                            long_lived.reason,
                            server.describe(cx.files),
                        ),
                    );
                    f.help("set `haproxy.router.openshift.io/timeout` above the stream's heartbeat interval (and the client timeout in the IngressController's `tuningOptions`), and send heartbeats");
                }
            }
        }
        if let (Some(tunnel), Some(deadline)) = (&route.tunnel_timeout, &route.reload_deadline) {
            if long_lived.kind.is_tunnel() && outlives(Some(tunnel.value), deadline.value) {
                let f = sink.report(
                    tunnel.source.span().unwrap_or(long_lived.span),
                    format!(
                        "{} has tunnel timeout {}, longer than the router's hard stop {}: reloads cut its connections within {}",
                        cx.describe(route.obj),
                        tunnel.describe(cx.files),
                        deadline.describe(cx.files),
                        format_ms(deadline.value.ms()),
                    ),
                );
                if let Some(span) = deadline.source.key_span() {
                    f.label(span, "the hard stop");
                }
                f.help("treat the hard stop as the maximum session lifetime: make clients reconnect with jittered backoff, or serve this route from a dedicated IngressController that reloads rarely");
            }
        }
    }
}
