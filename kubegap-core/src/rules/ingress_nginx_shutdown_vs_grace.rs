//! `ingress-nginx-shutdown-vs-grace`: the controller pod is killed before nginx drains.

use crate::controllers::{defaults, Product, Source};
use crate::reload::{grace_covers_shutdown, GRACE_MARGIN_MS};
use crate::rule::prelude::*;
use crate::value::duration::{format_ms, Millis};

declare_rule! {
    /// An ingress-nginx controller pod whose `terminationGracePeriodSeconds` is shorter than
    /// `worker-shutdown-timeout` plus 30 s, or whose container has no `/wait-shutdown` preStop.
    ///
    /// ## What it does
    /// For each workload running the ingress-nginx controller image, compares the pod's
    /// termination grace period (default 30 s) with the controller's effective
    /// `worker-shutdown-timeout` (its ConfigMap, else 240 s) plus a 30 s margin, and checks
    /// that the controller container runs `/wait-shutdown` as its preStop hook.
    ///
    /// ## Why is this bad?
    /// On a rollout or scale-down, `/wait-shutdown` makes the controller stop taking new
    /// connections and wait for nginx to drain, up to `worker-shutdown-timeout`. If the grace
    /// period is shorter, the kubelet SIGKILLs the pod first and every open connection is cut
    /// at once; without the hook, nginx gets SIGTERM and exits fast. The ingress-nginx chart
    /// ships 300 s of grace with the hook for the 240 s default; overriding one without the
    /// other breaks the pair.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
    /// spec:
    ///   template:
    ///     spec:
    ///       terminationGracePeriodSeconds: 60
    ///       containers:
    ///         - name: controller
    ///           image: registry.k8s.io/ingress-nginx/controller:v1.15.1
    ///           args: [/nginx-ingress-controller]
    ///           lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
    /// spec:
    ///   template:
    ///     spec:
    ///       terminationGracePeriodSeconds: 300
    ///       containers:
    ///         - name: controller
    ///           image: registry.k8s.io/ingress-nginx/controller:v1.15.1
    ///           args: [/nginx-ingress-controller]
    ///           lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}
    /// ```
    ///
    /// ## References
    /// ingress-nginx chart `values.yaml` (`terminationGracePeriodSeconds: 300`, preStop
    /// `/wait-shutdown`); DOMAIN.md R18.
    pub static INGRESS_NGINX_SHUTDOWN_VS_GRACE = {
        id: "ingress-nginx-shutdown-vs-grace",
        severity: Warning,
        domain: Controller,
        summary: "an ingress-nginx controller pod killed before `worker-shutdown-timeout` ends, or without the `/wait-shutdown` preStop",
        evidence: &[
            "https://github.com/kubernetes/ingress-nginx/blob/main/charts/ingress-nginx/values.yaml",
            "https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/configmap/#worker-shutdown-timeout",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let model = cx.controllers;
    for c in &model.controllers {
        if c.product != Product::IngressNginx {
            continue;
        }
        let (Some(workload), Some(index)) = (cx.k8s.workload(c.obj), c.container) else {
            continue;
        };
        let Some(container) = workload.containers.get(index) else {
            continue;
        };
        let Some(deadline) = &c.settings.reload_deadline else {
            continue;
        };
        let pod_spec = workload.pod_spec.map(|at| cx.node(at));
        let grace_node = pod_spec.and_then(|s| s.get("terminationGracePeriodSeconds"));
        let grace_ms = match grace_node {
            Some(n) => match n.as_i64().and_then(|v| u64::try_from(v).ok()) {
                Some(secs) => secs.saturating_mul(1000),
                None => continue,
            },
            None => defaults::K8S_GRACE_MS,
        };
        let container_node = cx.node(container.at);
        let anchor = container_node
            .get("name")
            .map(|n| n.span())
            .unwrap_or_else(|| cx.span(container.at));
        if !grace_covers_shutdown(Millis(grace_ms), deadline.value) {
            let (span, grace_text) = match grace_node {
                Some(n) => (
                    n.span(),
                    format!("{} (`terminationGracePeriodSeconds`)", format_ms(grace_ms)),
                ),
                None => (
                    anchor,
                    format!("{} (default of Kubernetes)", format_ms(grace_ms)),
                ),
            };
            let finding = sink.report(
                span,
                format!(
                    "{} gives its pods {grace_text} to stop, less than `worker-shutdown-timeout` {} plus {}: the kubelet kills nginx before its workers drain",
                    cx.describe(c.obj),
                    deadline.describe(cx.files),
                    GRACE_MARGIN_MS,
                ),
            );
            if let Source::ConfigMapKey { key_span, .. } = &*deadline.source {
                finding.label(*key_span, "the shutdown timeout");
            }
            if let Some(note) = c.assumed_default_note(&deadline.source) {
                finding.note(note);
            }
            finding.help(format!(
                "set `terminationGracePeriodSeconds` to at least {}s, or lower `worker-shutdown-timeout` knowingly",
                (deadline.value.ms() + GRACE_MARGIN_MS.ms()).div_ceil(1000)
            ));
        }
        let has_wait_shutdown = container_node
            .path(&["lifecycle", "preStop", "exec", "command"])
            .is_some_and(|cmd| {
                cmd.items()
                    .any(|i| i.as_str().is_some_and(|s| s.contains("/wait-shutdown")))
            });
        if !has_wait_shutdown {
            sink.report(
                anchor,
                format!(
                    "the ingress-nginx container of {} has no `/wait-shutdown` preStop hook: on termination nginx stops without draining connections",
                    cx.describe(c.obj)
                ),
            )
            .help("add `lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}` to the controller container, as the ingress-nginx chart does");
        }
    }
}
