//! `k8s-grace-period-too-short`: `terminationGracePeriodSeconds` that ends before the drain does.

use crate::k8s::pod::{self, PreStop};
use crate::rule::prelude::*;
use crate::yaml::NodeRef;

declare_rule! {
    /// A grace period that ends before the preStop sleep or the load balancer's drain does.
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
    ///   300 s by default), or than the GKE connection draining of the BackendConfig that the
    ///   Service's `cloud.google.com/backend-config` annotation names
    ///   (`connectionDraining.drainingTimeoutSec`): the pod is killed while the load balancer
    ///   still drains it.
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
        check: crate::rule::nothing,
        workloads: check_workloads,
    }
}

/// AWS target groups' default deregistration delay, in seconds.
const DEFAULT_DEREGISTRATION_DELAY: i64 = 300;

/// `deregistration_delay.timeout_seconds=N` in a target-group-attributes annotation.
fn deregistration_delay(attributes: &str) -> Option<i64> {
    attributes.split(',').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k.trim() == "deregistration_delay.timeout_seconds")
            .then(|| v.trim().parse().ok())
            .flatten()
    })
}

/// How long a load balancer in front of the pods keeps draining a removed pod.
#[derive(Clone)]
struct Drain<'a> {
    /// Seconds.
    seconds: i64,
    /// The node to label (annotation value, target type, or BackendConfig field).
    node: NodeRef<'a>,
    /// What the label says.
    label: String,
    /// The exposing object.
    lb: crate::k8s::ObjId,
    /// What to change, for the help.
    knob: &'static str,
}

/// GKE connection draining: the `drainingTimeoutSec` of the BackendConfig that a Service's
/// `cloud.google.com/backend-config` annotation names (`{"default": NAME}` or `{"ports": {…}}`).
fn gke_draining<'a>(
    cx: &Context<'a>,
    service: crate::k8s::ObjId,
) -> Option<(i64, NodeRef<'a>, String)> {
    let text = cx
        .annotation(service, "cloud.google.com/backend-config")
        .or_else(|| cx.annotation(service, "beta.cloud.google.com/backend-config"))?
        .1
        .as_str()?;
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut names: Vec<&str> = value
        .get("default")
        .and_then(|v| v.as_str())
        .into_iter()
        .collect();
    if let Some(ports) = value.get("ports").and_then(|p| p.as_object()) {
        names.extend(ports.values().filter_map(|v| v.as_str()));
    }
    let namespace = &cx.obj(service).namespace;
    names
        .into_iter()
        .filter_map(|name| {
            let id = *cx.k8s.find("BackendConfig", namespace, name).first()?;
            let node = cx.node(cx.obj(id).at).path(&[
                "spec",
                "connectionDraining",
                "drainingTimeoutSec",
            ])?;
            Some((
                node.as_i64()?,
                node,
                format!("connection draining of BackendConfig `{name}`"),
            ))
        })
        .max_by_key(|(seconds, _, _)| *seconds)
}

/// The longest known drain of a load balancer in front of the pods: AWS IP targets
/// (deregistration delay, default 300 s) or GKE connection draining.
fn lb_delay<'a>(cx: &Context<'a>, workload: &crate::k8s::Workload) -> Option<pod::Drain> {
    let mut best: Option<Drain<'a>> = None;
    for exposure in pod::exposures(cx.k8s, cx.documents, workload) {
        if let Some((seconds, node, label)) = gke_draining(cx, exposure.service) {
            if best.as_ref().is_none_or(|b| seconds > b.seconds) {
                best = Some(Drain {
                    seconds,
                    node,
                    label: format!("{label}: {seconds}s"),
                    lb: exposure.obj,
                    knob: "`connectionDraining.drainingTimeoutSec`",
                });
            }
        }
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
        let find = |key: &str| {
            cx.annotation(exposure.obj, key)
                .or_else(|| cx.annotation(exposure.service, key))
                .map(|(_, value)| value)
        };
        let Some(target) = find(target_key).filter(|t| t.as_str() == Some("ip")) else {
            continue;
        };
        let drain = match find(attrs_key)
            .and_then(|a| a.as_str().and_then(deregistration_delay).map(|d| (d, a)))
        {
            Some((seconds, node)) => Drain {
                seconds,
                node,
                label: format!("deregistration delay {seconds}s"),
                lb: exposure.obj,
                knob: "the target group's `deregistration_delay.timeout_seconds`",
            },
            None => Drain {
                seconds: DEFAULT_DEREGISTRATION_DELAY,
                node: target,
                label: format!(
                    "IP targets; the deregistration delay defaults to {DEFAULT_DEREGISTRATION_DELAY}s"
                ),
                lb: exposure.obj,
                knob: "the target group's `deregistration_delay.timeout_seconds`",
            },
        };
        if best.as_ref().is_none_or(|b| drain.seconds > b.seconds) {
            best = Some(drain);
        }
    }
    best.map(|d| pod::Drain {
        seconds: d.seconds,
        span: d.node.span(),
        label: d.label,
        lb: d.lb,
        knob: d.knob,
    })
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    for workload in workloads {
        if matches!(cx.obj(workload.obj).kind.as_str(), "Job" | "CronJob") {
            continue;
        }
        let spec = pod::pod_spec(cx.k8s, cx.documents, workload);
        let (grace, grace_node) = pod::grace_period(spec);
        // Formatted only for a finding.
        let grace_origin = || match grace_node {
            Some(n) => format!(
                "`terminationGracePeriodSeconds: {grace}` ({})",
                cx.cite(n.span())
            ),
            None => format!("`terminationGracePeriodSeconds` defaults to {grace}s"),
        };
        let describe = || cx.describe(workload.obj);
        for container in workload.containers.iter().filter(|c| !c.init) {
            let Some(PreStop::Sleep(sleep, sleep_node)) = pod::pre_stop(cx.node(container.at))
            else {
                continue;
            };
            if sleep <= 0 || grace > sleep {
                continue;
            }
            let span = grace_node.map_or_else(|| sleep_node.span(), |n| n.span());
            let describe = describe();
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
                f.note(grace_origin());
            }
            f.help(format!(
                "set `terminationGracePeriodSeconds` above the preStop sleep plus the application's own drain, e.g. {}",
                sleep + 15
            ));
        }
        let Some(list) = cx.k8s.selector_list(workload) else {
            continue;
        };
        // The load balancer's drain depends only on the Services selecting the workload: once
        // per list of them, kept by the graph (copies of a release share one list as long as
        // the stream, and N routes to N workloads under one label one list of 3N exposures).
        let Some(drain) = cx.k8s.drain_of(list, || lb_delay(cx, workload)) else {
            continue;
        };
        let delay = drain.seconds;
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
        let describe = describe();
        let f = sink.report(
            span,
            format!(
                "{describe} is killed {grace}s after termination starts, but {} keeps draining its pods for {delay}s",
                cx.describe(drain.lb)
            ),
        );
        f.label(drain.span, drain.label.clone());
        if grace_node.is_none() {
            f.note(grace_origin());
        }
        f.help(format!(
            "lower {} below the grace period, or raise `terminationGracePeriodSeconds` above it",
            drain.knob
        ));
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
