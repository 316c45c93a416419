//! The read-only model below the rule API: parsed inputs (files, YAML documents), the
//! Kubernetes object graph, the haproxy and nginx configurations and the settings, with the
//! accessors that turn graph positions into nodes, spans and citations.
//!
//! Architecture Invariant: the model and the layers built from it (`k8s/`, `controllers/`,
//! `chain/`, `value/`, the parsers) never import `crate::rule`; the rule API
//! ([`crate::rule::Context`]) wraps the model and those layers, never the other way round.
//! `kubegap-core/tests/layering.rs` reads the `use` lines and fails if one does.
//!
//! The layers are built in typed stages (`engine::load` and [`crate::engine::check`]): the
//! graph, with every link resolved once (Service ↔ workload, HPA and PDB targets: `Graph`'s
//! indexes), then the controllers (`controllers::Model::build` from the graph and documents),
//! then the chains ([`crate::chain::build`] from a [`crate::chain::Stage`]: model +
//! controllers).

use crate::config::Settings;
use crate::haproxy::HaproxyConfig;
use crate::k8s::{At, Graph, ObjId, Object};
use crate::nginx::NginxConfig;
use crate::source::{SourceMap, Span};
use crate::yaml::{Document, NodeRef};

/// Parsed inputs, graph, proxy configurations and settings of one run.
#[derive(Clone, Copy)]
pub struct Model<'a> {
    /// All files of the run.
    pub files: &'a SourceMap,
    /// Every parsed YAML document of every file, in file order.
    pub documents: &'a [Document],
    /// The Kubernetes object graph built from the documents.
    pub k8s: &'a Graph,
    /// Parsed haproxy.cfg files.
    pub haproxy: &'a [HaproxyConfig],
    /// Parsed nginx configurations (each with its includes).
    pub nginx: &'a [NginxConfig],
    /// Resolved settings (versions, topology, options).
    pub settings: &'a Settings,
}

impl<'a> Model<'a> {
    /// The YAML node at a graph position.
    pub fn node(&self, at: At) -> NodeRef<'a> {
        self.documents[at.doc].node(at.node)
    }

    /// The span of the YAML node at a graph position.
    pub fn span(&self, at: At) -> Span {
        self.documents[at.doc].span(at.node)
    }

    /// An object of the graph.
    pub fn obj(&self, id: ObjId) -> &'a Object {
        &self.k8s.objects[id]
    }

    /// `metadata.annotations[key]` of an object as (key node, value node).
    pub fn annotation(&self, id: ObjId, key: &str) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
        self.k8s.annotations(self.documents, id)?.get_entry(key)
    }

    /// The span of the last key of `path` in an object (`["spec", "selector"]`): where a
    /// finding about a block value points, since a block mapping's value starts on the next
    /// line. `None` when the path is not there.
    pub fn key_span(&self, id: ObjId, path: &[&str]) -> Option<Span> {
        let (last, parents) = path.split_last()?;
        let parent = self.node(self.obj(id).at).path(parents)?;
        parent.get_entry(last).map(|(key, _)| key.span())
    }

    /// `Kind/namespace/name` of an object, for messages.
    pub fn describe(&self, id: ObjId) -> String {
        let o = self.obj(id);
        format!("{} `{}/{}`", o.kind, o.namespace, o.name)
    }

    /// `file:line` of a span, for messages that cite where a number came from. The file is
    /// named by its base name: the finding's labels carry the full location.
    pub fn cite(&self, span: Span) -> String {
        let file = self.files.get(span.file);
        format!("{}:{}", file.base_name(), file.line_col(span.start).line)
    }
}
