//! Pod-template and rollout accessors that the availability rules share: replica counts with
//! where they came from, int-or-percent amounts, probes, preStop hooks, anti-affinity and spread.
//!
//! These read the YAML nodes the graph already points at, so the graph's structs stay as they
//! are. Every walk is over a fixed shape (no recursion over user-controlled depth).

use crate::k8s::{At, Graph, LabelSelector, ObjId, Service, Workload};
use crate::source::Span;
use crate::yaml::{Document, NodeRef};

/// The hostname topology key: one pod per node.
pub const HOSTNAME_KEY: &str = "kubernetes.io/hostname";

/// Kubernetes' default `terminationGracePeriodSeconds`.
pub const DEFAULT_GRACE_SECONDS: i64 = 30;

/// An `IntOrString` amount such as `maxUnavailable: 1` or `minAvailable: "50%"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    /// An absolute number of pods.
    Count(i64),
    /// A percentage of the pods.
    Percent(i64),
}

impl Amount {
    /// Reads a plain integer or a `N%` string. Anything else (templating left-overs, quoted
    /// digits, which Kubernetes rejects for these fields) is `None`.
    pub fn parse(node: NodeRef<'_>) -> Option<Amount> {
        if let Some(n) = node.as_i64() {
            return Some(Amount::Count(n));
        }
        let text = node.as_str()?.trim();
        let digits = text.strip_suffix('%')?;
        crate::yaml::parse_int(digits).map(Amount::Percent)
    }

    /// The number of pods for `total` pods, rounding a percentage up or down as the field does.
    pub fn scaled(self, total: i64, round_up: bool) -> i64 {
        match self {
            Amount::Count(n) => n,
            Amount::Percent(p) => {
                let product = p.saturating_mul(total);
                if round_up {
                    (product + 99).div_euclid(100)
                } else {
                    product.div_euclid(100)
                }
            }
        }
    }
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Amount::Count(n) => write!(f, "{n}"),
            Amount::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// Where a replica count came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplicaSource {
    /// `spec.replicas` written at this node.
    Written(At),
    /// `spec.replicas` omitted: Kubernetes defaults it to 1.
    Default,
    /// A bare Pod is one replica.
    Pod,
    /// An HPA scales the workload: its `minReplicas` (node if written; default 1).
    HpaMin {
        /// The HPA object.
        hpa: ObjId,
        /// The `minReplicas` value node, if written.
        at: Option<At>,
    },
}

/// A replica count with its origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replicas {
    /// The number of pods.
    pub count: i64,
    /// Where it came from.
    pub source: ReplicaSource,
}

impl Replicas {
    /// Where the count came from, for messages: `replicas: 3` at file:line, the default, or
    /// the HPA's `minReplicas`.
    pub fn origin(&self, cx: &crate::model::Model<'_>) -> String {
        match self.source {
            ReplicaSource::Written(at) => {
                format!("`replicas: {}` ({})", self.count, cx.cite(cx.span(at)))
            }
            ReplicaSource::Default => "`replicas` is not set and defaults to 1".to_string(),
            ReplicaSource::Pod => "a bare Pod is a single replica".to_string(),
            ReplicaSource::HpaMin { hpa, at: Some(at) } => format!(
                "{} scales it down to `minReplicas: {}` ({})",
                cx.describe(hpa),
                self.count,
                cx.cite(cx.span(at))
            ),
            ReplicaSource::HpaMin { hpa, at: None } => format!(
                "{} scales it down to `minReplicas`, which defaults to 1",
                cx.describe(hpa)
            ),
        }
    }

    /// The node the count was read from, if written.
    pub fn at(&self) -> Option<At> {
        match self.source {
            ReplicaSource::Written(at) | ReplicaSource::HpaMin { at: Some(at), .. } => Some(at),
            _ => None,
        }
    }
}

/// Whether a workload kind runs a fixed number of replicas (`spec.replicas`).
pub fn has_replicas(kind: &str) -> bool {
    matches!(
        kind,
        "Deployment" | "StatefulSet" | "ReplicaSet" | "ReplicationController" | "DeploymentConfig"
    )
}

/// The written replica count of a workload, ignoring HPAs: `spec.replicas`, the default 1, or
/// 1 for a bare Pod. `None` for kinds without a fixed count (DaemonSet, Job, CronJob) and for
/// values that are not integers.
pub fn written_replicas(graph: &Graph, docs: &[Document], workload: &Workload) -> Option<Replicas> {
    let kind = graph.objects[workload.obj].kind.as_str();
    if kind == "Pod" {
        return Some(Replicas {
            count: 1,
            source: ReplicaSource::Pod,
        });
    }
    if !has_replicas(kind) {
        return None;
    }
    match workload.replicas {
        Some(at) => graph.node(docs, at).as_i64().map(|count| Replicas {
            count,
            source: ReplicaSource::Written(at),
        }),
        None => Some(Replicas {
            count: 1,
            source: ReplicaSource::Default,
        }),
    }
}

