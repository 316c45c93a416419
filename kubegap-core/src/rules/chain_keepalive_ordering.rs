//! `chain-keepalive-ordering`: two pooling hops whose idle timeouts are in the wrong order.

use crate::chain::{app, pairs, point, Layer, Reported};
use crate::rule::prelude::*;

declare_rule! {
    /// Two consecutive pooling hops (CDN → load balancer, load balancer → proxy) where the inner
    /// hop's idle keep-alive is not longer than the outer hop's pool idle time; also a Node.js
    /// `headersTimeout` that is not longer than its `keepAliveTimeout`.
    ///
    /// ## What it does
    /// Walks every chain from the outside in and compares, for each pair of hops that pool
    /// connections, the outer hop's pool idle time with the inner hop's keep-alive (the pair
    /// next to the application is `chain-app-keepalive-below-upstream`, and a GCP load balancer
    /// in front is `chain-gcp-backend-keepalive`). For Node.js applications that declare both
    /// (`kubegap.io/keepalive-timeout`, `kubegap.io/headers-timeout`), it checks that
    /// `headersTimeout` is above `keepAliveTimeout`.
    ///
    /// ## Why is this bad?
    /// Each hop must close an idle connection *after* the hop in front stops reusing it;
    /// otherwise the outer hop sends a request on a connection being closed and returns 502.
    /// The fix in seed 003 was exactly an ordering: CloudFront 55 s < ALB 60 s < Node
    /// `keepAliveTimeout` 61 s < `headersTimeout` 65 s. On Node 10.15.2–17, a `headersTimeout`
    /// at or below `keepAliveTimeout` closes kept-alive connections early (nodejs/node#27363),
    /// which is why Node raised its default to 60 s "to not break compatibility with AWS ELBs".
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: api
    ///   annotations:
    ///     kubegap.io/keepalive-timeout: 65s
    ///     kubegap.io/headers-timeout: 60s
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: api}}
    ///     spec: {containers: [{name: api, image: "node:20", command: [node, server.js]}]}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: api
    ///   annotations:
    ///     kubegap.io/keepalive-timeout: 65s
    ///     kubegap.io/headers-timeout: 66s
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: api}}
    ///     spec: {containers: [{name: api, image: "node:20", command: [node, server.js]}]}
    /// ```
    pub static CHAIN_KEEPALIVE_ORDERING = {
        id: "chain-keepalive-ordering",
        severity: Warning,
        domain: Chain,
        summary: "an inner hop's idle keep-alive is not longer than the outer hop's pool (or Node headersTimeout ≤ keepAliveTimeout)",
        evidence: &[
            "https://github.com/nodejs/node/issues/27363",
            "https://github.com/nodejs/node/pull/30071",
            "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/application-load-balancers.html#connection-idle-timeout",
            "https://github.com/kubernetes/ingress-nginx/issues/3099",
        ],
        check: check,
        workloads: check_workloads,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let mut reported = Reported::default();
    for (seen, chain) in cx.chains.iter_seen() {
        // Pairs of hops the chain before had too (a run's own hops) are reported with it.
        for (up, down) in pairs(chain).filter(|(_, down)| *down >= seen) {
            let (u, d) = (chain.hop(up), chain.hop(down));
            if d.layer == Layer::App || u.gclb {
                continue;
            }
            let (Some(pool), Some(keep)) = (&u.pool_idle, &d.keepalive) else {
                continue;
            };
            if keep.range.high > pool.range.low {
                continue;
            }
            // Point at the inner value when it is written, else at the outer one (the value
            // the user can change), else at the hop.
            let primary = keep
                .span()
                .or(pool.span())
                .unwrap_or_else(|| point(chain, down, Some(keep)));
            if !reported.first(chain, up, down, primary, false) {
                continue;
            }
            let f = sink.report(
                primary,
                format!(
                    "{} closes idle connections after {}, but {} in front pools them for {}: it may send requests on connections being closed (502)",
                    d.name,
                    keep.show(cx.files),
                    u.name,
                    pool.show(cx.files)
                ),
            );
            if let Some(span) = pool.span().filter(|s| *s != primary) {
                f.label(span, format!("{} pools for {}", u.name, pool.range.show()));
            }
            f.note(format!("chain:\n{}", chain.render(cx.files, Some(down))));
            f.help(format!(
                "order the idle timeouts from the outside in: {} < {} < …",
                u.name, d.name
            ));
        }
    }
}

/// Node's headersTimeout against its keepAliveTimeout, per workload. Only a declared
/// keep-alive has a declared headers timeout beside it ([`app::declared`]): the container's
/// command line is not read here.
fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    let stage = cx.chain_stage();
    for w in workloads {
        let Some(Some(found)) = app::declared(&stage, w) else {
            continue;
        };
        let Some((headers, span)) = found.headers_timeout else {
            continue;
        };
        if headers > found.range.low {
            continue;
        }
        sink.report(
            span,
            format!(
                "`headersTimeout` {} is not above `keepAliveTimeout` {} ({}): Node closes kept-alive connections early",
                headers,
                found.range.show(),
                found.source.cite(cx.files)
            ),
        )
        .label(found.span, "keepAliveTimeout")
        .help("set `server.headersTimeout` above `server.keepAliveTimeout` (e.g. keepAliveTimeout + 1s)");
    }
}
