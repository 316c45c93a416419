//! `k8s-no-prestop-drain`: a workload behind a load balancer or ingress that gets SIGTERM while
//! it is still an endpoint.

use crate::k8s::pod::{self, PreStop};
use crate::rule::prelude::*;
use crate::yaml::NodeRef;

declare_rule! {
    /// A load-balanced container with no preStop sleep to wait for endpoint removal.
    ///
    /// ## What it does
    /// For each workload that a LoadBalancer Service, or an Ingress or Route through its
    /// Service, sends traffic to, flags serving containers without a preStop hook, or with a
    /// `sleep` of 0 seconds. Serving containers are those that declare ports (all containers
    /// when none does). A `sleep` action or an exec command that runs `sleep N` is a drain.
    /// Any other hook (`nginx -s quit`, a script, an HTTP call) is reported as info: kubegap
    /// cannot see whether it waits. ingress-nginx's `/wait-shutdown` is known to wait, and
    /// Istio's sidecar and gateway image (`proxyv2`) drains itself on SIGTERM (pilot-agent's
    /// `terminationDrainDuration`), so it is not flagged.
    ///
    /// ## Why is this bad?
    /// When a pod is deleted, the kubelet's SIGTERM and the removal of the pod from endpoints,
    /// kube-proxy rules, ingress controllers and cloud load balancer target groups happen at the
    /// same time, not one after the other. A container that exits on SIGTERM still receives
    /// requests for a few seconds, and they fail with 502 or 503 on every rollout and scale-down
    /// (Ravelin, "Kubernetes' dirty endpoint secret and Ingress"; GKE NEG troubleshooting). A
    /// preStop sleep keeps the old pod serving until the load balancers have caught up.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: web}}
    ///     spec:
    ///       containers:
    ///         - name: web
    ///           image: example/web:1.0
    ///           ports: [{containerPort: 8080}]
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   type: LoadBalancer
    ///   selector: {app: web}
    ///   ports: [{port: 80, targetPort: 8080}]
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   template:
    ///     metadata: {labels: {app: web}}
    ///     spec:
    ///       containers:
    ///         - name: web
    ///           image: example/web:1.0
    ///           ports: [{containerPort: 8080}]
    ///           lifecycle: {preStop: {sleep: {seconds: 15}}}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   type: LoadBalancer
    ///   selector: {app: web}
    ///   ports: [{port: 80, targetPort: 8080}]
    /// ```
    ///
    /// The `sleep` action needs Kubernetes 1.30 (beta, on by default); on older clusters use
    /// `exec: {command: [sleep, "15"]}`.
    ///
    /// ## Peers
    /// None by default. Datree had `CONTAINERS_MISSING_PRESTOP_KEY` (off, presence only, for
    /// every container).
    pub static K8S_NO_PRESTOP_DRAIN = {
        id: "k8s-no-prestop-drain",
        severity: Warning,
        domain: Kubernetes,
        summary: "a workload behind a load balancer or ingress without a preStop sleep, so SIGTERM races endpoint removal",
        evidence: &[
            "https://philpearl.github.io/post/k8s_ingress/",
            "https://cloud.google.com/kubernetes-engine/docs/troubleshooting/load-balancing",
            "https://www.kubernetes.dev/resources/keps/3960/",
        ],
        check: crate::rule::nothing,
        workloads: check_workloads,
        also_reports: [Info],
    }
}

