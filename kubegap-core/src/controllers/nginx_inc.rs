//! The F5 NGINX Ingress Controller (`nginx.org/*`): the annotations and defaults kubegap reads
//! (its ConfigMap keys are not read yet).
//! Sources: `../shared/research/DOMAIN.md` §2.2, §2.4.

use super::*;

/// Idle keep-alive towards clients when the configuration is not in the input, and what to
/// call it in messages (chains).
pub(super) const CLIENT_KEEPALIVE_DEFAULT: (u64, &str) =
    (75_000, "default `keepalive_timeout` of nginx");

/// The settings an Ingress served by this product gets from its annotations, else the
/// controller-wide value, else the product default.
pub(super) fn ingress_route(r: &RouteInput<'_>, route: &mut RouteSettings) {
    let reader = r.reader;
    let obj = r.obj;
    route.read_timeout = reader.annotation_ms(obj, "nginx.org/proxy-read-timeout", duration::nginx);
    route.send_timeout = reader.annotation_ms(obj, "nginx.org/proxy-send-timeout", duration::nginx);
}
