//! `k8s-pdb-selects-nothing`: a PodDisruptionBudget selector that matches no pod template.

use crate::rule::prelude::*;

declare_rule! {
    /// A PodDisruptionBudget whose selector matches no pod template, in a namespace whose
    /// workloads are in the input.
    ///
    /// ## What it does
    /// Evaluates `spec.selector` (`matchLabels` and `matchExpressions`) against the pod
    /// templates of the PDB's namespace. It fires only when that namespace has workloads in the
    /// input.
    ///
    /// ## Why is this bad?
    /// The budget protects nothing: a node drain or cluster upgrade can evict every replica at
    /// once, which is how rollouts and drains take all backends away together (seed 002: the
    /// OpenShift router kept clients on an old process while every pod of a route was
    /// replaced).
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
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata: {name: web}
    /// spec:
    ///   minAvailable: 2
    ///   selector: {matchLabels: {app: website}}
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
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata: {name: web}
    /// spec:
    ///   minAvailable: 2
    ///   selector: {matchLabels: {app: web}}
    /// ```
    ///
    /// ## Peers
    /// kube-linter `pdb-*` checks; kube-score `poddisruptionbudget-has-policy`.
    pub static K8S_PDB_SELECTS_NOTHING = {
        id: "k8s-pdb-selects-nothing",
        severity: Warning,
        domain: Kubernetes,
        summary: "a PodDisruptionBudget selector that matches no pod template of its namespace",
        evidence: &[
            "https://kubernetes.io/docs/tasks/run-application/configure-pdb/",
            "https://docs.redhat.com/en/documentation/openshift_container_platform/4.14/html/networking/configuring-routes",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for pdb in &cx.k8s.pdbs {
        let ns = &cx.obj(pdb.obj).namespace;
        // Evidence needed: workloads written close to the PDB, and no custom resource there
        // that may own the pods (an Alertmanager, Prometheus or database made by an operator).
        if !cx.k8s.pdb_target_indices(pdb).is_empty()
            || !cx.k8s.has_workloads_near(pdb.obj)
            || cx.k8s.pod_owner_near(pdb.obj).is_some()
        {
            continue;
        }
        let span = cx
            .key_span(pdb.obj, &["spec", "selector"])
            .or_else(|| pdb.selector_at.map(|at| cx.span(at)))
            .unwrap_or_else(|| cx.span(cx.obj(pdb.obj).at));
        sink.report(
            span,
            format!(
                "selector of {} matches no pod template in namespace `{ns}`",
                cx.describe(pdb.obj)
            ),
        )
        .help("match the labels of the workload's pod template, or remove the budget");
    }
}
