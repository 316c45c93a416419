//! `k8s-ingress-backend-missing`: an Ingress or Route backend whose Service or port is missing.

use crate::k8s::At;
use crate::rule::prelude::*;

declare_rule! {
    /// An Ingress (or OpenShift Route) backend that names a Service port the Service lacks, or a
    /// Service that is not in the input.
    ///
    /// ## What it does
    /// Resolves each backend (`service.name` + `service.port.number|name`, or the v1beta1
    /// `serviceName` + `servicePort`; a Route's `spec.to` + `spec.port.targetPort`) to the
    /// nearest Service of that name in the same namespace: the same file first, then the same
    /// directory, then the same kustomization tree or chart (see "What kubegap links, and how"
    /// in docs/USER_GUIDE.md). When that Service has no such port, it is an error. A Service
    /// found only elsewhere in the run (another project), or two equally near Services, is not
    /// evidence enough: nothing is reported. When no Service of that name is in scope, the
    /// finding is only `info`, since partial inputs are common.
    ///
    /// ## Why is this bad?
    /// The controller cannot build an upstream for the path and answers 503 (ingress-nginx) or
    /// drops the route. Port names renamed by a chart upgrade break exactly here (GitLab.com,
    /// 2022-03-31).
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   selector: {app: web}
    ///   ports: [{name: http, port: 80}]
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata: {name: web}
    /// spec:
    ///   rules:
    ///     - http:
    ///         paths:
    ///           - path: /
    ///             pathType: Prefix
    ///             backend: {service: {name: web, port: {name: web}}}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   selector: {app: web}
    ///   ports: [{name: http, port: 80}]
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata: {name: web}
    /// spec:
    ///   rules:
    ///     - http:
    ///         paths:
    ///           - path: /
    ///             pathType: Prefix
    ///             backend: {service: {name: web, port: {name: http}}}
    /// ```
    ///
    /// ## Peers
    /// kube-score `ingress-targets-service` (error when the Service is missing; kubegap says
    /// `info`, see docs/PEERS.md).
    pub static K8S_INGRESS_BACKEND_MISSING = {
        id: "k8s-ingress-backend-missing",
        severity: Error,
        domain: Kubernetes,
        summary: "an Ingress or Route backend whose Service port is missing (info when the Service is not in the input)",
        evidence: &[
            "https://about.gitlab.com/blog/2022/04/15/gitlab-dot-com-incident-2022-03-31/",
            "https://kubernetes.io/docs/concepts/services-networking/ingress/#the-ingress-resource",
        ],
        check: crate::rule::nothing,
        objects: check_objects,
        also_reports: [Info],
    }
}

fn check_objects(cx: &Context<'_>, objects: std::ops::Range<ObjId>, sink: &mut Sink) {
    for ingress in crate::k8s::in_block(&cx.k8s.ingresses, &objects, |i| i.obj) {
        for backend in &ingress.backends {
            check_backend(cx, sink, ingress.obj, backend.service_name, backend.port);
        }
    }
    for route in crate::k8s::in_block(&cx.k8s.routes, &objects, |r| r.obj) {
        if let Some(to) = route.to {
            check_backend(cx, sink, route.obj, to, route.target_port);
        }
    }
}

fn check_backend(
    cx: &Context<'_>,
    sink: &mut Sink,
    owner: usize,
    name_at: At,
    port_at: Option<At>,
) {
    let Some(name) = cx.node(name_at).as_str() else {
        return;
    };
    let ns = &cx.obj(owner).namespace;
    let service = match cx.k8s.service_from(owner, ns, name) {
        crate::k8s::Lookup::Found(service, near) => {
            // A Service found only elsewhere in the run (another project of a monorepo) is
            // not evidence enough for an error about its ports.
            if !near.is_close() {
                return;
            }
            service
        }
        // Two equally near Services: kubegap does not pick one.
        crate::k8s::Lookup::Ambiguous(_) => return,
        crate::k8s::Lookup::Missing => {
            sink.report(
            cx.span(name_at),
            format!("Service `{ns}/{name}` is not in the input; its port cannot be checked"),
        )
        .severity(Severity::Info)
        .help("lint the Service together with the Ingress, or ignore this rule for partial inputs");
            return;
        }
    };
    let Some(port_at) = port_at else { return };
    let port = cx.node(port_at);
    let found = match port.as_i64() {
        Some(number) => service.ports.iter().any(|p| p.port == Some(number)),
        None => match port.as_str() {
            Some(port_name) => service
                .ports
                .iter()
                .any(|p| p.name.as_deref() == Some(port_name)),
            None => return,
        },
    };
    if found {
        return;
    }
    let text = port.as_str().unwrap_or_default();
    let have: Vec<String> = service
        .ports
        .iter()
        .map(|p| match (&p.name, p.port) {
            (Some(n), Some(num)) => format!("`{n}` ({num})"),
            (None, Some(num)) => format!("{num}"),
            (Some(n), None) => format!("`{n}`"),
            _ => String::new(),
        })
        .filter(|s| !s.is_empty())
        .collect();
    let kind = if port.as_i64().is_some() {
        "port"
    } else {
        "port name"
    };
    sink.report(
        cx.span(port_at),
        format!("{} `{ns}/{name}` has no {kind} `{text}`", "Service"),
    )
    .label(
        cx.span(
            service
                .ports
                .first()
                .map_or(cx.obj(service.obj).at, |p| p.at),
        ),
        "the Service's ports",
    )
    .help(if have.is_empty() {
        "the Service declares no ports".to_string()
    } else {
        format!("the Service has {}", have.join(", "))
    });
}
