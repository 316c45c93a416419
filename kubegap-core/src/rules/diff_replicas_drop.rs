//! `diff-replicas-drop`: replicas fall by half or more, or below what a PDB requires.

use crate::diff::DiffContext;
use crate::k8s::pod::Amount;
use crate::rule::prelude::*;

declare_rule! {
    /// A workload's `spec.replicas` (or an HPA's `minReplicas`) falls by half or more between
    /// BASE and HEAD, or to a count where HEAD's PodDisruptionBudget blocks drains or no longer
    /// protects any pod.
    ///
    /// ## What it does
    /// `kubegap diff` only. Compares written replica counts of matched workloads and
    /// `minReplicas` of matched HPAs. 3 → 2 is quiet; 4 → 2 and 2 → 1 are reported. A smaller
    /// drop is reported against a HEAD PDB whose only target is the workload (so the PDB's
    /// expected count is exactly its replicas), computing what the disruption controller
    /// computes, percentages of either field rounded up as Kubernetes does:
    /// - `minAvailable` (count or `N%`): the new count is below what it requires, or equals
    ///   it while the old count left room, so no pod can be evicted and every drain hangs;
    /// - `maxUnavailable` (count or `N%`): the new count lets a drain evict every pod at
    ///   once, while the old count kept some up.
    ///
    /// The message cites the PDB field and its line. PDBs selecting several workloads are not
    /// compared (their expected count is the sum).
    ///
    /// ## Why is this bad?
    /// Capacity drops the moment the change is applied, often by an edit meant for another
    /// environment's values; the remaining pods take the whole load. A count the PDB's
    /// `minAvailable` leaves no room in blocks every node drain; a count within its
    /// `maxUnavailable` lets one drain take the whole workload down.
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
            "https://kubernetes.io/docs/tasks/run-application/configure-pdb/#rounding-logic-when-specifying-percentages",
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
            // Only a PDB whose only target is this workload: its expected count is then this
            // workload's replicas, as the disruption controller computes it.
            let graph = &cx.head.ws.graph;
            let targets = graph.pdb_target_indices(pdb);
            if targets.len() != 1 || graph.workloads[targets[0]].obj != w.obj {
                continue;
            }
            if let Some(msg) = pdb_verdict(cx, pdb, o, n) {
                let f = sink.report(
                    head_span,
                    format!(
                        "{} `{field}` falls from {o} ({} in BASE) to {n} ({}): {}",
                        cx.describe(*h),
                        cx.base.cite(base_span),
                        cx.head.cite(head_span),
                        msg.text,
                    ),
                );
                f.label(base_span, format!("BASE: {o}"));
                f.label(msg.span, msg.label);
                break;
            }
        }
    }
}

struct Verdict {
    text: String,
    span: Span,
    label: String,
}

/// What HEAD's PDB makes of the drop from `o` to `n` replicas, or `None` when nothing changes
/// for node drains. Percentages of either field are rounded up, as the disruption controller
/// does (`GetScaledValueFromIntOrPercent(…, roundUp=true)`).
fn pdb_verdict(cx: &DiffContext<'_>, pdb: &crate::k8s::Pdb, o: i64, n: i64) -> Option<Verdict> {
    if let Some(at) = pdb.min_available {
        let node = cx.head.node(at);
        let amount = Amount::parse(node)?;
        let span = cx.head.span(node.span());
        let need = amount.scaled(n, true);
        let rounding = match amount {
            Amount::Percent(p) => format!(" ({p}% of {n}, rounded up)"),
            Amount::Count(_) => String::new(),
        };
        if n < need {
            return Some(Verdict {
                text: format!(
                    "below the PDB's `minAvailable: {amount}` ({}), which requires {need}{rounding}: every node drain is blocked",
                    cx.head.cite(span)
                ),
                span,
                label: format!("minAvailable {amount}"),
            });
        }
        let before = o - amount.scaled(o, true);
        if n > 0 && n == need && before > 0 {
            return Some(Verdict {
                text: format!(
                    "the PDB's `minAvailable: {amount}` ({}) requires {need} of {n} pods up{rounding}, so no pod can be evicted and every node drain is blocked (with {o} pods it allowed {before})",
                    cx.head.cite(span)
                ),
                span,
                label: format!("minAvailable {amount}"),
            });
        }
        return None;
    }
    let at = pdb.max_unavailable?;
    let node = cx.head.node(at);
    let amount = Amount::parse(node)?;
    let span = cx.head.span(node.span());
    let allowed = |count: i64| amount.scaled(count, true).min(count);
    let (now, before) = (allowed(n), allowed(o));
    if n > 0 && now > 0 && now >= n && before < o {
        let rounding = match amount {
            Amount::Percent(p) => format!(" ({p}% of {n}, rounded up)"),
            Amount::Count(_) => String::new(),
        };
        return Some(Verdict {
            text: format!(
                "the PDB's `maxUnavailable: {amount}` ({}) now lets a drain evict {now} of {n} pods{rounding}, every one of them at once (with {o} pods, {} stayed up)",
                cx.head.cite(span),
                o - before,
            ),
            span,
            label: format!("maxUnavailable {amount}"),
        });
    }
    None
}
