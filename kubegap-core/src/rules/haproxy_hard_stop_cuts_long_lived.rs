//! `haproxy-hard-stop-cuts-long-lived`: `hard-stop-after` caps every WebSocket and tunnel at
//! the time since the last reload, whoever triggered it.

use std::collections::BTreeMap;

use crate::haproxy::{logic, LongLived};
use crate::rule::prelude::*;
use crate::value::duration::format_timeout;

declare_rule! {
    /// `hard-stop-after` cuts long-lived connections (WebSockets, tunnels, long TCP sessions)
    /// at most that long after any reload.
    ///
    /// ## What it does
    /// Flags the global `hard-stop-after <D>` when a proxy carries connections that can live
    /// longer than `D`: its effective `timeout tunnel` exceeds `D`; or, in `mode tcp`, its
    /// `timeout client`/`timeout server` exceeds `D`; or WebSocket traffic is routed to it (an
    /// ACL on `hdr(Upgrade)` / `req.hdr(upgrade)` in a `use_backend` condition).
    ///
    /// ## Why is this bad?
    /// Every reload (`SIGUSR2` to the master, `-sf`) soft-stops the old process, which keeps
    /// the established connections until they close or until `hard-stop-after` expires; then
    /// every one of them is killed at once. On a shared HAProxy, *any* team's configuration
    /// change reloads it, so the idle timeout is not a lifetime guarantee: WebSockets die at
    /// most `D` after someone else's deploy, and all clients reconnect together. This is
    /// kubegap's founding incident (seed 000: a shared HAProxy with `hard-stop-after 30m` cut
    /// every WebSocket 30 minutes after any tenant's reload, and the reconnect storm overloaded
    /// a token API and the conntrack tables of the ingress nodes). The HAProxy Kubernetes
    /// Ingress Controller sets `hard-stop-after 30m` by default, haproxy-ingress `10m`
    /// (`timeout-stop`), and ingress-nginx has the same cap with `worker-shutdown-timeout`
    /// (kubernetes/ingress-nginx#8977).
    ///
    /// `hard-stop-after` exists since HAProxy 1.8; `timeout tunnel` since 1.5.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// global
    ///     hard-stop-after 30m
    ///
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 50s
    ///     timeout server 50s
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
    ///
    /// Use instead: serve long-lived traffic from a proxy that is rarely reloaded (a dedicated
    /// HAProxy, IngressClass or an L4 load balancer), and choose the deadline as the maximum
    /// session lifetime, spreading the closes with `close-spread-time` (HAProxy ≥ 2.6):
    /// ```haproxy,valid
    /// global
    ///     hard-stop-after 2h
    ///     close-spread-time 90m
    ///
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 50s
    ///     timeout server 50s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend web
    ///
    /// backend web
    ///     timeout tunnel 1h
    ///     server web1 10.0.0.2:8080
    /// ```
    pub static HAPROXY_HARD_STOP_CUTS_LONG_LIVED = {
        id: "haproxy-hard-stop-cuts-long-lived",
        severity: Warning,
        domain: Haproxy,
        summary: "`hard-stop-after` cuts WebSockets and tunnels at most that long after anyone's reload",
        evidence: &[
            "https://docs.haproxy.org/2.8/configuration.html#3.1-hard-stop-after",
            "https://github.com/haproxytech/kubernetes-ingress/blob/master/pkg/haproxy/env/defaults.go",
            "https://haproxy-ingress.github.io/docs/configuration/keys/#timeout",
            "https://github.com/kubernetes/ingress-nginx/issues/8977",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for view in cx.haproxy_views {
        let Some((hard_stop, hard_stop_line)) = view.global_time("hard-stop-after") else {
            continue;
        };
        let Some(Some(deadline)) = hard_stop.limit() else {
            continue;
        };
        let websocket = view.websocket_proxies();
        // Proxies made long-lived by the same line (a shared defaults section) give one finding.
        let mut groups: BTreeMap<(u32, u32), (LongLived<'_>, Vec<String>)> = BTreeMap::new();
        for (index, section) in view.proxies() {
            let Some(reason) =
                view.long_lived(index, websocket, |limit| logic::outlives(limit, deadline))
            else {
                continue;
            };
            let span = reason.span();
            groups
                .entry((span.start, span.end))
                .or_insert_with(|| (reason, Vec::new()))
                .1
                .push(section.describe());
        }
        for (reason, proxies) in groups.into_values() {
            let why = match &reason {
                LongLived::Timeout { limit, .. } => format!(
                    "{} lets them idle for {}",
                    reason.describe(cx.files),
                    format_timeout(*limit)
                ),
                LongLived::WebSocket(_) => format!("it carries {}", reason.describe(cx.files)),
            };
            let label = match &reason {
                LongLived::Timeout { limit, .. } => format!(
                    "{} outlives the {} hard stop",
                    format_timeout(*limit),
                    deadline
                ),
                LongLived::WebSocket(_) => "WebSocket traffic is routed here".to_string(),
            };
            sink.report(
                hard_stop_line.span,
                format!(
                    "{} cuts every long-lived connection of {} at most {} after any reload, whoever triggers it; {why}",
                    crate::haproxy::cite(cx.files, hard_stop_line),
                    logic::enumerate(&proxies),
                    deadline,
                ),
            )
            .label(reason.span(), label)
            .help(
                "serve long-lived traffic from a proxy that is rarely reloaded (a dedicated HAProxy or an L4 load balancer), treat `hard-stop-after` as the maximum session lifetime, spread the closes with `close-spread-time` (HAProxy 2.6+), and make clients reconnect with jittered backoff",
            );
        }
    }
}
