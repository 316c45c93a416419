//! `chain-app-keepalive-below-upstream`: the app closes idle connections the hop in front
//! still pools.

use crate::chain::{pairs, point, upstream, Cause, Causes, Layer};
use crate::rule::prelude::*;
use std::sync::Arc;

declare_rule! {
    /// The application's idle keep-alive is not longer than the idle time of the connection pool
    /// in front of it, so the pool reuses connections the application is closing.
    ///
    /// ## What it does
    /// Builds the chain of hops of every route (load balancer, ingress controller or proxy,
    /// Service, application) and compares the application's idle keep-alive with the pool idle
    /// time of the hop directly in front: an ALB's idle timeout, ingress-nginx's
    /// `upstream-keepalive-timeout`, an nginx upstream's `keepalive_timeout`, or HAProxy's
    /// `pool-purge-delay`. The application's value comes from a flag, an env var, the
    /// `kubegap.io/keepalive-timeout` annotation, or the documented default of the server kubegap
    /// detects (gunicorn 2 s, uvicorn 5 s, Node.js 5 s before v26, puma 20 s, Apache 5 s).
    /// Unknown servers, and servers configured by a file that is not in the input, are skipped.
    /// When the default depends on a version kubegap cannot see (a Node.js image of its own,
    /// `node dist/server.js`: 5 s before v26, 65 s from v26), the finding is a warning that
    /// says so, and an error only when every possible value is too short.
    ///
    /// ## Why is this bad?
    /// When the server closes an idle connection at the same moment the proxy sends a request
    /// on it, the proxy answers 502 at once, even at low load. This is the most common silent
    /// outage between layers: CloudFront → ALB (60 s) → Node.js (5 s) gave random 502s until the
    /// timeouts were ordered (seed 003, nodejs/node#27363); gunicorn's 2 s default behind nginx
    /// or an ALB caused the same in alphagov, PostHog, Superset and dify.
    ///
    /// ## Example
    /// ```nginx
    /// events {}
    /// http {
    ///     upstream api { server api.shop.svc.cluster.local:80; keepalive 16; }
    ///     server { listen 80; location / { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; } }
    /// }
    /// ```
    /// with, in the same run, a Deployment `api` in namespace `shop` running
    /// `gunicorn app:app` (2 s) behind Service `api`: the upstream pool idles for 60 s. The same
    /// through an ALB (idle timeout 60 s by default):
    ///
    /// ```yaml,invalid
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: api, namespace: shop}
    /// spec: {selector: {app: api}, ports: [{port: 80, targetPort: http}]}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: api, namespace: shop}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: api}}
    ///     spec:
    ///       containers:
    ///         - name: api
    ///           image: python:3.12
    ///           command: [gunicorn, --bind, "0.0.0.0:8000", app:app]
    ///           ports: [{name: http, containerPort: 8000}]
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: api
    ///   namespace: shop
    ///   annotations: {alb.ingress.kubernetes.io/scheme: internet-facing}
    /// spec:
    ///   ingressClassName: alb
    ///   rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: api, port: {number: 80}}}}]}}]
    /// ```
    ///
    /// Use instead: make the application's keep-alive longer than the pool in front
    /// (`gunicorn --keep-alive 75`, Node `server.keepAliveTimeout = 65000` with
    /// `headersTimeout` above it, `uvicorn --timeout-keep-alive 75`), or shorten the pool.
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: api, namespace: shop}
    /// spec: {selector: {app: api}, ports: [{port: 80, targetPort: http}]}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: api, namespace: shop}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: api}}
    ///     spec:
    ///       containers:
    ///         - name: api
    ///           image: python:3.12
    ///           command: [gunicorn, --keep-alive, "75", --bind, "0.0.0.0:8000", app:app]
    ///           ports: [{name: http, containerPort: 8000}]
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata: {name: api, namespace: shop}
    /// spec:
    ///   ingressClassName: alb
    ///   rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: api, port: {number: 80}}}}]}}]
    /// ```
    pub static CHAIN_APP_KEEPALIVE_BELOW_UPSTREAM = {
        id: "chain-app-keepalive-below-upstream",
        severity: Error,
        domain: Chain,
        summary: "the application's idle keep-alive is not longer than the connection pool in front of it (random 502s)",
        evidence: &[
            "https://github.com/nodejs/node/issues/27363",
            "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/application-load-balancers.html#connection-idle-timeout",
            "https://github.com/alphagov/govuk-puppet/pull/4826",
            "https://github.com/PostHog/posthog/pull/17897",
            "https://www.flightcontrol.dev/docs/troubleshooting/load-balancer-502-keepalive-timeout",
        ],
        check: check,
        also_reports: [Warning],
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    // The message reads the app hop (its name and keep-alive), the upstream's name and its pool:
    // one cause per (place, app hop, upstream name, pool), the label at each upstream's pool.
    let mut causes = Causes::default();
    let read = crate::chain::workload_pairs(
        cx.files,
        cx.chains,
        |run| {
            let u = upstream(run).filter(|u| !u.gclb)?;
            let pool = u.pool_idle.as_ref()?;
            Some(((u.name.as_str(), pool.range), pool.span().or(u.span)))
        },
        |a, b| upstream(a).map(|u| &u.pool_idle) == upstream(b).map(|u| &u.pool_idle),
    );
    for (run, read) in cx.chains.runs().zip(read) {
        // A run with workloads has no app hop of its own: its only pairs with an app hop are
        // with its workloads' hops, which another run offers, or which make no cause.
        if !read {
            continue;
        }
        for (k, chain) in (run.first()..).zip(run.chains()) {
            let Some((up, app)) = pairs(chain).last() else {
                continue;
            };
            let (u, a) = (chain.hop(up), chain.hop(app));
            if a.layer != Layer::App || u.gclb {
                continue;
            }
            let (Some(pool), Some(keep)) = (&u.pool_idle, &a.keepalive) else {
                continue;
            };
            if keep.range.low > pool.range.low {
                continue;
            }
            let key = (
                point(chain, app, Some(keep)),
                Arc::as_ptr(a),
                u.name.as_str(),
                pool.range,
            );
            causes.offer(
                cx.files,
                key,
                (k, up, app),
                pool.span().or(u.span),
                |c: &Cause| cx.chains.get(c.chain).hop(c.outer).pool_idle.as_ref() == Some(pool),
            );
        }
    }
    for cause in causes.in_order() {
        let chain = cx.chains.get(cause.chain);
        let (up, app) = (cause.outer, cause.inner);
        let (u, a) = (chain.hop(up), chain.hop(app));
        let (Some(pool), Some(keep)) = (&u.pool_idle, &a.keepalive) else {
            continue;
        };
        // A range (Node.js of unknown version: 5s before v26, 65s from v26) that is only partly
        // too short is a warning that says so, not an error.
        let certain = keep.range.high <= pool.range.low;
        let message = if certain {
            format!(
                "`{}` closes idle connections after {}, but {} keeps pooled connections to it for {}: requests sent as the app closes a connection get 502",
                a.name,
                keep.show(cx.files),
                u.name,
                pool.show(cx.files)
            )
        } else {
            format!(
                "`{}` may close idle connections after {} ({}), but {} keeps pooled connections to it for {}: with the shorter default, requests sent as the app closes a connection get 502",
                a.name,
                keep.range.low,
                keep.source.cite(cx.files),
                u.name,
                pool.show(cx.files)
            )
        };
        let f = sink.report(point(chain, app, Some(keep)), message);
        if !certain {
            f.severity(Severity::Warning);
        }
        if let Some(span) = pool.span().or(u.span) {
            f.label(
                span,
                format!(
                    "{} pools idle connections for {}",
                    u.name,
                    pool.range.show()
                ),
            );
        }
        f.note(format!("chain:\n{}", chain.render(cx.files, Some(app))));
        f.help(format!(
            "make the application's keep-alive longer than {} (e.g. {}), or shorten the pool in front",
            pool.range.show(),
            crate::value::duration::Millis(pool.range.high.ms() + 5000)
        ));
    }
}
