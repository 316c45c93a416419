//! The HAProxy Kubernetes Ingress Controller (haproxytech): the ConfigMap keys, annotations
//! and defaults kubegap reads.
//! Sources: `../shared/research/DOMAIN.md` §2.2, §2.4.

use super::*;
use crate::value::duration::Millis;

/// What kubegap knows about HAProxy Kubernetes Ingress Controller.
pub(super) const SPEC: Spec = Spec {
    name: "HAProxy Kubernetes Ingress Controller",
    annotation_prefixes: &["haproxy.org/"],
    controller_names: &[],
    controller_name_prefixes: &["haproxy.org/ingress-controller"],
    image_suffixes: &["haproxytech/kubernetes-ingress"],
    image_contains: &[],
    class_names: &[],
    default_class: Some("haproxy"),
    class_family: Some("haproxy"),
    controller_settings: Some(controller_settings),
    ingress_route: Some(ingress_route),
    client_keepalive: Some(CLIENT_KEEPALIVE_DEFAULT),
};

/// Defaults of this product, in milliseconds.
pub mod defaults {
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
}

/// Idle keep-alive towards clients when the configuration is not in the input, and what to
/// call it in messages (chains).
pub(super) const CLIENT_KEEPALIVE_DEFAULT: (u64, &str, &str) = (
    defaults::HAPROXYTECH_KEEPALIVE_MS,
    "timeout http-keep-alive",
    "the HAProxy Kubernetes Ingress Controller",
);

/// Controller-wide settings of a controller of this product.
pub(super) fn controller_settings(
    reader: &Reader<'_>,
    c: &Controller,
    _container: NodeRef<'_>,
) -> ControllerSettings {
    use defaults::*;
    let default_str =
        |value: &str| Setting::new(value.to_string(), default_of(c.product, c.version.as_ref()));
    ControllerSettings {
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
    }
}

/// The settings an Ingress served by this product gets from its annotations, else the
/// controller-wide value, else the product default.
pub(super) fn ingress_route(r: &RouteInput<'_>, route: &mut RouteSettings) {
    use defaults::*;
    let wide = r.wide;
    let version = r.version;
    let p = Product::HaproxyTech;
    route.read_timeout = Some(r.pick(
        "haproxy.org/timeout-server",
        duration::haproxy,
        wide.and_then(|w| w.read_timeout.as_ref()),
        HAPROXYTECH_CLIENT_SERVER_MS,
        p,
    ));
    route.tunnel_timeout = Some(r.pick(
        "haproxy.org/timeout-tunnel",
        duration::haproxy,
        wide.and_then(|w| w.tunnel_timeout.as_ref()),
        HAPROXYTECH_TUNNEL_MS,
        p,
    ));
    route.reload_deadline = Some(
        wide.and_then(|w| w.reload_deadline.clone())
            .unwrap_or_else(|| {
                Setting::new(Millis(HAPROXYTECH_HARD_STOP_MS), default_of(p, version))
            }),
    );
}
