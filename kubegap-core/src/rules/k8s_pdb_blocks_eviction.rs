//! `k8s-pdb-blocks-eviction`: a PodDisruptionBudget that never allows an eviction.

use crate::k8s::pod::{self, Amount};
use crate::rule::prelude::*;

declare_rule! {
    /// A PodDisruptionBudget that allows no eviction: node drains hang.
    ///
    /// ## What it does
    /// Flags a PodDisruptionBudget whose `maxUnavailable` is `0` or `0%`, or whose
    /// `minAvailable` is `100%` or at least the number of pods it covers (both fields are
    /// checked even when both are written, which the API server rejects anyway). The pod count is
    /// the sum over the workloads its selector matches in the input, each counted at its floor:
    /// the HPA's `minReplicas` when an HPA scales it (the message then says the budget
    /// blocks evictions when the workload is autoscaled down), else `replicas` (default 1).
    /// Percentages are rounded up, as the disruption controller does.
    ///
    /// ## Why is this bad?
    /// The eviction API refuses every eviction, so `kubectl drain`, cluster-autoscaler
    /// scale-downs and node upgrades wait forever or until someone deletes the budget by hand.
    /// When the operator then force-drains, the budget protects nothing. DevOps Hof, "Beware
    /// when draining nodes": a budget kept ingress pods on cordoned nodes while the load
    /// balancer had no healthy node left, a total ingress outage.
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
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata: {name: web}
    /// spec:
    ///   minAvailable: 2
    ///   selector: {matchLabels: {app: web}}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   replicas: 2
    ///   template:
    ///     metadata: {labels: {app: web}}
    ///     spec: {containers: [{name: web, image: nginx:1.25}]}
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
    /// kube-linter `pdb-max-unavailable` and `pdb-min-available`; Polaris `pdbDisruptionsIsZero`
    /// and `pdbMinAvailableGreaterThanHPAMinReplicas`.
    pub static K8S_PDB_BLOCKS_EVICTION = {
        id: "k8s-pdb-blocks-eviction",
        severity: Warning,
        domain: Kubernetes,
        summary: "a PodDisruptionBudget that allows no eviction (maxUnavailable 0, minAvailable at or above the replicas), so node drains hang",
        evidence: &[
            "https://www.devops-hof.de/kubernetes-load-balancer-konfiguration-beware-when-draining-nodes/",
            "https://kubernetes.io/docs/tasks/run-application/configure-pdb/#rounding-logic-when-specifying-percentages",
        ],
        check: check,
    }
}

/// The replica count of each target of a PDB, and their total.
type Counts<'a> = (Vec<(&'a crate::k8s::Workload, pod::Replicas)>, i64);

fn check(cx: &Context<'_>, sink: &mut Sink) {
    // The replica counts of a PDB's targets depend only on its list of targets, which PDBs
    // with one namespace, selector and file share: read once per list.
    let mut counts_of: std::collections::HashMap<usize, Option<Counts<'_>>> =
        std::collections::HashMap::new();
    for pdb in &cx.k8s.pdbs {
        let describe = cx.describe(pdb.obj);
        if let Some(at) = pdb.max_unavailable {
            let node = cx.node(at);
            if let Some(amount @ (Amount::Count(0) | Amount::Percent(0))) = Amount::parse(node) {
                sink.report(
                    cx.span(at),
                    format!("`maxUnavailable: {amount}` in {describe} allows no eviction, so node drains hang"),
                )
                .help("allow at least one disruption (`maxUnavailable: 1`) and run enough replicas to absorb it");
                continue;
            }
        }
        let Some(at) = pdb.min_available else {
            continue;
        };
        let Some(amount) = Amount::parse(cx.node(at)) else {
            continue;
        };
        if let Amount::Percent(p) = amount {
            if p >= 100 {
                sink.report(
                    cx.span(at),
                    format!("`minAvailable: {amount}` in {describe} allows no eviction, so node drains hang"),
                )
                .help("use `maxUnavailable: 1`, or a percentage that leaves room for one pod");
                continue;
            }
        }
        let Some(list) = cx.k8s.pdb_target_list(pdb) else {
            continue;
        };
        let counts = counts_of.entry(list).or_insert_with(|| {
            let targets = cx.k8s.pdb_target_indices(pdb);
            if targets.is_empty() {
                return None;
            }
            let counts: Vec<_> = targets
                .iter()
                .map(|i| {
                    let w = &cx.k8s.workloads[*i];
                    // A DaemonSet or an unreadable count: the total is unknown.
                    pod::min_replicas(cx.k8s, cx.documents, w).map(|r| (w, r))
                })
                .collect::<Option<_>>()?;
            let total = counts.iter().map(|(_, r)| r.count).sum();
            Some((counts, total))
        });
        let Some((counts, total)) = counts.as_ref() else {
            continue;
        };
        let total = *total;
        if total <= 0 {
            continue;
        }
        let required = amount.scaled(total, true);
        if required < total {
            continue;
        }
        // An HPA's floor is the count only while it has scaled the workload down: say so.
        let at_floor = counts
            .iter()
            .any(|(_, r)| matches!(r.source, pod::ReplicaSource::HpaMin { .. }));
        let when = if at_floor {
            " when autoscaled down to `minReplicas`"
        } else {
            ""
        };
        let f = sink.report(
            cx.span(at),
            format!(
                "`minAvailable: {amount}` in {describe} requires {required} of its {total} pod(s) up{when}, so no pod can be evicted and node drains hang"
            ),
        );
        for (w, r) in counts.iter().take(3) {
            match r.at() {
                Some(at) => {
                    f.label(
                        cx.span(at),
                        format!("{} runs {} pod(s)", cx.describe(w.obj), r.count),
                    );
                }
                None => {
                    f.note(format!("{}: {}", cx.describe(w.obj), r.origin(cx)));
                }
            }
        }
        f.help("lower `minAvailable` below the replica count, or use `maxUnavailable: 1`");
    }
}
