//! `diff-selector-changed`: a Service selector changes between BASE and HEAD.

use crate::diff::{canon_at, DiffContext};
use crate::rule::prelude::*;

declare_rule! {
    /// A Service's `spec.selector` changes between BASE and HEAD.
    ///
    /// ## What it does
    /// `kubegap diff` only. Compares the selectors of Services matched by kind, namespace and
    /// name (key order, quoting and comments do not count). A workload's `spec.selector` is
    /// immutable: its change is reported by `diff-immutable-field-changed`, not twice.
    ///
    /// ## Why is this bad?
    /// Endpoints follow the selector the moment the Service is applied: the old pods stop
    /// receiving traffic before the new ones exist or are ready, and a selector that matches
    /// nothing yet empties the Service.
    ///
    /// ## Example
    /// BASE `selector: {app: web}`, HEAD `selector: {app.kubernetes.io/name: web}`.
    ///
    /// Use instead: add the new labels to the pods first, roll them out, then change the
    /// selector.
    pub static DIFF_SELECTOR_CHANGED = {
        id: "diff-selector-changed",
        severity: Warning,
        domain: Kubernetes,
        summary: "a Service selector changes: endpoints swap at once, before the new pods are ready",
        evidence: &[
            "https://kubernetes.io/docs/concepts/services-networking/service/#services-in-kubernetes",
            "https://kubernetes.io/docs/concepts/services-networking/service/#defining-a-service",
        ],
        check: crate::diff::lint_check,
    }
}

pub(crate) fn diff(cx: &DiffContext<'_>, sink: &mut Sink) {
    for (b, h) in &cx.matched {
        if cx.head.ws.graph.objects[*h].kind != "Service" {
            continue;
        }
        let path = ["spec", "selector"];
        let old = canon_at(cx.base.obj_node(*b), &path);
        let new = canon_at(cx.head.obj_node(*h), &path);
        if old == new {
            continue;
        }
        let at = cx.place(*b, *h, &path);
        let show = |side: &crate::diff::Side<'_>, id| {
            let node = side.obj_node(id).path(&path);
            if node.is_none() {
                return "none".to_string();
            }
            let pairs = crate::k8s::string_map(node);
            let text: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("`{}`", text.join(","))
        };
        let (base_at, head_at) = if at.in_base {
            (at.primary, at.other)
        } else {
            (at.other, at.primary)
        };
        let f = sink.report(
            at.primary,
            format!(
                "{} selector changes from {} ({} in BASE) to {} ({} in HEAD): endpoints switch to the new pods the moment it is applied, before they are ready",
                cx.describe(*h),
                show(&cx.base, *b),
                cx.cite(base_at),
                show(&cx.head, *h),
                cx.cite(head_at),
            ),
        );
        f.label(
            at.other,
            if at.in_base {
                "HEAD: no selector"
            } else {
                "BASE selector"
            },
        );
        f.help("label the pods with the new labels first, roll out, then change the selector");
    }
}
