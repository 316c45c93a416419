//! `k8s-required-anti-affinity-exceeds-nodes`: one pod per node, more pods than nodes.

use crate::k8s::pod;
use crate::rule::prelude::*;

declare_rule! {
    /// One pod per node is required, and there are more pods than nodes.
    ///
    /// ## What it does
    /// Runs only when the node count is known (`--nodes N` or the configuration). For each
    /// workload with a `requiredDuringSchedulingIgnoredDuringExecution` podAntiAffinity term on
    /// `kubernetes.io/hostname` that matches its own pods, flags `replicas` above N, or an HPA
    /// whose `maxReplicas` is above N.
    ///
    /// ## Why is this bad?
    /// The scheduler places at most one such pod per node; the others stay Pending forever. A
    /// rollout with `maxSurge` needs a free node for each surge pod, so it stalls too, and an
    /// HPA scale-up under load adds pods that never run. Seed 000: nginx was scaled out with
    /// pod anti-affinity to spread conntrack load, and replicas beyond the node count stayed
    /// Pending.
    ///
    /// ## Example
    /// With `--nodes 3`, or this `.kubegap.yaml`:
    /// ```yaml,settings
    /// cluster:
    ///   nodes: 3
    /// ```
    ///
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: edge}
    /// spec:
    ///   replicas: 4
    ///   template:
    ///     metadata: {labels: {app: edge}}
    ///     spec:
    ///       affinity:
    ///         podAntiAffinity:
    ///           requiredDuringSchedulingIgnoredDuringExecution:
    ///             - topologyKey: kubernetes.io/hostname
    ///               labelSelector: {matchLabels: {app: edge}}
    ///       containers: [{name: nginx, image: nginx:1.25}]
    /// ```
    ///
    /// Use instead: a preferred term, which schedules the fourth pod next to another.
    ///
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: edge}
    /// spec:
    ///   replicas: 4
    ///   template:
    ///     metadata: {labels: {app: edge}}
    ///     spec:
    ///       affinity:
    ///         podAntiAffinity:
    ///           preferredDuringSchedulingIgnoredDuringExecution:
    ///             - weight: 100
    ///               podAffinityTerm:
    ///                 topologyKey: kubernetes.io/hostname
    ///                 labelSelector: {matchLabels: {app: edge}}
    ///       containers: [{name: nginx, image: nginx:1.25}]
    /// ```
    ///
    /// ## Peers
    /// None. kube-score `deployment-has-host-podantiaffinity` and kube-linter `no-anti-affinity`
    /// check that anti-affinity exists, not that it can be satisfied.
    pub static K8S_REQUIRED_ANTI_AFFINITY_EXCEEDS_NODES = {
        id: "k8s-required-anti-affinity-exceeds-nodes",
        severity: Warning,
        domain: Kubernetes,
        summary: "required hostname anti-affinity with more replicas (or HPA maxReplicas) than nodes, so extra pods stay Pending",
        evidence: &[
            "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity",
            "https://deploy.live/blog/kubernetes-networking-problems-due-to-the-conntrack/",
        ],
        check: crate::rule::nothing,
        workloads: check_workloads,
    }
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    let Some(nodes) = cx.settings.nodes else {
        return;
    };
    let nodes = i64::from(nodes);
    for workload in workloads {
        let anti = pod::host_anti_affinity(cx.k8s, cx.documents, workload);
        let Some(term) = anti.required.first() else {
            continue;
        };
        let term_span = term
            .get("topologyKey")
            .map_or_else(|| term.span(), |n| n.span());
        let describe = cx.describe(workload.obj);
        let label = "at most one pod per node: required anti-affinity on `kubernetes.io/hostname`";
        let help = "use a preferred anti-affinity term or `topologySpreadConstraints` with `whenUnsatisfiable: ScheduleAnyway`, or add nodes";
        let nodes_note =
            format!("the cluster has {nodes} schedulable node(s) (`--nodes` or the configuration)");
        if let Some(hpa) = cx.k8s.hpa_of(workload) {
            let Some(max) = hpa.max_replicas.filter(|m| *m > nodes) else {
                continue;
            };
            let span = cx
                .node(cx.obj(hpa.obj).at)
                .path(&["spec", "maxReplicas"])
                .map_or_else(|| cx.span(cx.obj(hpa.obj).at), |n| n.span());
            sink.report(
                span,
                format!(
                    "{} may scale {describe} to {max} pods, but only {nodes} node(s) can take one each; {} would stay Pending",
                    cx.describe(hpa.obj),
                    max - nodes
                ),
            )
            .label(term_span, label)
            .note(nodes_note)
            .help(help);
            continue;
        }
        let Some(replicas) = pod::written_replicas(cx.k8s, cx.documents, workload) else {
            continue;
        };
        if replicas.count <= nodes {
            continue;
        }
        let span = replicas.at().map_or_else(
            || pod::spec_key(cx.k8s, cx.documents, workload).span(),
            |at| cx.span(at),
        );
        sink.report(
            span,
            format!(
                "{describe} asks for {} pods, one per node, but the cluster has {nodes} node(s); {} would stay Pending",
                replicas.count,
                replicas.count - nodes
            ),
        )
        .label(term_span, label)
        .note(nodes_note)
        .help(help);
    }
}
