//! `diff-immutable-field-changed`: a field the API server refuses to update changes.

use crate::diff::{canon_at, DiffContext};
use crate::rule::prelude::*;

declare_rule! {
    /// A field the API server refuses to update changes between BASE and HEAD.
    ///
    /// ## What it does
    /// `kubegap diff` only. For objects matched by kind, namespace and name, compares:
    /// `spec.selector` of Deployments, StatefulSets, DaemonSets and ReplicaSets; every
    /// StatefulSet `spec` field other than `replicas`, `template`, `updateStrategy`,
    /// `revisionHistoryLimit`, `minReadySeconds`, `ordinals` and
    /// `persistentVolumeClaimRetentionPolicy`; a Job's `spec.template`; a Service's
    /// `spec.clusterIP` when both sides set it; a PersistentVolumeClaim's `spec` other than
    /// `resources.requests.storage`.
    ///
    /// ## Why is this bad?
    /// The apply is refused (`field is immutable`), failing the deploy half-way; forcing it
    /// (`--force`, `helm --force`, delete and recreate) deletes the object: every pod of a
    /// workload at once, a Service's address, a claim's volume binding.
    ///
    /// ## Example
    /// BASE `spec.selector.matchLabels: {app: web}`, HEAD `{app: web, tier: front}` on a
    /// Deployment.
    ///
    /// Use instead: create the object under a new name next to the old one, move traffic,
    /// then delete the old one.
    pub static DIFF_IMMUTABLE_FIELD_CHANGED = {
        id: "diff-immutable-field-changed",
        severity: Error,
        domain: Kubernetes,
        summary: "a field the API server refuses to update changes; forcing the apply deletes and recreates the object",
        evidence: &[
            "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#label-selector-updates",
            "https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/",
            "https://github.com/helm/charts/issues/7680",
            "https://github.com/helm/charts/issues/7803",
            "https://github.com/jetstack/version-checker/issues/140",
        ],
        check: crate::diff::lint_check,
    }
}

const STS_MUTABLE: &[&str] = &[
    "replicas",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "minReadySeconds",
    "ordinals",
    "persistentVolumeClaimRetentionPolicy",
];

pub(crate) fn diff(cx: &DiffContext<'_>, sink: &mut Sink) {
    for (b, h) in &cx.matched {
        let kind = cx.head.ws.graph.objects[*h].kind.as_str();
        let bn = cx.base.obj_node(*b);
        let hn = cx.head.obj_node(*h);
        let mut paths: Vec<Vec<String>> = Vec::new();
        match kind {
            "Deployment" | "DaemonSet" | "ReplicaSet" => {
                paths.push(vec!["spec".into(), "selector".into()]);
            }
            "StatefulSet" => {
                let mut keys: Vec<String> = Vec::new();
                for node in [bn, hn] {
                    if let Some(spec) = node.get("spec") {
                        for (k, _) in spec.entries() {
                            if let Some(k) = k.as_str() {
                                if !STS_MUTABLE.contains(&k) && !keys.iter().any(|x| x == k) {
                                    keys.push(k.to_string());
                                }
                            }
                        }
                    }
                }
                keys.sort();
                paths.extend(keys.into_iter().map(|k| vec!["spec".into(), k]));
            }
            "Job" => paths.push(vec!["spec".into(), "template".into()]),
            "Service" => {
                let ip = |n: crate::yaml::NodeRef<'_>| {
                    n.str_at(&["spec", "clusterIP"])
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                };
                if let (Some(old), Some(new)) = (ip(bn), ip(hn)) {
                    if old != new {
                        paths.push(vec!["spec".into(), "clusterIP".into()]);
                    }
                }
            }
            "PersistentVolumeClaim" => {
                let strip = |n: crate::yaml::NodeRef<'_>| {
                    let mut parts = Vec::new();
                    if let Some(spec) = n.get("spec") {
                        for (k, v) in spec.entries() {
                            let key = k.as_str().unwrap_or("?");
                            if key == "resources" {
                                for (rk, rv) in v.entries() {
                                    let rkey = rk.as_str().unwrap_or("?");
                                    if rkey == "requests" {
                                        for (qk, qv) in rv.entries() {
                                            if qk.as_str() != Some("storage") {
                                                parts.push((
                                                    format!(
                                                        "resources.requests.{}",
                                                        qk.as_str().unwrap_or("?")
                                                    ),
                                                    crate::diff::canon(qv),
                                                ));
                                            }
                                        }
                                    } else {
                                        parts.push((
                                            format!("resources.{rkey}"),
                                            crate::diff::canon(rv),
                                        ));
                                    }
                                }
                            } else {
                                parts.push((key.to_string(), crate::diff::canon(v)));
                            }
                        }
                    }
                    parts.sort();
                    parts
                };
                let (old, new) = (strip(bn), strip(hn));
                if old != new {
                    let changed: Vec<&str> = new
                        .iter()
                        .filter(|p| !old.contains(p))
                        .chain(old.iter().filter(|p| !new.contains(p)))
                        .map(|(k, _)| k.split('.').next().unwrap_or(""))
                        .collect();
                    let first = changed.first().copied().unwrap_or("spec");
                    paths.push(vec!["spec".into(), first.to_string()]);
                }
            }
            _ => {}
        }
        for path in paths {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            let (old, new) = (canon_at(bn, &path), canon_at(hn, &path));
            if old == new && kind != "PersistentVolumeClaim" {
                continue;
            }
            let at = cx.place(*b, *h, &path);
            let field = path.join(".");
            let what = if at.in_base { "removes" } else { "changes" };
            let f = sink.report(
                at.primary,
                format!(
                    "{} {what} `{field}` ({} in {}), which the API server refuses to update: the apply will be refused, and forcing it deletes and recreates the object",
                    cx.describe(*h),
                    cx.cite(at.other),
                    at.other_side(),
                ),
            );
            f.label(
                at.other,
                if at.in_base {
                    format!("HEAD has no `{field}`")
                } else {
                    format!("BASE `{field}`")
                },
            );
            f.help(
                "create the object under a new name, move traffic to it, then delete the old one",
            );
        }
    }
}
