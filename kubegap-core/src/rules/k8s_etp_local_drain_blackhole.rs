//! `k8s-etp-local-drain-blackhole`: `externalTrafficPolicy: Local` in front of pods that may
//! all sit on one node.

use crate::k8s::pod;
use crate::rule::prelude::*;

declare_rule! {
    /// `externalTrafficPolicy: Local` in front of pods that are not spread over nodes.
    ///
    /// ## What it does
    /// For each `type: LoadBalancer` Service with `externalTrafficPolicy: Local`, flags the
    /// workloads it selects that have neither a `kubernetes.io/hostname` podAntiAffinity
    /// against their own pods nor `topologySpreadConstraints`. DaemonSets run on every node and
    /// are not flagged.
    ///
    /// ## Why is this bad?
    /// With `Local`, the cloud load balancer sends traffic only to nodes that run a ready
    /// endpoint, found through a health-check node port; a node with no endpoint drops what it
    /// still gets. When the pods are packed on a few nodes, draining one of them removes most
    /// endpoints at once, and the load balancer keeps sending to that node until its health
    /// check fails. DevOps Hof, "Beware when draining nodes": ingress pods with
    /// `externalTrafficPolicy: Local` left the load balancer without a healthy node, a total
    /// ingress outage.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: edge}
    /// spec:
    ///   replicas: 2
    ///   template:
    ///     metadata: {labels: {app: edge}}
    ///     spec: {containers: [{name: edge, image: example/edge:1.0}]}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: edge}
    /// spec:
    ///   type: LoadBalancer
    ///   externalTrafficPolicy: Local
    ///   selector: {app: edge}
    ///   ports: [{port: 443}]
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: edge}
    /// spec:
    ///   replicas: 2
    ///   template:
    ///     metadata: {labels: {app: edge}}
    ///     spec:
    ///       topologySpreadConstraints:
    ///         - maxSkew: 1
    ///           topologyKey: kubernetes.io/hostname
    ///           whenUnsatisfiable: ScheduleAnyway
    ///           labelSelector: {matchLabels: {app: edge}}
    ///       containers: [{name: edge, image: example/edge:1.0}]
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: edge}
    /// spec:
    ///   type: LoadBalancer
    ///   externalTrafficPolicy: Local
    ///   selector: {app: edge}
    ///   ports: [{port: 443}]
    /// ```
    ///
    /// ## Peers
    /// None.
    pub static K8S_ETP_LOCAL_DRAIN_BLACKHOLE = {
        id: "k8s-etp-local-drain-blackhole",
        severity: Info,
        domain: Kubernetes,
        summary: "a LoadBalancer Service with externalTrafficPolicy Local in front of pods that are not spread over nodes",
        evidence: &[
            "https://www.devops-hof.de/kubernetes-load-balancer-konfiguration-beware-when-draining-nodes/",
            "https://kubernetes.io/docs/reference/networking/virtual-ips/#traffic-policies",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for service in &cx.k8s.services {
        if service.service_type != "LoadBalancer" {
            continue;
        }
        let Some(policy) = cx
            .node(cx.obj(service.obj).at)
            .path(&["spec", "externalTrafficPolicy"])
            .filter(|p| p.as_str() == Some("Local"))
        else {
            continue;
        };
        for workload in cx.k8s.service_targets(service) {
            let kind = cx.obj(workload.obj).kind.as_str();
            if kind == "DaemonSet" || pod::is_spread(cx.k8s, cx.documents, workload) {
                continue;
            }
            let replicas = pod::written_replicas(cx.k8s, cx.documents, workload);
            let label_span = replicas
                .and_then(|r| r.at())
                .map_or_else(|| cx.span(workload.template), |at| cx.span(at));
            let f = sink.report(
                policy.span(),
                format!(
                    "{} keeps external traffic on nodes that run its pods, but nothing spreads the pods of {} over nodes",
                    cx.describe(service.obj),
                    cx.describe(workload.obj)
                ),
            );
            f.label(label_span, "no hostname anti-affinity or topology spread");
            if let Some(r) = replicas.filter(|r| r.at().is_none()) {
                f.note(format!("replica count: {}", r.origin(cx)));
            }
            f.note("draining a node that holds most of the pods leaves the load balancer sending to a node without endpoints until its health check fails");
            f.help("spread the pods (`topologySpreadConstraints` on `kubernetes.io/hostname`, or preferred anti-affinity), or use `externalTrafficPolicy: Cluster` if the client source IP is not needed");
        }
    }
}
