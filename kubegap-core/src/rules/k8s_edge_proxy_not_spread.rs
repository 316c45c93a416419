//! `k8s-edge-proxy-not-spread`: ingress controller or proxy replicas that may share a node.

use crate::k8s::pod;
use crate::rule::prelude::*;

declare_rule! {
    /// Proxy replicas that nothing keeps on different nodes.
    ///
    /// ## What it does
    /// Finds proxy workloads by the image of their first container: ingress-nginx and the
    /// NGINX Inc. controller, the HAProxy controllers (haproxytech, haproxy-ingress), the
    /// OpenShift router, and `nginx`, `openresty`, `haproxy` or `envoy` images. A plain proxy
    /// image is an edge proxy only on evidence that it receives outside traffic: a
    /// `LoadBalancer` or `NodePort` Service selects it (a demo `nginx` web server is not one).
    /// It flags those
    /// that run at least 2 replicas (`replicas`, or the HPA's `maxReplicas`) with neither a
    /// `kubernetes.io/hostname` podAntiAffinity against their own pods (required or preferred)
    /// nor `topologySpreadConstraints`. DaemonSets run one pod per node and are not flagged.
    ///
    /// ## Why is this bad?
    /// Replicas of a proxy on the same node share that node's network stack: its
    /// `nf_conntrack` table, its ports, its NIC, and its failure. Seed 000: after a reload of a
    /// shared HAProxy cut every WebSocket at once, the reconnect wave filled the conntrack table
    /// of the ingress-nginx nodes and packets were dropped; the containment was to scale nginx
    /// out with pod anti-affinity so that replicas land on different nodes. Moonlight's outage
    /// had every replica scheduled onto the same failing host.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: ingress-nginx-controller}
    /// spec:
    ///   replicas: 3
    ///   template:
    ///     metadata: {labels: {app: ingress-nginx}}
    ///     spec:
    ///       containers:
    ///         - name: controller
    ///           image: registry.k8s.io/ingress-nginx/controller:v1.11.2
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: ingress-nginx-controller}
    /// spec:
    ///   replicas: 3
    ///   template:
    ///     metadata: {labels: {app: ingress-nginx}}
    ///     spec:
    ///       affinity:
    ///         podAntiAffinity:
    ///           preferredDuringSchedulingIgnoredDuringExecution:
    ///             - weight: 100
    ///               podAffinityTerm:
    ///                 topologyKey: kubernetes.io/hostname
    ///                 labelSelector: {matchLabels: {app: ingress-nginx}}
    ///       containers:
    ///         - name: controller
    ///           image: registry.k8s.io/ingress-nginx/controller:v1.11.2
    /// ```
    ///
    /// ## Peers
    /// kube-score `deployment-has-host-podantiaffinity` and kube-linter `no-anti-affinity` ask
    /// every multi-replica workload for anti-affinity; Polaris `topologySpreadConstraint` asks
    /// for spread constraints. kubegap asks it of proxies, where a shared node also shares a
    /// conntrack table, and accepts either form.
    pub static K8S_EDGE_PROXY_NOT_SPREAD = {
        id: "k8s-edge-proxy-not-spread",
        severity: Warning,
        domain: Kubernetes,
        summary: "an ingress controller or proxy with several replicas and no hostname anti-affinity or topology spread",
        evidence: &[
            "https://deploy.live/blog/kubernetes-networking-problems-due-to-the-conntrack/",
            "https://updates.moonlightwork.com/outage-post-mortem-87370",
            "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity",
        ],
        check: crate::rule::nothing,
        workloads: check_workloads,
    }
}

