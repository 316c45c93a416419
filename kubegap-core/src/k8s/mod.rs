//! The Kubernetes object graph: objects indexed by kind, namespace and name, typed views with
//! spans, and resolved references between them.
//!
//! Views store node ids, not borrowed nodes, so the graph can live next to the documents it
//! indexes; [`Graph::node`] turns an id back into a [`NodeRef`].

use compact_str::CompactString;
use rayon::prelude::*;
use std::collections::BTreeMap;

use crate::source::Span;
use crate::yaml::{Document, NodeId, NodeRef};

pub mod pod;
pub mod scope;
mod selector;

pub use scope::{Near, Place};
pub use selector::{LabelSelector, Labels, Requirement};

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
    /// `apiVersion`. (These four are inline strings of up to 24 bytes: a `String` each was
    /// four allocations per object, 90,000 objects in a 51 MB stream.)
    pub api_version: CompactString,
    /// `kind`.
    pub kind: CompactString,
    /// `metadata.name` (empty if missing).
    pub name: CompactString,
    /// `metadata.namespace`, else `default`.
    pub namespace: CompactString,
    /// Whether `metadata.namespace` was written.
    pub namespace_explicit: bool,
    /// Whether `metadata.annotations` has the `kubegap.io/ignore` suppression key: looked up
    /// while the object's metadata is read (suppressions then look at those objects only,
    /// instead of walking every object's metadata again after the rules).
    pub ignore_annotation: bool,
    /// Whether `metadata.annotations` of the object or of its pod template may hold a
    /// `kubegap.io/` declaration (see [`crate::value::declarations::may_declare`]): read with the
    /// metadata, so that looking up a declaration skips the objects without one instead of
    /// reading their documents again (an Ingress's lookups reach its Service and workloads).
    pub declarations: bool,
    /// The `metadata.annotations` mapping's node, found while the metadata is read: annotation
    /// lookups start there instead of walking the object's keys and its metadata's again
    /// (node 0 is a document's root, never an annotations mapping).
    annotations: Option<std::num::NonZeroU32>,
    /// Where it was written (file, directory, kustomization tree or chart).
    pub place: Place,
}

impl Object {
    /// Where its `metadata.annotations` mapping is, if it has one.
    pub fn annotations(&self) -> Option<At> {
        self.annotations.map(|node| At {
            doc: self.at.doc,
            node: node.get(),
        })
    }
}

/// A container of a pod template.
#[derive(Clone, Debug)]
pub struct Container {
    /// The container's mapping.
    pub at: At,
    /// `name` (inline up to 24 bytes, as the other short names of the graph).
    pub name: CompactString,
    /// `image`, if any.
    pub image: Option<CompactString>,
    /// Declared ports.
    pub ports: Vec<ContainerPort>,
    /// Whether this is an init container.
    pub init: bool,
}

/// A declared container port.
#[derive(Clone, Debug)]
pub struct ContainerPort {
    /// `name`, if any.
    pub name: Option<CompactString>,
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
    pub labels: Labels,
    /// `spec.replicas` value node, if written.
    pub replicas: Option<At>,
    /// Containers (and init containers, flagged).
    pub containers: Vec<Container>,
    /// What a kustomize patch of this workload (or this patch itself) changes, so that the
    /// value as deployed is not known: see [`Patched`].
    pub patched: Patched,
}

/// What kustomize patches written close to a workload change in its containers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Patched {
    /// A patch sets container `ports`: the declared ports as deployed are unknown.
    pub ports: bool,
    /// A patch sets a probe (`livenessProbe`, `readinessProbe`, `startupProbe`).
    pub probes: bool,
}

/// A Service port.
#[derive(Clone, Debug)]
pub struct ServicePort {
    /// The port's mapping.
    pub at: At,
    /// `name`, if any.
    pub name: Option<CompactString>,
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
    pub selector_labels: Labels,
    /// Ports.
    pub ports: Vec<ServicePort>,
    /// `spec.type` (`ClusterIP` when absent).
    pub service_type: CompactString,
    /// Whether every port serves metrics only (named `metrics`, `http-metrics`,
    /// `prometheus`…, by its name or its named `targetPort`): no user traffic goes through it.
    pub metrics_only: bool,
}

/// The items of `items` (a list of the graph in object order: `hpas`, `ingresses`,
/// `services`…) whose object id `obj` returns is in `range`: two binary searches.
pub fn in_block<'a, T>(
    items: &'a [T],
    range: &std::ops::Range<ObjId>,
    obj: impl Fn(&T) -> ObjId,
) -> &'a [T] {
    let from = items.partition_point(|i| obj(i) < range.start);
    let to = items.partition_point(|i| obj(i) < range.end);
    &items[from..to.max(from)]
}

/// Whether a port name says it serves metrics: `metrics`, `http-metrics`, `metrics-https`,
/// `prometheus`, `prom`, `monitoring`, `telemetry`, `exporter`.
pub fn is_metrics_port_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.split(['-', '_']).any(|part| {
        matches!(
            part,
            "metrics" | "metric" | "prometheus" | "prom" | "monitoring" | "telemetry" | "exporter"
        )
    })
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

/// The result of resolving a reference by name.
#[derive(Debug)]
pub enum Lookup<'g> {
    /// One nearest object, and how near it is.
    Found(&'g Service, Near),
    /// Several equally near candidates: kubegap does not pick one. Shared: N copies of one
    /// Service looked up from N places in one file are one list, not N copies of it.
    Ambiguous(std::sync::Arc<[ObjId]>),
    /// No candidate in scope.
    Missing,
}

impl<'g> Lookup<'g> {
    /// The Service, when exactly one is nearest.
    pub fn found(&self) -> Option<&'g Service> {
        match self {
            Lookup::Found(s, _) => Some(s),
            _ => None,
        }
    }
}

/// The object graph of one run.
#[derive(Debug, Default)]
pub struct Graph {
    /// Every object, in document order.
    pub objects: Vec<Object>,
    /// Every object sorted by the hash of its (kind, namespace, name), then that key, then
    /// input order: the objects with one key are a contiguous run ([`Graph::find`]). A sorted
    /// list of ids, not a map with three copied strings and a list per object.
    index: Vec<ObjId>,
    /// The key hash of each `index` entry, entry for entry: a lookup compares these 8-byte
    /// hashes and reads an object's strings only where the hash is equal (sorting and searching
    /// by the strings themselves read a 168-byte object per comparison).
    index_hashes: Vec<u64>,
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
    /// Service object → index into `selections`: the workloads it selects (precomputed, see
    /// `link`). Services with the same namespace, selector and file select the same workloads
    /// and share one list, so N copies of a release selecting each other's pods keep N lists of
    /// indices, not N².
    service_workloads: ObjIndex,
    /// Distinct lists of indices into `workloads` selected by a Service.
    selections: Vec<Vec<usize>>,
    /// The workloads of each list in `selections` that may declare something
    /// ([`Object::declarations`]; empty when no object does): a route's declarations are
    /// looked up on its Services' workloads, and N routes to the N workloads of one label
    /// went over all N for each (N²), where at most a few declare.
    declaring_selections: Vec<Vec<usize>>,
    /// Whether any object may declare something ([`Object::declarations`]).
    declarations: bool,
    /// Workload object → index into `selectors`: the Services that select it.
    workload_services: ObjIndex,
    /// Distinct lists of indices into `services` (ascending) that select a workload.
    selectors: Vec<Vec<usize>>,
    /// [`pod::exposures`] of each list in `selectors`, made when first asked: they depend
    /// only on the list, and copies of a release share one list as long as the stream (every
    /// block of workloads asked again, going over every copy's Services).
    exposures: Vec<std::sync::OnceLock<Vec<pod::Exposure>>>,
    /// The longest load balancer drain in front of the workloads of each list in `selectors`
    /// ([`pod::Drain`]), made when first asked, as `exposures` (a rule that asked once per
    /// block of workloads went over every exposure of the list each time: N² for N routes to N
    /// workloads under one label). Boxed: most lists have none, and a list's slot is two
    /// words, not a drain, until asked.
    drains: Vec<std::sync::OnceLock<Option<Box<pod::Drain>>>>,
    /// Whether each list in `selectors` has a Service of type LoadBalancer or NodePort: found
    /// with the links, a pass over each distinct list (a rule that went over a workload's
    /// Services for it read every copy's Service for every copy of a release: N²).
    external: Vec<bool>,
    /// Workload object → index into `hpas` of the first HPA that scales it.
    workload_hpa: ObjIndex,
    /// HPA object → index into `workloads` of the workload it scales ([`Graph::hpa_target`]).
    hpa_workload: ObjIndex,
    /// Workloads some PodDisruptionBudget selects, by object id.
    workload_pdbs: Vec<bool>,
    /// Whether the objects' files never decrease in id order (objects are added in document
    /// order, documents in file order), so that a file's objects among ascending ids (or
    /// workload indices) are a run ([`Graph::nearest_in_place`]).
    objects_by_file: bool,
    /// Directory → its objects (ascending ids), for [`Graph::nearest_in_place`]; set only
    /// when `objects_by_file` is.
    dir_objects: std::collections::HashMap<std::sync::Arc<[String]>, Vec<ObjId>>,
    /// PDB object → index into `pdb_selections`: the workloads it selects.
    pdb_groups: ObjIndex,
    /// Distinct lists of indices into `workloads` selected by PDBs (one per group of PDBs
    /// with one namespace, selector and file).
    pdb_selections: Vec<Vec<usize>>,
    /// Object → index into `workloads`.
    workload_index: ObjIndex,
    /// Object → index into `services`.
    service_index: ObjIndex,
    /// (namespace, label key, label value) → indices into `workloads` whose pod template has it.
    /// Sorted by that key, then by workload: (index into `workloads`, position of the label in
    /// its `labels`); `label_workloads` holds the same workload indices alone, so that one key's
    /// workloads are a slice (no three copied strings and a list per label).
    label_index: Vec<(u32, u32)>,
    /// The workload indices of `label_index`, entry for entry.
    label_workloads: Vec<usize>,
    /// Namespaces that hold at least one workload.
    workload_namespaces: std::collections::BTreeSet<CompactString>,
    /// Service object → Ingresses and Routes that send traffic to it, with the backend's
    /// service-name node.
    backend_refs: BTreeMap<ObjId, Vec<(ObjId, At)>>,
    /// Service object → how near its selected workloads are.
    service_near: Vec<Option<Near>>,
    /// Where every file of the run is (directories, kustomization trees, charts).
    places: scope::Places,
    /// Namespace → one workload per file that holds workloads of it (nearness depends only
    /// on the file, so one representative per file keeps "is a workload near" linear).
    workload_files: BTreeMap<CompactString, Vec<ObjId>>,
    /// Namespace → one possible pod owner (custom resource) per file; key `None` for those
    /// without a written namespace, which may land in any.
    owner_files: BTreeMap<Option<CompactString>, Vec<ObjId>>,
    /// Memo of [`Graph::nearest_named`] for long candidate lists (N copies of one object
    /// looked up from N places in the same file): (first object of the `index` entry, its
    /// length, file of `from`) → nearest. Each object is in one entry, so the first names it.
    nearest_memo: std::sync::Mutex<NearestMemo>,
}

