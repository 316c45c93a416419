//! `chain-request-timeout-inversion`: an outer hop gives up before an inner one.

use crate::chain::{layered, point, Layer, Reported};
use crate::rule::prelude::*;

declare_rule! {
    /// An outer hop's request (or idle) timeout is shorter than an inner hop's, so the outer hop
    /// gives up while the inner one keeps working.
    ///
    /// ## What it does
    /// Compares, along every chain, the time each hop waits for the next one: a load
    /// balancer's idle timeout (an ALB cuts a request that sends nothing for that long), an
    /// ingress controller's or nginx's `proxy-read-timeout`/`proxy_read_timeout`, HAProxy's
    /// `timeout server`, a CDN's read timeout. It flags an inner timeout longer than the one in
    /// front of it: that setting can never take effect.
    ///
    /// ## Why is this bad?
    /// With an ALB at 60 s and `proxy-read-timeout: 300` on the Ingress, users get a 504 after 60
    /// s while the request goes on for up to 5 minutes, holding a worker. The founding incident's
    /// advice (raise ingress-nginx's timeouts to 3600 s for WebSockets) could not help for the
    /// same reason: an outer limit was shorter (seed 000).
    ///
    /// ## Example
    /// An ingress-nginx controller behind an AWS load balancer whose idle timeout is 60 s, and an
    /// Ingress that lets its backend take 300 s:
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: ingress-nginx}}
    ///     spec: {containers: [{name: controller, image: "registry.k8s.io/ingress-nginx/controller:v1.10.0"}]}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata:
    ///   name: ingress-nginx-controller
    ///   namespace: ingress-nginx
    ///   annotations: {service.beta.kubernetes.io/aws-load-balancer-connection-idle-timeout: "60"}
    /// spec: {type: LoadBalancer, selector: {app: ingress-nginx}, ports: [{port: 80}]}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: report}
    /// spec: {selector: {app: report}, ports: [{port: 80}]}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: report
    ///   annotations: {nginx.ingress.kubernetes.io/proxy-read-timeout: "300"}
    /// spec:
    ///   ingressClassName: nginx
    ///   defaultBackend: {service: {name: report, port: {number: 80}}}
    /// ```
    ///
    /// Use instead: keep outer timeouts at or above inner ones (here, raise the load balancer's
    /// idle timeout), or stream progress so that no hop sits idle.
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: ingress-nginx}}
    ///     spec: {containers: [{name: controller, image: "registry.k8s.io/ingress-nginx/controller:v1.10.0"}]}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata:
    ///   name: ingress-nginx-controller
    ///   namespace: ingress-nginx
    ///   annotations: {service.beta.kubernetes.io/aws-load-balancer-connection-idle-timeout: "310"}
    /// spec: {type: LoadBalancer, selector: {app: ingress-nginx}, ports: [{port: 80}]}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: report}
    /// spec: {selector: {app: report}, ports: [{port: 80}]}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: report
    ///   annotations: {nginx.ingress.kubernetes.io/proxy-read-timeout: "300"}
    /// spec:
    ///   ingressClassName: nginx
    ///   defaultBackend: {service: {name: report, port: {number: 80}}}
    /// ```
    pub static CHAIN_REQUEST_TIMEOUT_INVERSION = {
        id: "chain-request-timeout-inversion",
        severity: Warning,
        domain: Chain,
        summary: "an outer hop times out before an inner one, so the inner timeout never takes effect (504s)",
        evidence: &[
            "https://github.com/mattermost/docs/issues/8929",
            "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/application-load-balancers.html#connection-idle-timeout",
            "https://cloud.google.com/load-balancing/docs/backend-service#timeout-setting",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let mut reported = Reported::default();
    let mut seen = Vec::new();
    for (before, chain) in cx.chains.iter_seen() {
        seen.clear();
        seen.extend(layered(chain));
        // Every outer/inner pair (not only neighbours): the innermost limit that can't apply.
        // Pairs the chain before had too (a run's own hops) are reported with it.
        for (k, &outer) in seen.iter().enumerate() {
            for &inner in seen[k + 1..].iter().filter(|inner| **inner >= before) {
                let (o, n) = (chain.hop(outer), chain.hop(inner));
                if n.layer == Layer::App {
                    continue;
                }
                // On a long-lived route the tunnel timeouts are what cut a connection.
                let long_lived = chain.long_lived().is_some();
                fn limit(h: &crate::chain::Hop, long_lived: bool) -> Option<&crate::chain::Value> {
                    if long_lived {
                        h.tunnel_timeout.as_ref().or(h.read_timeout.as_ref())
                    } else {
                        h.read_timeout.as_ref()
                    }
                }
                let (Some(ot), Some(it)) = (limit(o, long_lived), limit(n, long_lived)) else {
                    continue;
                };
                if ot.range.high >= it.range.low {
                    continue;
                }
                let at = point(chain, inner, Some(it));
                if !reported.first(chain, outer, inner, at, long_lived) {
                    continue;
                }
                let f = sink.report(
                    at,
                    format!(
                        "{} waits up to {} but {} in front gives up after {}: users get a timeout while the request goes on",
                        n.name,
                        it.show(cx.files),
                        o.name,
                        ot.show(cx.files)
                    ),
                );
                if let Some(span) = ot.span().or(o.span) {
                    f.label(
                        span,
                        format!("{} gives up after {}", o.name, ot.range.show()),
                    );
                }
                f.note(format!(
                    "chain:\n{}",
                    chain.render_values(cx.files, Some(inner), crate::chain::Shown::Timeouts)
                ));
                f.help(format!(
                    "raise {}'s timeout to at least {}, or lower this one",
                    o.name,
                    it.range.show()
                ));
            }
        }
    }
}
