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
//! Entry point: [`Model::build`] (or [`Model::of`] from a rule's context). For each Ingress
//! and OpenShift Route, [`Model::routes`] holds a [`RouteSettings`]: the product serving it
//! ([`Binding`]), the controller in the input ([`Controller`]), the effective read, send,
//! client and tunnel timeouts, the in-cluster proxy's upstream keep-alive, the reload deadline,
//! the cloud [`LoadBalancer`] in front (idle timeout, GCP lifetime cap and fixed 600 s backend
//! keep-alive), whether it is [`LongLived`], and the declared ping interval and session
//! lifetime. [`Reader::backend_services`] gives the Services behind a route, for chains. Facts and their
//! sources: `../shared/research/DOMAIN.md` §2.2, §2.4, §2.5. Reload reasoning over the values
//! lives in [`crate::reload`], shared with the haproxy.cfg rules.

use crate::config::Version;
use crate::k8s::{At, Graph, ObjId};
use crate::source::{SourceMap, Span};
use crate::yaml::{Document, NodeRef};

pub use crate::value::duration;
pub mod lb;
mod long_lived;

pub use lb::{LbKind, LoadBalancer};
pub use long_lived::{long_lived, path_hint, LongLived, LongLivedKind};

/// Annotation that declares a long-lived route: `websocket`, `sse` or `grpc-stream`
/// (`none` or `false` opts out of the heuristics).
pub const LONG_LIVED_ANNOTATION: &str = crate::value::declarations::LONG_LIVED;
/// Annotation that declares the application's keep-alive ping interval (e.g. `25s`).
pub const PING_INTERVAL_ANNOTATION: &str = crate::value::declarations::PING_INTERVAL;
/// Annotation that declares the expected session lifetime of long-lived connections (`8h`).
pub const SESSION_LIFETIME_ANNOTATION: &str = crate::value::declarations::SESSION_LIFETIME;

/// A product whose defaults and annotations kubegap knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Product {
    /// kubernetes/ingress-nginx (`nginx.ingress.kubernetes.io/*`).
    IngressNginx,
    /// F5 NGINX Ingress Controller (`nginx.org/*`).
    NginxInc,
    /// HAProxy Kubernetes Ingress Controller by HAProxy Technologies (`haproxy.org/*`).
    HaproxyTech,
    /// jcmoraisjr/haproxy-ingress (`haproxy-ingress.github.io/*`).
    HaproxyIngress,
    /// The OpenShift router (`haproxy.router.openshift.io/*`).
    OpenShift,
    /// AWS Load Balancer Controller (`alb.ingress.kubernetes.io/*`).
    AwsAlb,
    /// GKE Ingress (GCP external Application Load Balancer).
    Gke,
}

impl Product {
    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Product::IngressNginx => "ingress-nginx",
            Product::NginxInc => "F5 NGINX Ingress Controller",
            Product::HaproxyTech => "HAProxy Kubernetes Ingress Controller",
            Product::HaproxyIngress => "haproxy-ingress",
            Product::OpenShift => "OpenShift router",
            Product::AwsAlb => "AWS Load Balancer Controller",
            Product::Gke => "GKE Ingress",
        }
    }

    /// Annotation prefixes this product reads on Ingresses (or Routes).
    pub fn annotation_prefixes(self) -> &'static [&'static str] {
        match self {
            Product::IngressNginx => &["nginx.ingress.kubernetes.io/"],
            Product::NginxInc => &["nginx.org/", "nginx.com/"],
            Product::HaproxyTech => &["haproxy.org/"],
            Product::HaproxyIngress => &["haproxy-ingress.github.io/"],
            Product::OpenShift => &["haproxy.router.openshift.io/", "router.openshift.io/"],
            Product::AwsAlb => &["alb.ingress.kubernetes.io/"],
            Product::Gke => &[],
        }
    }

    /// Every product, for lookups.
    pub const ALL: [Product; 7] = [
        Product::IngressNginx,
        Product::NginxInc,
        Product::HaproxyTech,
        Product::HaproxyIngress,
        Product::OpenShift,
        Product::AwsAlb,
        Product::Gke,
    ];

    /// The product whose prefix an annotation key has.
    pub fn of_annotation(key: &str) -> Option<Product> {
        Product::ALL.into_iter().find(|p| {
            p.annotation_prefixes()
                .iter()
                .any(|prefix| key.starts_with(prefix))
        })
    }

    /// The product of an IngressClass `spec.controller`.
    pub fn of_controller_name(controller: &str) -> Option<Product> {
        match controller {
            "k8s.io/ingress-nginx" => Some(Product::IngressNginx),
            "nginx.org/ingress-controller" => Some(Product::NginxInc),
            "haproxy-ingress.github.io/controller" => Some(Product::HaproxyIngress),
            "openshift.io/ingress-to-route" => Some(Product::OpenShift),
            "ingress.k8s.aws/alb" => Some(Product::AwsAlb),
            c if c.starts_with("haproxy.org/ingress-controller") => Some(Product::HaproxyTech),
            c if c.starts_with("k8s.io/ingress-nginx") => Some(Product::IngressNginx),
            _ => None,
        }
    }

    /// The product of a controller image (`registry.k8s.io/ingress-nginx/controller:v1.15.1`).
    pub fn of_image(image: &str) -> Option<Product> {
        let repo = image_repository(image);
        if repo.ends_with("ingress-nginx/controller")
            || repo.ends_with("ingress-nginx/controller-chroot")
            || repo.ends_with("kubernetes-ingress-controller/nginx-ingress-controller")
        {
            Some(Product::IngressNginx)
        } else if repo.ends_with("nginx/nginx-ingress") || repo.contains("nginx-plus-ingress") {
            Some(Product::NginxInc)
        } else if repo.ends_with("haproxytech/kubernetes-ingress") {
            Some(Product::HaproxyTech)
        } else if repo.ends_with("jcmoraisjr/haproxy-ingress") {
            Some(Product::HaproxyIngress)
        } else if repo.ends_with("haproxy-router") {
            Some(Product::OpenShift)
        } else if repo.ends_with("aws-load-balancer-controller") {
            Some(Product::AwsAlb)
        } else {
            None
        }
    }

    /// Well-known class names that name one product only (`alb`, `gce`, `openshift-default`).
    /// `nginx` and `haproxy` are shared by several products and resolve through an
    /// IngressClass or a controller in the input; without either, `nginx` is ingress-nginx
    /// (see `bind_ingress`).
    pub fn of_class_name(class: &str) -> Option<Product> {
        match class {
            "alb" => Some(Product::AwsAlb),
            "gce" | "gce-internal" => Some(Product::Gke),
            "openshift-default" => Some(Product::OpenShift),
            _ => None,
        }
    }
}

