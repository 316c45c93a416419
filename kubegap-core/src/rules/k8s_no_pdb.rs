//! `k8s-no-pdb`: a multi-replica, Service-targeted Deployment or StatefulSet without a
//! PodDisruptionBudget.

use crate::k8s::pod;
use crate::rule::prelude::*;

declare_rule! {
    /// A multi-replica, Service-targeted Deployment or StatefulSet has no PodDisruptionBudget.
    ///
    /// ## What it does
    /// Flags a Deployment or StatefulSet that a Service in the input selects, runs at least 2
    /// replicas (the HPA's `minReplicas` when an HPA scales it), and that no PodDisruptionBudget
    /// of its namespace covers.
    ///
    /// It fires only when the absence means something: when the input holds at least one
    /// PodDisruptionBudget (so budgets are managed here), or when `--complete` says the input
    /// is the whole application. Otherwise the budget may well live in another repository.
    ///
    /// ## Why is this bad?
    /// Without a budget a node drain or a cluster upgrade may evict every replica at the same
    /// time, and the Service loses all its backends together. Seed 002 (OpenShift router)
    /// lists PodDisruptionBudgets among the mitigations: not all pods of a route may go at once.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   replicas: 3
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
    /// ---
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata: {name: api}
    /// spec:
    ///   maxUnavailable: 1
    ///   selector: {matchLabels: {app: api}}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   replicas: 3
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
    /// ---
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata: {name: web}
    /// spec:
    ///   maxUnavailable: 1
    ///   selector: {matchLabels: {app: web}}
    /// ```
    ///
    /// ## Peers
    /// kube-score `deployment-has-poddisruptionbudget` and
    /// `statefulset-has-poddisruptionbudget`; Polaris `missingPodDisruptionBudget`. Both flag
    /// every Deployment, with or without a Service and at any replica count.
    pub static K8S_NO_PDB = {
        id: "k8s-no-pdb",
        severity: Info,
        domain: Kubernetes,
        summary: "a multi-replica, Service-targeted Deployment or StatefulSet without a PodDisruptionBudget",
        evidence: &[
            "https://kubernetes.io/docs/concepts/workloads/pods/disruptions/",
            "https://github.com/openshift/router/issues/654",
        ],
        check: crate::rule::nothing,
        workloads: check_workloads,
    }
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    if cx.k8s.pdbs.is_empty() && !cx.settings.complete {
        return;
    }
    for workload in workloads {
        let kind = cx.obj(workload.obj).kind.as_str();
        if kind != "Deployment" && kind != "StatefulSet" {
            continue;
        }
        let Some((service, replicas)) = pod::served_replicas(cx.k8s, cx.documents, workload) else {
            continue;
        };
        if replicas.count < 2 {
            continue;
        }
        if cx.k8s.has_pdb(workload) {
            continue;
        }
        let span = replicas.at().map_or_else(
            || pod::spec_key(cx.k8s, cx.documents, workload).span(),
            |at| cx.span(at),
        );
        let why = if cx.settings.complete {
            "the input is the whole application (`--complete`)".to_string()
        } else {
            format!(
                "the input manages budgets ({} PodDisruptionBudget(s)), none for this workload",
                cx.k8s.pdbs.len()
            )
        };
        let f = sink.report(
            span,
            format!(
                "{} runs {} replicas behind {} but no PodDisruptionBudget covers it",
                cx.describe(workload.obj),
                replicas.count,
                cx.describe(service.obj)
            ),
        );
        f.label(
            pod::service_selector_span(cx, service),
            "selects these pods",
        );
        if !matches!(replicas.source, pod::ReplicaSource::Written(_)) {
            f.note(format!("replica count: {}", replicas.origin(cx)));
        }
        f.note(why).help("add a PodDisruptionBudget with `maxUnavailable: 1` selecting the pod template's labels");
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::yaml_input;
    use crate::{lint, Settings};

    const APP: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: example/web:1.0}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
";

    fn hits(complete: bool) -> usize {
        let settings = Settings {
            select: Some(vec!["k8s-no-pdb".to_string()]),
            complete,
            ..Settings::default()
        };
        lint(vec![yaml_input("app.yaml", APP)], &settings)
            .findings
            .iter()
            .filter(|f| f.rule == "k8s-no-pdb")
            .count()
    }

    /// Without any budget in the input, only `--complete` makes the absence meaningful.
    #[test]
    fn complete_input_turns_the_rule_on() {
        assert_eq!(hits(false), 0);
        assert_eq!(hits(true), 1);
    }
}