/// A workload that serves traffic: the first Service that targets it, and the floor of its
/// replica count ([`min_replicas`]). `None` when no Service targets it or the count is unknown.
pub fn served_replicas<'g>(
    graph: &'g Graph,
    docs: &[Document],
    workload: &Workload,
) -> Option<(&'g Service, Replicas)> {
    let service = graph.first_traffic_service(workload)?;
    Some((service, min_replicas(graph, docs, workload)?))
}

/// The floor of a workload's replica count: the HPA's `minReplicas` when an HPA scales it,
/// else [`written_replicas`].
pub fn min_replicas(graph: &Graph, docs: &[Document], workload: &Workload) -> Option<Replicas> {
    if let Some(hpa) = graph.hpa_of(workload) {
        let node = graph
            .node(docs, graph.objects[hpa.obj].at)
            .path(&["spec", "minReplicas"]);
        return match node {
            Some(n) => n.as_i64().map(|count| Replicas {
                count,
                source: ReplicaSource::HpaMin {
                    hpa: hpa.obj,
                    at: Some(At {
                        doc: graph.objects[hpa.obj].at.doc,
                        node: n.id,
                    }),
                },
            }),
            None => Some(Replicas {
                count: 1,
                source: ReplicaSource::HpaMin {
                    hpa: hpa.obj,
                    at: None,
                },
            }),
        };
    }
    written_replicas(graph, docs, workload)
}

/// The most replicas a workload may run: the HPA's `maxReplicas` (with its HPA), else the
/// written count.
pub fn max_replicas(
    graph: &Graph,
    docs: &[Document],
    workload: &Workload,
) -> Option<(i64, Option<ObjId>)> {
    if let Some(hpa) = graph.hpa_of(workload) {
        return hpa.max_replicas.map(|m| (m, Some(hpa.obj)));
    }
    written_replicas(graph, docs, workload).map(|r| (r.count, None))
}

/// The workload's object node.
pub fn object_node<'a>(graph: &Graph, docs: &'a [Document], workload: &Workload) -> NodeRef<'a> {
    graph.node(docs, graph.objects[workload.obj].at)
}

/// The `spec` key of the workload object (a span for findings about an omitted field).
pub fn spec_key<'a>(graph: &Graph, docs: &'a [Document], workload: &Workload) -> NodeRef<'a> {
    let node = object_node(graph, docs, workload);
    node.get_entry("spec").map_or(node, |(key, _)| key)
}

/// The pod spec node.
pub fn pod_spec<'a>(
    graph: &Graph,
    docs: &'a [Document],
    workload: &Workload,
) -> Option<NodeRef<'a>> {
    workload.pod_spec.map(|at| graph.node(docs, at))
}

/// The three probe fields of a container, in the order Kubernetes documents them.
pub const PROBES: [&str; 3] = ["livenessProbe", "readinessProbe", "startupProbe"];

/// The probe handler of a probe: (`httpGet`|`tcpSocket`|`grpc`|`exec`, handler node).
pub fn probe_handler<'a>(probe: NodeRef<'a>) -> Option<(&'static str, NodeRef<'a>)> {
    ["httpGet", "tcpSocket", "grpc", "exec"]
        .into_iter()
        .find_map(|h| probe.get(h).map(|n| (h, n)))
}

/// A probe timing field, or its Kubernetes default.
pub fn probe_field<'a>(probe: NodeRef<'a>, field: &str) -> (i64, Option<NodeRef<'a>>) {
    let default = match field {
        "periodSeconds" => 10,
        "failureThreshold" => 3,
        "timeoutSeconds" | "successThreshold" => 1,
        _ => 0,
    };
    match probe.get(field) {
        Some(n) => (n.as_i64().unwrap_or(default), Some(n)),
        None => (default, None),
    }
}

