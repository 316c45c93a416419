//! `k8s-service-selects-nothing`: a Service selector that matches no pod template.

use crate::rule::prelude::*;

declare_rule! {
    /// A Service whose selector matches no pod template, in a namespace whose workloads are in
    /// the input.
    ///
    /// ## What it does
    /// Compares each Service's `spec.selector` with the pod template labels of the workloads in
    /// the same namespace. It fires only when that namespace has workloads in the input, so a
    /// Service linted alone is not flagged. Services without a selector (manual Endpoints,
    /// `ExternalName`) are skipped.
    ///
    /// ## Why is this bad?
    /// The Service has no endpoints: every request through it fails. Label changes in a chart
    /// upgrade that touch the selector or the template labels on one side only cause exactly
    /// this.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app.kubernetes.io/name: web}}
    ///     spec: {containers: [{name: web, image: nginx:1.25}]}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   selector: {app: web}
    ///   ports: [{port: 80}]
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: web}}
    ///     spec: {containers: [{name: web, image: nginx:1.25}]}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   selector: {app: web}
    ///   ports: [{port: 80}]
    /// ```
    ///
    /// ## Peers
    /// kube-score `service-targets-pod`, kube-linter `dangling-service`.
    pub static K8S_SERVICE_SELECTS_NOTHING = {
        id: "k8s-service-selects-nothing",
        severity: Warning,
        domain: Kubernetes,
        summary: "a Service selector that matches no pod template of its namespace",
        evidence: &[
            "https://about.gitlab.com/blog/2022/04/15/gitlab-dot-com-incident-2022-03-31/",
            "https://kubernetes.io/docs/concepts/services-networking/service/#services-without-selectors",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for service in &cx.k8s.services {
        let Some(selector) = service.selector else {
            continue;
        };
        if service.selector_labels.is_empty() {
            continue;
        }
        let ns = &cx.obj(service.obj).namespace;
        // Evidence that the pods are in the input: a workload written close to the Service
        // (same file, directory, kustomization tree or chart). A custom resource there may own
        // the pods (an operator's database, Prometheus, a Ray cluster), and so may a workload
        // whose pods carry the labels their controller sets (`statefulset.kubernetes.io/pod-name`).
        if !cx.k8s.service_target_indices(service).is_empty()
            || !cx.k8s.has_workloads_near(service.obj)
            || cx.k8s.pod_owner_near(service.obj).is_some()
        {
            continue;
        }
        let wanted: Vec<String> = service
            .selector_labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        // The `selector` key: a block mapping's value starts on the next line.
        let span = cx
            .key_span(service.obj, &["spec", "selector"])
            .unwrap_or_else(|| cx.span(selector));
        let f = sink.report(
            span,
            format!(
                "selector `{}` of {} matches no pod template in namespace `{ns}`",
                wanted.join(","),
                cx.describe(service.obj)
            ),
        );
        // Point at the closest miss: the workload sharing the most selector labels (found
        // through the label index, so thousands of Services stay linear).
        let mut shared: std::collections::BTreeMap<usize, usize> =
            std::collections::BTreeMap::new();
        for (k, v) in &service.selector_labels {
            for w in cx.k8s.workloads_with_label(ns, k, v) {
                if near(cx, service.obj, cx.k8s.workloads[*w].obj) {
                    *shared.entry(*w).or_default() += 1;
                }
            }
        }
        if shared.is_empty() && cx.k8s.workloads.len() <= 200 {
            // No shared pair: a workload carrying one of the selector's values under another key
            // (`app: web` vs `app.kubernetes.io/name: web`) is the likely intended target. Only
            // scanned in small inputs, so large streams stay linear.
            for (i, w) in cx.k8s.workloads.iter().enumerate() {
                if cx.obj(w.obj).namespace == ns
                    && near(cx, service.obj, w.obj)
                    && service
                        .selector_labels
                        .values()
                        .any(|v| w.labels.values().any(|l| l == v))
                {
                    shared.entry(i).or_insert(0);
                }
            }
        }
        let closest = shared
            .iter()
            .max_by_key(|(w, n)| (**n, std::cmp::Reverse(**w)))
            .map(|(w, _)| &cx.k8s.workloads[*w]);
        if let Some(w) = closest {
            let labels: Vec<String> = w.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            f.label(
                cx.span(w.template),
                format!("{} has labels `{}`", cx.describe(w.obj), labels.join(",")),
            );
        }
        f.help("make the selector a subset of the pod template's labels");
    }
}

/// Whether a workload was written close to the Service (a candidate for "the closest miss").
fn near(cx: &Context<'_>, service: usize, workload: usize) -> bool {
    cx.k8s
        .nearness(service, workload)
        .is_some_and(|n| n.0.is_close())
}
