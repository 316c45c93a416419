//! `k8s-hpa-with-static-replicas`: a workload scaled by an HPA that also sets `spec.replicas`.

use crate::rule::prelude::*;

declare_rule! {
    /// A workload targeted by a HorizontalPodAutoscaler that also sets `spec.replicas`.
    ///
    /// ## What it does
    /// Resolves each HPA's `scaleTargetRef` to a workload in the input and flags that
    /// workload's `spec.replicas`. Only an HPA written close to the workload (the same file,
    /// directory, kustomization tree or chart, or a directory beside it) is evidence: in a
    /// monorepo, an HPA of another project that names a Deployment of the same name says
    /// nothing about this one.
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
        check: crate::rule::nothing,
        objects: check_objects,
    }
}

fn check_objects(cx: &Context<'_>, objects: std::ops::Range<ObjId>, sink: &mut Sink) {
    for hpa in crate::k8s::in_block(&cx.k8s.hpas, &objects, |h| h.obj) {
        let Some(workload) = cx.k8s.hpa_target(hpa) else {
            continue;
        };
        let Some(replicas) = workload.replicas else {
            continue;
        };
        if !cx
            .k8s
            .nearness(hpa.obj, workload.obj)
            .is_some_and(|(near, _)| near.is_close())
        {
            continue;
        }
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

#[cfg(test)]
mod tests {
    use crate::engine::yaml_input;
    use crate::{lint, Settings};

    const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.25}]}
";
    const HPA: &str = "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
";

    fn hits(deployment: &str, hpa: &str) -> usize {
        let settings = Settings {
            select: Some(vec!["k8s-hpa-with-static-replicas".to_string()]),
            ..Settings::default()
        };
        lint(
            vec![yaml_input(deployment, DEPLOYMENT), yaml_input(hpa, HPA)],
            &settings,
        )
        .findings
        .len()
    }

    /// An HPA beside the workload is evidence; one in another project of a monorepo that names
    /// a Deployment of the same name is not (the corpus has one: a `kubectl get -o yaml` of
    /// HPAs under another sample's `testdata/`).
    #[test]
    fn only_an_hpa_close_to_the_workload_counts() {
        assert_eq!(hits("app/web/deployment.yaml", "app/web/hpa.yaml"), 1);
        assert_eq!(hits("app/web/deployment.yaml", "app/web/hpa/hpa.yaml"), 1);
        assert_eq!(
            hits(
                "samples/shop/k8s/app.yaml",
                "tools/cost/api/testdata/hpa/hpa.yaml"
            ),
            0
        );
    }
}
