//! `controller-static-order-roundrobin`: round-robin over a fixed server order restarts at the
//! same pod on every reload.

use crate::controllers::{Product, Source};
use crate::reload::restarts_at_first_server;
use crate::rule::prelude::*;

/// haproxytech replicas from which synchronised restarts are reported.
const MANY_REPLICAS: i64 = 3;

declare_rule! {
    /// A HAProxy-based controller that balances round-robin over servers in a fixed order, so
    /// every reload sends the next requests of every replica to the same first pods.
    ///
    /// ## What it does
    /// Reports, for haproxy-ingress: v0.6 and older (the template bug of haproxy-ingress#240
    /// writes servers sorted whatever `--sort-backends` says) with a round-robin balance;
    /// `--sort-endpoints-by=ip|name` or `--sort-backends` combined with round-robin. The
    /// balance is the ConfigMap's `balance-algorithm`, else the default of the version
    /// (`random(2)` from v0.16, `roundrobin` before or when the version is unknown). For the
    /// HAProxy Kubernetes Ingress Controller: `load-balance: roundrobin` (the default) with
    /// 3 or more controller replicas.
    ///
    /// ## Why is this bad?
    /// Round-robin starts again from the first server after every reload. With the same
    /// order everywhere and frequent reloads, the first pods of each backend take far more
    /// than their share: hot pods, high tail latency, and probe failures that cause more
    /// reloads (Skyscanner on haproxy-ingress v0.6; kubernetes-retired/contrib#1827, "a
    /// self-sustaining spiral").
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: haproxy-ingress, namespace: ingress}
    /// spec:
    ///   template:
    ///     spec:
    ///       containers:
    ///         - name: haproxy-ingress
    ///           image: quay.io/jcmoraisjr/haproxy-ingress:v0.14.5
    ///           args: [--sort-endpoints-by=ip]
    /// ```
    ///
    /// The fix: a `random` endpoint order, or the `random(2)` balance (the default from v0.16).
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: haproxy-ingress, namespace: ingress}
    /// spec:
    ///   template:
    ///     spec:
    ///       containers:
    ///         - name: haproxy-ingress
    ///           image: quay.io/jcmoraisjr/haproxy-ingress:v0.14.5
    ///           args: [--sort-endpoints-by=random]
    /// ```
    ///
    /// ## References
    /// Seed 001 (incident 4); haproxy-ingress#240 and PR #247; haproxy-ingress PR #1282
    /// (`random(2)` default); kubernetes-retired/contrib#1827; d2iq-archive/marathon-lb#591.
    pub static CONTROLLER_STATIC_ORDER_ROUNDROBIN = {
        id: "controller-static-order-roundrobin",
        severity: Warning,
        domain: Controller,
        summary: "a controller balancing round-robin over a fixed server order, restarting at the same pods on every reload",
        evidence: &[
            "https://github.com/jcmoraisjr/haproxy-ingress/issues/240",
            "https://medium.com/@SkyscannerEng/misunderstanding-the-behaviour-of-one-templating-line-and-the-pain-it-caused-our-k8s-clusters-a420f30a99f1",
            "https://github.com/kubernetes-retired/contrib/issues/1827",
            "https://github.com/jcmoraisjr/haproxy-ingress/pull/1282",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let model = cx.controllers;
    for c in &model.controllers {
        let Some(balance) = &c.settings.balance else {
            continue;
        };
        if !restarts_at_first_server(&balance.value) {
            continue;
        }
        let balance_text = format!("`{}` ({})", balance.value, balance.source.cite(cx.files));
        let label = |finding: &mut Finding| {
            if let Some(span) = balance.source.key_span() {
                finding.label(span, "the balance algorithm");
            }
            if let Some(note) = c.assumed_default_note(&balance.source) {
                finding.note(note);
            }
        };
        match c.product {
            Product::HaproxyIngress => {
                if let (Some(v), Some(image)) = (&c.version, c.image) {
                    if !v.at_least(&[0, 7]) {
                        let f = sink.report(
                            image,
                            format!(
                                "haproxy-ingress v{v} writes each backend's servers in sorted order whatever `--sort-backends` says (haproxy-ingress#240), and balances {balance_text}: every reload restarts at the same pods"
                            ),
                        );
                        label(f);
                        f.help("upgrade haproxy-ingress (v0.16 defaults to `random(2)`), or set `balance-algorithm: leastconn`");
                        continue;
                    }
                }
                let sorted = c
                    .arg("sort-endpoints-by")
                    .filter(|a| matches!(a.value.as_deref(), Some("ip" | "name")))
                    .or_else(|| c.flag("sort-backends"));
                if let Some(arg) = sorted {
                    let f = sink.report(
                        arg.span,
                        format!(
                            "`{}` keeps servers in a fixed order while the balance is {balance_text}: every reload restarts at the same pods on every replica",
                            arg.text
                        ),
                    );
                    label(f);
                    f.help("use `--sort-endpoints-by=random` (or drop the flag), or `balance-algorithm: random(2)` / `leastconn`");
                }
            }
            Product::HaproxyTech => {
                let Some(workload) = cx.k8s.workload(c.obj) else {
                    continue;
                };
                let Some(replicas_at) = workload.replicas else {
                    continue;
                };
                let Some(replicas) = cx.node(replicas_at).as_i64() else {
                    continue;
                };
                if replicas < MANY_REPLICAS {
                    continue;
                }
                let span = match &*balance.source {
                    Source::ConfigMapKey { value_span, .. } => *value_span,
                    _ => cx.span(replicas_at),
                };
                let f = sink.report(
                    span,
                    format!(
                        "{} runs {replicas} HAProxy replicas balancing {balance_text}: after each reload every replica starts again at the first server of each backend",
                        cx.describe(c.obj)
                    ),
                );
                if matches!(*balance.source, Source::ConfigMapKey { .. }) {
                    f.label(cx.span(replicas_at), "replicas");
                }
                if let Some(note) = c.assumed_default_note(&balance.source) {
                    f.note(note);
                }
                f.help(
                    "set `load-balance: random(2)` or `leastconn` in the controller's ConfigMap",
                );
            }
            _ => {}
        }
    }
}