/// The repository part of an image reference (no tag, no digest).
pub fn image_repository(image: &str) -> &str {
    let image = image.split('@').next().unwrap_or(image);
    match image.rfind(':') {
        Some(colon) if !image[colon..].contains('/') => &image[..colon],
        _ => image,
    }
}

/// The version in an image tag (`…:v1.15.1@sha256:…` → 1.15.1), if it has one.
pub fn image_version(image: &str) -> Option<Version> {
    let image = image.split('@').next().unwrap_or(image);
    let colon = image.rfind(':')?;
    let tag = &image[colon + 1..];
    if tag.contains('/') {
        return None;
    }
    Version::parse(tag)
}

/// Where an effective value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// An annotation on an Ingress, Route, Service, workload or IngressController.
    Annotation {
        /// The annotation key.
        key: String,
        /// The key's span.
        key_span: Span,
        /// The value's span.
        value_span: Span,
    },
    /// A key of the controller's ConfigMap `data`.
    ConfigMapKey {
        /// The key.
        key: String,
        /// The key's span.
        key_span: Span,
        /// The value's span.
        value_span: Span,
    },
    /// A command-line argument of the controller container.
    Argument {
        /// The argument as written (`--sort-endpoints-by=ip`).
        text: String,
        /// Its span.
        span: Span,
    },
    /// Another field: an IngressController `spec.tuningOptions.*`, a container `env` value,
    /// `terminationGracePeriodSeconds`, a BackendConfig `spec.timeoutSec`.
    Field {
        /// What it is, for messages (`spec.tuningOptions.tunnelTimeout`, env `ROUTER_…`).
        what: String,
        /// The value's span.
        span: Span,
    },
    /// The default of a product, at a version when known.
    Default {
        /// The product (or platform) name: `ingress-nginx`, `AWS ALB`, `Kubernetes`.
        product: &'static str,
        /// The version the default was looked up for, when known.
        version: Option<Version>,
    },
}

impl Source {
    /// The span of the value, when it is written somewhere.
    pub fn span(&self) -> Option<Span> {
        match self {
            Source::Annotation { value_span, .. } | Source::ConfigMapKey { value_span, .. } => {
                Some(*value_span)
            }
            Source::Argument { span, .. } | Source::Field { span, .. } => Some(*span),
            Source::Default { .. } => None,
        }
    }

    /// The span of the key (annotation or ConfigMap key), else of the value.
    pub fn key_span(&self) -> Option<Span> {
        match self {
            Source::Annotation { key_span, .. } | Source::ConfigMapKey { key_span, .. } => {
                Some(*key_span)
            }
            other => other.span(),
        }
    }

    /// Like [`Source::describe`] but for use inside parentheses: "ConfigMap key `x`, cm.yaml:12",
    /// "default of ingress-nginx v1.15.1".
    pub fn cite(&self, files: &SourceMap) -> String {
        let at = |span: &Span| {
            let file = files.get(span.file);
            format!("{}:{}", file.base_name(), file.line_col(span.start).line)
        };
        match self {
            Source::Annotation { key, key_span, .. } => {
                format!("annotation `{key}`, {}", at(key_span))
            }
            Source::ConfigMapKey { key, key_span, .. } => {
                format!("ConfigMap key `{key}`, {}", at(key_span))
            }
            Source::Argument { text, span } => format!("argument `{text}`, {}", at(span)),
            Source::Field { what, span } => format!("{what}, {}", at(span)),
            Source::Default { .. } => self.describe(files),
        }
    }

    /// Whether the value is a product default (nothing written).
    pub fn is_default(&self) -> bool {
        matches!(self, Source::Default { .. })
    }

    /// For messages: "annotation `…` (ing.yaml:9)", "ConfigMap key `worker-shutdown-timeout`
    /// (cm.yaml:12)", "argument `--sort-endpoints-by=ip` (deploy.yaml:20)", "default of
    /// ingress-nginx v1.15.1".
    pub fn describe(&self, files: &SourceMap) -> String {
        let cite = |span: &Span| {
            let file = files.get(span.file);
            format!("{}:{}", file.base_name(), file.line_col(span.start).line)
        };
        match self {
            Source::Annotation { key, key_span, .. } => {
                format!("annotation `{key}` ({})", cite(key_span))
            }
            Source::ConfigMapKey { key, key_span, .. } => {
                format!("ConfigMap key `{key}` ({})", cite(key_span))
            }
            Source::Argument { text, span } => format!("argument `{text}` ({})", cite(span)),
            Source::Field { what, span } => format!("{what} ({})", cite(span)),
            Source::Default {
                product,
                version: Some(v),
            } => format!("default of {product} v{v}"),
            Source::Default {
                product,
                version: None,
            } => format!("default of {product}"),
        }
    }
}

/// An effective value and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting<T> {
    /// The value (durations in milliseconds).
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

impl<T> Setting<T> {
    /// A setting.
    pub fn new(value: T, source: Source) -> Setting<T> {
        Setting { value, source }
    }
}

impl Setting<u64> {
    /// The value in seconds (for code that works in seconds, such as the chain hops).
    pub fn secs(&self) -> f64 {
        self.value as f64 / 1000.0
    }

    /// "3600s (annotation `…`, ing.yaml:9)", "240s (default of ingress-nginx)" for messages.
    pub fn describe(&self, files: &SourceMap) -> String {
        format!(
            "{} ({})",
            crate::value::duration::format_ms(self.value),
            self.source.cite(files)
        )
    }
}

/// One command-line argument of a container (`--name=value` or `--name value`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The flag name without dashes (`configmap`, `ingress.class`).
    pub name: String,
    /// The value, if any.
    pub value: Option<String>,
    /// The text as written.
    pub text: String,
    /// Where it is written (the item, or both items for `--name value`).
    pub span: Span,
}