/// How near an object is ([`Graph::nearness`]).
type Nearness = (Near, std::cmp::Reverse<usize>);

/// A label of a workload's pod template, with its namespace: (namespace, key, value).
type LabelKey<'a> = (&'a str, &'a str, &'a str);

/// Services that select the same workloads: namespace, selector, file.
type GroupKey<'a> = (&'a str, &'a Labels, Option<crate::source::FileId>);

type NearestMemo = std::collections::HashMap<
    (ObjId, usize, Option<crate::source::FileId>),
    (std::sync::Arc<[ObjId]>, Option<Near>),
>;

/// Candidate lists at least this long go through [`Graph::nearest_named`]'s memo.
const MEMO_FROM: usize = 32;

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
    "Rollout",
];

/// Pod labels that Kubernetes controllers set themselves: a selector using them matches its
/// owner's pods although no pod template in the input carries them.
const CONTROLLER_LABELS: &[&str] = &[
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
    "job-name",
    "batch.kubernetes.io/job-name",
    "controller-uid",
    "batch.kubernetes.io/controller-uid",
    "pod-template-hash",
    "controller-revision-hash",
    "pod-template-generation",
];

/// Whether a label key is set by a controller on the pods it makes.
pub fn is_controller_label(key: &str) -> bool {
    CONTROLLER_LABELS.contains(&key)
}

/// Whether a workload's pods carry a controller-set label with this value.
fn controller_label_matches(kind: &str, name: &str, key: &str, value: &str) -> bool {
    match key {
        "statefulset.kubernetes.io/pod-name" => {
            kind == "StatefulSet"
                && value
                    .strip_prefix(name)
                    .and_then(|r| r.strip_prefix('-'))
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        }
        "apps.kubernetes.io/pod-index" => kind == "StatefulSet",
        "job-name" | "batch.kubernetes.io/job-name" => {
            (kind == "Job" && value == name) || (kind == "CronJob" && value.starts_with(name))
        }
        _ => true,
    }
}

/// API groups built into Kubernetes (and kustomize's own), whose kinds do not make pods unless
/// they are workloads; any other kind is a custom resource that may own pods.
fn is_builtin_api(api_version: &str) -> bool {
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    group.is_empty()
        || !group.contains('.')
        || group.ends_with(".k8s.io")
        || group == "kustomize.config.k8s.io"
}

/// What no rule reads, so the engine parses the rules' documents without it
/// ([`crate::yaml::parse_stream_without`]): the `spec` of a CustomResourceDefinition (its
/// names, versions and OpenAPI schemas). A definition is an object like any other (kind,
/// name, labels, annotations: in the graph, counted, suppressible), never a pod owner
/// ([`Graph::file_indexes`]), and no rule, chain or controller reads its spec. A rule that
/// needs it (checking custom resources against their schemas) removes this.
///
/// And in every object, what the API server writes and no manifest's author does, which
/// `kubectl get -o yaml` prints: `status` (what the controllers observed) and
/// `metadata.managedFields` (which field manager set which field). No rule, chain or
/// controller reads either; in a dump of a cluster they are about half of every object's
/// nodes. A rule that reads an object's status removes `status` here.
pub const UNREAD_BY_RULES: crate::yaml::Unread = crate::yaml::Unread {
    api_prefix: "apiextensions.k8s.io/",
    kind: "CustomResourceDefinition",
    key: "spec",
    in_every_object: &[&["status"], &["metadata", "managedFields"]],
};

