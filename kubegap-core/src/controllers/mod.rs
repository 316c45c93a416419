//! Ingress controllers, OpenShift routers and cloud load balancers configured through objects:
//! which controller serves which Ingress or Route, and the *effective* value of each setting
//! that matters at reload and idle time, with where that value came from.
//!
//! Sources, in precedence order for a route: the route's annotation, then the controller's
//! ConfigMap key (or the OpenShift IngressController field, or the router's environment), then
//! the controller's argument, then the default of the product (and version, when the image tag
//! tells it). Every value is a [`Setting`] carrying its [`Source`], so messages can say
//! "3600s (annotation `…/proxy-read-timeout`, ing.yaml:9)" or "240s (default of ingress-nginx
//! v1.15.1)". Unknown stays unknown: no value is guessed without a stated source.
//!
//! Entry point: [`Model::build`], from the graph and documents (rules read the result as
//! `cx.controllers`). For each Ingress
//! and OpenShift Route, [`Model::routes`] holds a [`RouteSettings`]: the product serving it
//! ([`Binding`]), the controller in the input ([`Controller`]), the effective read, send,
//! client and tunnel timeouts, the in-cluster proxy's upstream keep-alive, the reload deadline,
//! the cloud [`LoadBalancer`] in front (idle timeout, GCP lifetime cap and fixed 600 s backend
//! keep-alive), whether it is [`LongLived`], and the declared ping interval and session
//! lifetime. [`Reader::backend_services`] gives the Services behind a route, for chains. Facts and their
//! sources: `../shared/research/DOMAIN.md` §2.2, §2.4, §2.5. Reload reasoning over the values
//! lives in [`crate::reload`], shared with the haproxy.cfg rules.
//!
//! Layout, by the axis of extension: `catalog.rs` (the products and their [`Spec`]s),
//! `reader.rs` (reading values with their source), `args.rs` (container arguments),
//! `binding.rs` (finding controllers, binding Ingresses), `lb.rs` (cloud load balancers),
//! `long_lived.rs`, and one file per product (`ingress_nginx.rs`, `nginx_inc.rs`,
//! `haproxytech.rs`, `haproxy_ingress.rs`, `openshift.rs`, `aws_alb.rs`, `gke.rs`) owning its
//! ConfigMap keys, annotations, defaults and settings. Adding a controller is one new file and
//! one variant (docs/CONTRIBUTING.md).

use crate::config::Version;
use crate::k8s::{Graph, ObjId};
use crate::source::Span;
use crate::value::duration::Millis;
use crate::yaml::{Document, NodeRef};
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};

mod args;
mod aws_alb;
mod binding;
mod catalog;
mod gke;
mod haproxy_ingress;
mod haproxytech;
mod ingress_nginx;
pub mod lb;
mod long_lived;
mod nginx_inc;
mod openshift;
mod reader;

pub use haproxy_ingress::haproxy_ingress_balance_default;
use openshift::{ingress_controller_settings, route_settings};

pub use crate::value::duration;
pub use crate::value::provenance::{Setting, Source};
pub use args::Arg;
pub use binding::{Binding, Via};
pub use catalog::{image_repository, image_version, Product, Spec};
pub use lb::{LbKind, LoadBalancer};
pub use long_lived::{long_lived, long_lived_among, path_hint, LongLived, LongLivedKind};
pub use reader::{annotation_source, Reader};

use binding::{bind_ingress, find_controllers};

/// Annotation that declares a long-lived route: `websocket`, `sse` or `grpc-stream`
/// (`none` or `false` opts out of the heuristics).
pub const LONG_LIVED_ANNOTATION: &str = crate::value::declarations::LONG_LIVED;
/// Annotation that declares the application's keep-alive ping interval (e.g. `25s`).
pub const PING_INTERVAL_ANNOTATION: &str = crate::value::declarations::PING_INTERVAL;
/// Annotation that declares the expected session lifetime of long-lived connections (`8h`).
pub const SESSION_LIFETIME_ANNOTATION: &str = crate::value::declarations::SESSION_LIFETIME;

