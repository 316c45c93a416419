//! `k8s-alb-ip-target-without-readiness-gate`: ALB IP targets without the pod readiness gate.

use crate::controllers::{Product, Reader};
use crate::rule::prelude::*;

const GATE_LABEL: &str = "elbv2.k8s.aws/pod-readiness-gate-inject";

declare_rule! {
    /// An AWS Load Balancer Controller Ingress (or NLB Service) with target type `ip` in a
    /// namespace that the input does not label for the pod readiness gate.
    ///
    /// ## What it does
    /// Finds Ingresses served by the AWS Load Balancer Controller with
    /// `alb.ingress.kubernetes.io/target-type: ip`, and Services with
    /// `service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip`. Reports them when no
    /// Namespace object in the input carries the label
    /// `elbv2.k8s.aws/pod-readiness-gate-inject: enabled` for their namespace (the finding is
    /// `info`, since the Namespace may be managed elsewhere).
    ///
    /// ## Why is this bad?
    /// With IP targets the load balancer sends traffic straight to pod IPs. Without the
    /// readiness gate, a rollout can finish before the new pods are registered and healthy in
    /// the target group: "the target group might only have registered targets that are in
    /// »Initial« or »Draining« state; this results in service outage".
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: web
    ///   namespace: shop
    ///   annotations:
    ///     alb.ingress.kubernetes.io/target-type: ip
    /// spec:
    ///   ingressClassName: alb
    ///   defaultBackend: {service: {name: web, port: {number: 80}}}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: Namespace
    /// metadata:
    ///   name: shop
    ///   labels:
    ///     elbv2.k8s.aws/pod-readiness-gate-inject: enabled
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: web
    ///   namespace: shop
    ///   annotations:
    ///     alb.ingress.kubernetes.io/target-type: ip
    /// spec:
    ///   ingressClassName: alb
    ///   defaultBackend: {service: {name: web, port: {number: 80}}}
    /// ```
    ///
    /// ## References
    /// AWS Load Balancer Controller, pod readiness gate; aws-load-balancer-controller#3270.
    pub static K8S_ALB_IP_TARGET_WITHOUT_READINESS_GATE = {
        id: "k8s-alb-ip-target-without-readiness-gate",
        severity: Info,
        domain: Kubernetes,
        summary: "an ALB/NLB with IP targets in a namespace not labelled for the pod readiness gate",
        evidence: &[
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/deploy/pod_readiness_gate/",
            "https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/3270",
        ],
        check: crate::rule::nothing,
        objects: check_objects,
    }
}

fn gated(cx: &Context<'_>, reader: &Reader<'_>, namespace: &str) -> bool {
    cx.k8s
        .find("Namespace", "default", namespace)
        .iter()
        .chain(cx.k8s.find("Namespace", namespace, namespace))
        .any(|ns| {
            reader
                .object(*ns)
                .path(&["metadata", "labels", GATE_LABEL])
                .and_then(|v| v.as_str())
                == Some("enabled")
        })
}

fn check_objects(cx: &Context<'_>, objects: std::ops::Range<ObjId>, sink: &mut Sink) {
    let model = cx.controllers;
    let reader = Reader {
        graph: cx.k8s,
        documents: cx.documents,
    };
    let mut report = |span: Span, obj: usize, what: &str| {
        let ns = &cx.obj(obj).namespace;
        if gated(cx, &reader, ns) {
            return;
        }
        sink.report(
            span,
            format!(
                "{} sends {what} traffic straight to pod IPs, but no Namespace `{ns}` in the input has the label `{GATE_LABEL}: enabled`: a fast rollout can leave the target group with no healthy targets",
                cx.describe(obj)
            ),
        )
        .help(format!(
            "label the namespace `{GATE_LABEL}=enabled` (then restart its pods), or ignore this finding if the namespace is labelled outside this input"
        ));
    };
    for route in crate::k8s::in_block(model.ingress_routes(), &objects, |r| r.obj) {
        if route.binding.as_ref().map(|b| b.product) != Some(Product::AwsAlb) {
            continue;
        }
        let Some(target) = route.lb.as_ref().and_then(|lb| lb.target_type.as_ref()) else {
            continue;
        };
        if target.value != "ip" {
            continue;
        }
        if let Some(span) = target.source.span() {
            report(span, route.obj, "ALB");
        }
    }
    for service in crate::k8s::in_block(&cx.k8s.services, &objects, |s| s.obj) {
        let Some((_, v)) = reader.annotation(
            service.obj,
            "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type",
        ) else {
            continue;
        };
        if v.as_str().map(str::trim) == Some("ip") {
            report(v.span(), service.obj, "NLB");
        }
    }
}
