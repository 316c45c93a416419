//! `k8s-deprecated-node-labels`: scheduling on node labels that Kubernetes no longer sets.

use crate::rule::prelude::*;
use crate::yaml::NodeRef;

declare_rule! {
    /// Pods are scheduled on node labels that Kubernetes removed or deprecated.
    ///
    /// ## What it does
    /// Looks in every pod template at `nodeSelector` keys, node-affinity `matchExpressions`
    /// keys, pod (anti-)affinity and `topologySpreadConstraints` topology keys, and toleration
    /// keys; and in Calico objects (`projectcalico.org`) at `nodeSelector` and `peerSelector`
    /// expressions. It flags `node-role.kubernetes.io/master` (no longer set on control-plane
    /// nodes since Kubernetes 1.24; its taint went in 1.25), `beta.kubernetes.io/os` and
    /// `beta.kubernetes.io/arch` (deprecated in 1.14), `beta.kubernetes.io/instance-type` and
    /// `failure-domain.beta.kubernetes.io/{zone,region}` (deprecated in 1.17). A `master`
    /// toleration next to a `control-plane` one is the usual transition and is not flagged.
    ///
    /// ## Why is this bad?
    /// Once nodes no longer carry the label, the selector matches no node: pods stay Pending,
    /// or a spread or anti-affinity term silently stops spreading. Reddit's Pi-Day outage
    /// (2023): Kubernetes 1.24 stopped labelling control-plane nodes
    /// `node-role.kubernetes.io/master`; the Calico route reflectors were selected by that
    /// label, so the cluster network went down for 314 minutes. That label is gone, so it is
    /// an error. The beta labels are deprecated (since Kubernetes 1.22 the API server warns
    /// about them in node selectors), but whether a cluster's nodes still carry them depends
    /// on its version and cloud provider (some still set them): a warning.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: reflector}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: reflector}}
    ///     spec:
    ///       nodeSelector: {node-role.kubernetes.io/master: ""}
    ///       containers: [{name: bird, image: example/bird:1.0}]
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: reflector}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: reflector}}
    ///     spec:
    ///       nodeSelector: {node-role.kubernetes.io/control-plane: ""}
    ///       containers: [{name: bird, image: example/bird:1.0}]
    /// ```
    ///
    /// ## Peers
    /// None. Pluto and kubent flag deprecated API versions, not labels.
    pub static K8S_DEPRECATED_NODE_LABELS = {
        id: "k8s-deprecated-node-labels",
        severity: Error,
        domain: Kubernetes,
        summary: "node selectors or affinities on node labels Kubernetes removed (error) or deprecated (warning, like a stale `master` toleration, which leaves no pod Pending)",
        evidence: &[
            "https://www.reddit.com/r/RedditEng/comments/11xx5o0/you_broke_reddit_the_piday_outage/",
            "https://kubernetes.io/docs/reference/labels-annotations-taints/",
            "https://github.com/kubernetes/kubernetes/pull/101688",
        ],
        check: check,
        workloads: check_workloads,
        also_reports: [Warning],
    }
}

/// (label, replacement, what happened to it, severity). A label nodes no longer carry leaves
/// pods Pending: an error. A deprecated beta label is still on the nodes of many clusters
/// (whether it is depends on the Kubernetes version and the cloud provider): a warning.
const DEPRECATED: &[(&str, &str, &str, Severity)] = &[
    (
        "node-role.kubernetes.io/master",
        "node-role.kubernetes.io/control-plane",
        "is no longer set on control-plane nodes since Kubernetes 1.24",
        Severity::Error,
    ),
    (
        "beta.kubernetes.io/arch",
        "kubernetes.io/arch",
        BETA_1_14,
        Severity::Warning,
    ),
    (
        "beta.kubernetes.io/os",
        "kubernetes.io/os",
        BETA_1_14,
        Severity::Warning,
    ),
    (
        "beta.kubernetes.io/instance-type",
        "node.kubernetes.io/instance-type",
        BETA_1_17,
        Severity::Warning,
    ),
    (
        "failure-domain.beta.kubernetes.io/zone",
        "topology.kubernetes.io/zone",
        BETA_1_17,
        Severity::Warning,
    ),
    (
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/region",
        BETA_1_17,
        Severity::Warning,
    ),
];

const BETA_1_14: &str =
    "is deprecated since Kubernetes 1.14 (whether nodes still carry it depends on the cluster)";
const BETA_1_17: &str = "is deprecated since Kubernetes 1.17 (whether nodes still carry it depends on the cluster and its cloud provider)";

fn deprecated(
    label: &str,
) -> Option<&'static (&'static str, &'static str, &'static str, Severity)> {
    DEPRECATED.iter().find(|(l, _, _, _)| *l == label)
}