/// A preStop hook as far as draining goes.
#[derive(Clone, Copy, Debug)]
pub enum PreStop<'a> {
    /// Waits this many seconds: a `sleep` action, or an exec command that runs `sleep N`.
    Sleep(i64, NodeRef<'a>),
    /// Some other hook (a script, an HTTP call): kubegap cannot see how long it waits.
    Other(NodeRef<'a>),
}

/// The preStop hook of a container, if any.
pub fn pre_stop(container: NodeRef<'_>) -> Option<PreStop<'_>> {
    let hook = container.path(&["lifecycle", "preStop"])?;
    if let Some(seconds) = hook.path(&["sleep", "seconds"]) {
        return Some(match seconds.as_i64() {
            Some(n) => PreStop::Sleep(n, seconds),
            None => PreStop::Other(hook),
        });
    }
    if let Some(command) = hook.path(&["exec", "command"]) {
        let words: Vec<&str> = command
            .items()
            .filter_map(|w| w.as_str())
            .flat_map(|w| w.split(|c: char| c.is_whitespace() || c == ';' || c == '&'))
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(pos) = words
            .iter()
            .position(|w| *w == "sleep" || w.ends_with("/sleep"))
        {
            if let Some(n) = words
                .get(pos + 1)
                .and_then(|w| w.trim_end_matches('s').parse::<i64>().ok())
            {
                return Some(PreStop::Sleep(n, command));
            }
        }
    }
    Some(PreStop::Other(hook))
}

/// `terminationGracePeriodSeconds`: the value and its node, or the default 30 and `None`.
pub fn grace_period<'a>(pod_spec: Option<NodeRef<'a>>) -> (i64, Option<NodeRef<'a>>) {
    match pod_spec.and_then(|s| s.get("terminationGracePeriodSeconds")) {
        Some(n) => (n.as_i64().unwrap_or(DEFAULT_GRACE_SECONDS), Some(n)),
        None => (DEFAULT_GRACE_SECONDS, None),
    }
}

/// A pod-affinity term that keeps the workload's own pods on distinct hosts: topology key
/// `kubernetes.io/hostname`, a label selector that matches the pod template's labels, and a
/// namespace list (if any) that includes the workload's namespace.
fn is_own_hostname_term(term: NodeRef<'_>, workload: &Workload, namespace: &str) -> bool {
    if term.str_at(&["topologyKey"]) != Some(HOSTNAME_KEY) {
        return false;
    }
    // A null label selector matches no pods.
    let Some(selector) = term.get("labelSelector").filter(|s| s.is_map()) else {
        return false;
    };
    if !LabelSelector::parse(selector).matches(&workload.labels) {
        return false;
    }
    let namespaces: Vec<&str> = term
        .get("namespaces")
        .into_iter()
        .flat_map(|n| n.items())
        .filter_map(|n| n.as_str())
        .collect();
    namespaces.is_empty() || namespaces.contains(&namespace)
}

/// Hostname anti-affinity terms of the workload's own pods.
#[derive(Clone, Debug, Default)]
pub struct HostAntiAffinity<'a> {
    /// Required terms (`requiredDuringSchedulingIgnoredDuringExecution`), term nodes.
    pub required: Vec<NodeRef<'a>>,
    /// Whether a preferred term exists.
    pub preferred: bool,
}

/// The workload's hostname anti-affinity against its own pods.
pub fn host_anti_affinity<'a>(
    graph: &Graph,
    docs: &'a [Document],
    workload: &Workload,
) -> HostAntiAffinity<'a> {
    let mut out = HostAntiAffinity::default();
    let namespace = graph.objects[workload.obj].namespace.as_str();
    let Some(anti) =
        pod_spec(graph, docs, workload).and_then(|s| s.path(&["affinity", "podAntiAffinity"]))
    else {
        return out;
    };
    for term in anti
        .get("requiredDuringSchedulingIgnoredDuringExecution")
        .into_iter()
        .flat_map(|n| n.items())
    {
        if is_own_hostname_term(term, workload, namespace) {
            out.required.push(term);
        }
    }
    out.preferred = anti
        .get("preferredDuringSchedulingIgnoredDuringExecution")
        .into_iter()
        .flat_map(|n| n.items())
        .filter_map(|w| w.get("podAffinityTerm"))
        .any(|term| is_own_hostname_term(term, workload, namespace));
    out
}

/// Whether the workload's pods are spread over nodes: hostname anti-affinity against its own
/// pods (required or preferred), or any `topologySpreadConstraints`.
pub fn is_spread(graph: &Graph, docs: &[Document], workload: &Workload) -> bool {
    let anti = host_anti_affinity(graph, docs, workload);
    if !anti.required.is_empty() || anti.preferred {
        return true;
    }
    pod_spec(graph, docs, workload)
        .and_then(|s| s.get("topologySpreadConstraints"))
        .is_some_and(|t| t.items().next().is_some())
}

