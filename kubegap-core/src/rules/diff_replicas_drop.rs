//! `diff-replicas-drop`: replicas fall by half or more, or below what a PDB requires.

use crate::diff::DiffContext;
use crate::rule::prelude::*;

declare_rule! {
    /// A workload's `spec.replicas` (or an HPA's `minReplicas`) falls by half or more between
    /// BASE and HEAD, or below a PDB's integer `minAvailable`.
    ///
    /// ## What it does
    /// `kubegap diff` only. Compares written replica counts of matched workloads and
    /// `minReplicas` of matched HPAs. 3 → 2 is quiet; 4 → 2 and 2 → 1 are reported; so is a
    /// count below the integer `minAvailable` of a HEAD PDB selecting the workload.
    ///
    /// ## Why is this bad?
    /// Capacity drops the moment the change is applied, often by an edit meant for another
    /// environment's values; the remaining pods take the whole load, and a count below the
    /// PDB's `minAvailable` blocks every node drain.
    ///
    /// ## Example
    /// BASE `replicas: 6`, HEAD `replicas: 2`.
    ///
    /// Use instead: lower capacity in steps, watching the load, or let an HPA decide.
    pub static DIFF_REPLICAS_DROP = {
        id: "diff-replicas-drop",
        severity: Warning,
        domain: Kubernetes,
        summary: "replicas (or an HPA's minReplicas) fall by half or more, or below what a PDB requires",
        evidence: &[
            "https://kubernetes.io/docs/tasks/run-application/configure-pdb/",
            "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#scaling-a-deployment",
        ],
        check: crate::diff::lint_check,
    }
}

pub(crate) fn diff(cx: &DiffContext<'_>, sink: &mut Sink) {
    for (b, h) in &cx.matched {
        let kind = cx.head.ws.graph.objects[*h].kind.as_str();
        let path: &[&str] = if kind == "HorizontalPodAutoscaler" {
            &["spec", "minReplicas"]
        } else if crate::k8s::pod::has_replicas(kind) {
            &["spec", "replicas"]
        } else {
            continue;
        };
        let (Some(old), Some(new)) = (
            cx.base.obj_node(*b).path(path),
            cx.head.obj_node(*h).path(path),
        ) else {
            continue;
        };
        let (Some(o), Some(n)) = (old.as_i64(), new.as_i64()) else {
            continue;
        };
        let head_span = cx.head.span(new.span());
        let base_span = cx.base.span(old.span());
        let field = path.join(".");
        if o >= 2 && n * 2 <= o {
            let f = sink.report(
                head_span,
                format!(
                    "{} `{field}` falls from {o} ({} in BASE) to {n} ({}): capacity drops by half or more the moment it is applied",
                    cx.describe(*h),
                    cx.base.cite(base_span),
                    cx.head.cite(head_span),
                ),
            );
            f.label(base_span, format!("BASE: {o}"));
            f.help("lower capacity in steps, or check that the new count carries the load");
            continue;
        }
        if n >= o {
            continue;
        }
        let Some(w) = cx.head.ws.graph.workload(*h) else {
            continue;
        };
        for pdb in &cx.head.ws.graph.pdbs {
            let Some(min) = pdb.min_available.map(|at| cx.head.node(at)) else {
                continue;
            };
            let Some(m) = min.as_i64() else { continue };
            if n < m
                && cx
                    .head
                    .ws
                    .graph
                    .pdb_targets(pdb)
                    .iter()
                    .any(|t| t.obj == w.obj)
            {
                let min_span = cx.head.span(min.span());
                let f = sink.report(
                    head_span,
                    format!(
                        "{} `{field}` falls from {o} ({} in BASE) to {n} ({}), below the PDB's minAvailable {m} ({}): every node drain is blocked",
                        cx.describe(*h),
                        cx.base.cite(base_span),
                        cx.head.cite(head_span),
                        cx.head.cite(min_span),
                    ),
                );
                f.label(base_span, format!("BASE: {o}"));
                f.label(min_span, format!("minAvailable {m}"));
                break;
            }
        }
    }
}
