//! `k8s-no-readiness-probe-behind-service`: a serving container of a Service-targeted pod
//! without a readinessProbe.

use crate::k8s::pod;
use crate::rule::prelude::*;

declare_rule! {
    /// A container of a pod that a Service targets has no readinessProbe.
    ///
    /// ## What it does
    /// For each workload that a Service in the input sends user traffic to, flags the
    /// containers without a `readinessProbe` when no container of the pod has one. A pod is an
    /// endpoint only once every container is ready, so one probed container keeps it out until
    /// its probe passes: its unprobed neighbours (sidecars) are not flagged. Services whose
    /// ports all serve metrics (`metrics`, `http-metrics`, `prometheus`…, by name or named
    /// `targetPort`) send no user traffic and are not evidence. A workload that a kustomize patch
    /// written close to it gives probes (a file listed under `patches`, or a partial definition
    /// of the same workload) is not checked: the probe may be added there.
    /// Init containers are ignored.
    ///
    /// ## Why is this bad?
    /// Without a readiness probe a pod is added to the Service's endpoints as soon as its
    /// containers start, before the application listens; during every rollout and scale-up the
    /// load balancer and ingress send requests to pods that refuse them (502s at startup, as in
    /// GitLab's workhorse polling rails before it was ready). With several replicas replaced
    /// at once this is how a rollout takes all working backends away (seed 002).
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   replicas: 2
    ///   template:
    ///     metadata: {labels: {app: web}}
    ///     spec:
    ///       containers:
    ///         - name: web
    ///           image: nginx:1.25
    ///           ports: [{name: http, containerPort: 8080}]
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   selector: {app: web}
    ///   ports: [{port: 80, targetPort: http}]
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   replicas: 2
    ///   template:
    ///     metadata: {labels: {app: web}}
    ///     spec:
    ///       containers:
    ///         - name: web
    ///           image: nginx:1.25
    ///           ports: [{name: http, containerPort: 8080}]
    ///           readinessProbe: {httpGet: {path: /ready, port: http}}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   selector: {app: web}
    ///   ports: [{port: 80, targetPort: http}]
    /// ```
    ///
    /// ## Peers
    /// kube-score `pod-probes` (only for Service-targeted pods, as here); Polaris
    /// `readinessProbeMissing` and kube-linter `no-readiness-probe` (off by default) flag every
    /// pod, targeted or not.
    pub static K8S_NO_READINESS_PROBE_BEHIND_SERVICE = {
        id: "k8s-no-readiness-probe-behind-service",
        severity: Warning,
        domain: Kubernetes,
        summary: "a container of a Service-targeted pod has no readinessProbe, so it gets traffic before it is ready",
        evidence: &[
            "https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/#readiness-probe",
            "https://github.com/zegl/kube-score/blob/master/README_PROBES.md",
        ],
        check: crate::rule::nothing,
        workloads: check_workloads,
    }
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    for workload in workloads {
        // A kustomize patch beside its base may add the probe.
        if workload.patched.probes {
            continue;
        }
        // Metrics-only Services send no user traffic.
        let Some(service) = cx.k8s.first_traffic_service(workload) else {
            continue;
        };
        let containers: Vec<_> = workload.containers.iter().filter(|c| !c.init).collect();
        let has_readiness =
            |c: &&crate::k8s::Container| cx.node(c.at).get("readinessProbe").is_some();
        let any_ready = containers.iter().any(has_readiness);
        // A pod is an endpoint only when every container is ready: one probed container
        // keeps the whole pod out until it passes, so its unprobed neighbours do not make the
        // pod an endpoint early.
        if any_ready {
            continue;
        }
        for container in &containers {
            let node = cx.node(container.at);
            let span = node
                .get("name")
                .map_or_else(|| cx.span(container.at), |n| n.span());
            let f = sink.report(
                span,
                format!(
                    "container `{}` of {} has no readinessProbe, but {} sends it traffic",
                    container.name,
                    cx.describe(workload.obj),
                    cx.describe(service.obj)
                ),
            );
            f.label(
                pod::service_selector_span(cx, service),
                "selects these pods",
            );
            f.note(
                "without a readiness probe a pod is an endpoint as soon as its containers start",
            );
            f.help(
                "add a `readinessProbe` that succeeds only when the container can serve requests",
            );
        }
    }
}