impl Arg {
    /// As a [`Source`].
    pub fn source(&self) -> Source {
        Source::Argument {
            text: self.text.clone(),
            span: self.span,
        }
    }
}

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
        self.ingress_class.as_deref().or(match self.product {
            Product::IngressNginx | Product::NginxInc => Some("nginx"),
            Product::HaproxyTech | Product::HaproxyIngress => Some("haproxy"),
            Product::AwsAlb => Some("alb"),
            Product::OpenShift | Product::Gke => None,
        })
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
    pub reload_deadline: Option<Setting<u64>>,
    /// haproxy-ingress `close-sessions-duration`, resolved to milliseconds.
    pub close_spread: Option<Setting<u64>>,
    /// The balance algorithm (`load-balance`, `balance-algorithm`).
    pub balance: Option<Setting<String>>,
    /// Upstream read (server) timeout.
    pub read_timeout: Option<Setting<u64>>,
    /// Upstream send timeout (ingress-nginx).
    pub send_timeout: Option<Setting<u64>>,
    /// Client inactivity timeout.
    pub client_timeout: Option<Setting<u64>>,
    /// Tunnel (WebSocket) timeout.
    pub tunnel_timeout: Option<Setting<u64>>,
    /// Idle time of the pool of connections to the upstreams (ingress-nginx
    /// `upstream-keepalive-timeout`); for HAProxy-based controllers, `None` (HAProxy pools are
    /// purged per `pool-purge-delay`, not modelled here).
    pub upstream_keepalive_timeout: Option<Setting<u64>>,
    /// Client-side keep-alive idle (ingress-nginx `keep-alive`, HAProxy `timeout
    /// http-keep-alive`).
    pub client_keepalive_timeout: Option<Setting<u64>>,
    /// OpenShift `spec.idleConnectionTerminationPolicy`: `Immediate` (default: idle frontend
    /// connections are closed at reload) or `Deferred`.
    pub idle_connection_termination: Option<Setting<String>>,
}

/// How a route was bound to a product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// An IngressClass in the input whose `spec.controller` names the product.
    IngressClass(ObjId),
    /// A controller in the input whose `--ingress-class` (span, when written) or product default
    /// class (`nginx`, `haproxy`) is the route's class.
    Controller(Option<Span>),
    /// A class name only one product uses (`alb`, `gce`).
    ClassName,
    /// An OpenShift Route.
    Route,
    /// Guessed from the route's own annotations (no class resolution in the input).
    Annotations,
}

/// Which product serves a route, and how kubegap knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The product.
    pub product: Product,
    /// How it was found.
    pub via: Via,
}

impl Binding {
    /// Whether the binding is known from the input rather than guessed from annotations.
    pub fn confident(&self) -> bool {
        self.via != Via::Annotations
    }
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
    pub read_timeout: Option<Setting<u64>>,
    /// Effective upstream send timeout (ingress-nginx).
    pub send_timeout: Option<Setting<u64>>,
    /// Effective client timeout.
    pub client_timeout: Option<Setting<u64>>,
    /// Effective tunnel timeout (HAProxy-based products).
    pub tunnel_timeout: Option<Setting<u64>>,
    /// The in-cluster proxy's upstream keep-alive idle (ingress-nginx).
    pub upstream_keepalive_timeout: Option<Setting<u64>>,
    /// The controller's reload deadline (see [`ControllerSettings::reload_deadline`]).
    pub reload_deadline: Option<Setting<u64>>,
    /// The cloud load balancer in front, when known.
    pub lb: Option<LoadBalancer>,
    /// Whether the route carries long-lived connections, and why.
    pub long_lived: Option<LongLived>,
    /// Declared `kubegap.io/ping-interval` (route, backend Services or their workloads).
    pub ping_interval: Option<Setting<u64>>,
    /// Declared `kubegap.io/session-lifetime`.
    pub session_lifetime: Option<Setting<u64>>,
}