/// An ingress controller or router found in the input: a workload running a known image, or an
/// OpenShift `IngressController` object.
#[derive(Clone, Debug)]
pub struct Controller {
    /// The product.
    pub product: Product,
    /// The workload, or the IngressController object.
    pub obj: ObjId,
    /// Index of the controller container in the workload's containers.
    pub container: Option<usize>,
    /// The `image` value span.
    pub image: Option<Span>,
    /// The version from the image tag, when it has one.
    pub version: Option<Version>,
    /// The container's arguments (`command` and `args`).
    pub args: Vec<Arg>,
    /// The ConfigMap named by `--configmap`, when it is in the input.
    pub config_map: Option<ObjId>,
    /// The `--configmap` argument, even when the ConfigMap is not in the input.
    pub config_map_arg: Option<Arg>,
    /// `--ingress-class` (`--ingress.class` for haproxytech).
    pub ingress_class: Option<String>,
    /// `--controller-class`.
    pub controller_class: Option<String>,
    /// `--watch-namespace`.
    pub watch_namespace: Option<String>,
    /// Controller-wide effective settings.
    pub settings: ControllerSettings,
}

impl Controller {
    /// An argument by flag name.
    pub fn arg(&self, name: &str) -> Option<&Arg> {
        self.args.iter().find(|a| a.name == name)
    }

    /// ingress-nginx `--annotations-prefix`, when it is not the default
    /// `nginx.ingress.kubernetes.io`.
    pub fn custom_annotation_prefix(&self) -> Option<&str> {
        let value = self.arg("annotations-prefix")?.value.as_deref()?;
        let value = value.trim().trim_end_matches('/');
        (self.product == Product::IngressNginx && value != "nginx.ingress.kubernetes.io")
            .then_some(value)
    }

    /// The `--configmap` value when that ConfigMap is not in the input: its keys are unknown,
    /// so defaults are assumed (and messages should say so).
    pub fn missing_config_map(&self) -> Option<&str> {
        if self.config_map.is_some() {
            return None;
        }
        self.config_map_arg.as_ref()?.value.as_deref()
    }

    /// A note for messages whose value is a default while the controller's ConfigMap is not in
    /// the input.
    pub fn assumed_default_note(&self, source: &Source) -> Option<String> {
        let name = self.missing_config_map()?;
        source.is_default().then(|| {
            format!(
                "the controller's ConfigMap `{name}` is not in the input: its default is assumed"
            )
        })
    }

    /// The class it serves: `--ingress-class` (`--ingress.class`), else the product's default
    /// (`nginx` for both NGINX controllers, `haproxy` for both HAProxy ones).
    pub fn class_name(&self) -> Option<&str> {
        self.ingress_class
            .as_deref()
            .or(self.product.spec().default_class)
    }

    /// Whether a boolean flag is on (`--flag`, `--flag=true`).
    pub fn flag(&self, name: &str) -> Option<&Arg> {
        self.arg(name)
            .filter(|a| a.value.as_deref().is_none_or(|v| v == "true"))
    }
}

/// Controller-wide settings (a route may override some with annotations; see [`RouteSettings`]).
/// Durations are milliseconds. `None`: the product has no such knob, or it is unset and
/// unlimited (OpenShift without `hard-stop-after`).
#[derive(Clone, Debug, Default)]
pub struct ControllerSettings {
    /// When old processes or workers are killed after a reload: ingress-nginx
    /// `worker-shutdown-timeout`, haproxytech `hard-stop-after`, haproxy-ingress `timeout-stop`,
    /// OpenShift `ingress.operator.openshift.io/hard-stop-after`.
    pub reload_deadline: Option<Setting<Millis>>,
    /// haproxy-ingress `close-sessions-duration`, resolved to milliseconds.
    pub close_spread: Option<Setting<Millis>>,
    /// The balance algorithm (`load-balance`, `balance-algorithm`).
    pub balance: Option<Setting<String>>,
    /// Upstream read (server) timeout.
    pub read_timeout: Option<Setting<Millis>>,
    /// Upstream send timeout (ingress-nginx).
    pub send_timeout: Option<Setting<Millis>>,
    /// Client inactivity timeout.
    pub client_timeout: Option<Setting<Millis>>,
    /// Tunnel (WebSocket) timeout.
    pub tunnel_timeout: Option<Setting<Millis>>,
    /// Idle time of the pool of connections to the upstreams (ingress-nginx
    /// `upstream-keepalive-timeout`); for HAProxy-based controllers, `None` (HAProxy pools are
    /// purged per `pool-purge-delay`, not modelled here).
    pub upstream_keepalive_timeout: Option<Setting<Millis>>,
    /// Client-side keep-alive idle (ingress-nginx `keep-alive`, HAProxy `timeout
    /// http-keep-alive`).
    pub client_keepalive_timeout: Option<Setting<Millis>>,
    /// OpenShift `spec.idleConnectionTerminationPolicy`: `Immediate` (default: idle frontend
    /// connections are closed at reload) or `Deferred`.
    pub idle_connection_termination: Option<Setting<String>>,
}

