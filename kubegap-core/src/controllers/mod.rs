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
use crate::k8s::{Graph, ObjId};
use crate::source::Span;
use crate::yaml::{Document, NodeRef};

mod args;
mod binding;
mod catalog;
pub mod lb;
mod long_lived;
mod reader;

pub use crate::value::duration;
pub use crate::value::provenance::{Setting, Source};
pub use args::Arg;
pub use binding::{Binding, Via};
pub use catalog::{image_repository, image_version, Product};
pub use lb::{LbKind, LoadBalancer};
pub use long_lived::{long_lived, path_hint, LongLived, LongLivedKind};
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

pub(super) fn controller_settings(
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

/// An OpenShift IngressController: `spec.tuningOptions.*` and the hard-stop annotation (which
/// may also sit on `ingresses.config.openshift.io/cluster`; the IngressController's wins).
pub(super) fn ingress_controller_settings(reader: &Reader<'_>, obj: ObjId) -> ControllerSettings {
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