/// Reports `node` (a key or a value) if it is exactly a deprecated label. `owner` names the
/// workload, formatted only for a finding.
fn report(sink: &mut Sink, node: NodeRef<'_>, field: &str, owner: &dyn Fn() -> String) {
    let Some(label) = node.as_str() else {
        return;
    };
    let Some((label, replacement, fate, severity)) = deprecated(label) else {
        return;
    };
    sink.report(
        node.span(),
        format!(
            "{field} of {} uses node label `{label}`, which {fate}",
            owner()
        ),
    )
    .severity(*severity)
    .help(format!(
        "use `{replacement}` (nodes of current clusters carry it)"
    ));
}

fn items<'a>(node: Option<NodeRef<'a>>) -> impl Iterator<Item = NodeRef<'a>> {
    node.into_iter().flat_map(|n| n.items())
}

fn check_pod_spec(sink: &mut Sink, spec: NodeRef<'_>, owner: &dyn Fn() -> String) {
    for (key, _) in spec
        .get("nodeSelector")
        .map(|n| n.entries())
        .unwrap_or_default()
    {
        report(sink, key, "the nodeSelector", owner);
    }
    let node_affinity = spec.path(&["affinity", "nodeAffinity"]);
    let required = node_affinity.and_then(|a| {
        a.path(&[
            "requiredDuringSchedulingIgnoredDuringExecution",
            "nodeSelectorTerms",
        ])
    });
    let preferred =
        items(node_affinity.and_then(|a| a.get("preferredDuringSchedulingIgnoredDuringExecution")))
            .filter_map(|p| p.get("preference"));
    for term in items(required).chain(preferred) {
        for expr in items(term.get("matchExpressions")) {
            if let Some(key) = expr.get("key") {
                report(sink, key, "the node affinity", owner);
            }
        }
    }
    for kind in ["podAffinity", "podAntiAffinity"] {
        let affinity = spec.path(&["affinity", kind]);
        let required =
            items(affinity.and_then(|a| a.get("requiredDuringSchedulingIgnoredDuringExecution")));
        let preferred =
            items(affinity.and_then(|a| a.get("preferredDuringSchedulingIgnoredDuringExecution")))
                .filter_map(|p| p.get("podAffinityTerm"));
        for term in required.chain(preferred) {
            if let Some(key) = term.get("topologyKey") {
                report(sink, key, &format!("the {kind} topologyKey"), owner);
            }
        }
    }
    for constraint in items(spec.get("topologySpreadConstraints")) {
        if let Some(key) = constraint.get("topologyKey") {
            report(sink, key, "a topologySpreadConstraint", owner);
        }
    }
    let tolerations: Vec<NodeRef<'_>> = items(spec.get("tolerations"))
        .filter_map(|t| t.get("key"))
        .collect();
    let has_control_plane = tolerations
        .iter()
        .any(|k| k.as_str() == Some("node-role.kubernetes.io/control-plane"));
    for key in tolerations {
        if key.as_str() == Some("node-role.kubernetes.io/master") {
            // A taint, not a label: tolerating it is harmless, but without the new taint's
            // toleration the pods no longer run on control-plane nodes.
            if !has_control_plane {
                sink.report(
                    key.span(),
                    format!("a toleration of {} names the taint `node-role.kubernetes.io/master`, which control-plane nodes no longer carry since Kubernetes 1.25", owner()),
                )
                // A stale toleration never makes a pod Pending: the pods only stop landing
                // on control-plane nodes. A warning, not an error.
                .severity(Severity::Warning)
                .help("tolerate `node-role.kubernetes.io/control-plane` (keep the old key too while older clusters remain)");
            }
            continue;
        }
        report(sink, key, "a toleration", owner);
    }
}

/// Calico selector expressions such as `has(node-role.kubernetes.io/master)`.
fn check_calico(sink: &mut Sink, cx: &Context<'_>, obj: &crate::k8s::Object) {
    let spec = cx.node(obj.at).get("spec");
    for field in ["nodeSelector", "peerSelector"] {
        let Some(value) = spec.and_then(|s| s.get(field)) else {
            continue;
        };
        let Some(text) = value.as_str() else {
            continue;
        };
        let Some((label, replacement, fate, severity)) = DEPRECATED.iter().find(|(l, _, _, _)| {
            text.match_indices(l).any(|(i, _)| {
                // A whole label, not a prefix of a longer one.
                let end = i + l.len();
                !text[end..].starts_with(|c: char| {
                    c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '/'
                })
            })
        }) else {
            continue;
        };
        sink.report(
            value.span(),
            format!(
                "the {field} of {} `{}` uses node label `{label}`, which {fate}",
                obj.kind, obj.name
            ),
        )
        .severity(*severity)
        .help(format!("use `{replacement}`"));
    }
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    for workload in workloads {
        if let Some(spec) = workload.pod_spec {
            check_pod_spec(sink, cx.node(spec), &|| cx.describe(workload.obj));
        }
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for obj in &cx.k8s.objects {
        if obj.api_version.starts_with("crd.projectcalico.org/")
            || obj.api_version.starts_with("projectcalico.org/")
        {
            check_calico(sink, cx, obj);
        }
    }
}