/// Custom resource kinds known not to own pods (monitoring, routing, certificates, CRDs).
const NOT_POD_OWNERS: &[&str] = &[
    "ServiceMonitor",
    "PodMonitor",
    "PrometheusRule",
    "Probe",
    "VirtualService",
    "DestinationRule",
    "Gateway",
    "HTTPRoute",
    "GRPCRoute",
    "TCPRoute",
    "TLSRoute",
    "ServiceEntry",
    "Sidecar",
    "EnvoyFilter",
    "PeerAuthentication",
    "AuthorizationPolicy",
    "RequestAuthentication",
    "Telemetry",
    "Certificate",
    "Issuer",
    "ClusterIssuer",
    "BackendConfig",
    "FrontendConfig",
    "ManagedCertificate",
    "Route",
    "IngressRoute",
    "Middleware",
    "Server",
    "ServerAuthorization",
    "HTTPLocalRateLimitPolicy",
    "ServiceProfile",
    "Application",
    "AppProject",
    "ApplicationSet",
];
/// Whether a port name written in a manifest is a placeholder, an unknown value rather than
/// a wrong one: an unrendered template (`${PORT}`, `{{ .Port }}`, `%%PORT%%`) or a name
/// Kubernetes would reject (port names are lowercase IANA service names, such as `http`;
/// `PORT` is a placeholder some sample substitutes before applying).
pub fn is_placeholder_port_name(name: &str) -> bool {
    name.contains("${")
        || name.contains("{{")
        || name.contains("%%")
        || name.contains('$')
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// String pairs of a mapping of scalars (labels, selectors, annotations).
pub fn string_map(node: Option<NodeRef<'_>>) -> Labels {
    node.into_iter()
        .flat_map(|node| node.entries())
        .filter_map(|(k, v)| {
            Some((
                CompactString::new(k.as_str()?),
                CompactString::new(v.as_str()?),
            ))
        })
        .collect()
}

/// What an object's kind adds to the graph besides the object.
enum Extra {
    None,
    Workload(Workload),
    Service(Service),
    Ingress(Ingress),
    IngressClass(Option<String>),
    Route(Route),
    Pdb(Pdb),
    Hpa(Hpa),
    ConfigMap,
}

/// The objects of one document: none, its root (`one`), or the items of a `…List` (`list`).
/// Only a list allocates: a vector for each document was 20,000 allocations over 20,000 small
/// files.
#[derive(Default)]
struct Objects {
    one: Option<(Object, Extra)>,
    list: Vec<(Object, Extra)>,
}

impl Objects {
    fn items(self) -> impl Iterator<Item = (Object, Extra)> {
        self.one.into_iter().chain(self.list)
    }
}

/// The fewest items of a `List` read by one task: most lists are a few objects, read where
/// they are.
const LIST_ITEMS_PER_TASK: usize = 256;

fn objects_of(doc_index: usize, doc: &Document, places: &scope::Places) -> Objects {
    let Some(root) = doc.root() else {
        return Objects::default();
    };
    let Some(kind) = root.str_at(&["kind"]) else {
        return Objects::default();
    };
    if root.str_at(&["apiVersion"]).is_none() {
        return Objects::default();
    }
    let place = places.place(doc.file);
    let items = root.get("items");
    if kind.ends_with("List") && items.is_some() {
        // A dump of a cluster (`kubectl get -o yaml`) is one `List` of every object: its items
        // are read in parallel, in order (16,000 objects took 30 ms on one thread while the
        // other waited).
        let items: Vec<NodeRef<'_>> = items.into_iter().flat_map(|i| i.items()).collect();
        Objects {
            one: None,
            list: items
                .par_iter()
                .with_min_len(LIST_ITEMS_PER_TASK)
                .filter_map(|item| Graph::extract(doc_index, *item, place.clone()))
                .collect(),
        }
    } else {
        Objects {
            one: Graph::extract(doc_index, root, place),
            list: Vec::new(),
        }
    }
}

/// One representative workload per (namespace, file), and one custom resource that may own
/// pods per (explicit namespace, file) ([`Graph::file_indexes`]).
type FileIndexes = (
    BTreeMap<CompactString, Vec<ObjId>>,
    BTreeMap<Option<CompactString>, Vec<ObjId>>,
);

/// What [`Graph::links`] finds: which workloads each Service selects, and the indexes built
/// from that.
struct Links {
    service_workloads: ObjIndex,
    selections: Vec<Vec<usize>>,
    workload_services: ObjIndex,
    selectors: Vec<Vec<usize>>,
    service_near: Vec<Option<Near>>,
    label_index: Vec<(u32, u32)>,
    label_workloads: Vec<usize>,
    workload_namespaces: std::collections::BTreeSet<CompactString>,
}

impl Graph {
    /// Builds the graph from every document, as if every file were in one directory.
    pub fn build(documents: &[Document]) -> Graph {
        Graph::build_in(documents, scope::Places::default())
    }

    /// Builds the graph from every document, with the places (directories, kustomization
    /// trees, charts) of their files, so that references resolve nearest first.
    pub fn build_in(documents: &[Document], places: scope::Places) -> Graph {
        let mut graph = Graph::default();
        // Objects are read from their documents in parallel, a block of documents at a time,
        // and numbered in document order: one block's objects are added to the graph (on one
        // thread) while the next block is read (on the others), so that at most two blocks of
        // extracted objects wait. An eighth of the documents a block, 512 to 4,096: the last
        // block is added alone, on one thread (the corpus's 7,834 documents made two blocks
        // of 4,096, and its graph stage scaled 1.2x on two threads).
        let block_len = (documents.len() / 8).clamp(512, 4096);
        // Most documents are one object (a `List` is several, an empty document none): room
        // for one each, so that the largest vector of the graph is not grown by doubling while
        // the run's memory peaks (shrunk below if some documents were not objects).
        graph.objects.reserve_exact(documents.len());
        // One entry per document, so that the block is collected into a vector of its exact
        // size (a flattened collect grew its pieces by doubling: 19 MB copied over 20,000
        // small files).
        let mut waiting: Vec<Objects> = Vec::new();
        for (b, block) in documents.chunks(block_len).enumerate() {
            let extract = || -> Vec<Objects> {
                block
                    .par_iter()
                    .enumerate()
                    .map(|(i, doc)| objects_of(b * block_len + i, doc, &places))
                    .collect()
            };
            let previous = std::mem::take(&mut waiting);
            let add = |graph: &mut Graph| {
                for (object, extra) in previous.into_iter().flat_map(Objects::items) {
                    graph.push(object, extra);
                }
            };
            waiting = rayon::join(|| add(&mut graph), extract).1;
        }
        for (object, extra) in waiting.into_iter().flat_map(Objects::items) {
            graph.push(object, extra);
        }
        // Moved in, not copied: a clone of every file's place was a millisecond of the corpus.
        graph.places = places;
        // Lookups by object id binary-search these, and rules cut them to a block of objects
        // ([`in_block`]): objects are added in id order.
        debug_assert!(graph.ingresses.windows(2).all(|w| w[0].obj < w[1].obj));
        debug_assert!(graph.routes.windows(2).all(|w| w[0].obj < w[1].obj));
        debug_assert!(graph.services.windows(2).all(|w| w[0].obj < w[1].obj));
        debug_assert!(graph.hpas.windows(2).all(|w| w[0].obj < w[1].obj));
        graph.objects.shrink_to_fit();
        graph.workloads.shrink_to_fit();
        graph.services.shrink_to_fit();
        graph.ingresses.shrink_to_fit();
        graph.ingress_classes.shrink_to_fit();
        graph.routes.shrink_to_fit();
        graph.pdbs.shrink_to_fit();
        graph.hpas.shrink_to_fit();
        graph.config_maps.shrink_to_fit();
        graph.objects_by_file = graph
            .objects
            .windows(2)
            .all(|o| o[0].place.file <= o[1].place.file);
        // Before the links, which look workloads up by object ([`Graph::nearest_workloads`]).
        graph.workload_index = ObjIndex::from_pairs(
            graph.objects.len(),
            graph.workloads.iter().enumerate().map(|(i, w)| (w.obj, i)),
        );
        // Before the backends, which look Services up by object ([`Graph::service_from`]).
        graph.service_index = ObjIndex::from_pairs(
            graph.objects.len(),
            graph.services.iter().enumerate().map(|(i, s)| (s.obj, i)),
        );
        // The directories' objects and the name index read the objects alone: built side by
        // side.
        let (dir_objects, (index_hashes, index)) = {
            let graph = &graph;
            rayon::join(|| graph.dir_objects(), || graph.sorted_index())
        };
        graph.dir_objects = dir_objects;
        graph.index_hashes = index_hashes;
        graph.index = index;
        // The Services' selections, the files' representatives, the patches' marks, the
        // Ingresses' and Routes' backends and the HPAs' targets read the objects, the name
        // index and the places, and none of each other: built side by side, then taken in.
        // The selections are a chain of steps, some serial (33 ms on a 51 MB stream, on one
        // thread or two); the backends and targets (19 ms) ran after it and now fill the
        // thread it left waiting.
        let (links, ((files, marks), (backends, hpa_targets))) = {
            let graph = &graph;
            rayon::join(
                || graph.links(),
                || {
                    rayon::join(
                        || rayon::join(|| graph.file_indexes(), || graph.patch_marks(documents)),
                        || rayon::join(|| graph.backends(documents), || graph.hpa_targets()),
                    )
                },
            )
        };
        graph.set_links(links);
        (graph.workload_files, graph.owner_files) = files;
        for (wi, mark) in marks {
            graph.workloads[wi].patched = mark;
        }
        graph.backend_refs = backends;
        // Last: PDB targets are resolved over the finished graph (through its label index).
        graph.index_scalers(hpa_targets);
        graph
    }

    /// The objects of each directory, in id order (when the objects are in file order; empty
    /// otherwise).
    fn dir_objects(&self) -> std::collections::HashMap<std::sync::Arc<[String]>, Vec<ObjId>> {
        let mut dir_objects: std::collections::HashMap<std::sync::Arc<[String]>, Vec<ObjId>> =
            std::collections::HashMap::new();
        if !self.objects_by_file {
            return dir_objects;
        }
        // A run of objects from one directory (the objects of a file, then of the next
        // file beside it) shares its components: looked up once per run, not hashed
        // again for every object (on one thread: 1.1 → 0.7 ms on the corpus, 3.3 → 1.5
        // ms on the 51 MB stream).
        let mut run: Option<(&std::sync::Arc<[String]>, Vec<ObjId>)> = None;
        let mut flush =
            |dir: &std::sync::Arc<[String]>, ids: Vec<ObjId>| match dir_objects.get_mut(&**dir) {
                Some(list) => list.extend(ids),
                None => {
                    dir_objects.insert(std::sync::Arc::clone(dir), ids);
                }
            };
        for (id, o) in self.objects.iter().enumerate() {
            match &mut run {
                Some((dir, ids)) if std::sync::Arc::ptr_eq(dir, &o.place.dir) => ids.push(id),
                _ => {
                    if let Some((dir, ids)) = run.replace((&o.place.dir, vec![id])) {
                        flush(dir, ids);
                    }
                }
            }
        }
        if let Some((dir, ids)) = run {
            flush(dir, ids);
        }
        dir_objects
    }

    /// One representative per (namespace, file) of the workloads and of the custom resources
    /// that may own pods.
    fn file_indexes(&self) -> FileIndexes {
        let mut seen = std::collections::BTreeSet::new();
        let mut workload_files: BTreeMap<CompactString, Vec<ObjId>> = BTreeMap::new();
        for w in &self.workloads {
            let o = &self.objects[w.obj];
            if seen.insert((o.namespace.clone(), o.place.file)) {
                workload_files
                    .entry(o.namespace.clone())
                    .or_default()
                    .push(w.obj);
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        let mut owner_files: BTreeMap<Option<CompactString>, Vec<ObjId>> = BTreeMap::new();
        for (id, o) in self.objects.iter().enumerate() {
            let candidate = !is_builtin_api(&o.api_version)
                && !NOT_POD_OWNERS.contains(&o.kind.as_str())
                && !WORKLOAD_KINDS.contains(&o.kind.as_str())
                && o.kind != "CustomResourceDefinition";
            let key = o.namespace_explicit.then(|| o.namespace.clone());
            if candidate && seen.insert((key.clone(), o.place.file)) {
                owner_files.entry(key).or_default().push(id);
            }
        }
        (workload_files, owner_files)
    }

    /// How near object `b` is to object `a` (`None`: another kustomization tree or chart).
    pub fn nearness(&self, a: ObjId, b: ObjId) -> Option<(Near, std::cmp::Reverse<usize>)> {
        scope::nearness(&self.objects[a].place, &self.objects[b].place)
    }

    /// Keeps the candidates nearest to `from` (all those equally near), with their nearness.
    fn nearest<T: Copy>(
        &self,
        from: ObjId,
        candidates: impl IntoIterator<Item = T>,
        obj: impl Fn(T) -> ObjId,
    ) -> (Vec<T>, Option<Near>) {
        let mut best: Option<(Near, std::cmp::Reverse<usize>)> = None;
        let mut out = Vec::new();
        // Nearness depends only on the files: candidates come in input order, so runs of
        // candidates from one file (N copies of a release in one stream) compare once.
        let mut last: Option<(Option<crate::source::FileId>, Option<Nearness>)> = None;
        for c in candidates {
            let place = &self.objects[obj(c)].place;
            let n = match last {
                Some((file, n)) if file.is_some() && file == place.file => n,
                _ => {
                    let n = scope::nearness(&self.objects[from].place, place);
                    last = Some((place.file, n));
                    n
                }
            };
            let Some(n) = n else {
                continue;
            };
            match best {
                Some(b) if n > b => {}
                Some(b) if n == b => out.push(c),
                _ => {
                    best = Some(n);
                    out.clear();
                    out.push(c);
                }
            }
        }
        (out, best.map(|b| b.0))
    }

    /// [`Graph::nearest`] among the objects of one `index` entry (a [`Graph::find`] result).
    /// The answer depends only on `from`'s file, so long lists (many objects with one kind,
    /// namespace and name) are answered once per file: 3,200 Ingresses naming one of 3,200
    /// same-named Services were 10 million comparisons. The answer is shared, not copied for
    /// each question (9,425 HPAs of identical releases copied a 9,425-object answer each:
    /// 355 MB).
    fn nearest_named(
        &self,
        from: ObjId,
        candidates: &[ObjId],
    ) -> (std::sync::Arc<[ObjId]>, Option<Near>) {
        let file = self.objects[from].place.file;
        // Asked before the file's and directory's candidates are listed: those lists depend on
        // the file alone too, and a file holding every copy listed all of them for each
        // question (9,425 copies of a release in one stream: 710 MB copied twice, a quarter
        // of the run).
        let key = (candidates.len() >= MEMO_FROM && file.is_some())
            .then(|| (candidates[0], candidates.len(), file));
        if let Some(key) = key {
            if let Ok(memo) = self.nearest_memo.lock() {
                if let Some(hit) = memo.get(&key) {
                    return hit.clone();
                }
            }
        }
        let result = match self.nearest_in_place(from, candidates, |o| o, Some, |_| true) {
            Some((here, near)) => (std::sync::Arc::from(here), Some(near)),
            None => {
                let (near, how) = self.nearest(from, candidates.iter().copied(), |o| o);
                (std::sync::Arc::from(near), how)
            }
        };
        if let Some(key) = key {
            if let Ok(mut memo) = self.nearest_memo.lock() {
                memo.insert(key, result.clone());
            }
        }
        result
    }

    /// The nearest of `candidates` that `keep` keeps, seen from object `from`, when they are
    /// in `from`'s file or directory; `None` when neither holds one (or the objects are not in
    /// file order), for [`Graph::nearest`] to compare every candidate. The file is the nearest
    /// place and the directory the next, all of a place's candidates equally near. Candidates
    /// are ascending, in the objects' order (ids, or workload indices), so a file's are a run
    /// found by a binary search; a directory's come from its list of objects (`of` gives an
    /// object's candidate, if it is one). 4,000 Services or PDBs in 4,000 files or directories
    /// selecting every one's Deployment, or 4,000 Ingresses naming 4,000 same-named Services,
    /// were 16 million comparisons.
    fn nearest_in_place<T: Copy + Ord>(
        &self,
        from: ObjId,
        candidates: &[T],
        obj: impl Fn(T) -> ObjId,
        of: impl Fn(ObjId) -> Option<T>,
        keep: impl Fn(T) -> bool,
    ) -> Option<(Vec<T>, Near)> {
        let place = &self.objects[from].place;
        let file = place.file.filter(|_| self.objects_by_file)?;
        let file_of = |c: &T| self.objects[obj(*c)].place.file;
        let lo = candidates.partition_point(|c| file_of(c) < Some(file));
        let len = candidates[lo..].partition_point(|c| file_of(c) == Some(file));
        let here: Vec<T> = candidates[lo..lo + len]
            .iter()
            .copied()
            .filter(|c| keep(*c))
            .collect();
        if !here.is_empty() {
            return Some((here, Near::File));
        }
        let in_dir = self
            .dir_objects
            .get(&*place.dir)
            .map_or(&[][..], Vec::as_slice);
        // Only when the directory holds fewer objects than there are candidates (each is
        // looked up among the candidates with a binary search).
        if in_dir.len() >= candidates.len() {
            return None;
        }
        let here: Vec<T> = in_dir
            .iter()
            .filter_map(|o| of(*o))
            .filter(|c| candidates.binary_search(c).is_ok() && keep(*c))
            .collect();
        (!here.is_empty()).then_some((here, Near::Dir))
    }

    /// [`Graph::nearest`] among the workloads `candidates` (ascending indices into `workloads`)
    /// that `matches` keeps, seen from object `from`: in its file or directory first
    /// ([`Graph::nearest_in_place`]).
    fn nearest_workloads(
        &self,
        from: ObjId,
        candidates: &[usize],
        matches: impl Fn(usize) -> bool,
    ) -> (Vec<usize>, Option<Near>) {
        let obj = |wi: usize| self.workloads[wi].obj;
        let of = |o: ObjId| self.workload_index.get(o);
        if let Some((here, near)) = self.nearest_in_place(from, candidates, obj, of, &matches) {
            return (here, Some(near));
        }
        let matching = candidates.iter().copied().filter(|wi| matches(*wi));
        self.nearest(from, matching, obj)
    }

    /// What kustomize patches change in the workloads they patch (and in themselves), by
    /// workload index, for [`Graph::build_in`] to mark: a second definition of the same workload (kind, namespace, name) close to it that is a
    /// patch — a file a kustomization lists under `patches`/`patchesStrategicMerge`, or a
    /// partial definition with a container that has no `image`. The ports, or the probes,
    /// that a patch sets are a merge kubegap does not do. Two complete definitions (variants of
    /// one manifest) are not patches, and a patch that sets only `env` changes nothing here.
    fn patch_marks(&self, documents: &[Document]) -> BTreeMap<usize, Patched> {
        let is_patch = |g: &Graph, w: &Workload| {
            g.objects[w.obj].place.patch || w.containers.iter().any(|c| c.image.is_none())
        };
        let sets = |w: &Workload| {
            let mut p = Patched::default();
            for c in &w.containers {
                let node = documents[c.at.doc].node(c.at.node);
                p.ports |= node.get("ports").is_some();
                p.probes |= ["livenessProbe", "readinessProbe", "startupProbe"]
                    .iter()
                    .any(|k| node.get(k).is_some());
            }
            p
        };
        // Only groups (kind, namespace, name) holding a patch are compared, patch against
        // member, so many copies of one complete manifest stay linear.
        let mut marks: BTreeMap<usize, Patched> = BTreeMap::new();
        let groups = self
            .index
            .chunk_by(|a, b| self.key(*a) == self.key(*b))
            .filter(|g| g.len() > 1);
        for group in groups {
            let members: Vec<usize> = group
                .iter()
                .filter_map(|o| self.workload_index.get(*o))
                .collect();
            for &pi in &members {
                let patch = &self.workloads[pi];
                if !is_patch(self, patch) {
                    continue;
                }
                let p = sets(patch);
                if p == Patched::default() {
                    continue;
                }
                for &wi in &members {
                    let w = &self.workloads[wi];
                    if wi == pi
                        || !self
                            .nearness(patch.obj, w.obj)
                            .is_some_and(|n| n.0.is_close())
                    {
                        continue;
                    }
                    for i in [wi, pi] {
                        let m = marks.entry(i).or_default();
                        m.ports |= p.ports;
                        m.probes |= p.probes;
                    }
                }
            }
        }
        marks
    }

    /// Ingress and Route backends by the Service they resolve to (nearest first), so that
    /// "who sends traffic to this Service" is a lookup, not a scan of every Ingress per
    /// workload. Reads the objects, the name index and the Services' index only.
    fn backends(&self, documents: &[Document]) -> BTreeMap<ObjId, Vec<(ObjId, At)>> {
        let mut refs: BTreeMap<ObjId, Vec<(ObjId, At)>> = BTreeMap::new();
        let name_of = |at: At| documents[at.doc].node(at.node).as_str().map(str::to_string);
        let mut wanted: Vec<(ObjId, At)> = Vec::new();
        for ingress in &self.ingresses {
            for b in &ingress.backends {
                wanted.push((ingress.obj, b.service_name));
            }
        }
        for route in &self.routes {
            if let Some(to) = route.to {
                wanted.push((route.obj, to));
            }
        }
        // Each reference resolved in parallel (the graph is read-only here), recorded in order.
        let found: Vec<Option<ObjId>> = wanted
            .par_iter()
            .map(|(owner, at)| {
                let name = name_of(*at)?;
                let ns = &self.objects[*owner].namespace;
                match self.service_from(*owner, ns, &name) {
                    Lookup::Found(service, _) => Some(service.obj),
                    _ => None,
                }
            })
            .collect();
        for ((owner, at), service) in wanted.into_iter().zip(found) {
            if let Some(service) = service {
                refs.entry(service).or_default().push((owner, at));
            }
        }
        refs
    }

    /// Ingresses and Routes whose backends resolve to this Service, in input order, with the
    /// node of the backend's service name.
    pub fn backends_of(&self, service: ObjId) -> &[(ObjId, At)] {
        self.backend_refs.get(&service).map_or(&[], Vec::as_slice)
    }

    /// Precomputes which workloads each Service selects, through an index of pod template labels
    /// by (namespace, key, value), so that large streams stay linear instead of services ×
    /// workloads. Among the matching workloads, only the nearest are selected (see [`scope`]).
    fn links(&self) -> Links {
        // The workloads' label index and the Services' groups do not depend on each other:
        // built side by side.
        let ((by_namespace, by_label), (group_services, service_workloads)) =
            rayon::join(|| self.label_lists(), || self.service_groups());
        let selected: Vec<(Vec<usize>, Option<Near>)> = group_services
            .par_iter()
            .map(|members| {
                let service = &self.services[members[0]];
                let ns = self.objects[service.obj].namespace.as_str();
                // Candidates: workloads carrying the rarest selector pair set in the template
                // (controller-set labels are on no template); then check all pairs.
                let candidates = service
                    .selector_labels
                    .iter()
                    .filter(|(k, _)| !is_controller_label(k))
                    .map(|(k, v)| {
                        by_label
                            .get(&(ns, k.as_str(), v.as_str()))
                            .map_or(&[][..], Vec::as_slice)
                    })
                    .min_by_key(|c| c.len())
                    .unwrap_or_else(|| by_namespace.get(ns).map_or(&[][..], Vec::as_slice));
                let matches = |wi: usize| {
                    let w = &self.workloads[wi];
                    let o = &self.objects[w.obj];
                    service.selector_labels.iter().all(|(k, v)| {
                        if is_controller_label(k) {
                            controller_label_matches(&o.kind, &o.name, k, v)
                        } else {
                            w.labels.get(k) == Some(v)
                        }
                    })
                };
                let (mut selected, near) = self.nearest_workloads(service.obj, candidates, matches);
                selected.shrink_to_fit();
                (selected, near)
            })
            .collect();
        let mut service_near: Vec<Option<Near>> = vec![None; self.objects.len()];
        let mut selections: Vec<Vec<usize>> = Vec::with_capacity(selected.len());
        for ((list, near), members) in selected.into_iter().zip(&group_services) {
            if let Some(near) = near {
                for si in members {
                    if let Some(slot) = service_near.get_mut(self.services[*si].obj) {
                        *slot = Some(near);
                    }
                }
            }
            selections.push(list);
        }
        // The Services of each workload and the label index: independent of each other, built
        // side by side.
        let this = self;
        let ((workload_services, selectors), (label_index, label_workloads)) = rayon::join(
            || this.service_lists(&selections, &group_services),
            || this.label_index(&by_label),
        );
        let workload_namespaces = this
            .workloads
            .iter()
            .map(|w| this.objects[w.obj].namespace.clone())
            .collect();
        drop(by_label);
        Links {
            service_workloads,
            selections,
            workload_services,
            selectors,
            service_near,
            label_index,
            label_workloads,
            workload_namespaces,
        }
    }

    /// Takes in what [`Graph::links`] found (a field of [`Links`] left out is never read, which
    /// the compiler reports).
    fn set_links(&mut self, links: Links) {
        if self.declarations {
            self.declaring_selections = links
                .selections
                .iter()
                .map(|list| {
                    list.iter()
                        .copied()
                        .filter(|&wi| self.objects[self.workloads[wi].obj].declarations)
                        .collect()
                })
                .collect();
        }
        self.external = links
            .selectors
            .iter()
            .map(|list| {
                list.iter().any(|&si| {
                    matches!(
                        self.services[si].service_type.as_str(),
                        "LoadBalancer" | "NodePort"
                    )
                })
            })
            .collect();
        self.exposures = links
            .selectors
            .iter()
            .map(|_| std::sync::OnceLock::new())
            .collect();
        self.drains = links
            .selectors
            .iter()
            .map(|_| std::sync::OnceLock::new())
            .collect();
        self.service_workloads = links.service_workloads;
        self.selections = links.selections;
        self.workload_services = links.workload_services;
        self.selectors = links.selectors;
        self.service_near = links.service_near;
        self.label_index = links.label_index;
        self.label_workloads = links.label_workloads;
        self.workload_namespaces = links.workload_namespaces;
    }

    /// Workloads by namespace, and by (namespace, label key, value), each list in workload
    /// order: every pair listed and sorted in parallel, then grouped (inserting them one by
    /// one into the map was most of [`Graph::link`]).
    #[allow(clippy::type_complexity)]
    fn label_lists(
        &self,
    ) -> (
        BTreeMap<&str, Vec<usize>>,
        BTreeMap<LabelKey<'_>, Vec<usize>>,
    ) {
        let mut by_namespace: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, w) in self.workloads.iter().enumerate() {
            let ns = self.objects[w.obj].namespace.as_str();
            by_namespace.entry(ns).or_default().push(i);
        }
        let mut pairs: Vec<(LabelKey<'_>, usize)> = self
            .workloads
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, w)| {
                let ns = self.objects[w.obj].namespace.as_str();
                w.labels
                    .iter()
                    .map(move |(k, v)| ((ns, k.as_str(), v.as_str()), i))
            })
            .collect();
        pairs.par_sort_unstable();
        let mut grouped: Vec<(LabelKey<'_>, Vec<usize>)> = Vec::new();
        for (key, i) in pairs {
            match grouped.last_mut() {
                Some((last, list)) if *last == key => list.push(i),
                _ => grouped.push((key, vec![i])),
            }
        }
        (by_namespace, grouped.into_iter().collect())
    }

    /// The Services' groups, in input order: Services of a group have the same namespace,
    /// selector and file (and so the same place), hence the same selected workloads; each
    /// group's Services in input order. Also each Service's group.
    fn service_groups(&self) -> (Vec<Vec<usize>>, ObjIndex) {
        let mut service_workloads = ObjIndex::new(self.objects.len());
        let mut group_services: Vec<Vec<usize>> = Vec::new();
        // Hashed, not ordered: a lookup hashes the selector once instead of comparing it with
        // a dozen others (group ids follow input order either way; the map is never iterated).
        let mut groups: std::collections::HashMap<GroupKey<'_>, usize> =
            std::collections::HashMap::with_capacity(self.services.len());
        for (si, service) in self.services.iter().enumerate() {
            let o = &self.objects[service.obj];
            if service.selector_labels.is_empty() {
                continue;
            }
            let key = (o.namespace.as_str(), &service.selector_labels, o.place.file);
            let g = *groups.entry(key).or_insert_with(|| {
                group_services.push(Vec::new());
                group_services.len() - 1
            });
            group_services[g].push(si);
            service_workloads.insert(service.obj, g);
        }
        (group_services, service_workloads)
    }

    /// Workload → the list of Services selecting it; workloads selected by the same groups
    /// share one list of Services, merged in input order.
    fn service_lists(
        &self,
        selections: &[Vec<usize>],
        group_services: &[Vec<usize>],
    ) -> (ObjIndex, Vec<Vec<usize>>) {
        // Workload → the groups selecting it (in order).
        let mut workload_groups: BTreeMap<ObjId, Vec<usize>> = BTreeMap::new();
        for (g, selected) in selections.iter().enumerate() {
            for wi in selected {
                workload_groups
                    .entry(self.workloads[*wi].obj)
                    .or_default()
                    .push(g);
            }
        }
        let mut lists: BTreeMap<&[usize], usize> = BTreeMap::new();
        let mut selectors: Vec<Vec<usize>> = Vec::new();
        let mut workload_services = ObjIndex::new(self.objects.len());
        for (obj, gs) in &workload_groups {
            let id = *lists.entry(gs.as_slice()).or_insert_with(|| {
                let mut list: Vec<usize> = gs
                    .iter()
                    .flat_map(|g| group_services[*g].iter().copied())
                    .collect();
                list.sort_unstable();
                selectors.push(list);
                selectors.len() - 1
            });
            workload_services.insert(*obj, id);
        }
        (workload_services, selectors)
    }

    /// For each (namespace, key, value) of the label index in order, each workload carrying it:
    /// (workload, position of the key among its labels), and the workloads alone.
    #[allow(clippy::type_complexity)]
    fn label_index(
        &self,
        by_label: &BTreeMap<LabelKey<'_>, Vec<usize>>,
    ) -> (Vec<(u32, u32)>, Vec<usize>) {
        let mut label_index = Vec::new();
        let mut label_workloads = Vec::new();
        for ((_, k, _), ws) in by_label {
            for &wi in ws {
                let pos = self.workloads[wi]
                    .labels
                    .keys()
                    .position(|key| key == k)
                    .unwrap_or_default();
                label_index.push((
                    u32::try_from(wi).unwrap_or(u32::MAX),
                    u32::try_from(pos).unwrap_or(u32::MAX),
                ));
                label_workloads.push(wi);
            }
        }
        (label_index, label_workloads)
    }

    /// The object at `node` and what its kind adds to the graph (ids are assigned by
    /// [`Graph::push`]), or `None` without `kind` and `apiVersion`.
    fn extract(doc: usize, node: NodeRef<'_>, place: Place) -> Option<(Object, Extra)> {
        let node = node.resolve();
        let (Some(kind), Some(api_version)) =
            (node.str_at(&["kind"]), node.str_at(&["apiVersion"]))
        else {
            return None;
        };
        let metadata = node.get("metadata");
        let namespace_node = metadata
            .and_then(|m| m.get("namespace"))
            .and_then(|n| n.as_str());
        let annotations = metadata.and_then(|m| m.get("annotations"));
        let mut object = Object {
            at: At { doc, node: node.id },
            api_version: api_version.into(),
            kind: kind.into(),
            name: metadata
                .and_then(|m| m.str_at(&["name"]))
                .unwrap_or_default()
                .into(),
            namespace: namespace_node
                .filter(|n| !n.is_empty())
                .unwrap_or("default")
                .into(),
            namespace_explicit: namespace_node.is_some(),
            ignore_annotation: annotations
                .and_then(|a| a.get(crate::suppress::ANNOTATION))
                .is_some(),
            declarations: crate::value::declarations::may_declare(annotations),
            annotations: annotations.and_then(|a| std::num::NonZeroU32::new(a.id)),
            place,
        };
        let id = 0; // set by `push`
        let at = |n: NodeRef<'_>| At { doc, node: n.id };
        let extra = match object.kind.as_str() {
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
                            let mut ports: Vec<ContainerPort> = c
                                .get("ports")
                                .into_iter()
                                .flat_map(|p| p.items())
                                .map(|p| ContainerPort {
                                    name: p.str_at(&["name"]).map(CompactString::new),
                                    number: p.get("containerPort").and_then(|n| n.as_i64()),
                                    at: at(p),
                                })
                                .collect();
                            // No spare capacity: the graph lives to the end of the run.
                            ports.shrink_to_fit();
                            containers.push(Container {
                                at: at(c),
                                name: CompactString::new(c.str_at(&["name"]).unwrap_or_default()),
                                image: c.str_at(&["image"]).map(CompactString::new),
                                ports,
                                init,
                            });
                        }
                    }
                    containers.shrink_to_fit();
                    Extra::Workload(Workload {
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
                        patched: Patched::default(),
                    })
                } else {
                    Extra::None
                }
            }
            "Service" => {
                let selector = node.path(&["spec", "selector"]);
                let mut metrics_ports = 0usize;
                let mut ports: Vec<ServicePort> = node
                    .path(&["spec", "ports"])
                    .into_iter()
                    .flat_map(|p| p.items())
                    .map(|p| {
                        let name = p.str_at(&["name"]);
                        let target = p.get("targetPort").and_then(|t| t.as_str());
                        if name.is_some_and(is_metrics_port_name)
                            || target.is_some_and(is_metrics_port_name)
                        {
                            metrics_ports += 1;
                        }
                        ServicePort {
                            at: at(p),
                            name: name.map(CompactString::new),
                            port: p.get("port").and_then(|n| n.as_i64()),
                            target_port: p.get("targetPort").map(at),
                        }
                    })
                    .collect();
                ports.shrink_to_fit();
                Extra::Service(Service {
                    obj: id,
                    metrics_only: !ports.is_empty() && metrics_ports == ports.len(),
                    selector: selector.map(at),
                    selector_labels: string_map(selector),
                    ports,
                    service_type: CompactString::new(
                        node.str_at(&["spec", "type"]).unwrap_or("ClusterIP"),
                    ),
                })
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
                backends.shrink_to_fit();
                Extra::Ingress(Ingress {
                    obj: id,
                    class,
                    backends,
                })
            }
            "IngressClass" => {
                Extra::IngressClass(node.str_at(&["spec", "controller"]).map(str::to_string))
            }
            "Route" => Extra::Route(Route {
                obj: id,
                to: node.path(&["spec", "to", "name"]).map(at),
                target_port: node.path(&["spec", "port", "targetPort"]).map(at),
            }),
            "PodDisruptionBudget" => {
                let selector = node.path(&["spec", "selector"]);
                Extra::Pdb(Pdb {
                    obj: id,
                    selector_at: selector.map(at),
                    selector: selector.map(LabelSelector::parse).unwrap_or_default(),
                    min_available: node.path(&["spec", "minAvailable"]).map(at),
                    max_unavailable: node.path(&["spec", "maxUnavailable"]).map(at),
                })
            }
            "HorizontalPodAutoscaler" => {
                let target = node.path(&["spec", "scaleTargetRef"]);
                Extra::Hpa(Hpa {
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
                })
            }
            "ConfigMap" => Extra::ConfigMap,
            _ => Extra::None,
        };
        if let Extra::Workload(w) = &extra {
            // A Pod is its own template (already read above).
            if w.template.node != object.at.node {
                let template = node.doc.node(w.template.node);
                object.declarations |= crate::value::declarations::may_declare(
                    template.path(&["metadata", "annotations"]),
                );
            }
        }
        Some((object, extra))
    }

    /// Adds an extracted object with the next id.
    fn push(&mut self, object: Object, extra: Extra) {
        let id = self.objects.len();
        match extra {
            Extra::None => {}
            Extra::Workload(w) => self.workloads.push(Workload { obj: id, ..w }),
            Extra::Service(sv) => self.services.push(Service { obj: id, ..sv }),
            Extra::Ingress(i) => self.ingresses.push(Ingress { obj: id, ..i }),
            Extra::IngressClass(controller) => self.ingress_classes.push((id, controller)),
            Extra::Route(r) => self.routes.push(Route { obj: id, ..r }),
            Extra::Pdb(p) => self.pdbs.push(Pdb { obj: id, ..p }),
            Extra::Hpa(h) => self.hpas.push(Hpa { obj: id, ..h }),
            Extra::ConfigMap => self.config_maps.push(id),
        }
        self.declarations |= object.declarations;
        self.objects.push(object);
    }

    /// Whether any object of the input may hold a `kubegap.io/` declaration
    /// ([`Object::declarations`]): without one, no declaration lookup can find anything.
    pub fn declares_any(&self) -> bool {
        self.declarations
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
        let want = (kind, namespace, name);
        let hash = key_hash(want);
        let range = equal_range_by(self.index.len(), |i| {
            self.index_hashes[i]
                .cmp(&hash)
                .then_with(|| self.key(self.index[i]).cmp(&want))
        });
        &self.index[range]
    }

    /// The (kind, namespace, name) of an object, the order of `index`.
    #[inline]
    fn key(&self, obj: ObjId) -> (&str, &str, &str) {
        let o = &self.objects[obj];
        (o.kind.as_str(), o.namespace.as_str(), o.name.as_str())
    }

    /// Sorts every object by (hash of (kind, namespace, name), that key, input order).
    fn sorted_index(&self) -> (Vec<u64>, Vec<ObjId>) {
        let mut index: Vec<(u64, ObjId)> = (0..self.objects.len())
            .into_par_iter()
            .map(|o| (key_hash(self.key(o)), o))
            .collect();
        // Equal keys in input order (ids are unique, so the order is total), whatever the
        // thread count. Strings are compared only between equal hashes.
        index.par_sort_unstable_by(|(ha, a), (hb, b)| {
            ha.cmp(hb)
                .then_with(|| self.key(*a).cmp(&self.key(*b)))
                .then(a.cmp(b))
        });
        index.into_iter().unzip()
    }

    /// The Service a reference from object `from` names: the nearest Service with this
    /// namespace and name (see [`scope`]); two equally near ones are [`Lookup::Ambiguous`].
    pub fn service_from(&self, from: ObjId, namespace: &str, name: &str) -> Lookup<'_> {
        let (found, near) = self.nearest_named(from, self.find("Service", namespace, name));
        match (&*found, near) {
            ([], _) | (_, None) => Lookup::Missing,
            ([one], Some(near)) => match self.service_by_obj(*one) {
                Some(s) => Lookup::Found(s, near),
                None => Lookup::Missing,
            },
            (_, Some(_)) => Lookup::Ambiguous(found),
        }
    }

    /// Among `candidates` (Services), the one nearest to a file that is not a manifest (an
    /// haproxy.cfg or nginx config naming a Service); `None` when none is in scope or two are
    /// equally near.
    pub fn nearest_to_file<'s>(
        &self,
        file: crate::source::FileId,
        candidates: impl IntoIterator<Item = &'s Service>,
    ) -> Option<&'s Service> {
        let from = self.places.place(file);
        let mut best: Option<(Near, std::cmp::Reverse<usize>)> = None;
        let mut found: Vec<&Service> = Vec::new();
        for s in candidates {
            let Some(n) = scope::nearness(&from, &self.objects[s.obj].place) else {
                continue;
            };
            match best {
                Some(b) if n > b => {}
                Some(b) if n == b => found.push(s),
                _ => {
                    best = Some(n);
                    found = vec![s];
                }
            }
        }
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// The Service with this namespace and name, for references from outside the graph (a
    /// proxy config's upstream host): the first in input order.
    pub fn service(&self, namespace: &str, name: &str) -> Option<&Service> {
        let obj = *self.find("Service", namespace, name).first()?;
        self.service_by_obj(obj)
    }

    /// The Service with this object id.
    pub fn service_by_obj(&self, obj: ObjId) -> Option<&Service> {
        self.service_index.get(obj).map(|i| &self.services[i])
    }

    /// Whether any workload is in this namespace.
    pub fn namespace_has_workloads(&self, namespace: &str) -> bool {
        self.workload_namespaces.contains(namespace)
    }

    /// Whether a workload of this object's namespace was written close to it (same file,
    /// directory, kustomization tree or chart): the evidence that its pods are in the input.
    pub fn has_workloads_near(&self, obj: ObjId) -> bool {
        let ns = &self.objects[obj].namespace;
        self.workload_files
            .get(ns)
            .into_iter()
            .flatten()
            .any(|w| self.nearness(obj, *w).is_some_and(|n| n.0.is_close()))
    }

    /// A custom resource written close to this object, in its namespace (or in none), that
    /// may own pods (an operator's database, Prometheus, Ray cluster…): pods the input does
    /// not show.
    pub fn pod_owner_near(&self, obj: ObjId) -> Option<ObjId> {
        let ns = &self.objects[obj].namespace;
        [Some(ns.clone()), None]
            .iter()
            .filter_map(|k| self.owner_files.get(k))
            .flatten()
            .copied()
            .find(|id| self.nearness(obj, *id).is_some_and(|n| n.0.is_close()))
    }

    /// How near the workloads a Service selects are (`None` when it selects none).
    pub fn service_link_near(&self, service: &Service) -> Option<Near> {
        self.service_near.get(service.obj).copied().flatten()
    }

    /// Workloads (indices into `workloads`) whose pod template carries `key=value`, in a
    /// namespace.
    pub fn workloads_with_label(&self, namespace: &str, key: &str, value: &str) -> &[usize] {
        let want = (namespace, key, value);
        let range = equal_range(&self.label_index, &want, |e| self.label_key(*e));
        &self.label_workloads[range]
    }

    /// The (namespace, key, value) of one `label_index` entry.
    #[inline]
    fn label_key(&self, (wi, pos): (u32, u32)) -> (&str, &str, &str) {
        let w = &self.workloads[wi as usize];
        let (k, v) = w
            .labels
            .iter()
            .nth(pos as usize)
            .map_or(("", ""), |(k, v)| (k.as_str(), v.as_str()));
        (self.objects[w.obj].namespace.as_str(), k, v)
    }

    /// Workloads whose pod template a Service selects (same namespace; empty selector selects none).
    pub fn service_targets(&self, service: &Service) -> Vec<&Workload> {
        self.service_target_indices(service)
            .iter()
            .map(|i| &self.workloads[*i])
            .collect()
    }

    /// Indices into `workloads` of the workloads a Service selects that may declare something
    /// ([`Object::declarations`]), ascending: those of [`Graph::service_target_indices`].
    pub fn declaring_target_indices(&self, service: &Service) -> &[usize] {
        self.service_workloads
            .get(service.obj)
            .and_then(|g| self.declaring_selections.get(g))
            .map_or(&[], Vec::as_slice)
    }

    /// Indices into `workloads` of the workloads a Service selects (see [`Graph::service_targets`]).
    pub fn service_target_indices(&self, service: &Service) -> &[usize] {
        self.service_workloads
            .get(service.obj)
            .map_or(&[], |g| self.selections[g].as_slice())
    }

    /// Services that select a workload, in input order.
    pub fn services_of(&self, workload: &Workload) -> Vec<&Service> {
        self.service_indices_of(workload)
            .iter()
            .map(|i| &self.services[*i])
            .collect()
    }

    /// Indices into `services` of the Services that select a workload, ascending; workloads
    /// selected by the same Services share one slice (see [`Graph::selector_list`]).
    pub fn service_indices_of(&self, workload: &Workload) -> &[usize] {
        self.selector_list(workload)
            .map_or(&[], |l| self.selectors[l].as_slice())
    }

    /// Which distinct list of selecting Services a workload has (`None`: no Service selects
    /// it): equal ids, equal lists.
    pub fn selector_list(&self, workload: &Workload) -> Option<usize> {
        self.workload_services.get(workload.obj)
    }

    /// Whether a Service of type LoadBalancer or NodePort selects the workload: its pods take
    /// traffic from outside the cluster, through a port on every node.
    pub fn has_external_service(&self, workload: &Workload) -> bool {
        self.selector_list(workload)
            .and_then(|list| self.external.get(list))
            .is_some_and(|external| *external)
    }

    /// The number of distinct lists [`Graph::selector_list`] returns ids of.
    pub fn selector_lists(&self) -> usize {
        self.selectors.len()
    }

    /// The longest load balancer drain in front of the workloads whose selecting Services are
    /// list `list` ([`Graph::selector_list`]), made by `make` the first time it is asked for.
    pub(crate) fn drain_of(
        &self,
        list: usize,
        make: impl FnOnce() -> Option<pod::Drain>,
    ) -> Option<&pod::Drain> {
        self.drains
            .get(list)?
            .get_or_init(|| make().map(Box::new))
            .as_deref()
    }

    /// The exposures of the workloads whose selecting Services are list `list`
    /// ([`Graph::selector_list`]), made by `make` the first time they are asked for.
    pub(crate) fn exposures_of(
        &self,
        list: usize,
        make: impl FnOnce() -> Vec<pod::Exposure>,
    ) -> &[pod::Exposure] {
        self.exposures
            .get(list)
            .map_or(&[], |e| e.get_or_init(make))
    }

    /// Workloads a PDB selects (the nearest matching ones, see [`scope`]), found once when the
    /// graph was built.
    pub fn pdb_targets(&self, pdb: &Pdb) -> Vec<&Workload> {
        self.pdb_target_indices(pdb)
            .iter()
            .map(|i| &self.workloads[*i])
            .collect()
    }

    /// Indices into `workloads` of the workloads a PDB selects (see [`Graph::pdb_targets`]).
    pub fn pdb_target_indices(&self, pdb: &Pdb) -> &[usize] {
        self.pdb_target_list(pdb)
            .map_or(&[], |l| self.pdb_selections[l].as_slice())
    }

    /// Which distinct list of workloads a Service selects: Services of one group (namespace,
    /// selector, file) share one list ([`Graph::service_target_indices`]).
    pub fn service_target_list(&self, service: &Service) -> Option<usize> {
        self.service_workloads.get(service.obj)
    }

    /// Which distinct list of workloads a PDB selects: PDBs with one namespace, selector and
    /// file have one list (equal ids, equal lists).
    pub fn pdb_target_list(&self, pdb: &Pdb) -> Option<usize> {
        self.pdb_groups.get(pdb.obj)
    }

    /// [`Graph::pdb_targets`], looked up: indices into `workloads`.
    fn find_pdb_targets(&self, pdb: &Pdb) -> Vec<usize> {
        let ns = &self.objects[pdb.obj].namespace;
        // With `matchLabels`, only workloads carrying its rarest pair can match (label index);
        // selectors made only of expressions are checked against the whole namespace.
        let candidates = pdb
            .selector
            .match_labels
            .iter()
            .filter(|(k, _)| !is_controller_label(k))
            .map(|(k, v)| self.workloads_with_label(ns, k, v))
            .min_by_key(|c| c.len());
        let matches = |w: &Workload| {
            let o = &self.objects[w.obj];
            pdb.selector.matches_with(&w.labels, |k, v| {
                is_controller_label(k) && controller_label_matches(&o.kind, &o.name, k, v)
            })
        };
        let in_namespace: Vec<usize>;
        let candidates = match candidates {
            Some(indices) => indices,
            None => {
                in_namespace = (0..self.workloads.len())
                    .filter(|i| self.objects[self.workloads[*i].obj].namespace == ns)
                    .collect();
                &in_namespace
            }
        };
        let mut targets = self
            .nearest_workloads(pdb.obj, candidates, |i| matches(&self.workloads[i]))
            .0;
        targets.shrink_to_fit();
        targets
    }

    /// The workload an HPA scales (the nearest one with its kind and name), resolved once
    /// when the graph was built.
    pub fn hpa_target(&self, hpa: &Hpa) -> Option<&Workload> {
        self.hpa_workload.get(hpa.obj).map(|i| &self.workloads[i])
    }

    /// [`Graph::hpa_target`], looked up.
    fn resolve_hpa_target(&self, hpa: &Hpa) -> Option<&Workload> {
        let ns = &self.objects[hpa.obj].namespace;
        let found = self.find(&hpa.target_kind, ns, &hpa.target_name);
        let (near, _) = self.nearest_named(hpa.obj, found);
        near.iter().find_map(|obj| self.workload(*obj))
    }

    /// The workload of an object id, if it is one.
    pub fn workload(&self, obj: ObjId) -> Option<&Workload> {
        self.workload_index.get(obj).map(|i| &self.workloads[i])
    }

    /// The `metadata.annotations` mapping of an object in the documents it indexes, from where
    /// the graph found it ([`Object::annotations`]): every annotation lookup goes through here.
    pub fn annotations<'d>(&self, documents: &'d [Document], obj: ObjId) -> Option<NodeRef<'d>> {
        let at = self.objects[obj].annotations()?;
        Some(documents[at.doc].node(at.node))
    }

    /// Each HPA's target workload, resolved in parallel, in input order. Reads the objects,
    /// the name index and the workloads' index only.
    fn hpa_targets(&self) -> Vec<Option<ObjId>> {
        self.hpas
            .par_iter()
            .map(|hpa| self.resolve_hpa_target(hpa).map(|w| w.obj))
            .collect()
    }

    /// Records the HPAs' targets ([`Graph::hpa_targets`]) and resolves PDB selectors once
    /// (over the finished graph), so that rules asking per workload stay linear.
    fn index_scalers(&mut self, hpa_targets: Vec<Option<ObjId>>) {
        // The first HPA of a workload, in input order, wins.
        let mut workload_hpa = ObjIndex::new(self.objects.len());
        let mut hpa_workload = ObjIndex::new(self.objects.len());
        for (i, target) in hpa_targets.into_iter().enumerate() {
            if let Some(workload) = target {
                workload_hpa.insert_first(workload, i);
                if let Some(w) = self.workload_index.get(workload) {
                    hpa_workload.insert(self.hpas[i].obj, w);
                }
            }
        }
        // PDBs with one namespace, selector and file (and so one place) select the same
        // workloads: found once per group. N copies of a PDB in a stream, each selecting the N
        // copies' workloads, were N scans of them and N lists of N (2.8 s and 142 MB at 4,000).
        let mut groups: std::collections::HashMap<
            (&str, &LabelSelector, Option<crate::source::FileId>),
            usize,
        > = std::collections::HashMap::with_capacity(self.pdbs.len());
        let mut firsts: Vec<usize> = Vec::new();
        let mut pdb_groups = ObjIndex::new(self.objects.len());
        for (i, pdb) in self.pdbs.iter().enumerate() {
            let o = &self.objects[pdb.obj];
            let key = (o.namespace.as_str(), &pdb.selector, o.place.file);
            let g = *groups.entry(key).or_insert_with(|| {
                firsts.push(i);
                firsts.len() - 1
            });
            pdb_groups.insert(pdb.obj, g);
        }
        drop(groups);
        let pdb_selections: Vec<Vec<usize>> = firsts
            .par_iter()
            .map(|i| self.find_pdb_targets(&self.pdbs[*i]))
            .collect();
        let mut workload_pdbs = vec![false; self.objects.len()];
        for wi in pdb_selections.iter().flatten() {
            if let Some(slot) = workload_pdbs.get_mut(self.workloads[*wi].obj) {
                *slot = true;
            }
        }
        self.workload_hpa = workload_hpa;
        self.hpa_workload = hpa_workload;
        self.workload_pdbs = workload_pdbs;
        self.pdb_groups = pdb_groups;
        self.pdb_selections = pdb_selections;
    }

    /// Services that send the workload user traffic: those that select it, except the ones
    /// whose ports serve metrics only ([`Service::metrics_only`]).
    pub fn traffic_services_of(&self, workload: &Workload) -> Vec<&Service> {
        let mut services = self.services_of(workload);
        services.retain(|s| !s.metrics_only);
        services
    }

    /// The first of [`Graph::traffic_services_of`], without collecting the others (copies of a
    /// release are each selected by every copy's Service).
    pub fn first_traffic_service(&self, workload: &Workload) -> Option<&Service> {
        self.service_indices_of(workload)
            .iter()
            .map(|i| &self.services[*i])
            .find(|s| !s.metrics_only)
    }

    /// The HPA that scales the workload, if any (the first one in input order).
    pub fn hpa_of(&self, workload: &Workload) -> Option<&Hpa> {
        self.workload_hpa.get(workload.obj).map(|i| &self.hpas[i])
    }

    /// Whether some PodDisruptionBudget selects the workload's pods.
    pub fn has_pdb(&self, workload: &Workload) -> bool {
        self.workload_pdbs
            .get(workload.obj)
            .copied()
            .unwrap_or(false)
    }
}

