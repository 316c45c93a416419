//! The AWS Load Balancer Controller (`alb.ingress.kubernetes.io/*`): recognised here; its load
//! balancer's settings are read in `lb.rs` (an ALB is a cloud load balancer, not an in-cluster
//! proxy, so it has no controller-wide or client keep-alive settings).

use super::Spec;

/// What kubegap knows about AWS Load Balancer Controller.
pub(super) const SPEC: Spec = Spec {
    name: "AWS Load Balancer Controller",
    annotation_prefixes: &["alb.ingress.kubernetes.io/"],
    controller_names: &["ingress.k8s.aws/alb"],
    controller_name_prefixes: &[],
    image_suffixes: &["aws-load-balancer-controller"],
    image_contains: &[],
    class_names: &["alb"],
    default_class: Some("alb"),
    class_family: None,
    controller_settings: None,
    ingress_route: None,
    client_keepalive: None,
};
