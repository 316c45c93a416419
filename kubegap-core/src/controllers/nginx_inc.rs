//! The F5 NGINX Ingress Controller (`nginx.org/*`): the annotations and defaults kubegap reads
//! (its ConfigMap keys are not read yet).
//! Sources: `../shared/research/DOMAIN.md` §2.2, §2.4.

use super::*;

/// What kubegap knows about F5 NGINX Ingress Controller.
pub(super) const SPEC: Spec = Spec {
    name: "F5 NGINX Ingress Controller",
    annotation_prefixes: &["nginx.org/", "nginx.com/"],
    controller_names: &["nginx.org/ingress-controller"],
    controller_name_prefixes: &[],
    image_suffixes: &["nginx/nginx-ingress"],
    image_contains: &["nginx-plus-ingress"],
    class_names: &[],
    default_class: Some("nginx"),
    class_family: Some("nginx"),
    controller_settings: None,
    ingress_route: Some(ingress_route),
    client_keepalive: Some(CLIENT_KEEPALIVE_DEFAULT),
};

/// Idle keep-alive towards clients when the configuration is not in the input, and what to
/// call it in messages (chains).
pub(super) const CLIENT_KEEPALIVE_DEFAULT: (u64, &str, &str) =
    (75_000, "keepalive_timeout", "nginx");

/// The settings an Ingress served by this product gets from its annotations, else the
/// controller-wide value, else the product default.
pub(super) fn ingress_route(r: &RouteInput<'_>, route: &mut RouteSettings) {
    let reader = r.reader;
    let obj = r.obj;
    route.read_timeout = reader.annotation_ms(obj, "nginx.org/proxy-read-timeout", duration::nginx);
    route.send_timeout = reader.annotation_ms(obj, "nginx.org/proxy-send-timeout", duration::nginx);
}
