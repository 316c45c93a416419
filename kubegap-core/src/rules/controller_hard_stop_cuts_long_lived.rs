//! `controller-hard-stop-cuts-long-lived`: a HAProxy-based controller's hard stop cuts
//! long-lived routes at every reload.

use crate::controllers::Product;
use crate::reload::outlives;
use crate::rule::prelude::*;
use crate::value::duration::format_ms;

declare_rule! {
    /// A long-lived route (WebSocket, SSE, gRPC stream) served by a HAProxy-based controller
    /// whose hard stop ends every connection at most that long after any reload.
    ///
    /// ## What it does
    /// Finds Ingresses served by the HAProxy Kubernetes Ingress Controller (`hard-stop-after`,
    /// default 30m), haproxy-ingress (`timeout-stop`, default 10m) and OpenShift Routes whose
    /// IngressController sets `ingress.operator.openshift.io/hard-stop-after` (no default).
    /// When the route is long-lived (declared with `kubegap.io/long-lived`, or a long timeout,
    /// a tunnel timeout, or a WebSocket path), reports it at the evidence, with the deadline's
    /// source. This is the Kubernetes twin of `haproxy-hard-stop-cuts-long-lived`.
    ///
    /// ## Why is this bad?
    /// A reload starts a new HAProxy process; the old one keeps its connections until the hard
    /// stop, then quits "even if connections remain opened". Any route change served by the
    /// controller, by any team, triggers a reload, so long-lived connections are cut at once,
    /// at a random-looking moment, and reconnect together. In the founding incident a shared
    /// HAProxy with `hard-stop-after 30m` cut every WebSocket 30 minutes after another team's
    /// deploy; the reconnect storm overloaded the token API and conntrack.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: networking.k8s.io/v1
    /// kind: IngressClass
    /// metadata: {name: haproxy}
    /// spec: {controller: haproxy.org/ingress-controller/haproxy}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: chat
    ///   annotations:
    ///     kubegap.io/long-lived: websocket
    /// spec:
    ///   ingressClassName: haproxy
    ///   defaultBackend: {service: {name: chat, port: {number: 80}}}
    /// ```
    ///
    /// The fix: serve long-lived traffic from an L4 load balancer or a dedicated, rarely
    /// reloaded proxy (here, an AWS ALB).
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: chat
    ///   annotations:
    ///     kubegap.io/long-lived: websocket
    ///     alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=600
    /// spec:
    ///   ingressClassName: alb
    ///   defaultBackend: {service: {name: chat, port: {number: 80}}}
    /// ```
    ///
    /// ## References
    /// Seeds 000 and 001 (shared HAProxy, `hard-stop-after 30m`); haproxytech
    /// kubernetes-ingress commit 28e13c65 (default 30m); haproxy-ingress `timeout-stop` docs;
    /// openshift/cluster-ingress-operator#522.
    pub static CONTROLLER_HARD_STOP_CUTS_LONG_LIVED = {
        id: "controller-hard-stop-cuts-long-lived",
        severity: Warning,
        domain: Controller,
        summary: "a long-lived route behind a HAProxy-based controller whose hard stop cuts it at every reload",
        evidence: &[
            "https://github.com/haproxytech/kubernetes-ingress/commit/28e13c65",
            "https://haproxy-ingress.github.io/docs/configuration/keys/#timeout",
            "https://github.com/openshift/cluster-ingress-operator/pull/522",
            "https://docs.haproxy.org/2.8/configuration.html#3.1-hard-stop-after",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let model = cx.controllers;
    for route in &model.routes {
        let Some(product) = route.binding.as_ref().map(|b| b.product) else {
            continue;
        };
        if !matches!(
            product,
            Product::HaproxyTech | Product::HaproxyIngress | Product::OpenShift
        ) {
            continue;
        }
        let (Some(long_lived), Some(deadline)) = (&route.long_lived, &route.reload_deadline) else {
            continue;
        };
        let finding = sink.report(
            long_lived.span,
            format!(
                "{} carries {} connections ({}) through the {} whose hard stop is {}: every reload, after any route change it serves, cuts them at most {} later",
                cx.describe(route.obj),
                long_lived.kind.name(),
                long_lived.reason,
                product.name(),
                deadline.describe(cx.files),
                format_ms(deadline.value.ms()),
            ),
        );
        if let Some(span) = deadline.source.key_span() {
            finding.label(span, "the hard stop");
        }
        if let Some(note) = route
            .controller
            .and_then(|i| model.controllers.get(i))
            .and_then(|c| c.assumed_default_note(&deadline.source))
        {
            finding.note(note);
        }
        if let Some(tunnel) = &route.tunnel_timeout {
            if outlives(Some(tunnel.value), deadline.value) {
                finding.note(format!(
                    "the tunnel timeout {} is not a lifetime: reloads cap it at {}",
                    tunnel.describe(cx.files),
                    format_ms(deadline.value.ms())
                ));
            }
        }
        finding.help(
            "serve long-lived traffic from a dedicated controller or an L4 load balancer that reloads rarely, spread the closes (haproxy-ingress `close-sessions-duration`, HAProxy `close-spread-time`), and make clients reconnect with jittered backoff",
        );
    }
}