/// Whether a route is an Ingress or an OpenShift Route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteKind {
    /// networking.k8s.io Ingress.
    Ingress,
    /// route.openshift.io Route.
    Route,
}

/// The effective settings of one Ingress or Route: what the in-cluster proxy and the load
/// balancer in front of it do for this route, each value with its source.
#[derive(Clone, Debug)]
pub struct RouteSettings {
    /// The Ingress or Route.
    pub obj: ObjId,
    /// Ingress or Route.
    pub kind: RouteKind,
    /// The product serving it, if known.
    pub binding: Option<Binding>,
    /// Index into [`Model::controllers`] of the controller serving it, when in the input.
    pub controller: Option<usize>,
    /// Effective upstream read timeout (annotation > ConfigMap > default).
    pub read_timeout: Option<Setting<Millis>>,
    /// Effective upstream send timeout (ingress-nginx).
    pub send_timeout: Option<Setting<Millis>>,
    /// Effective client timeout.
    pub client_timeout: Option<Setting<Millis>>,
    /// Effective tunnel timeout (HAProxy-based products).
    pub tunnel_timeout: Option<Setting<Millis>>,
    /// The in-cluster proxy's upstream keep-alive idle (ingress-nginx).
    pub upstream_keepalive_timeout: Option<Setting<Millis>>,
    /// The controller's reload deadline (see [`ControllerSettings::reload_deadline`]).
    pub reload_deadline: Option<Setting<Millis>>,
    /// The cloud load balancer in front, when known (boxed: 352 bytes, absent from most
    /// routes, and a 51 MB stream has 15,000 routes).
    pub lb: Option<Box<LoadBalancer>>,
    /// Whether the route carries long-lived connections, and why.
    pub long_lived: Option<LongLived>,
    /// Declared `kubegap.io/ping-interval` (route, backend Services or their workloads).
    pub ping_interval: Option<Setting<Millis>>,
    /// Declared `kubegap.io/session-lifetime`.
    pub session_lifetime: Option<Setting<Millis>>,
}

/// The controllers, routes and load balancers of one input.
#[derive(Debug, Default)]
pub struct Model {
    /// Controllers found in the input.
    pub controllers: Vec<Controller>,
    /// Effective settings of every Ingress and Route.
    pub routes: Vec<RouteSettings>,
}

/// Product defaults (DOMAIN.md §2.2, §2.4), in milliseconds.
pub mod defaults {
    pub use super::haproxy_ingress::defaults::*;
    pub use super::haproxytech::defaults::*;
    pub use super::ingress_nginx::defaults::*;
    pub use super::openshift::defaults::*;
    /// Kubernetes `terminationGracePeriodSeconds`: 30 s.
    pub const K8S_GRACE_MS: u64 = 30_000;
}

