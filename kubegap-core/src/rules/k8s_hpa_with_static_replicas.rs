//! `k8s-hpa-with-static-replicas`: a workload scaled by an HPA that also sets `spec.replicas`.

use crate::rule::prelude::*;

declare_rule! {
    /// A workload targeted by a HorizontalPodAutoscaler that also sets `spec.replicas`.
    ///
    /// ## What it does
    /// Resolves each HPA's `scaleTargetRef` to a workload in the input and flags that
    /// workload's `spec.replicas`.
    ///
    /// ## Why is this bad?
    /// Every `kubectl apply` or `helm upgrade` resets the replica count to the written value,
    /// undoing the autoscaler: a deploy during a traffic peak scales the service down to the
    /// manifest's number, then the HPA scales it back up minutes later.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   replicas: 2
    ///   template:
    ///     metadata: {labels: {app: web}}
    ///     spec: {containers: [{name: web, image: nginx:1.25}]}
    /// ---
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata: {name: web}
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 10
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
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata: {name: web}
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    /// ```
    ///
    /// ## Peers
    /// kube-score `horizontalpodautoscaler-replicas`, Polaris `hpaMinReplicas`-family checks.
    pub static K8S_HPA_WITH_STATIC_REPLICAS = {
        id: "k8s-hpa-with-static-replicas",
        severity: Warning,
        domain: Kubernetes,
        summary: "a workload scaled by an HPA also sets spec.replicas, so every apply resets the scale",
        evidence: &[
            "https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#migrating-deployments-and-statefulsets-to-horizontal-autoscaling",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for hpa in &cx.k8s.hpas {
        let Some(workload) = cx.k8s.hpa_target(hpa) else {
            continue;
        };
        let Some(replicas) = workload.replicas else {
            continue;
        };
        let value = cx.node(replicas).as_str().unwrap_or_default();
        let scaler = cx.describe(hpa.obj);
        let f = sink.report(
            cx.span(replicas),
            format!(
                "{} sets `replicas: {value}` but is scaled by {scaler}; every apply resets the scale",
                cx.describe(workload.obj),
            ),
        );
        if let Some(target) = hpa.target_ref {
            let name = cx
                .node(target)
                .get("name")
                .map_or_else(|| cx.span(target), |n| n.span());
            f.label(name, format!("scaled by {scaler}"));
        }
        f.help("remove `spec.replicas` from the workload and let the HPA's `minReplicas` set the floor");
    }
}