/// What kind of proxy an image runs, if it is one.
pub(crate) fn proxy_kind(image: &str) -> Option<&'static str> {
    let repo = image.split('@').next().unwrap_or(image);
    // A tag is a `:` after the last `/` (a `:` before it is a registry port).
    let last_slash = repo.rfind('/').map_or(0, |i| i + 1);
    let repo = match repo[last_slash..].find(':') {
        Some(i) => &repo[..last_slash + i],
        None => repo,
    };
    let repo = repo.to_ascii_lowercase();
    if repo.contains("ingress-nginx") || repo.contains("nginx-ingress") {
        return Some("an NGINX ingress controller");
    }
    if repo.contains("haproxy-router") {
        return Some("the OpenShift router");
    }
    if repo.contains("haproxy-ingress") || repo.contains("haproxytech/kubernetes-ingress") {
        return Some("an HAProxy ingress controller");
    }
    let name = repo.rsplit('/').next().unwrap_or(&repo);
    // `haproxy-alpine`, `nginx-unprivileged`, `envoy-distroless`: a flavour of the same proxy;
    // `nginx-prometheus-exporter` is not a proxy.
    let base = match name.split_once('-') {
        Some((base, "alpine" | "debian" | "ubuntu" | "slim" | "unprivileged" | "distroless")) => {
            base
        }
        _ => name,
    };
    match base {
        "nginx" | "openresty" => Some("nginx"),
        "haproxy" => Some("HAProxy"),
        "envoy" => Some("Envoy"),
        _ => None,
    }
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    for workload in workloads {
        if !pod::has_replicas(&cx.obj(workload.obj).kind) {
            continue;
        }
        let Some(first) = workload.containers.iter().find(|c| !c.init) else {
            continue;
        };
        let Some(image) = first.image.as_deref() else {
            continue;
        };
        let Some(proxy) = proxy_kind(image) else {
            continue;
        };
        // An ingress controller's image says it is at the edge; a plain nginx, HAProxy or Envoy
        // image is as often a web server or a sidecar, so it needs a LoadBalancer or NodePort
        // Service in front as evidence that it receives outside traffic.
        let controller = proxy.contains("ingress controller") || proxy.contains("router");
        let exposed = cx.k8s.has_external_service(workload);
        if !controller && !exposed {
            continue;
        }
        let Some((count, hpa)) = pod::max_replicas(cx.k8s, cx.documents, workload) else {
            continue;
        };
        if count < 2 || pod::is_spread(cx.k8s, cx.documents, workload) {
            continue;
        }
        let (span, origin) = match (hpa, workload.replicas) {
            (Some(hpa), _) => (
                pod::spec_key(cx.k8s, cx.documents, workload).span(),
                format!(
                    "{} may scale it to `maxReplicas: {count}`",
                    cx.describe(hpa)
                ),
            ),
            (None, Some(at)) => (cx.span(at), format!("`replicas: {count}`")),
            (None, None) => (
                pod::spec_key(cx.k8s, cx.documents, workload).span(),
                format!("{count} replicas"),
            ),
        };
        let f = sink.report(
            span,
            format!(
                "{} runs {proxy} with up to {count} replicas and nothing keeps them on different nodes",
                cx.describe(workload.obj)
            ),
        );
        if let Some(image_node) = cx.node(first.at).get("image") {
            f.label(image_node.span(), format!("{proxy} image"));
        }
        if hpa.is_some() || workload.replicas.is_none() {
            f.note(format!("replica count: {origin}"));
        }
        f.note("replicas on one node share its conntrack table, ports and failure");
        f.help("add a preferred podAntiAffinity on `kubernetes.io/hostname` against the pod's own labels, or `topologySpreadConstraints`");
    }
}

#[cfg(test)]
mod tests {
    use super::proxy_kind;

    #[test]
    fn images() {
        assert!(
            proxy_kind("registry.k8s.io/ingress-nginx/controller:v1.11.2@sha256:abc").is_some()
        );
        assert!(proxy_kind("nginx:1.25").is_some());
        assert!(proxy_kind("docker.io/library/nginx").is_some());
        assert!(proxy_kind("localhost:5000/haproxy:2.8").is_some());
        assert!(proxy_kind("envoyproxy/envoy:v1.30.1").is_some());
        assert!(proxy_kind("quay.io/openshift/origin-haproxy-router:4.14").is_some());
        assert!(proxy_kind("haproxytech/haproxy-alpine:2.8").is_some());
        assert!(proxy_kind("nginxinc/nginx-unprivileged:1.25").is_some());
        assert!(proxy_kind("nginx/nginx-prometheus-exporter:1.1").is_none());
        assert!(proxy_kind("my-registry:5000/shop/web:1").is_none());
    }
}