/// A serving container's preStop, as far as this rule goes.
enum Hook<'a> {
    /// No preStop.
    Missing,
    /// `sleep: {seconds: 0}` or `sleep 0`.
    ZeroSleep(NodeRef<'a>),
    /// A hook that does not sleep: what it runs, and the node to point at.
    NoSleep(String, NodeRef<'a>),
}

/// Drain helpers that wait for endpoint removal themselves.
const WAITING_HELPERS: &[&str] = &["/wait-shutdown"];

/// A preStop hook that is neither a sleep action nor an exec sleep: what it runs and where.
/// `None` for known helpers that wait (ingress-nginx's `/wait-shutdown`).
fn other_hook(hook: NodeRef<'_>) -> Option<(String, NodeRef<'_>)> {
    if let Some(command) = hook.path(&["exec", "command"]) {
        let words: Vec<&str> = command.items().filter_map(|w| w.as_str()).collect();
        if words
            .iter()
            .any(|w| WAITING_HELPERS.iter().any(|h| w.contains(h)))
        {
            return None;
        }
        let text = words.join(" ");
        let text: String = text.chars().take(60).collect();
        return Some((format!("`{text}`"), command));
    }
    if let Some((key, _)) = hook.get_entry("httpGet") {
        return Some(("an HTTP call".to_string(), key));
    }
    Some(("a hook".to_string(), hook))
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    for workload in workloads {
        let kind = cx.obj(workload.obj).kind.as_str();
        if matches!(kind, "Job" | "CronJob") {
            continue;
        }
        // Made once for each list of selecting Services (copies of a release share one).
        let Some(exposure) = pod::exposures(cx.k8s, cx.documents, workload).first() else {
            continue;
        };
        let containers: Vec<_> = workload.containers.iter().filter(|c| !c.init).collect();
        let any_ports = containers.iter().any(|c| !c.ports.is_empty());
        for container in containers {
            if any_ports && container.ports.is_empty() {
                continue;
            }
            // Istio's sidecar (`proxyv2`) drains itself on SIGTERM: pilot-agent keeps serving
            // for `terminationDrainDuration` (5s by default) before Envoy stops.
            if container
                .image
                .as_deref()
                .is_some_and(|i| crate::controllers::image_repository(i).ends_with("/proxyv2"))
            {
                continue;
            }
            let node = cx.node(container.at);
            let hook = match pod::pre_stop(node) {
                None => Hook::Missing,
                Some(PreStop::Sleep(0, n)) => Hook::ZeroSleep(n),
                Some(PreStop::Sleep(..)) => continue,
                Some(PreStop::Other(hook)) => match other_hook(hook) {
                    Some((what, n)) => Hook::NoSleep(what, n),
                    None => continue,
                },
            };
            let exposed_by = if exposure.obj == exposure.service {
                format!("{} (type LoadBalancer)", cx.describe(exposure.obj))
            } else {
                format!(
                    "{} through {}",
                    cx.describe(exposure.obj),
                    cx.describe(exposure.service)
                )
            };
            let name_span = node
                .get("name")
                .map_or_else(|| cx.span(container.at), |n| n.span());
            let hint_only = matches!(hook, Hook::NoSleep(..));
            let (span, message) = match hook {
                Hook::ZeroSleep(n) => (
                    n.span(),
                    format!(
                        "the preStop of container `{}` of {} sleeps 0s, so it gets SIGTERM while {exposed_by} still sends it requests",
                        container.name,
                        cx.describe(workload.obj)
                    ),
                ),
                Hook::NoSleep(what, n) => (
                    n.span(),
                    format!(
                        "the preStop of container `{}` of {} runs {what} and does not sleep, so it may stop serving while {exposed_by} still sends it requests",
                        container.name,
                        cx.describe(workload.obj)
                    ),
                ),
                Hook::Missing => (
                    name_span,
                    format!(
                        "container `{}` of {} has no preStop drain, so it gets SIGTERM while {exposed_by} still sends it requests",
                        container.name,
                        cx.describe(workload.obj)
                    ),
                ),
            };
            let f = sink.report(span, message);
            if hint_only {
                // kubegap cannot see inside a script: a hint, not a warning.
                f.severity(Severity::Info);
            }
            f.label(cx.span(exposure.at), "sends traffic to these pods")
                .note("endpoint removal and SIGTERM happen in parallel; in-flight and new requests get 502/503")
                .help("add `lifecycle: {preStop: {sleep: {seconds: 15}}}` (Kubernetes 1.30+) or an exec `sleep`, and keep `terminationGracePeriodSeconds` above it");
        }
    }
}