/// How long a load balancer in front of a workload's pods keeps draining one
/// (k8s-grace-period-too-short), kept per list of selecting Services ([`Graph::drain_of`]).
#[derive(Clone, Debug)]
pub struct Drain {
    /// Seconds.
    pub seconds: i64,
    /// Where to label it (annotation value, target type, or BackendConfig field).
    pub span: Span,
    /// What the label says.
    pub label: String,
    /// The exposing object.
    pub lb: ObjId,
    /// What to change, for the help.
    pub knob: &'static str,
}

/// Why a workload receives traffic from outside the cluster: the object (Ingress, Route or
/// LoadBalancer Service) and a node to label.
#[derive(Clone, Copy, Debug)]
pub struct Exposure {
    /// The exposing object.
    pub obj: ObjId,
    /// A node of it to point a label at.
    pub at: At,
    /// The Service in between (the exposing object itself for a LoadBalancer Service).
    pub service: ObjId,
}

/// How a workload is exposed behind a load balancer or an ingress: LoadBalancer Services that
/// select it, Ingress backends and Routes that name such a Service. Sorted by object id. Made
/// once for each list of selecting Services ([`Graph::selector_list`]) and kept by the graph.
pub fn exposures<'g>(graph: &'g Graph, docs: &[Document], workload: &Workload) -> &'g [Exposure] {
    let Some(list) = graph.selector_list(workload) else {
        return &[];
    };
    graph.exposures_of(list, || {
        let mut out = Vec::new();
        for service in graph.services_of(workload) {
            let sobj = &graph.objects[service.obj];
            if service.service_type == "LoadBalancer" {
                let type_node =
                    graph
                        .node(docs, sobj.at)
                        .path(&["spec", "type"])
                        .map_or(sobj.at, |n| At {
                            doc: sobj.at.doc,
                            node: n.id,
                        });
                out.push(Exposure {
                    obj: service.obj,
                    at: type_node,
                    service: service.obj,
                });
            }
            // Ingresses and Routes naming this Service (first backend of each).
            for (obj, at) in graph.backends_of(service.obj) {
                out.push(Exposure {
                    obj: *obj,
                    at: *at,
                    service: service.obj,
                });
            }
        }
        out.sort_by_key(|e| (e.obj, e.service));
        out.dedup_by_key(|e| (e.obj, e.service));
        out.shrink_to_fit();
        out
    })
}

/// The span of a Service's `selector` key (its object if it has none), for labels that say
/// which Service sends traffic to a workload.
pub fn service_selector_span(
    cx: &crate::model::Model<'_>,
    service: &crate::k8s::Service,
) -> crate::source::Span {
    cx.key_span(service.obj, &["spec", "selector"])
        .unwrap_or_else(|| cx.span(cx.obj(service.obj).at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn first(text: &str) -> Vec<Document> {
        let (docs, errors) = crate::yaml::parse(FileId(0), text);
        assert!(errors.is_empty(), "{errors:?}");
        docs
    }

    #[test]
    fn amounts() {
        let docs = first("a: 25%\nb: 3\nc: \"3\"\nd: x%\n");
        let root = docs[0].root().unwrap();
        assert_eq!(
            Amount::parse(root.get("a").unwrap()),
            Some(Amount::Percent(25))
        );
        assert_eq!(
            Amount::parse(root.get("b").unwrap()),
            Some(Amount::Count(3))
        );
        assert_eq!(Amount::parse(root.get("c").unwrap()), None);
        assert_eq!(Amount::parse(root.get("d").unwrap()), None);
        assert_eq!(Amount::Percent(25).scaled(3, false), 0);
        assert_eq!(Amount::Percent(25).scaled(3, true), 1);
        assert_eq!(Amount::Percent(100).scaled(3, false), 3);
    }

    #[test]
    fn pre_stop_forms() {
        let docs = first(
            "a: {lifecycle: {preStop: {sleep: {seconds: 15}}}}\n\
             b: {lifecycle: {preStop: {exec: {command: [/bin/sh, -c, sleep 20 && nginx -s quit]}}}}\n\
             c: {lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}\n\
             d: {name: x}\n",
        );
        let root = docs[0].root().unwrap();
        assert!(matches!(
            pre_stop(root.get("a").unwrap()),
            Some(PreStop::Sleep(15, _))
        ));
        assert!(matches!(
            pre_stop(root.get("b").unwrap()),
            Some(PreStop::Sleep(20, _))
        ));
        assert!(matches!(
            pre_stop(root.get("c").unwrap()),
            Some(PreStop::Other(_))
        ));
        assert!(pre_stop(root.get("d").unwrap()).is_none());
    }
}
