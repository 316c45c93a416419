//! `k8s-grace-period-too-short`: `terminationGracePeriodSeconds` that ends before the drain does.

use crate::k8s::pod::{self, PreStop};
use crate::rule::prelude::*;
use crate::yaml::NodeRef;

declare_rule! {
    /// `terminationGracePeriodSeconds` is not longer than the preStop sleep, or is below the
    /// load balancer's deregistration delay.
    ///
    /// ## What it does
    /// Reads `terminationGracePeriodSeconds` (30 when omitted) and flags a workload when:
    /// - it is not longer than a container's preStop sleep (a `sleep` action or an exec
    ///   `sleep N`): the preStop counts against the grace period, so the application gets
    ///   SIGKILL before, or just after, it sees SIGTERM;
    /// - an AWS load balancer sends traffic straight to the pods (IP targets: an Ingress with
    ///   `alb.ingress.kubernetes.io/target-type: ip`, or a Service with
    ///   `service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip`) and the grace
    ///   period is shorter than the target group's deregistration delay
    ///   (`deregistration_delay.timeout_seconds` in the `target-group-attributes` annotation,
    ///   300 s by default): the pod is killed while the load balancer still drains it.
    ///
    /// ## Why is this bad?
    /// The drain never finishes: in-flight requests and kept-alive connections are cut with
    /// resets and the load balancer answers 502 (AWS Load Balancer Controller issue 3270:
    /// traffic still reaches deregistering pods; GKE NEG troubleshooting: 502s when the pod is
    /// terminated before connections are closed). It defeats the preStop sleep that
    /// `k8s-no-prestop-drain` asks for.
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
    ///       terminationGracePeriodSeconds: 20
    ///       containers:
    ///         - name: web
    ///           image: example/web:1.0
    ///           lifecycle: {preStop: {sleep: {seconds: 20}}}
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
    ///       terminationGracePeriodSeconds: 45
    ///       containers:
    ///         - name: web
    ///           image: example/web:1.0
    ///           lifecycle: {preStop: {sleep: {seconds: 20}}}
    /// ```
    ///
    /// ## Peers
    /// None.
    pub static K8S_GRACE_PERIOD_TOO_SHORT = {
        id: "k8s-grace-period-too-short",
        severity: Warning,
        domain: Kubernetes,
        summary: "terminationGracePeriodSeconds not above the preStop sleep, or below the load balancer's deregistration delay",
        evidence: &[
            "https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/3270",
            "https://cloud.google.com/kubernetes-engine/docs/troubleshooting/load-balancing",
            "https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/#hook-handler-execution",
        ],
        check: check,
    }
}

/// AWS target groups' default deregistration delay, in seconds.
const DEFAULT_DEREGISTRATION_DELAY: i64 = 300;

/// An annotation value of an object, as a node.
fn annotation<'a>(object: NodeRef<'a>, key: &str) -> Option<NodeRef<'a>> {
    object.path(&["metadata", "annotations", key])
}

/// `deregistration_delay.timeout_seconds=N` in a target-group-attributes annotation.
fn deregistration_delay(attributes: &str) -> Option<i64> {
    attributes.split(',').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k.trim() == "deregistration_delay.timeout_seconds")
            .then(|| v.trim().parse().ok())
            .flatten()
    })
}

/// The deregistration delay of an AWS IP-target load balancer in front of the pods: seconds, the
/// node to label (annotation value or target-type value), and the exposing object.
fn lb_delay<'a>(
    cx: &Context<'a>,
    links: &pod::Links<'_>,
    workload: &crate::k8s::Workload,
) -> Option<(i64, NodeRef<'a>, crate::k8s::ObjId, bool)> {
    for exposure in pod::exposures(cx.k8s, cx.documents, links, workload) {
        let object = cx.node(cx.obj(exposure.obj).at);
        let (target_key, attrs_key) = if exposure.obj == exposure.service {
            (
                "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type",
                "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes",
            )
        } else if cx.obj(exposure.obj).kind == "Ingress" {
            (
                "alb.ingress.kubernetes.io/target-type",
                "alb.ingress.kubernetes.io/target-group-attributes",
            )
        } else {
            continue;
        };
        // The controller also reads these annotations from the Service of an Ingress backend.
        let service = cx.node(cx.obj(exposure.service).at);
        let find = |key: &str| annotation(object, key).or_else(|| annotation(service, key));
        let Some(target) = find(target_key).filter(|t| t.as_str() == Some("ip")) else {
            continue;
        };
        return Some(
            match find(attrs_key)
                .and_then(|a| a.as_str().and_then(deregistration_delay).map(|d| (d, a)))
            {
                Some((delay, node)) => (delay, node, exposure.obj, true),
                None => (DEFAULT_DEREGISTRATION_DELAY, target, exposure.obj, false),
            },
        );
    }
    None
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let links = pod::Links::new(cx.k8s);
    for workload in &cx.k8s.workloads {
        if matches!(cx.obj(workload.obj).kind.as_str(), "Job" | "CronJob") {
            continue;
        }
        let spec = pod::pod_spec(cx.k8s, cx.documents, workload);
        let (grace, grace_node) = pod::grace_period(spec);
        let grace_origin = match grace_node {
            Some(n) => format!(
                "`terminationGracePeriodSeconds: {grace}` ({})",
                cx.cite(n.span())
            ),
            None => format!("`terminationGracePeriodSeconds` defaults to {grace}s"),
        };
        let describe = cx.describe(workload.obj);
        for container in workload.containers.iter().filter(|c| !c.init) {
            let Some(PreStop::Sleep(sleep, sleep_node)) = pod::pre_stop(cx.node(container.at))
            else {
                continue;
            };
            if sleep <= 0 || grace > sleep {
                continue;
            }
            let span = grace_node.map_or_else(|| sleep_node.span(), |n| n.span());
            let f = sink.report(
                span,
                format!(
                    "{describe} is killed {grace}s after termination starts, but the preStop of container `{}` sleeps {sleep}s, leaving no time to drain",
                    container.name
                ),
            );
            if grace_node.is_some() {
                f.label(sleep_node.span(), format!("preStop sleeps {sleep}s"));
            }
            if grace_node.is_none() {
                f.note(grace_origin.clone());
            }
            f.help(format!(
                "set `terminationGracePeriodSeconds` above the preStop sleep plus the application's own drain, e.g. {}",
                sleep + 15
            ));
        }
        let Some((delay, node, lb, written)) = lb_delay(cx, &links, workload) else {
            continue;
        };
        if grace >= delay {
            continue;
        }
        let span = grace_node.map_or_else(
            || {
                let template = cx.node(workload.template);
                template
                    .get_entry("spec")
                    .map_or_else(|| cx.span(workload.template), |(k, _)| k.span())
            },
            |n| n.span(),
        );
        let source = if written {
            format!("deregistration delay {delay}s")
        } else {
            format!("IP targets; the deregistration delay defaults to {delay}s")
        };
        let f = sink.report(
            span,
            format!(
                "{describe} is killed {grace}s after termination starts, but {} keeps draining its pods for {delay}s",
                cx.describe(lb)
            ),
        );
        f.label(node.span(), source);
        if grace_node.is_none() {
            f.note(grace_origin);
        }
        f.help("lower the target group's `deregistration_delay.timeout_seconds` below the grace period, or raise `terminationGracePeriodSeconds` above it");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn delay_attribute() {
        assert_eq!(
            super::deregistration_delay(
                "stickiness.enabled=true, deregistration_delay.timeout_seconds=30"
            ),
            Some(30)
        );
        assert_eq!(super::deregistration_delay("stickiness.enabled=true"), None);
    }
}
