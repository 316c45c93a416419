//! ingress-nginx: the ConfigMap keys, annotations and defaults kubegap reads.
//! Sources: `../shared/research/DOMAIN.md` §2.2, §2.4.

use super::*;
use crate::value::duration::Millis;

/// What kubegap knows about ingress-nginx.
pub(super) const SPEC: Spec = Spec {
    name: "ingress-nginx",
    annotation_prefixes: &["nginx.ingress.kubernetes.io/"],
    controller_names: &["k8s.io/ingress-nginx"],
    controller_name_prefixes: &["k8s.io/ingress-nginx"],
    image_suffixes: &[
        "ingress-nginx/controller",
        "ingress-nginx/controller-chroot",
        "kubernetes-ingress-controller/nginx-ingress-controller",
    ],
    image_contains: &[],
    class_names: &[],
    default_class: Some("nginx"),
    class_family: Some("nginx"),
    controller_settings: Some(controller_settings),
    ingress_route: Some(ingress_route),
    client_keepalive: Some(CLIENT_KEEPALIVE_DEFAULT),
};

/// Defaults of this product, in milliseconds.
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
}

/// Idle keep-alive towards clients when the configuration is not in the input, and what to
/// call it in messages (chains).
pub(super) const CLIENT_KEEPALIVE_DEFAULT: (u64, &str, &str) = (
    defaults::INGRESS_NGINX_KEEPALIVE_MS,
    "keep-alive",
    "ingress-nginx",
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
    }
}

/// The settings an Ingress served by this product gets from its annotations, else the
/// controller-wide value, else the product default.
pub(super) fn ingress_route(r: &RouteInput<'_>, route: &mut RouteSettings) {
    use defaults::*;
    let wide = r.wide;
    let ctrl = r.ctrl;
    let version = r.version;
    let p = Product::IngressNginx;
    let prefix = ctrl
        .and_then(Controller::custom_annotation_prefix)
        .unwrap_or("nginx.ingress.kubernetes.io");
    route.read_timeout = Some(r.pick(
        &format!("{prefix}/proxy-read-timeout"),
        duration::ingress_nginx_int,
        wide.and_then(|w| w.read_timeout.as_ref()),
        INGRESS_NGINX_PROXY_TIMEOUT_MS,
        p,
    ));
    route.send_timeout = Some(r.pick(
        &format!("{prefix}/proxy-send-timeout"),
        duration::ingress_nginx_int,
        wide.and_then(|w| w.send_timeout.as_ref()),
        INGRESS_NGINX_PROXY_TIMEOUT_MS,
        p,
    ));
    route.upstream_keepalive_timeout = Some(
        wide.and_then(|w| w.upstream_keepalive_timeout.clone())
            .unwrap_or_else(|| {
                Setting::new(
                    Millis(INGRESS_NGINX_UPSTREAM_KEEPALIVE_MS),
                    default_of(p, version),
                )
            }),
    );
    route.reload_deadline = Some(wide.and_then(|w| w.reload_deadline.clone()).unwrap_or_else(
        || {
            Setting::new(
                Millis(INGRESS_NGINX_WORKER_SHUTDOWN_MS),
                default_of(p, version),
            )
        },
    ));
}
