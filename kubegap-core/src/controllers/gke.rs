//! GKE Ingress (GCP external Application Load Balancer): recognised by its class names; its
//! load balancer's settings (BackendConfig `timeoutSec`, the fixed backend keep-alive) are read
//! in `lb.rs`.

use super::Spec;

/// What kubegap knows about GKE Ingress.
pub(super) const SPEC: Spec = Spec {
    name: "GKE Ingress",
    annotation_prefixes: &[],
    controller_names: &[],
    controller_name_prefixes: &[],
    image_suffixes: &[],
    image_contains: &[],
    class_names: &["gce", "gce-internal"],
    default_class: None,
    class_family: None,
    controller_settings: None,
    ingress_route: None,
    client_keepalive: None,
};
