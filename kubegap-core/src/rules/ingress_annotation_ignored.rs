//! `ingress-annotation-ignored`: another controller's annotations on an Ingress.

use crate::controllers::{Product, Via};
use crate::rule::prelude::*;

declare_rule! {
    /// An Ingress that carries annotations of a controller other than the one serving it,
    /// such as `nginx.org/*` on an ingress-nginx class: they are silently ignored.
    ///
    /// ## What it does
    /// Resolves which product serves each Ingress, from an IngressClass in the input
    /// (`spec.controller`), a controller in the input whose `--ingress-class` matches, or a
    /// class name only one product uses (`alb`, `gce`). Then reports each annotation whose
    /// prefix belongs to another controller: `nginx.ingress.kubernetes.io/*` (ingress-nginx),
    /// `nginx.org/*` (F5 NGINX Ingress Controller), `haproxy.org/*` (HAProxy Technologies),
    /// `haproxy-ingress.github.io/*` (haproxy-ingress), `alb.ingress.kubernetes.io/*` (AWS).
    /// Ingresses whose controller cannot be resolved from the input are skipped.
    ///
    /// ## Why is this bad?
    /// The timeouts and behaviours you think you set are not applied, and nothing says so:
    /// the controller ignores prefixes it does not own (ingress-nginx#5539: timeouts only took
    /// effect after switching from `nginx.org/` to `nginx.ingress.kubernetes.io/`).
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: networking.k8s.io/v1
    /// kind: IngressClass
    /// metadata: {name: nginx}
    /// spec: {controller: k8s.io/ingress-nginx}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: api
    ///   annotations:
    ///     nginx.org/proxy-read-timeout: "300s"
    /// spec:
    ///   ingressClassName: nginx
    ///   defaultBackend: {service: {name: api, port: {number: 80}}}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: networking.k8s.io/v1
    /// kind: IngressClass
    /// metadata: {name: nginx}
    /// spec: {controller: k8s.io/ingress-nginx}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: api
    ///   annotations:
    ///     nginx.ingress.kubernetes.io/proxy-read-timeout: "300"
    /// spec:
    ///   ingressClassName: nginx
    ///   defaultBackend: {service: {name: api, port: {number: 80}}}
    /// ```
    ///
    /// ## References
    /// ingress-nginx#5539; DOMAIN.md §2.4 (annotation prefixes) and R22.
    pub static INGRESS_ANNOTATION_IGNORED = {
        id: "ingress-annotation-ignored",
        severity: Warning,
        domain: Controller,
        summary: "an Ingress annotation of another controller than the one serving it, silently ignored",
        evidence: &[
            "https://github.com/kubernetes/ingress-nginx/issues/5539",
            "https://docs.nginx.com/nginx-ingress-controller/configuration/ingress-resources/advanced-configuration-with-annotations/",
        ],
        check: crate::rule::nothing,
        objects: check_objects,
    }
}

fn check_objects(cx: &Context<'_>, objects: std::ops::Range<ObjId>, sink: &mut Sink) {
    let model = cx.controllers;
    let reader = crate::controllers::Reader {
        graph: cx.k8s,
        documents: cx.documents,
    };
    for route in crate::k8s::in_block(model.ingress_routes(), &objects, |r| r.obj) {
        let Some(binding) = route.binding.as_ref().filter(|b| b.confident()) else {
            continue;
        };
        for (k, _) in reader.annotations(route.obj) {
            let Some(key) = k.as_str() else { continue };
            let Some(owner) = Product::of_annotation(key) else {
                continue;
            };
            // OpenShift copies Ingress annotations to the Routes it generates.
            if owner == Product::OpenShift {
                continue;
            }
            // ingress-nginx started with another `--annotations-prefix` ignores its default one.
            let custom = route
                .controller
                .and_then(|i| model.controllers.get(i))
                .and_then(|c| c.custom_annotation_prefix());
            if owner == binding.product {
                if let Some(prefix) = custom {
                    sink.report(
                        k.span(),
                        format!(
                            "`{key}` uses ingress-nginx's default prefix, but the controller serving {} reads `{prefix}/*` (`--annotations-prefix`): it is ignored",
                            cx.describe(route.obj)
                        ),
                    )
                    .help(format!("write it as `{prefix}/{}`", key.split_once('/').map_or(key, |(_, rest)| rest)));
                }
                continue;
            }
            let how = match &binding.via {
                Via::IngressClass(obj) => format!("IngressClass `{}`", cx.obj(*obj).name),
                Via::Controller(Some(span)) => {
                    format!("the controller's `--ingress-class`, {}", cx.cite(*span))
                }
                Via::Controller(None) => format!(
                    "{} in the input, whose default class this is",
                    cx.describe(
                        route
                            .controller
                            .and_then(|i| model.controllers.get(i))
                            .map_or(route.obj, |c| c.obj)
                    )
                ),
                _ => "by its class name".to_string(),
            };
            let finding = sink.report(
                k.span(),
                format!(
                    "`{key}` is an annotation of {}, but {} is served by {} ({how}): it is ignored",
                    owner.name(),
                    cx.describe(route.obj),
                    binding.product.name(),
                ),
            );
            if let Some(prefix) = binding.product.annotation_prefixes().first() {
                finding.help(format!(
                    "use the {} equivalent under `{prefix}` (check its name and units), or remove the annotation",
                    binding.product.name()
                ));
            } else {
                finding.help("remove the annotation, or set the equivalent on the load balancer's own configuration");
            }
        }
    }
}