/// Object id → a small index (into `workloads`, `services`, `hpas`, a list of lists), one slot
/// per object of the graph (ids are dense from 0). Rules ask these per workload and per Service:
/// a `BTreeMap` walked a tree of nodes spread over memory on each lookup, deeper as the input
/// grew, where a slot is one read.
#[derive(Clone, Debug, Default)]
struct ObjIndex(Vec<u32>);

impl ObjIndex {
    /// No index in this slot.
    const NONE: u32 = u32::MAX;

    /// Empty slots for `objects` objects.
    fn new(objects: usize) -> ObjIndex {
        ObjIndex(vec![ObjIndex::NONE; objects])
    }

    /// From (object, index) pairs; a later pair for the same object replaces an earlier one.
    fn from_pairs(objects: usize, pairs: impl IntoIterator<Item = (ObjId, usize)>) -> ObjIndex {
        let mut index = ObjIndex::new(objects);
        for (obj, i) in pairs {
            index.insert(obj, i);
        }
        index
    }

    /// Sets the index of `obj` (an index past `u32::MAX - 1`, which no input that fits in
    /// memory reaches, is not recorded).
    fn insert(&mut self, obj: ObjId, i: usize) {
        if let (Some(slot), Ok(i)) = (self.0.get_mut(obj), u32::try_from(i)) {
            *slot = i;
        }
    }

