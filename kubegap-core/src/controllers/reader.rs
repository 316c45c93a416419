//! [`Reader`]: reads annotations, ConfigMap keys, declarations and backends of one input, each
//! value as a [`Setting`] with its [`Source`].

use super::{duration, Setting, Source};
use crate::k8s::{At, Graph, ObjId};
use crate::value::duration::Millis;
use crate::yaml::{Document, NodeRef};

/// Reads the annotations, ConfigMaps and objects of one input.
pub struct Reader<'a> {
    /// The graph.
    pub graph: &'a Graph,
    /// The documents it indexes.
    pub documents: &'a [Document],
}

impl<'a> Reader<'a> {
    /// A node.
    pub fn node(&self, at: At) -> NodeRef<'a> {
        self.documents[at.doc].node(at.node)
    }

    /// The mapping of an object.
    pub fn object(&self, obj: ObjId) -> NodeRef<'a> {
        self.node(self.graph.objects[obj].at)
    }

    /// `metadata.annotations[key]` of an object as (key node, value node).
    pub fn annotation(&self, obj: ObjId, key: &str) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
        self.annotations_of(obj)?.get_entry(key)
    }

    /// Every annotation of an object as (key node, value node).
    pub fn annotations(&self, obj: ObjId) -> Vec<(NodeRef<'a>, NodeRef<'a>)> {
        self.annotations_of(obj)
            .map(|a| a.entries())
            .unwrap_or_default()
    }

    /// The `metadata.annotations` mapping of an object.
    pub fn annotations_of(&self, obj: ObjId) -> Option<NodeRef<'a>> {
        self.graph.annotations(self.documents, obj)
    }

    /// A duration annotation as a setting.
    pub fn annotation_ms(
        &self,
        obj: ObjId,
        key: &str,
        parse: crate::value::duration::Parser,
    ) -> Option<Setting<Millis>> {
        let (k, v) = self.annotation(obj, key)?;
        let value = parse(v.as_str()?)?;
        Some(Setting::new(value, annotation_source(key, k, v)))
    }

    /// `data[key]` of a ConfigMap as (key node, value node).
    pub fn config_map_entry(
        &self,
        config_map: ObjId,
        key: &str,
    ) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
        self.object(config_map).get("data")?.get_entry(key)
    }

    /// A ConfigMap duration as a setting.
    pub fn config_map_ms(
        &self,
        config_map: Option<ObjId>,
        key: &str,
        parse: crate::value::duration::Parser,
    ) -> Option<Setting<Millis>> {
        let (k, v) = self.config_map_entry(config_map?, key)?;
        let value = parse(v.as_str()?)?;
        Some(Setting::new(
            value,
            Source::ConfigMapKey {
                key: key.to_string(),
                key_span: k.span(),
                value_span: v.span(),
            },
        ))
    }

    /// A ConfigMap string as a setting.
    pub fn config_map_str(&self, config_map: Option<ObjId>, key: &str) -> Option<Setting<String>> {
        let (k, v) = self.config_map_entry(config_map?, key)?;
        Some(Setting::new(
            v.as_str()?.trim().to_string(),
            Source::ConfigMapKey {
                key: key.to_string(),
                key_span: k.span(),
                value_span: v.span(),
            },
        ))
    }

    /// A declared duration (`kubegap.io/ping-interval`, …) on an object or — for Ingresses and
    /// Routes — their backend Services and the workloads those select, in the one lookup order
    /// of [`crate::value::declarations`] (route, Service, workload, pod template).
    pub fn declared_ms(&self, obj: ObjId, key: &str) -> Option<Setting<Millis>> {
        self.declared_ms_among(&self.declaring(obj), key)
    }

    /// [`Reader::declared_ms`] on the objects that may declare it ([`Reader::declaring`]),
    /// found once by a caller that reads several declarations.
    pub fn declared_ms_among(&self, declaring: &[ObjId], key: &str) -> Option<Setting<Millis>> {
        let (k, v) =
            crate::value::declarations::lookup(self.graph, self.documents, declaring, key)?;
        let value = duration::go(v.as_str()?)?;
        Some(Setting::new(value, annotation_source(key, k, v)))
    }

    /// The objects whose declarations apply to `obj`, in lookup order ([`Reader::related`]),
    /// keeping those that may declare something ([`crate::k8s::Object::declarations`]): none,
    /// without finding the backends, when no object of the input does.
    pub fn declaring(&self, obj: ObjId) -> Vec<ObjId> {
        if !self.graph.declares_any() {
            return Vec::new();
        }
        // The Services' workloads that declare nothing are left out as they are listed: a
        // Service of N workloads is not gone over for each of N routes to it.
        let mut out = self.related_with(obj, |s| self.graph.declaring_target_indices(s));
        out.retain(|&o| self.graph.objects[o].declarations);
        out
    }

    /// The object itself, then its backend Services, then the workloads they select.
    pub fn related(&self, obj: ObjId) -> Vec<ObjId> {
        self.related_with(obj, |s| self.graph.service_target_indices(s))
    }

    /// [`Reader::related`], each Service's workloads those of `targets` (indices into the
    /// graph's workloads).
    fn related_with<'g>(
        &self,
        obj: ObjId,
        targets: impl Fn(&crate::k8s::Service) -> &'g [usize],
    ) -> Vec<ObjId>
    where
        'a: 'g,
    {
        let workloads = &self.graph.workloads;
        let mut out = vec![obj];
        for service in self.backend_services(obj) {
            out.push(service);
            if let Some(s) = self.graph.service_by_obj(service) {
                out.extend(targets(s).iter().map(|&wi| workloads[wi].obj));
            }
        }
        if let Some(s) = self.graph.service_by_obj(obj) {
            out.extend(targets(s).iter().map(|&wi| workloads[wi].obj));
        }
        out.dedup();
        out
    }

    /// The Ingress view of an object (views are in object order, so this is a binary search).
    pub fn ingress(&self, obj: ObjId) -> Option<&'a crate::k8s::Ingress> {
        let ingresses = &self.graph.ingresses;
        let i = ingresses.binary_search_by_key(&obj, |i| i.obj).ok()?;
        ingresses.get(i)
    }

    /// The Route view of an object.
    pub fn route(&self, obj: ObjId) -> Option<&'a crate::k8s::Route> {
        let routes = &self.graph.routes;
        let i = routes.binary_search_by_key(&obj, |r| r.obj).ok()?;
        routes.get(i)
    }

    /// Services (in the input) an Ingress or Route sends traffic to.
    pub fn backend_services(&self, obj: ObjId) -> Vec<ObjId> {
        let ns = &self.graph.objects[obj].namespace;
        let mut names: Vec<&str> = Vec::new();
        if let Some(ing) = self.ingress(obj) {
            for b in &ing.backends {
                if let Some(n) = self.node(b.service_name).as_str() {
                    names.push(n);
                }
            }
        }
        if let Some(route) = self.route(obj) {
            if let Some(n) = route.to.and_then(|to| self.node(to).as_str()) {
                names.push(n);
            }
        }
        let mut out: Vec<ObjId> = names
            .into_iter()
            .filter_map(|n| self.graph.service_from(obj, ns, n).found().map(|s| s.obj))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl<'a> Reader<'a> {
    pub(super) fn config_map_entry_opt(
        &self,
        config_map: Option<ObjId>,
        key: &str,
    ) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
        self.config_map_entry(config_map?, key)
    }
}

/// The [`Source`] of an annotation entry.
pub fn annotation_source(key: &str, k: NodeRef<'_>, v: NodeRef<'_>) -> Source {
    Source::Annotation {
        key: key.to_string(),
        key_span: k.span(),
        value_span: v.span(),
    }
}