impl Model {
    /// Builds the model: finds controllers, binds every Ingress and Route, resolves settings.
    pub fn build(graph: &Graph, documents: &[Document]) -> Model {
        let reader = Reader { graph, documents };
        let controllers = find_controllers(&reader);
        // Which Ingresses and Routes are routes (cheap, in graph order), then their settings,
        // independent of one another: resolved in parallel into one exact-size vector, in that
        // order whatever the thread count.
        let ingresses = graph.ingresses.iter().filter_map(|ingress| {
            // `ingresses.config.openshift.io/cluster` is cluster config, not a route.
            let cluster_config = graph.objects[ingress.obj]
                .api_version
                .starts_with("config.openshift.io");
            (!cluster_config).then_some((ingress.obj, RouteKind::Ingress))
        });
        let openshift_routes = graph.routes.iter().filter_map(|route| {
            let api = graph.objects[route.obj].api_version.as_str();
            // Knative and Gateway API also have a kind `Route`.
            let openshift = api.starts_with("route.openshift.io/") || api == "v1";
            openshift.then_some((route.obj, RouteKind::Route))
        });
        let wanted: Vec<(ObjId, RouteKind)> = ingresses.chain(openshift_routes).collect();
        let classes = binding::IngressClasses::new(&reader);
        let mut routes: Vec<RouteSettings> = Vec::new();
        wanted
            .par_iter()
            .map(|(obj, kind)| match kind {
                RouteKind::Ingress => ingress_settings(&reader, &controllers, &classes, *obj),
                RouteKind::Route => route_settings(&reader, &controllers, *obj),
            })
            .collect_into_vec(&mut routes);
        // Ingresses first, then Routes, each in object order ([`Model::ingress_routes`],
        // [`Model::route`]).
        debug_assert!(routes.windows(2).all(|w| match (&w[0].kind, &w[1].kind) {
            (RouteKind::Route, RouteKind::Ingress) => false,
            (RouteKind::Ingress, RouteKind::Route) => true,
            _ => w[0].obj < w[1].obj,
        }));
        Model {
            controllers,
            routes,
        }
    }

    /// The settings of the Ingresses that are routes, in object order (they come first).
    pub fn ingress_routes(&self) -> &[RouteSettings] {
        let n = self
            .routes
            .partition_point(|r| r.kind == RouteKind::Ingress);
        &self.routes[..n]
    }

    /// The settings of a route by object id (a binary search among the Ingresses, then among
    /// the Routes).
    pub fn route(&self, obj: ObjId) -> Option<&RouteSettings> {
        let ingresses = self.ingress_routes();
        let routes = &self.routes[ingresses.len()..];
        [ingresses, routes].into_iter().find_map(|part| {
            let i = part.binary_search_by_key(&obj, |r| r.obj).ok()?;
            part.get(i)
        })
    }

    /// Routes served by a controller (by index).
    pub fn routes_of(&self, controller: usize) -> impl Iterator<Item = &RouteSettings> {
        self.routes
            .iter()
            .filter(move |r| r.controller == Some(controller))
    }
}

fn default_of(product: Product, version: Option<&Version>) -> Arc<Source> {
    if version.is_some() {
        return Arc::new(Source::default_of(product.name(), version.cloned()));
    }
    // Without a version, a product's default is the same for every route: one shared
    // allocation per product (a 51 MB stream has 15,000 routes, each with two of these).
    static SHARED: PerProduct = [const { OnceLock::new() }; Product::ALL.len()];
    shared(&SHARED, product, || {
        Source::default_of(product.name(), None)
    })
}

/// One source per product, made on first use and shared by every route after.
type PerProduct = [OnceLock<Arc<Source>>; Product::ALL.len()];

fn shared(
    cache: &'static PerProduct,
    product: Product,
    make: impl FnOnce() -> Source,
) -> Arc<Source> {
    Arc::clone(cache[product as usize].get_or_init(|| Arc::new(make())))
}

/// A setting from the ConfigMap, else the default.
fn cm_or_default(
    reader: &Reader<'_>,
    c: &Controller,
    key: &str,
    parse: crate::value::duration::Parser,
    default: u64,
) -> Setting<Millis> {
    reader
        .config_map_ms(c.config_map, key, parse)
        .unwrap_or_else(|| Setting::new(Millis(default), default_of(c.product, c.version.as_ref())))
}