    /// Sets the index of `obj` unless it has one.
    fn insert_first(&mut self, obj: ObjId, i: usize) {
        if self.get(obj).is_none() {
            self.insert(obj, i);
        }
    }

    /// The index of `obj`, if it has one.
    fn get(&self, obj: ObjId) -> Option<usize> {
        match self.0.get(obj) {
            Some(&i) if i != ObjIndex::NONE => Some(i as usize),
            _ => None,
        }
    }
}

/// The positions of `items` (sorted by `key`) whose key is `want`.
#[inline(always)]
fn equal_range<T, K: Ord>(items: &[T], want: &K, key: impl Fn(&T) -> K) -> std::ops::Range<usize> {
    equal_range_by(items.len(), |i| key(&items[i]).cmp(want))
}

/// The positions `0..len` where `cmp` (position against the wanted key, ascending over the
/// positions) is `Equal`: two binary searches, written out so that the comparisons stay
/// inlined in the lookups rules make by the million (`partition_point`'s closures were left as
/// calls in some builds: 2 % of a run).
#[inline(always)]
fn equal_range_by(len: usize, cmp: impl Fn(usize) -> std::cmp::Ordering) -> std::ops::Range<usize> {
    use std::cmp::Ordering;
    // First position not below the wanted key, then first above it.
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if cmp(mid) == Ordering::Less {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let start = lo;
    hi = len;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if cmp(mid) != Ordering::Greater {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    start..lo
}

/// FNV-1a of an object's (kind, namespace, name), each part ended by 0xff (a byte UTF-8 never
/// holds): a fixed function, so that the index has one order on every run.
#[inline]
fn key_hash((kind, namespace, name): (&str, &str, &str)) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [kind, namespace, name] {
        for b in part.bytes().chain(std::iter::once(0xff)) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests;
