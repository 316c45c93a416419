//! `chain-gcp-backend-keepalive`: a backend behind a GCP HTTP(S) load balancer with a keep-alive
//! of 600 s or less.

use crate::chain::{pairs, point, upstream, Causes};
use crate::rule::prelude::*;
use std::sync::Arc;

declare_rule! {
    /// A backend behind a Google Cloud HTTP(S) load balancer whose idle keep-alive is 600 s or
    /// less.
    ///
    /// ## What it does
    /// Finds chains whose load balancer is a GCP external or internal HTTP(S) load balancer
    /// (Ingress class `gce`/`gce-internal`, or NEG-backed Services) and checks the keep-alive
    /// of the next hop: ingress-nginx (75 s by default), nginx (75 s), or the application
    /// (gunicorn 2 s, Node 5 s, …).
    ///
    /// ## Why is this bad?
    /// Google's front ends keep connections to backends for a fixed 600 s and Google's
    /// documentation requires the backend's keep-alive to be longer; otherwise requests fail with
    /// `backend_connection_closed_before_data_sent_to_client` 502s.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: api}
    /// spec: {selector: {app: api}, ports: [{port: 80, targetPort: 8000}]}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: api}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: api}}
    ///     spec: {containers: [{name: api, image: "python:3.12", command: [uvicorn, main:app], ports: [{containerPort: 8000}]}]}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata: {name: api, annotations: {kubernetes.io/ingress.class: gce}}
    /// spec: {defaultBackend: {service: {name: api, port: {number: 80}}}}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: api}
    /// spec: {selector: {app: api}, ports: [{port: 80, targetPort: 8000}]}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: api}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: api}}
    ///     spec: {containers: [{name: api, image: "python:3.12", command: [uvicorn, main:app, --timeout-keep-alive, "620"], ports: [{containerPort: 8000}]}]}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata: {name: api, annotations: {kubernetes.io/ingress.class: gce}}
    /// spec: {defaultBackend: {service: {name: api, port: {number: 80}}}}
    /// ```
    pub static CHAIN_GCP_BACKEND_KEEPALIVE = {
        id: "chain-gcp-backend-keepalive",
        severity: Error,
        domain: Chain,
        summary: "a backend behind a GCP HTTP(S) load balancer keeps idle connections 600 s or less",
        evidence: &[
            "https://cloud.google.com/load-balancing/docs/https#timeouts_and_retries",
            "https://github.com/cloudendpoints/esp/issues/726",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    // The message reads the inner hop alone: one cause per (place, inner hop), the label at
    // each route's load balancer.
    let mut causes = Causes::default();
    // Runs to the same workloads behind a GCP load balancer give the same causes for each
    // workload, labelled at each run's load balancer ([`crate::chain::workload_pairs`]).
    let read = crate::chain::workload_pairs(
        cx.files,
        cx.chains,
        |run| upstream(run).filter(|u| u.gclb).map(|u| ((), u.span)),
        |_, _| true,
    );
    for (run, read) in cx.chains.runs().zip(read) {
        // The run's own pairs are the same in each of its chains: the first offers them.
        let chains = if read { run.len() } else { 1 };
        for (k, chain) in (run.first()..).zip(run.chains().take(chains)) {
            for (up, down) in pairs(chain) {
                let shared = down < run.shared();
                if (k > run.first() && shared) || (!read && !shared) {
                    continue;
                }
                let (u, d) = (chain.hop(up), chain.hop(down));
                if !u.gclb {
                    continue;
                }
                let Some(keep) = &d.keepalive else { continue };
                if keep.range.high > crate::value::duration::Millis::from_secs(600) {
                    continue;
                }
                let key = (point(chain, down, Some(keep)), Arc::as_ptr(d));
                causes.offer(cx.files, key, (k, up, down), u.span, |_| true);
            }
        }
    }
    for cause in causes.in_order() {
        let chain = cx.chains.get(cause.chain);
        let (up, down) = (cause.outer, cause.inner);
        let (u, d) = (chain.hop(up), chain.hop(down));
        let Some(keep) = &d.keepalive else { continue };
        let f = sink.report(
            point(chain, down, Some(keep)),
            format!(
                "{} keeps idle connections for {}, but the GCP load balancer in front reuses backend connections for 600s (fixed): expect 502s",
                d.name,
                keep.show(cx.files)
            ),
        );
        if let Some(span) = u.span {
            f.label(span, "GCP HTTP(S) load balancer");
        }
        f.note(format!("chain:\n{}", chain.render(cx.files, Some(down))));
        f.help("set the backend's keep-alive above 600s (e.g. 620s: nginx `keepalive_timeout 650s`, ingress-nginx `keep-alive: \"650\"`, gunicorn `--keep-alive 620`)");
    }
}
