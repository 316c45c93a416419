//! The Kubernetes object graph: objects indexed by kind, namespace and name, typed views with
//! spans, and resolved references between them.
//!
//! Views store node ids, not borrowed nodes, so the graph can live next to the documents it
//! indexes; [`Graph::node`] turns an id back into a [`NodeRef`].

use std::collections::BTreeMap;

use crate::source::Span;
use crate::yaml::{Document, NodeId, NodeRef};

pub mod pod;
mod selector;

pub use selector::{LabelSelector, Requirement};

/// Index of an object in [`Graph::objects`].
pub type ObjId = usize;

/// A node in a document: (document index, node id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct At {
    /// Index into the documents slice.
    pub doc: usize,
    /// Node in that document.
    pub node: NodeId,
}

/// One Kubernetes object (a document, or an item of a `List`).
#[derive(Clone, Debug)]
pub struct Object {
    /// The object's mapping.
    pub at: At,
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.name` (empty if missing).
    pub name: String,
    /// `metadata.namespace`, else `default`.
    pub namespace: String,
    /// Whether `metadata.namespace` was written.
    pub namespace_explicit: bool,
}

/// A container of a pod template.
#[derive(Clone, Debug)]
pub struct Container {
    /// The container's mapping.
    pub at: At,
    /// `name`.
    pub name: String,
    /// `image`, if any.
    pub image: Option<String>,
    /// Declared ports.
    pub ports: Vec<ContainerPort>,
    /// Whether this is an init container.
    pub init: bool,
}

/// A declared container port.
#[derive(Clone, Debug)]
pub struct ContainerPort {
    /// `name`, if any.
    pub name: Option<String>,
    /// `containerPort`, if a number.
    pub number: Option<i64>,
    /// The port's mapping.
    pub at: At,
}

impl ContainerPort {
    /// How messages name the port: `` `http` (8080) ``, `8080`, `` `http` `` or `?`.
    pub fn describe(&self) -> String {
        match (&self.name, self.number) {
            (Some(name), Some(number)) => format!("`{name}` ({number})"),
            (None, Some(number)) => number.to_string(),
            (Some(name), None) => format!("`{name}`"),
            (None, None) => "?".to_string(),
        }
    }
}

/// Anything with a pod template: Deployment, StatefulSet, DaemonSet, ReplicaSet,
/// ReplicationController, Job, CronJob, Pod, DeploymentConfig.
#[derive(Clone, Debug)]
pub struct Workload {
    /// The object.
    pub obj: ObjId,
    /// The pod template mapping (`metadata` + `spec`); for a Pod, the Pod itself.
    pub template: At,
    /// The pod spec mapping.
    pub pod_spec: Option<At>,
    /// Labels of the pod template.
    pub labels: BTreeMap<String, String>,
    /// `spec.replicas` value node, if written.
    pub replicas: Option<At>,
    /// Containers (and init containers, flagged).
    pub containers: Vec<Container>,
}

/// A Service port.
#[derive(Clone, Debug)]
pub struct ServicePort {
    /// The port's mapping.
    pub at: At,
    /// `name`, if any.
    pub name: Option<String>,
    /// `port`.
    pub port: Option<i64>,
    /// `targetPort` value node, if written.
    pub target_port: Option<At>,
}

/// A Service.
#[derive(Clone, Debug)]
pub struct Service {
    /// The object.
    pub obj: ObjId,
    /// `spec.selector` value node, if written.
    pub selector: Option<At>,
    /// The selector's pairs (empty means "selects nothing by selector").
    pub selector_labels: BTreeMap<String, String>,
    /// Ports.
    pub ports: Vec<ServicePort>,
    /// `spec.type` (`ClusterIP` when absent).
    pub service_type: String,
}

/// One backend reference of an Ingress.
#[derive(Clone, Debug)]
pub struct IngressBackend {
    /// The service-name value node.
    pub service_name: At,
    /// The port value node (number or name), if any.
    pub port: Option<At>,
    /// The rule's path, if any.
    pub path: Option<String>,
    /// The rule's host, if any.
    pub host: Option<String>,
}

/// An Ingress (networking.k8s.io/v1, v1beta1, extensions/v1beta1).
#[derive(Clone, Debug)]
pub struct Ingress {
    /// The object.
    pub obj: ObjId,
    /// `spec.ingressClassName`, else the `kubernetes.io/ingress.class` annotation.
    pub class: Option<String>,
    /// Every backend (default backend and rule paths).
    pub backends: Vec<IngressBackend>,
}

/// An OpenShift Route.
#[derive(Clone, Debug)]
pub struct Route {
    /// The object.
    pub obj: ObjId,
    /// `spec.to.name` value node.
    pub to: Option<At>,
    /// `spec.port.targetPort` value node.
    pub target_port: Option<At>,
}

/// A PodDisruptionBudget.
#[derive(Clone, Debug)]
pub struct Pdb {
    /// The object.
    pub obj: ObjId,
    /// `spec.selector` node.
    pub selector_at: Option<At>,
    /// The parsed selector.
    pub selector: LabelSelector,
    /// `spec.minAvailable` value node.
    pub min_available: Option<At>,
    /// `spec.maxUnavailable` value node.
    pub max_unavailable: Option<At>,
}

/// A HorizontalPodAutoscaler (v1, v2).
#[derive(Clone, Debug)]
pub struct Hpa {
    /// The object.
    pub obj: ObjId,
    /// `spec.scaleTargetRef` node.
    pub target_ref: Option<At>,
    /// Target kind.
    pub target_kind: String,
    /// Target name.
    pub target_name: String,
    /// `spec.maxReplicas`.
    pub max_replicas: Option<i64>,
}

/// The object graph of one run.
#[derive(Debug, Default)]
pub struct Graph {
    /// Every object, in document order.
    pub objects: Vec<Object>,
    /// (kind, namespace, name) → objects (several if duplicated).
    pub index: BTreeMap<(String, String, String), Vec<ObjId>>,
    /// Workloads.
    pub workloads: Vec<Workload>,
    /// Services.
    pub services: Vec<Service>,
    /// Ingresses.
    pub ingresses: Vec<Ingress>,
    /// IngressClasses: (object, spec.controller).
    pub ingress_classes: Vec<(ObjId, Option<String>)>,
    /// Routes.
    pub routes: Vec<Route>,
    /// PodDisruptionBudgets.
    pub pdbs: Vec<Pdb>,
    /// HorizontalPodAutoscalers.
    pub hpas: Vec<Hpa>,
    /// ConfigMaps.
    pub config_maps: Vec<ObjId>,
    /// Service object → indices into `workloads` it selects (precomputed, see `link`).
    service_workloads: BTreeMap<ObjId, Vec<usize>>,
    /// Workload object → indices into `services` that select it.
    workload_services: BTreeMap<ObjId, Vec<usize>>,
    /// Object → index into `workloads`.
    workload_index: BTreeMap<ObjId, usize>,
    /// Object → index into `services`.
    service_index: BTreeMap<ObjId, usize>,
    /// (namespace, label key, label value) → indices into `workloads` whose pod template has it.
    label_index: BTreeMap<(String, String, String), Vec<usize>>,
    /// Namespaces that hold at least one workload.
    workload_namespaces: std::collections::BTreeSet<String>,
    /// (namespace, Service name) → Ingresses and Routes that send traffic to it, with the
    /// backend's service-name node.
    backend_refs: BTreeMap<(String, String), Vec<(ObjId, At)>>,
}

const WORKLOAD_KINDS: &[&str] = &[
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "ReplicationController",
    "Job",
    "CronJob",
    "Pod",
    "DeploymentConfig",
];

/// String pairs of a mapping of scalars (labels, selectors, annotations).
pub fn string_map(node: Option<NodeRef<'_>>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(node) = node {
        for (k, v) in node.entries() {
            if let (Some(k), Some(v)) = (k.as_str(), v.as_str()) {
                out.insert(k.to_string(), v.to_string());
            }
        }
    }
    out
}

impl Graph {
    /// Builds the graph from every document.
    pub fn build(documents: &[Document]) -> Graph {
        let mut graph = Graph::default();
        for (doc_index, doc) in documents.iter().enumerate() {
            let Some(root) = doc.root() else { continue };
            let Some(kind) = root.str_at(&["kind"]) else {
                continue;
            };
            if root.str_at(&["apiVersion"]).is_none() {
                continue;
            }
            let items = root.get("items");
            if kind.ends_with("List") && items.is_some() {
                for item in items.into_iter().flat_map(|i| i.items()) {
                    graph.add(doc_index, item);
                }
            } else {
                graph.add(doc_index, root);
            }
        }
        graph.link();
        graph.index_backends(documents);
        graph
    }

    /// Indexes Ingress and Route backends by the Service they name, so that "who sends traffic
    /// to this Service" is a lookup, not a scan of every Ingress per workload.
    fn index_backends(&mut self, documents: &[Document]) {
        let mut refs: BTreeMap<(String, String), Vec<(ObjId, At)>> = BTreeMap::new();
        let name_of = |at: At| documents[at.doc].node(at.node).as_str().map(str::to_string);
        for ingress in &self.ingresses {
            let ns = &self.objects[ingress.obj].namespace;
            for b in &ingress.backends {
                if let Some(name) = name_of(b.service_name) {
                    refs.entry((ns.clone(), name))
                        .or_default()
                        .push((ingress.obj, b.service_name));
                }
            }
        }
        for route in &self.routes {
            let ns = &self.objects[route.obj].namespace;
            if let Some(to) = route.to {
                if let Some(name) = name_of(to) {
                    refs.entry((ns.clone(), name))
                        .or_default()
                        .push((route.obj, to));
                }
            }
        }
        self.backend_refs = refs;
    }

    /// Ingresses and Routes whose backends name this Service, in input order, with the node of
    /// the backend's service name.
    pub fn backends_of(&self, namespace: &str, service: &str) -> &[(ObjId, At)] {
        self.backend_refs
            .get(&(namespace.to_string(), service.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// Precomputes which workloads each Service selects, through an index of pod template labels
    /// by (namespace, key, value), so that large streams stay linear instead of services ×
    /// workloads.
    fn link(&mut self) {
        let mut by_label: BTreeMap<(&str, &str, &str), Vec<usize>> = BTreeMap::new();
        for (i, w) in self.workloads.iter().enumerate() {
            let ns = self.objects[w.obj].namespace.as_str();
            for (k, v) in &w.labels {
                by_label
                    .entry((ns, k.as_str(), v.as_str()))
                    .or_default()
                    .push(i);
            }
        }
        let mut service_workloads: BTreeMap<ObjId, Vec<usize>> = BTreeMap::new();
        let mut workload_services: BTreeMap<ObjId, Vec<usize>> = BTreeMap::new();
        for (si, service) in self.services.iter().enumerate() {
            let ns = self.objects[service.obj].namespace.as_str();
            // Candidates: workloads carrying the rarest selector pair; then check all pairs.
            let candidates = service
                .selector_labels
                .iter()
                .map(|(k, v)| {
                    by_label
                        .get(&(ns, k.as_str(), v.as_str()))
                        .map_or(&[][..], Vec::as_slice)
                })
                .min_by_key(|c| c.len());
            let Some(candidates) = candidates else {
                continue;
            };
            let selected: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|wi| {
                    let w = &self.workloads[*wi];
                    service
                        .selector_labels
                        .iter()
                        .all(|(k, v)| w.labels.get(k) == Some(v))
                })
                .collect();
            for wi in &selected {
                workload_services
                    .entry(self.workloads[*wi].obj)
                    .or_default()
                    .push(si);
            }
            service_workloads.insert(service.obj, selected);
        }
        self.service_workloads = service_workloads;
        self.workload_services = workload_services;
        self.workload_index = self
            .workloads
            .iter()
            .enumerate()
            .map(|(i, w)| (w.obj, i))
            .collect();
        self.label_index = by_label
            .iter()
            .map(|((ns, k, v), ws)| ((ns.to_string(), k.to_string(), v.to_string()), ws.clone()))
            .collect();
        self.workload_namespaces = self
            .workloads
            .iter()
            .map(|w| self.objects[w.obj].namespace.clone())
            .collect();
        self.service_index = self
            .services
            .iter()
            .enumerate()
            .map(|(i, s)| (s.obj, i))
            .collect();
    }

    fn add(&mut self, doc: usize, node: NodeRef<'_>) {
        let node = node.resolve();
        let (Some(kind), Some(api_version)) =
            (node.str_at(&["kind"]), node.str_at(&["apiVersion"]))
        else {
            return;
        };
        let namespace_node = node
            .path(&["metadata", "namespace"])
            .and_then(|n| n.as_str());
        let object = Object {
            at: At { doc, node: node.id },
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            name: node
                .str_at(&["metadata", "name"])
                .unwrap_or_default()
                .to_string(),
            namespace: namespace_node
                .filter(|n| !n.is_empty())
                .unwrap_or("default")
                .to_string(),
            namespace_explicit: namespace_node.is_some(),
        };
        let id = self.objects.len();
        self.index
            .entry((
                object.kind.clone(),
                object.namespace.clone(),
                object.name.clone(),
            ))
            .or_default()
            .push(id);
        let at = |n: NodeRef<'_>| At { doc, node: n.id };
        match object.kind.as_str() {
            k if WORKLOAD_KINDS.contains(&k) => {
                let template = match k {
                    "Pod" => Some(node),
                    "CronJob" => node.path(&["spec", "jobTemplate", "spec", "template"]),
                    _ => node.path(&["spec", "template"]),
                };
                if let Some(template) = template {
                    let pod_spec = template.get("spec");
                    let mut containers = Vec::new();
                    for (field, init) in [("containers", false), ("initContainers", true)] {
                        for c in pod_spec
                            .and_then(|s| s.get(field))
                            .into_iter()
                            .flat_map(|n| n.items())
                        {
                            let ports = c
                                .get("ports")
                                .into_iter()
                                .flat_map(|p| p.items())
                                .map(|p| ContainerPort {
                                    name: p.str_at(&["name"]).map(str::to_string),
                                    number: p.get("containerPort").and_then(|n| n.as_i64()),
                                    at: at(p),
                                })
                                .collect();
                            containers.push(Container {
                                at: at(c),
                                name: c.str_at(&["name"]).unwrap_or_default().to_string(),
                                image: c.str_at(&["image"]).map(str::to_string),
                                ports,
                                init,
                            });
                        }
                    }
                    self.workloads.push(Workload {
                        obj: id,
                        template: at(template),
                        pod_spec: pod_spec.map(at),
                        labels: string_map(template.path(&["metadata", "labels"])),
                        replicas: if k == "Pod" {
                            None
                        } else {
                            node.path(&["spec", "replicas"]).map(at)
                        },
                        containers,
                    });
                }
            }
            "Service" => {
                let selector = node.path(&["spec", "selector"]);
                let ports = node
                    .path(&["spec", "ports"])
                    .into_iter()
                    .flat_map(|p| p.items())
                    .map(|p| ServicePort {
                        at: at(p),
                        name: p.str_at(&["name"]).map(str::to_string),
                        port: p.get("port").and_then(|n| n.as_i64()),
                        target_port: p.get("targetPort").map(at),
                    })
                    .collect();
                self.services.push(Service {
                    obj: id,
                    selector: selector.map(at),
                    selector_labels: string_map(selector),
                    ports,
                    service_type: node
                        .str_at(&["spec", "type"])
                        .unwrap_or("ClusterIP")
                        .to_string(),
                });
            }
            "Ingress" => {
                let mut backends = Vec::new();
                let spec = node.get("spec");
                let mut push_backend =
                    |backend: NodeRef<'_>, path: Option<&str>, host: Option<&str>| {
                        // networking.k8s.io/v1: service.name / service.port.{number,name}
                        if let Some(name) = backend.path(&["service", "name"]) {
                            let port = backend
                                .path(&["service", "port", "number"])
                                .or_else(|| backend.path(&["service", "port", "name"]));
                            backends.push(IngressBackend {
                                service_name: at(name),
                                port: port.map(at),
                                path: path.map(str::to_string),
                                host: host.map(str::to_string),
                            });
                        } else if let Some(name) = backend.get("serviceName") {
                            // v1beta1: serviceName / servicePort
                            backends.push(IngressBackend {
                                service_name: at(name),
                                port: backend.get("servicePort").map(at),
                                path: path.map(str::to_string),
                                host: host.map(str::to_string),
                            });
                        }
                    };
                if let Some(spec) = spec {
                    for key in ["defaultBackend", "backend"] {
                        if let Some(b) = spec.get(key) {
                            push_backend(b, None, None);
                        }
                    }
                    for rule in spec.get("rules").into_iter().flat_map(|r| r.items()) {
                        let host = rule.str_at(&["host"]);
                        for p in rule
                            .path(&["http", "paths"])
                            .into_iter()
                            .flat_map(|p| p.items())
                        {
                            if let Some(b) = p.get("backend") {
                                push_backend(b, p.str_at(&["path"]), host);
                            }
                        }
                    }
                }
                let class = node
                    .str_at(&["spec", "ingressClassName"])
                    .or_else(|| {
                        node.path(&["metadata", "annotations", "kubernetes.io/ingress.class"])
                            .and_then(|n| n.as_str())
                    })
                    .map(str::to_string);
                self.ingresses.push(Ingress {
                    obj: id,
                    class,
                    backends,
                });
            }
            "IngressClass" => {
                self.ingress_classes
                    .push((id, node.str_at(&["spec", "controller"]).map(str::to_string)));
            }
            "Route" => self.routes.push(Route {
                obj: id,
                to: node.path(&["spec", "to", "name"]).map(at),
                target_port: node.path(&["spec", "port", "targetPort"]).map(at),
            }),
            "PodDisruptionBudget" => {
                let selector = node.path(&["spec", "selector"]);
                self.pdbs.push(Pdb {
                    obj: id,
                    selector_at: selector.map(at),
                    selector: selector.map(LabelSelector::parse).unwrap_or_default(),
                    min_available: node.path(&["spec", "minAvailable"]).map(at),
                    max_unavailable: node.path(&["spec", "maxUnavailable"]).map(at),
                });
            }
            "HorizontalPodAutoscaler" => {
                let target = node.path(&["spec", "scaleTargetRef"]);
                self.hpas.push(Hpa {
                    obj: id,
                    target_ref: target.map(at),
                    target_kind: target
                        .and_then(|t| t.str_at(&["kind"]))
                        .unwrap_or_default()
                        .to_string(),
                    target_name: target
                        .and_then(|t| t.str_at(&["name"]))
                        .unwrap_or_default()
                        .to_string(),
                    max_replicas: node.path(&["spec", "maxReplicas"]).and_then(|n| n.as_i64()),
                });
            }
            "ConfigMap" => self.config_maps.push(id),
            _ => {}
        }
        self.objects.push(object);
    }

    /// Number of Kubernetes objects.
    pub fn object_count(&self) -> usize {
        self.objects.len()
    }

    /// The node at `at`.
    pub fn node<'a>(&self, documents: &'a [Document], at: At) -> NodeRef<'a> {
        documents[at.doc].node(at.node)
    }

    /// The span of the node at `at`.
    pub fn span(&self, documents: &[Document], at: At) -> Span {
        documents[at.doc].span(at.node)
    }

    /// Objects of a kind in a namespace with a name.
    pub fn find(&self, kind: &str, namespace: &str, name: &str) -> &[ObjId] {
        self.index
            .get(&(kind.to_string(), namespace.to_string(), name.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// Services with this namespace and name.
    pub fn service(&self, namespace: &str, name: &str) -> Option<&Service> {
        let obj = *self.find("Service", namespace, name).first()?;
        self.service_by_obj(obj)
    }

    /// The Service with this object id.
    pub fn service_by_obj(&self, obj: ObjId) -> Option<&Service> {
        self.service_index.get(&obj).map(|i| &self.services[*i])
    }

    /// Whether any workload is in this namespace.
    pub fn namespace_has_workloads(&self, namespace: &str) -> bool {
        self.workload_namespaces.contains(namespace)
    }

    /// Workloads (indices into `workloads`) whose pod template carries `key=value`, in a
    /// namespace.
    pub fn workloads_with_label(&self, namespace: &str, key: &str, value: &str) -> &[usize] {
        self.label_index
            .get(&(namespace.to_string(), key.to_string(), value.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// Workloads whose pod template a Service selects (same namespace; empty selector selects none).
    pub fn service_targets(&self, service: &Service) -> Vec<&Workload> {
        self.service_workloads
            .get(&service.obj)
            .map(|ws| ws.iter().map(|i| &self.workloads[*i]).collect())
            .unwrap_or_default()
    }

    /// Services that select a workload.
    pub fn services_of(&self, workload: &Workload) -> Vec<&Service> {
        self.workload_services
            .get(&workload.obj)
            .map(|ss| ss.iter().map(|i| &self.services[*i]).collect())
            .unwrap_or_default()
    }

    /// Workloads a PDB selects.
    pub fn pdb_targets(&self, pdb: &Pdb) -> Vec<&Workload> {
        let ns = &self.objects[pdb.obj].namespace;
        // With `matchLabels`, only workloads carrying its rarest pair can match (label index);
        // selectors made only of expressions are checked against the whole namespace.
        let candidates = pdb
            .selector
            .match_labels
            .iter()
            .map(|(k, v)| self.workloads_with_label(ns, k, v))
            .min_by_key(|c| c.len());
        match candidates {
            Some(indices) => indices
                .iter()
                .map(|i| &self.workloads[*i])
                .filter(|w| pdb.selector.matches(&w.labels))
                .collect(),
            None => self
                .workloads
                .iter()
                .filter(|w| &self.objects[w.obj].namespace == ns)
                .filter(|w| pdb.selector.matches(&w.labels))
                .collect(),
        }
    }

    /// The workload an HPA scales.
    pub fn hpa_target(&self, hpa: &Hpa) -> Option<&Workload> {
        let ns = &self.objects[hpa.obj].namespace;
        self.find(&hpa.target_kind, ns, &hpa.target_name)
            .iter()
            .find_map(|obj| self.workload(*obj))
    }

    /// The workload of an object id, if it is one.
    pub fn workload(&self, obj: ObjId) -> Option<&Workload> {
        self.workload_index.get(&obj).map(|i| &self.workloads[*i])
    }
}

#[cfg(test)]
mod tests;
