//! The OpenShift router (IngressController `tuningOptions`, router workloads' `ROUTER_*`
//! environment, Route annotations): the settings and defaults kubegap reads.
//! Sources: `../shared/research/DOMAIN.md` §2.2, §2.4.

use super::*;
use crate::value::duration::Millis;

/// What kubegap knows about OpenShift router.
pub(super) const SPEC: Spec = Spec {
    name: "OpenShift router",
    annotation_prefixes: &["haproxy.router.openshift.io/", "router.openshift.io/"],
    controller_names: &["openshift.io/ingress-to-route"],
    controller_name_prefixes: &[],
    image_suffixes: &["haproxy-router"],
    image_contains: &[],
    class_names: &["openshift-default"],
    default_class: None,
    class_family: None,
    controller_settings: Some(controller_settings),
    ingress_route: None,
    client_keepalive: Some(CLIENT_KEEPALIVE_DEFAULT),
};

/// Defaults of this product, in milliseconds.
pub mod defaults {
    /// OpenShift router client and server timeouts: 30 s.
    pub const OPENSHIFT_CLIENT_SERVER_MS: u64 = 30_000;
    /// OpenShift router tunnel timeout: 1 h.
    pub const OPENSHIFT_TUNNEL_MS: u64 = 3_600_000;
    /// OpenShift `timeout http-keep-alive`: 300 s (not configurable).
    pub const OPENSHIFT_KEEPALIVE_MS: u64 = 300_000;
}

/// Idle keep-alive towards clients when the configuration is not in the input, and what to
/// call it in messages (chains).
pub(super) const CLIENT_KEEPALIVE_DEFAULT: (u64, &str, &str) = (
    defaults::OPENSHIFT_KEEPALIVE_MS,
    "timeout http-keep-alive",
    "the OpenShift router",
);

/// Controller-wide settings of a controller of this product.
pub(super) fn controller_settings(
    _reader: &Reader<'_>,
    _controller: &Controller,
    container: NodeRef<'_>,
) -> ControllerSettings {
    use defaults::*;
    // A router deployed by hand: its template reads ROUTER_* environment variables.
    let env = |name: &str, parse: crate::value::duration::Parser| -> Option<Setting<Millis>> {
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
    let or_default = |s: Option<Setting<Millis>>, d: u64| {
        s.unwrap_or_else(|| Setting::new(Millis(d), default_of(Product::OpenShift, None)))
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
            crate::value::duration::Millis(OPENSHIFT_KEEPALIVE_MS),
            default_of(Product::OpenShift, None),
        )),
        ..ControllerSettings::default()
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
            .unwrap_or_else(|| {
                Setting::new(
                    crate::value::duration::Millis(default),
                    default_of(Product::OpenShift, None),
                )
            })
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
            crate::value::duration::Millis(OPENSHIFT_KEEPALIVE_MS),
            default_of(Product::OpenShift, None),
        )),
        ..ControllerSettings::default()
    }
}

/// The settings of an OpenShift Route: its `haproxy.router.openshift.io/*` annotations, else
/// the IngressController (or router workload) that admits it, else the router defaults.
pub(super) fn route_settings(
    reader: &Reader<'_>,
    controllers: &[Controller],
    obj: ObjId,
) -> RouteSettings {
    use defaults::*;
    let graph = reader.graph;
    // The objects whose declarations apply to the route, found once for its three lookups.
    let declaring = reader.declaring(obj);
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
    let default = |d: u64| Setting::new(Millis(d), default_of(Product::OpenShift, None));
    let pick = |key: &str, wide: Option<&Setting<Millis>>, d: u64| {
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
        long_lived: long_lived_among(reader, obj, &declaring),
        ping_interval: reader.declared_ms_among(&declaring, PING_INTERVAL_ANNOTATION),
        session_lifetime: reader.declared_ms_among(&declaring, SESSION_LIFETIME_ANNOTATION),
    };
    route.lb = lb::for_controller_service(reader, controllers, controller).map(Box::new);
    route
}
