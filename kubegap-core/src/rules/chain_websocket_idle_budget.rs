//! `chain-websocket-idle-budget`: a hop's idle or lifetime limit below what a long-lived route
//! declares it needs.

use crate::chain::{point, Layer, Reported};
use crate::rule::prelude::*;

declare_rule! {
    /// Along a long-lived route, some hop's idle limit is not above the declared ping interval,
    /// or some hop's lifetime limit is below the declared session lifetime.
    ///
    /// ## What it does
    /// For routes that declare `kubegap.io/ping-interval` (how often clients or servers send a
    /// WebSocket ping) or `kubegap.io/session-lifetime` (how long a session should last), on the
    /// Ingress or Route, the Service, the workload or its pod template (the first of these in
    /// that order wins, as in every rule), it checks every hop of the chain: idle limits (load balancer
    /// idle timeouts, proxy read timeouts, HAProxy `timeout tunnel`/`server`) must be above the
    /// ping interval, and lifetime limits (a GCP backend's `timeoutSec`, which caps a WebSocket's
    /// whole life, or a reload deadline) must be at least the session lifetime.
    ///
    /// ## Why is this bad?
    /// A ping every 60 s through an ALB whose idle timeout is 60 s races the timeout: sockets
    /// drop at random (mattermost/docs#8929). A GCP backend `timeoutSec` of 30 s (the default)
    /// ends every WebSocket after 30 s, idle or not. The founding incident's WebSockets died at
    /// a reload deadline no per-route timeout could lift (seed 000).
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: v1
    /// kind: Service
    /// metadata:
    ///   name: chat
    ///   annotations: {kubegap.io/ping-interval: 45s}
    /// spec: {selector: {app: chat}, ports: [{port: 80}]}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: chat
    ///   annotations: {nginx.ingress.kubernetes.io/proxy-read-timeout: "30"}
    /// spec:
    ///   ingressClassName: nginx
    ///   rules: [{http: {paths: [{path: /ws, pathType: Prefix, backend: {service: {name: chat, port: {number: 80}}}}]}}]
    /// ```
    /// ingress-nginx ends the socket after 30 s without data, before the next ping.
    ///
    /// Use instead: keep every idle limit above the ping interval (ideally twice it), and every
    /// lifetime cap above the session lifetime:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: Service
    /// metadata:
    ///   name: chat
    ///   annotations: {kubegap.io/ping-interval: 45s}
    /// spec: {selector: {app: chat}, ports: [{port: 80}]}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: chat
    ///   annotations: {nginx.ingress.kubernetes.io/proxy-read-timeout: "120"}
    /// spec:
    ///   ingressClassName: nginx
    ///   rules: [{http: {paths: [{path: /ws, pathType: Prefix, backend: {service: {name: chat, port: {number: 80}}}}]}}]
    /// ```
    pub static CHAIN_WEBSOCKET_IDLE_BUDGET = {
        id: "chain-websocket-idle-budget",
        severity: Warning,
        domain: Chain,
        summary: "a hop's idle or lifetime limit is below a long-lived route's declared ping interval or session lifetime",
        evidence: &[
            "https://github.com/mattermost/docs/issues/8929",
            "https://cloud.google.com/load-balancing/docs/backend-service#timeout-setting",
            "https://github.com/Azure/AKS/issues/1052",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let mut reported = Reported::default();
    let mut before: Option<crate::chain::Chain<'_>> = None;
    for (seen, chain) in cx.chains.iter_seen() {
        // The hops the chain before had too were read against the same declared values, unless
        // the workloads declare their own.
        let seen = match before.replace(chain) {
            Some(b) if b.declares_as(chain) => seen,
            _ => 0,
        };
        for (i, hop) in chain.hops().iter().enumerate().skip(seen) {
            if hop.layer == Layer::App || hop.layer == Layer::Service {
                continue;
            }
            // Once upgraded, a WebSocket is a tunnel: the tunnel timeout applies where there is one.
            let idle_limit = hop.tunnel_timeout.as_ref().or(hop.read_timeout.as_ref());
            if let (Some(ping), Some(idle)) = (chain.ping_interval(), idle_limit) {
                let at = point(chain, i, Some(idle));
                if idle.range.low <= ping.range.high
                    && reported.first_declared(chain, i, at, ping, false)
                {
                    let f = sink.report(
                        at,
                        format!(
                            "{} ends a connection after {} without data, not above the declared ping interval {}: long-lived connections drop between pings",
                            hop.name,
                            idle.show(cx.files),
                            ping.show(cx.files)
                        ),
                    );
                    if let Some(span) = ping.span() {
                        f.label(span, "declared ping interval");
                    }
                    f.note(format!(
                        "chain:\n{}",
                        chain.render_values(cx.files, Some(i), crate::chain::Shown::Timeouts)
                    ));
                    f.help("keep every idle limit above the ping interval (twice it avoids the race), or ping more often");
                }
            }
            if let (Some(life), Some(cap)) = (chain.session_lifetime(), &hop.lifetime) {
                let at = point(chain, i, Some(cap));
                if cap.range.low < life.range.high
                    && reported.first_declared(chain, i, at, life, true)
                {
                    let f = sink.report(
                        at,
                        format!(
                            "{} ends every connection after {}, before the declared session lifetime {}",
                            hop.name,
                            cap.show(cx.files),
                            life.show(cx.files)
                        ),
                    );
                    if let Some(span) = life.span() {
                        f.label(span, "declared session lifetime");
                    }
                    f.note(format!(
                        "chain:\n{}",
                        chain.render_values(cx.files, Some(i), crate::chain::Shown::Lifetime)
                    ));
                    f.help("raise the cap, or make clients reconnect (with jitter) before it");
                }
            }
        }
    }
}
