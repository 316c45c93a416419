//! `diff-workload-renamed`: a workload disappears and one with the same pod labels appears
//! under a new name.

use crate::diff::DiffContext;
use crate::rule::prelude::*;

declare_rule! {
    /// A workload disappears and another of the same kind and namespace, with the same pod
    /// template labels, appears under a new name.
    ///
    /// ## What it does
    /// `kubegap diff` only. Pairs each workload only in BASE with the workloads only in HEAD
    /// of the same kind and namespace whose pod template labels are equal and not empty.
    ///
    /// ## Why is this bad?
    /// Kubernetes sees a deletion and a creation, not a rollout: the old pods all terminate at
    /// once (`kubectl apply --prune`, `helm upgrade`) while the new ones are still starting,
    /// and PDBs do not protect against deletion.
    ///
    /// ## Example
    /// BASE Deployment `web`, HEAD Deployment `web-v2`, both with pods labelled `app: web`.
    ///
    /// Use instead: keep the name; or deploy the new one next to the old, wait until it is
    /// ready, and remove the old one in a second change.
    pub static DIFF_WORKLOAD_RENAMED = {
        id: "diff-workload-renamed",
        severity: Warning,
        domain: Kubernetes,
        summary: "a workload is renamed: the old pods all go at once instead of rolling",
        evidence: &[
            "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#updating-a-deployment",
            "https://kubernetes.io/docs/concepts/workloads/pods/disruptions/",
        ],
        check: crate::diff::lint_check,
    }
}

pub(crate) fn diff(cx: &DiffContext<'_>, sink: &mut Sink) {
    for h in &cx.added {
        let Some(hw) = cx.head.ws.graph.workload(*h) else {
            continue;
        };
        if hw.labels.is_empty() {
            continue;
        }
        let ho = &cx.head.ws.graph.objects[*h];
        for b in &cx.removed {
            let bo = &cx.base.ws.graph.objects[*b];
            let Some(bw) = cx.base.ws.graph.workload(*b) else {
                continue;
            };
            if bo.kind != ho.kind || bo.namespace != ho.namespace || bw.labels != hw.labels {
                continue;
            }
            let head_span = cx.head.name_span(*h);
            let base_span = cx.base.name_span(*b);
            let f = sink.report(
                head_span,
                format!(
                    "{} `{}` ({} in BASE) is replaced by `{}` with the same pod labels: the old pods are deleted all at once instead of rolling",
                    ho.kind,
                    bo.name,
                    cx.base.cite(base_span),
                    ho.name,
                ),
            );
            f.label(base_span, format!("BASE: `{}`", bo.name));
            f.help("keep the name, or run both until the new one is ready and remove the old one in a later change");
        }
    }
}