/// A product's reading of its controller-wide settings (see [`catalog::Spec`]).
pub type ControllerSettingsFn = fn(&Reader<'_>, &Controller, NodeRef<'_>) -> ControllerSettings;

/// A product's reading of an Ingress's settings (see [`catalog::Spec`]).
pub type IngressRouteFn = fn(&RouteInput<'_>, &mut RouteSettings);

/// Controller-wide settings of a controller in the input, as its product reads them.
pub(super) fn controller_settings(
    reader: &Reader<'_>,
    c: &Controller,
    container: NodeRef<'_>,
) -> ControllerSettings {
    c.product
        .spec()
        .controller_settings
        .map_or_else(ControllerSettings::default, |read| {
            read(reader, c, container)
        })
}

/// What a product's `ingress_route` reads: the Ingress, the controller serving it (if in the
/// input) and its controller-wide settings.
pub struct RouteInput<'r> {
    /// The reader.
    pub reader: &'r Reader<'r>,
    /// The Ingress.
    pub obj: ObjId,
    /// The controller in the input that serves it.
    pub ctrl: Option<&'r Controller>,
    /// That controller's settings.
    pub wide: Option<&'r ControllerSettings>,
    /// Its version, when its image tag tells it.
    pub version: Option<&'r Version>,
}

impl RouteInput<'_> {
    /// annotation > controller-wide (ConfigMap / default of the controller in the input) >
    /// product default (no controller in the input).
    pub fn pick(
        &self,
        key: &str,
        parse: crate::value::duration::Parser,
        wide: Option<&Setting<Millis>>,
        default: u64,
        p: Product,
    ) -> Setting<Millis> {
        self.reader
            .annotation_ms(self.obj, key, parse)
            .or_else(|| wide.cloned())
            .unwrap_or_else(|| Setting::new(Millis(default), default_of(p, self.version)))
    }
}

/// Client keep-alive default of the in-cluster proxy of a product when its configuration is not
/// in the input (milliseconds, and its source), for the chains.
pub fn default_client_keepalive(product: Product) -> Option<(u64, Arc<Source>)> {
    let (ms, setting, name) = product.spec().client_keepalive?;
    // The same for every route of the product: shared, as in `default_of`.
    static SHARED: PerProduct = [const { OnceLock::new() }; Product::ALL.len()];
    Some((
        ms,
        shared(&SHARED, product, || Source::default_setting(name, setting)),
    ))
}

fn ingress_settings(
    reader: &Reader<'_>,
    controllers: &[Controller],
    classes: &binding::IngressClasses<'_>,
    obj: ObjId,
) -> RouteSettings {
    let (binding, controller) = bind_ingress(reader, controllers, classes, obj);
    let ctrl = controller.and_then(|i| controllers.get(i));
    // The objects whose declarations apply to the route, found once for its three lookups.
    let declaring = reader.declaring(obj);
    let mut route = RouteSettings {
        obj,
        kind: RouteKind::Ingress,
        binding: binding.clone(),
        controller,
        read_timeout: None,
        send_timeout: None,
        client_timeout: None,
        tunnel_timeout: None,
        upstream_keepalive_timeout: None,
        reload_deadline: ctrl.and_then(|c| c.settings.reload_deadline.clone()),
        lb: None,
        long_lived: long_lived_among(reader, obj, &declaring),
        ping_interval: reader.declared_ms_among(&declaring, PING_INTERVAL_ANNOTATION),
        session_lifetime: reader.declared_ms_among(&declaring, SESSION_LIFETIME_ANNOTATION),
    };
    let product = binding.as_ref().map(|b| b.product);
    let version = ctrl.and_then(|c| c.version.as_ref());
    let input = RouteInput {
        reader,
        obj,
        ctrl,
        wide: ctrl.map(|c| &c.settings),
        version,
    };
    if let Some(read) = product.and_then(|p| p.spec().ingress_route) {
        read(&input, &mut route);
    }
    route.lb = lb::for_ingress(reader, controllers, &route).map(Box::new);
    route
}

#[cfg(test)]
mod tests;