/// The controllers, routes and load balancers of one input.
#[derive(Debug, Default)]
pub struct Model {
    /// Controllers found in the input.
    pub controllers: Vec<Controller>,
    /// Effective settings of every Ingress and Route.
    pub routes: Vec<RouteSettings>,
}

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
        self.object(obj)
            .path(&["metadata", "annotations"])?
            .get_entry(key)
    }

    /// Every annotation of an object as (key node, value node).
    pub fn annotations(&self, obj: ObjId) -> Vec<(NodeRef<'a>, NodeRef<'a>)> {
        self.object(obj)
            .path(&["metadata", "annotations"])
            .map(|a| a.entries())
            .unwrap_or_default()
    }

    /// A duration annotation as a setting.
    pub fn annotation_ms(
        &self,
        obj: ObjId,
        key: &str,
        parse: fn(&str) -> Option<u64>,
    ) -> Option<Setting<u64>> {
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
        parse: fn(&str) -> Option<u64>,
    ) -> Option<Setting<u64>> {
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
    pub fn declared_ms(&self, obj: ObjId, key: &str) -> Option<Setting<u64>> {
        let (k, v) = crate::value::declarations::lookup(
            self.graph,
            self.documents,
            &self.related(obj),
            key,
        )?;
        let value = duration::go(v.as_str()?)?;
        Some(Setting::new(value, annotation_source(key, k, v)))
    }

    /// The object itself, then its backend Services, then the workloads they select.
    pub fn related(&self, obj: ObjId) -> Vec<ObjId> {
        let mut out = vec![obj];
        for service in self.backend_services(obj) {
            out.push(service);
            if let Some(s) = self.graph.service_by_obj(service) {
                out.extend(self.graph.service_targets(s).iter().map(|w| w.obj));
            }
        }
        if let Some(s) = self.graph.service_by_obj(obj) {
            out.extend(self.graph.service_targets(s).iter().map(|w| w.obj));
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

/// The [`Source`] of an annotation entry.
pub fn annotation_source(key: &str, k: NodeRef<'_>, v: NodeRef<'_>) -> Source {
    Source::Annotation {
        key: key.to_string(),
        key_span: k.span(),
        value_span: v.span(),
    }
}

/// Product defaults (DOMAIN.md §2.2, §2.4), in milliseconds.
pub mod defaults {
    /// ingress-nginx `worker-shutdown-timeout`: 240 s.
    pub const INGRESS_NGINX_WORKER_SHUTDOWN_MS: u64 = 240_000;
    /// ingress-nginx `proxy-read-timeout` / `proxy-send-timeout`: 60 s.
    pub const INGRESS_NGINX_PROXY_TIMEOUT_MS: u64 = 60_000;
    /// ingress-nginx `upstream-keepalive-timeout`: 60 s.
    pub const INGRESS_NGINX_UPSTREAM_KEEPALIVE_MS: u64 = 60_000;
    /// ingress-nginx `keep-alive`: 75 s.
    pub const INGRESS_NGINX_KEEPALIVE_MS: u64 = 75_000;
    /// ingress-nginx `load-balance`.
    pub const INGRESS_NGINX_LOAD_BALANCE: &str = "round_robin";
    /// haproxytech `hard-stop-after`: 30 m (since commit 28e13c65, 2022-10).
    pub const HAPROXYTECH_HARD_STOP_MS: u64 = 1_800_000;
    /// haproxytech `timeout client` / `server`: 50 s.
    pub const HAPROXYTECH_CLIENT_SERVER_MS: u64 = 50_000;
    /// haproxytech `timeout tunnel`: 1 h.
    pub const HAPROXYTECH_TUNNEL_MS: u64 = 3_600_000;
    /// haproxytech `timeout http-keep-alive`: 1 m.
    pub const HAPROXYTECH_KEEPALIVE_MS: u64 = 60_000;
    /// haproxytech `load-balance`.
    pub const HAPROXYTECH_LOAD_BALANCE: &str = "roundrobin";
    /// haproxy-ingress `timeout-stop`: 10 m.
    pub const HAPROXY_INGRESS_TIMEOUT_STOP_MS: u64 = 600_000;
    /// haproxy-ingress `timeout-client` / `timeout-server`: 50 s.
    pub const HAPROXY_INGRESS_CLIENT_SERVER_MS: u64 = 50_000;
    /// haproxy-ingress `timeout-tunnel`: 1 h.
    pub const HAPROXY_INGRESS_TUNNEL_MS: u64 = 3_600_000;
    /// haproxy-ingress `timeout-keep-alive`: 1 m.
    pub const HAPROXY_INGRESS_KEEPALIVE_MS: u64 = 60_000;
    /// OpenShift router client and server timeouts: 30 s.
    pub const OPENSHIFT_CLIENT_SERVER_MS: u64 = 30_000;
    /// OpenShift router tunnel timeout: 1 h.
    pub const OPENSHIFT_TUNNEL_MS: u64 = 3_600_000;
    /// OpenShift `timeout http-keep-alive`: 300 s (not configurable).
    pub const OPENSHIFT_KEEPALIVE_MS: u64 = 300_000;
    /// Kubernetes `terminationGracePeriodSeconds`: 30 s.
    pub const K8S_GRACE_MS: u64 = 30_000;
}

/// haproxy-ingress's `balance-algorithm` default at a version: `random(2)` from v0.16,
/// `roundrobin` before; unknown versions get the worst plausible (`roundrobin`).
pub fn haproxy_ingress_balance_default(version: Option<&Version>) -> &'static str {
    match version {
        Some(v) if v.at_least(&[0, 16]) => "random(2)",
        _ => "roundrobin",
    }
}

impl Model {
    /// Builds the model: finds controllers, binds every Ingress and Route, resolves settings.
    pub fn build(graph: &Graph, documents: &[Document]) -> Model {
        let reader = Reader { graph, documents };
        let mut model = Model {
            controllers: find_controllers(&reader),
            routes: Vec::new(),
        };
        for ingress in &graph.ingresses {
            if graph.objects[ingress.obj]
                .api_version
                .starts_with("config.openshift.io")
            {
                // `ingresses.config.openshift.io/cluster` is cluster config, not a route.
                continue;
            }
            let route = ingress_settings(&reader, &model.controllers, ingress.obj);
            model.routes.push(route);
        }
        for route in &graph.routes {
            let api = graph.objects[route.obj].api_version.as_str();
            if !(api.starts_with("route.openshift.io/") || api == "v1") {
                // Knative and Gateway API also have a kind `Route`.
                continue;
            }
            let settings = route_settings(&reader, &model.controllers, route.obj);
            model.routes.push(settings);
        }
        model
    }

    /// The settings of a route by object id.
    pub fn route(&self, obj: ObjId) -> Option<&RouteSettings> {
        self.routes.iter().find(|r| r.obj == obj)
    }

    /// Routes served by a controller (by index).
    pub fn routes_of(&self, controller: usize) -> impl Iterator<Item = &RouteSettings> {
        self.routes
            .iter()
            .filter(move |r| r.controller == Some(controller))
    }
}

/// Splits a container's `command` and `args` into flags.
fn read_args(container: NodeRef<'_>) -> Vec<Arg> {
    let mut items: Vec<NodeRef<'_>> = Vec::new();
    for field in ["command", "args"] {
        items.extend(container.get(field).into_iter().flat_map(|n| n.items()));
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let item = items[i];
        i += 1;
        let Some(text) = item.as_str() else { continue };
        let text = text.trim();
        let Some(flag) = text.strip_prefix("--").or_else(|| text.strip_prefix('-')) else {
            continue;
        };
        if flag.is_empty() {
            continue;
        }
        match flag.split_once('=') {
            Some((name, value)) => out.push(Arg {
                name: name.to_string(),
                value: Some(value.to_string()),
                text: text.to_string(),
                span: item.span(),
            }),
            None => {
                // `--flag value` when the next item is not a flag.
                let next = items.get(i).and_then(|n| n.as_str().map(|s| (n, s)));
                match next {
                    Some((node, value)) if !value.starts_with('-') => {
                        i += 1;
                        out.push(Arg {
                            name: flag.to_string(),
                            value: Some(value.to_string()),
                            text: format!("{text} {value}"),
                            span: item.span().to(node.span()),
                        });
                    }
                    _ => out.push(Arg {
                        name: flag.to_string(),
                        value: None,
                        text: text.to_string(),
                        span: item.span(),
                    }),
                }
            }
        }
    }
    out
}

/// `$(POD_NAMESPACE)/name` → (namespace, name).
fn namespaced(value: &str, own_namespace: &str) -> (String, String) {
    let value = value.replace("$(POD_NAMESPACE)", own_namespace);
    match value.split_once('/') {
        Some((ns, name)) => (ns.to_string(), name.to_string()),
        None => (own_namespace.to_string(), value),
    }
}

fn find_controllers(reader: &Reader<'_>) -> Vec<Controller> {
    let graph = reader.graph;
    let mut out = Vec::new();
    for workload in &graph.workloads {
        for (index, container) in workload.containers.iter().enumerate() {
            if container.init {
                continue;
            }
            let Some(image) = container.image.as_deref() else {
                continue;
            };
            let Some(product) = Product::of_image(image) else {
                continue;
            };
            let node = reader.node(container.at);
            let args = read_args(node);
            let ns = graph.objects[workload.obj].namespace.clone();
            let find = |name: &str| args.iter().find(|a| a.name == name).cloned();
            let config_map_arg = find("configmap");
            let config_map = config_map_arg.as_ref().and_then(|a| {
                let (cns, cname) = namespaced(a.value.as_deref()?, &ns);
                graph.find("ConfigMap", &cns, &cname).first().copied()
            });
            let value = |name: &str| find(name).and_then(|a| a.value);
            let mut controller = Controller {
                product,
                obj: workload.obj,
                container: Some(index),
                image: node.get("image").map(|n| n.span()),
                version: image_version(image),
                ingress_class: value("ingress-class").or_else(|| value("ingress.class")),
                controller_class: value("controller-class"),
                watch_namespace: value("watch-namespace").filter(|v| !v.is_empty()),
                args,
                config_map,
                config_map_arg,
                settings: ControllerSettings::default(),
            };
            controller.settings = controller_settings(reader, &controller, node);
            out.push(controller);
        }
    }
    for (obj, object) in graph.objects.iter().enumerate() {
        if object.kind == "IngressController"
            && object.api_version.starts_with("operator.openshift")
        {
            let mut controller = Controller {
                product: Product::OpenShift,
                obj,
                container: None,
                image: None,
                version: None,
                args: Vec::new(),
                config_map: None,
                config_map_arg: None,
                ingress_class: None,
                controller_class: None,
                watch_namespace: None,
                settings: ControllerSettings::default(),
            };
            controller.settings = ingress_controller_settings(reader, obj);
            out.push(controller);
        }
    }
    out
}

fn default_of(product: Product, version: Option<&Version>) -> Source {
    Source::Default {
        product: product.name(),
        version: version.cloned(),
    }
}

/// A setting from the ConfigMap, else the default.
fn cm_or_default(
    reader: &Reader<'_>,
    c: &Controller,
    key: &str,
    parse: fn(&str) -> Option<u64>,
    default: u64,
) -> Setting<u64> {
    reader
        .config_map_ms(c.config_map, key, parse)
        .unwrap_or_else(|| Setting::new(default, default_of(c.product, c.version.as_ref())))
}

fn controller_settings(
    reader: &Reader<'_>,
    c: &Controller,
    container: NodeRef<'_>,
) -> ControllerSettings {
    use defaults::*;
    let default_str =
        |value: &str| Setting::new(value.to_string(), default_of(c.product, c.version.as_ref()));
    match c.product {
        Product::IngressNginx => ControllerSettings {
            reload_deadline: Some(cm_or_default(
                reader,
                c,
                "worker-shutdown-timeout",
                duration::nginx,
                INGRESS_NGINX_WORKER_SHUTDOWN_MS,
            )),
            read_timeout: Some(cm_or_default(
                reader,
                c,
                "proxy-read-timeout",
                duration::ingress_nginx_int,
                INGRESS_NGINX_PROXY_TIMEOUT_MS,
            )),
            send_timeout: Some(cm_or_default(
                reader,
                c,
                "proxy-send-timeout",
                duration::ingress_nginx_int,
                INGRESS_NGINX_PROXY_TIMEOUT_MS,
            )),
            upstream_keepalive_timeout: Some(cm_or_default(
                reader,
                c,
                "upstream-keepalive-timeout",
                duration::ingress_nginx_int,
                INGRESS_NGINX_UPSTREAM_KEEPALIVE_MS,
            )),
            client_keepalive_timeout: Some(cm_or_default(
                reader,
                c,
                "keep-alive",
                duration::ingress_nginx_int,
                INGRESS_NGINX_KEEPALIVE_MS,
            )),
            balance: Some(
                reader
                    .config_map_str(c.config_map, "load-balance")
                    .unwrap_or_else(|| default_str(INGRESS_NGINX_LOAD_BALANCE)),
            ),
            ..ControllerSettings::default()
        },
        Product::HaproxyTech => ControllerSettings {
            reload_deadline: Some(cm_or_default(
                reader,
                c,
                "hard-stop-after",
                duration::haproxy,
                HAPROXYTECH_HARD_STOP_MS,
            )),
            read_timeout: Some(cm_or_default(
                reader,
                c,
                "timeout-server",
                duration::haproxy,
                HAPROXYTECH_CLIENT_SERVER_MS,
            )),
            client_timeout: Some(cm_or_default(
                reader,
                c,
                "timeout-client",
                duration::haproxy,
                HAPROXYTECH_CLIENT_SERVER_MS,
            )),
            tunnel_timeout: Some(cm_or_default(
                reader,
                c,
                "timeout-tunnel",
                duration::haproxy,
                HAPROXYTECH_TUNNEL_MS,
            )),
            client_keepalive_timeout: Some(cm_or_default(
                reader,
                c,
                "timeout-http-keep-alive",
                duration::haproxy,
                HAPROXYTECH_KEEPALIVE_MS,
            )),
            balance: Some(
                reader
                    .config_map_str(c.config_map, "load-balance")
                    .unwrap_or_else(|| default_str(HAPROXYTECH_LOAD_BALANCE)),
            ),
            ..ControllerSettings::default()
        },
        Product::HaproxyIngress => {
            let timeout_stop = cm_or_default(
                reader,
                c,
                "timeout-stop",
                duration::haproxy,
                HAPROXY_INGRESS_TIMEOUT_STOP_MS,
            );
            let close_spread = reader
                .config_map_entry_opt(c.config_map, "close-sessions-duration")
                .and_then(|(k, v)| {
                    let text = v.as_str()?.trim();
                    let value = match text.strip_suffix('%') {
                        Some(p) => {
                            crate::reload::percent_of(timeout_stop.value, p.trim().parse().ok()?)?
                        }
                        None => duration::haproxy(text)?,
                    };
                    Some(Setting::new(
                        value,
                        Source::ConfigMapKey {
                            key: "close-sessions-duration".into(),
                            key_span: k.span(),
                            value_span: v.span(),
                        },
                    ))
                });
            ControllerSettings {
                reload_deadline: Some(timeout_stop),
                close_spread,
                read_timeout: Some(cm_or_default(
                    reader,
                    c,
                    "timeout-server",
                    duration::haproxy,
                    HAPROXY_INGRESS_CLIENT_SERVER_MS,
                )),
                client_timeout: Some(cm_or_default(
                    reader,
                    c,
                    "timeout-client",
                    duration::haproxy,
                    HAPROXY_INGRESS_CLIENT_SERVER_MS,
                )),
                tunnel_timeout: Some(cm_or_default(
                    reader,
                    c,
                    "timeout-tunnel",
                    duration::haproxy,
                    HAPROXY_INGRESS_TUNNEL_MS,
                )),
                client_keepalive_timeout: Some(cm_or_default(
                    reader,
                    c,
                    "timeout-keep-alive",
                    duration::haproxy,
                    HAPROXY_INGRESS_KEEPALIVE_MS,
                )),
                balance: Some(
                    reader
                        .config_map_str(c.config_map, "balance-algorithm")
                        .unwrap_or_else(|| {
                            default_str(haproxy_ingress_balance_default(c.version.as_ref()))
                        }),
                ),
                ..ControllerSettings::default()
            }
        }
        Product::OpenShift => {
            // A router deployed by hand: its template reads ROUTER_* environment variables.
            let env = |name: &str, parse: fn(&str) -> Option<u64>| -> Option<Setting<u64>> {
                container
                    .get("env")
                    .into_iter()
                    .flat_map(|e| e.items())
                    .find(|e| e.str_at(&["name"]) == Some(name))
                    .and_then(|e| {
                        let v = e.get("value")?;
                        Some(Setting::new(
                            parse(v.as_str()?)?,
                            Source::Field {
                                what: format!("env `{name}`"),
                                span: v.span(),
                            },
                        ))
                    })
            };
            let or_default = |s: Option<Setting<u64>>, d: u64| {
                s.unwrap_or_else(|| Setting::new(d, default_of(Product::OpenShift, None)))
            };
            ControllerSettings {
                reload_deadline: env("ROUTER_HARD_STOP_AFTER", duration::haproxy),
                read_timeout: Some(or_default(
                    env("ROUTER_DEFAULT_SERVER_TIMEOUT", duration::haproxy),
                    OPENSHIFT_CLIENT_SERVER_MS,
                )),
                client_timeout: Some(or_default(
                    env("ROUTER_DEFAULT_CLIENT_TIMEOUT", duration::haproxy),
                    OPENSHIFT_CLIENT_SERVER_MS,
                )),
                tunnel_timeout: Some(or_default(
                    env("ROUTER_DEFAULT_TUNNEL_TIMEOUT", duration::haproxy),
                    OPENSHIFT_TUNNEL_MS,
                )),
                client_keepalive_timeout: Some(Setting::new(
                    OPENSHIFT_KEEPALIVE_MS,
                    default_of(Product::OpenShift, None),
                )),
                ..ControllerSettings::default()
            }
        }
        Product::NginxInc | Product::AwsAlb | Product::Gke => ControllerSettings::default(),
    }
}

impl<'a> Reader<'a> {
    fn config_map_entry_opt(
        &self,
        config_map: Option<ObjId>,
        key: &str,
    ) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
        self.config_map_entry(config_map?, key)
    }
}

/// An OpenShift IngressController: `spec.tuningOptions.*` and the hard-stop annotation (which
/// may also sit on `ingresses.config.openshift.io/cluster`; the IngressController's wins).
fn ingress_controller_settings(reader: &Reader<'_>, obj: ObjId) -> ControllerSettings {
    use defaults::*;
    let node = reader.object(obj);
    let tuning = |field: &str, default: u64| {
        node.path(&["spec", "tuningOptions", field])
            .and_then(|v| {
                Some(Setting::new(
                    duration::go(v.as_str()?)?,
                    Source::Field {
                        what: format!("`spec.tuningOptions.{field}`"),
                        span: v.span(),
                    },
                ))
            })
            .unwrap_or_else(|| Setting::new(default, default_of(Product::OpenShift, None)))
    };
    const HARD_STOP: &str = "ingress.operator.openshift.io/hard-stop-after";
    let hard_stop = reader
        .annotation_ms(obj, HARD_STOP, duration::go)
        .or_else(|| {
            let graph = reader.graph;
            graph.objects.iter().enumerate().find_map(|(id, o)| {
                (o.kind == "Ingress"
                    && o.api_version.starts_with("config.openshift.io")
                    && o.name == "cluster")
                    .then(|| reader.annotation_ms(id, HARD_STOP, duration::go))
                    .flatten()
            })
        });
    let idle_policy = node
        .path(&["spec", "idleConnectionTerminationPolicy"])
        .and_then(|v| {
            Some(Setting::new(
                v.as_str()?.trim().to_string(),
                Source::Field {
                    what: "`spec.idleConnectionTerminationPolicy`".to_string(),
                    span: v.span(),
                },
            ))
        })
        .unwrap_or_else(|| {
            Setting::new(
                "Immediate".to_string(),
                default_of(Product::OpenShift, None),
            )
        });
    ControllerSettings {
        reload_deadline: hard_stop,
        idle_connection_termination: Some(idle_policy),
        read_timeout: Some(tuning("serverTimeout", OPENSHIFT_CLIENT_SERVER_MS)),
        client_timeout: Some(tuning("clientTimeout", OPENSHIFT_CLIENT_SERVER_MS)),
        tunnel_timeout: Some(tuning("tunnelTimeout", OPENSHIFT_TUNNEL_MS)),
        client_keepalive_timeout: Some(Setting::new(
            OPENSHIFT_KEEPALIVE_MS,
            default_of(Product::OpenShift, None),
        )),
        ..ControllerSettings::default()
    }
}

/// The product that serves an Ingress, and the controller in the input that does, if any.
fn bind_ingress(
    reader: &Reader<'_>,
    controllers: &[Controller],
    obj: ObjId,
) -> (Option<Binding>, Option<usize>) {
    let graph = reader.graph;
    // The Ingress's class, else the IngressClass marked as the cluster default.
    let class = reader
        .ingress(obj)
        .and_then(|i| i.class.clone())
        .or_else(|| {
            graph.ingress_classes.iter().find_map(|(class_obj, _)| {
                let default = reader
                    .annotation(*class_obj, "ingressclass.kubernetes.io/is-default-class")
                    .and_then(|(_, v)| v.as_str())
                    == Some("true");
                default.then(|| graph.objects[*class_obj].name.clone())
            })
        });
    let ns = graph.objects[obj].namespace.as_str();
    let watches = |c: &Controller| c.watch_namespace.as_deref().is_none_or(|w| w == ns);
    if let Some(class) = class.as_deref() {
        // 1. An IngressClass in the input.
        for (class_obj, controller_name) in &graph.ingress_classes {
            if graph.objects[*class_obj].name != class {
                continue;
            }
            let Some(product) = controller_name
                .as_deref()
                .and_then(Product::of_controller_name)
            else {
                continue;
            };
            let controller = controllers.iter().position(|c| {
                c.product == product
                    && watches(c)
                    && match (&c.controller_class, controller_name) {
                        // haproxytech takes the suffix of `haproxy.org/ingress-controller/<cc>`.
                        (Some(cc), Some(name)) => name == cc || name.ends_with(&format!("/{cc}")),
                        _ => c.ingress_class.as_deref().is_none_or(|ic| ic == class),
                    }
            });
            return (
                Some(Binding {
                    product,
                    via: Via::IngressClass(*class_obj),
                }),
                controller,
            );
        }
        // 2. A controller whose --ingress-class (or its product's default class) is this one.
        let serving = |c: &Controller| c.class_name() == Some(class) && watches(c);
        let first = controllers.iter().position(serving);
        // Two products claiming the same class (say, both NGINX controllers on `nginx`): unknown.
        let ambiguous = first.is_some_and(|i| {
            controllers
                .iter()
                .any(|c| serving(c) && c.product != controllers[i].product)
        });
        if let Some(i) = first.filter(|_| !ambiguous) {
            let span = controllers[i]
                .arg("ingress-class")
                .or_else(|| controllers[i].arg("ingress.class"))
                .map(|a| a.span);
            return (
                Some(Binding {
                    product: controllers[i].product,
                    via: Via::Controller(span),
                }),
                Some(i),
            );
        }
        // 3. A class name only one product uses.
        if let Some(product) = Product::of_class_name(class) {
            let controller = controllers.iter().position(|c| c.product == product);
            return (
                Some(Binding {
                    product,
                    via: Via::ClassName,
                }),
                controller,
            );
        }
        // 3b. `nginx` with no IngressClass of that name in the input and no other product's
        // controller claiming it is ingress-nginx: the class its Helm chart installs and
        // `kubectl create ingress --class=nginx` names. Unless the Ingress's own annotations
        // are all NGINX Inc's (`nginx.org/*`), whose controller also defaults to `nginx`.
        let class_object = graph
            .ingress_classes
            .iter()
            .any(|(o, _)| graph.objects[*o].name == class);
        let other_nginx = {
            let products: Vec<Product> = reader
                .annotations(obj)
                .iter()
                .filter_map(|(k, _)| k.as_str().and_then(Product::of_annotation))
                .collect();
            products.contains(&Product::NginxInc) && !products.contains(&Product::IngressNginx)
        };
        if class == "nginx" && !class_object && !ambiguous && !other_nginx {
            let controller = controllers
                .iter()
                .position(|c| c.product == Product::IngressNginx && watches(c));
            return (
                Some(Binding {
                    product: Product::IngressNginx,
                    via: Via::ClassName,
                }),
                controller,
            );
        }
    }
    // 4. Guess from the Ingress's own annotations: a single controller prefix.
    let mut products: Vec<Product> = reader
        .annotations(obj)
        .iter()
        .filter_map(|(k, _)| k.as_str().and_then(Product::of_annotation))
        .filter(|p| *p != Product::OpenShift)
        .collect();
    products.sort();
    products.dedup();
    // A class named for another kind of proxy (`traefik`, `kong`) is not guessed at.
    let plausible = |p: Product| {
        class.as_deref().is_none_or(|c| {
            let c = c.to_ascii_lowercase();
            match p {
                Product::IngressNginx | Product::NginxInc => c.contains("nginx"),
                Product::HaproxyTech | Product::HaproxyIngress => c.contains("haproxy"),
                _ => false,
            }
        })
    };
    if let [product] = products[..] {
        if !plausible(product) {
            return (None, None);
        }
        // Only when no controller in the input claims another class for it.
        let controller = controllers
            .iter()
            .position(|c| c.product == product && watches(c));
        return (
            Some(Binding {
                product,
                via: Via::Annotations,
            }),
            controller.filter(|_| class.is_none()),
        );
    }
    (None, None)
}

fn ingress_settings(reader: &Reader<'_>, controllers: &[Controller], obj: ObjId) -> RouteSettings {
    use defaults::*;
    let (binding, controller) = bind_ingress(reader, controllers, obj);
    let ctrl = controller.and_then(|i| controllers.get(i));
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
        long_lived: long_lived(reader.graph, reader.documents, obj),
        ping_interval: reader.declared_ms(obj, PING_INTERVAL_ANNOTATION),
        session_lifetime: reader.declared_ms(obj, SESSION_LIFETIME_ANNOTATION),
    };
    let product = binding.as_ref().map(|b| b.product);
    let version = ctrl.and_then(|c| c.version.as_ref());
    // annotation > controller-wide (ConfigMap / default of the controller in the input) >
    // product default (no controller in the input).
    let pick = |key: &str,
                parse: fn(&str) -> Option<u64>,
                wide: Option<&Setting<u64>>,
                default: u64,
                p: Product| {
        reader
            .annotation_ms(obj, key, parse)
            .or_else(|| wide.cloned())
            .unwrap_or_else(|| Setting::new(default, default_of(p, version)))
    };
    let wide = ctrl.map(|c| &c.settings);
    match product {
        Some(p @ Product::IngressNginx) => {
            let prefix = ctrl
                .and_then(Controller::custom_annotation_prefix)
                .unwrap_or("nginx.ingress.kubernetes.io");
            route.read_timeout = Some(pick(
                &format!("{prefix}/proxy-read-timeout"),
                duration::ingress_nginx_int,
                wide.and_then(|w| w.read_timeout.as_ref()),
                INGRESS_NGINX_PROXY_TIMEOUT_MS,
                p,
            ));
            route.send_timeout = Some(pick(
                &format!("{prefix}/proxy-send-timeout"),
                duration::ingress_nginx_int,
                wide.and_then(|w| w.send_timeout.as_ref()),
                INGRESS_NGINX_PROXY_TIMEOUT_MS,
                p,
            ));
            route.upstream_keepalive_timeout = Some(
                wide.and_then(|w| w.upstream_keepalive_timeout.clone())
                    .unwrap_or_else(|| {
                        Setting::new(INGRESS_NGINX_UPSTREAM_KEEPALIVE_MS, default_of(p, version))
                    }),
            );
            route.reload_deadline = Some(
                wide.and_then(|w| w.reload_deadline.clone())
                    .unwrap_or_else(|| {
                        Setting::new(INGRESS_NGINX_WORKER_SHUTDOWN_MS, default_of(p, version))
                    }),
            );
        }
        Some(p @ Product::HaproxyTech) => {
            route.read_timeout = Some(pick(
                "haproxy.org/timeout-server",
                duration::haproxy,
                wide.and_then(|w| w.read_timeout.as_ref()),
                HAPROXYTECH_CLIENT_SERVER_MS,
                p,
            ));
            route.tunnel_timeout = Some(pick(
                "haproxy.org/timeout-tunnel",
                duration::haproxy,
                wide.and_then(|w| w.tunnel_timeout.as_ref()),
                HAPROXYTECH_TUNNEL_MS,
                p,
            ));
            route.reload_deadline = Some(
                wide.and_then(|w| w.reload_deadline.clone())
                    .unwrap_or_else(|| {
                        Setting::new(HAPROXYTECH_HARD_STOP_MS, default_of(p, version))
                    }),
            );
        }
        Some(p @ Product::HaproxyIngress) => {
            route.read_timeout = Some(pick(
                "haproxy-ingress.github.io/timeout-server",
                duration::haproxy,
                wide.and_then(|w| w.read_timeout.as_ref()),
                HAPROXY_INGRESS_CLIENT_SERVER_MS,
                p,
            ));
            route.tunnel_timeout = Some(pick(
                "haproxy-ingress.github.io/timeout-tunnel",
                duration::haproxy,
                wide.and_then(|w| w.tunnel_timeout.as_ref()),
                HAPROXY_INGRESS_TUNNEL_MS,
                p,
            ));
            route.reload_deadline = Some(
                wide.and_then(|w| w.reload_deadline.clone())
                    .unwrap_or_else(|| {
                        Setting::new(HAPROXY_INGRESS_TIMEOUT_STOP_MS, default_of(p, version))
                    }),
            );
        }
        Some(Product::NginxInc) => {
            route.read_timeout =
                reader.annotation_ms(obj, "nginx.org/proxy-read-timeout", duration::nginx);
            route.send_timeout =
                reader.annotation_ms(obj, "nginx.org/proxy-send-timeout", duration::nginx);
        }
        _ => {}
    }
    route.lb = lb::for_ingress(reader, controllers, &route);
    route
}

fn route_settings(reader: &Reader<'_>, controllers: &[Controller], obj: ObjId) -> RouteSettings {
    use defaults::*;
    let graph = reader.graph;
    let labels = crate::k8s::string_map(reader.object(obj).path(&["metadata", "labels"]));
    // An IngressController whose routeSelector admits the route, else a router workload.
    let controller = controllers
        .iter()
        .position(|c| {
            c.product == Product::OpenShift
                && graph.objects[c.obj].kind == "IngressController"
                && reader
                    .object(c.obj)
                    .path(&["spec", "routeSelector"])
                    .map(crate::k8s::LabelSelector::parse)
                    .is_none_or(|s| s.matches(&labels))
        })
        .or_else(|| {
            controllers
                .iter()
                .position(|c| c.product == Product::OpenShift && c.container.is_some())
        });
    let wide = controller
        .and_then(|i| controllers.get(i))
        .map(|c| &c.settings);
    let default = |d: u64| Setting::new(d, default_of(Product::OpenShift, None));
    let pick = |key: &str, wide: Option<&Setting<u64>>, d: u64| {
        reader
            .annotation_ms(obj, key, duration::haproxy)
            .or_else(|| wide.cloned())
            .unwrap_or_else(|| default(d))
    };
    let mut route = RouteSettings {
        obj,
        kind: RouteKind::Route,
        binding: Some(Binding {
            product: Product::OpenShift,
            via: Via::Route,
        }),
        controller,
        read_timeout: Some(pick(
            "haproxy.router.openshift.io/timeout",
            wide.and_then(|w| w.read_timeout.as_ref()),
            OPENSHIFT_CLIENT_SERVER_MS,
        )),
        send_timeout: None,
        client_timeout: Some(
            wide.and_then(|w| w.client_timeout.clone())
                .unwrap_or_else(|| default(OPENSHIFT_CLIENT_SERVER_MS)),
        ),
        tunnel_timeout: Some(pick(
            "haproxy.router.openshift.io/timeout-tunnel",
            wide.and_then(|w| w.tunnel_timeout.as_ref()),
            OPENSHIFT_TUNNEL_MS,
        )),
        upstream_keepalive_timeout: None,
        reload_deadline: wide.and_then(|w| w.reload_deadline.clone()),
        lb: None,
        long_lived: long_lived(graph, reader.documents, obj),
        ping_interval: reader.declared_ms(obj, PING_INTERVAL_ANNOTATION),
        session_lifetime: reader.declared_ms(obj, SESSION_LIFETIME_ANNOTATION),
    };
    route.lb = lb::for_controller_service(reader, controllers, controller);
    route
}

#[cfg(test)]
mod tests;
