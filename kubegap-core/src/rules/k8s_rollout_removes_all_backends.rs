//! `k8s-rollout-removes-all-backends`: a Service-targeted workload whose rollout can stop every
//! pod at once.

use crate::k8s::pod::{self, Amount};
use crate::rule::prelude::*;

declare_rule! {
    /// A workload that a Service targets can lose every backend at once during a rollout.
    ///
    /// ## What it does
    /// For each Deployment, StatefulSet or DeploymentConfig that a Service in the input selects,
    /// reads the update strategy and the replica count (the HPA's `minReplicas` when an HPA
    /// scales the workload; `replicas` defaults to 1) and flags:
    /// - `strategy: Recreate`, which stops every old pod before starting a new one, except
    ///   for a single replica that mounts a ReadWriteOnce claim (or a claim not in the input),
    ///   where `Recreate` is required: a rolling update would wait for the volume;
    /// - a written `maxUnavailable` that reaches the replica count (`100%`, or `2` with
    ///   `replicas: 2`);
    /// - a single replica (reported as info): an eviction, a node drain or a crash leaves the
    ///   Service without endpoints (the default rolling update surges the new pod first, so
    ///   it is not the rollout itself).
    ///
    /// ## Why is this bad?
    /// When every backend of a Service is replaced at once, the proxies in front keep clients
    /// on connections to pods that no longer exist, and the new pods are not ready yet. Seed 002
    /// (OpenShift router): after all pods of a route were deleted and recreated, browsers on a
    /// kept-alive connection to the old HAProxy process got a 503 about 20 seconds later. Its
    /// mitigations were rolling strategies and PodDisruptionBudgets so that not all pods go at
    /// once.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   replicas: 3
    ///   strategy: {type: Recreate}
    ///   template:
    ///     metadata: {labels: {app: web}}
    ///     spec: {containers: [{name: web, image: nginx:1.25}]}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   selector: {app: web}
    ///   ports: [{port: 80}]
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   replicas: 3
    ///   strategy:
    ///     type: RollingUpdate
    ///     rollingUpdate: {maxUnavailable: 1, maxSurge: 1}
    ///   template:
    ///     metadata: {labels: {app: web}}
    ///     spec: {containers: [{name: web, image: nginx:1.25}]}
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   selector: {app: web}
    ///   ports: [{port: 80}]
    /// ```
    ///
    /// ## Peers
    /// kube-score `deployment-strategy` (Recreate on a Service-targeted Deployment) and
    /// `deployment-replicas` (fewer than 2 replicas); kube-linter `no-rolling-update-strategy`
    /// (off by default). None of them compares `maxUnavailable` with the replica count.
    pub static K8S_ROLLOUT_REMOVES_ALL_BACKENDS = {
        id: "k8s-rollout-removes-all-backends",
        severity: Warning,
        domain: Kubernetes,
        summary: "a Service-targeted workload whose rollout (Recreate, maxUnavailable) can remove every backend at once (info for a single replica)",
        evidence: &[
            "https://github.com/openshift/router/issues/654",
            "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#strategy",
        ],
        check: crate::rule::nothing,
        workloads: check_workloads,
        also_reports: [Info],
    }
}

/// (strategy type path, maxUnavailable path, default maxUnavailable) of a workload kind.
fn strategy_paths(
    kind: &str,
) -> Option<(
    &'static [&'static str],
    &'static [&'static str],
    &'static str,
)> {
    match kind {
        "Deployment" => Some((
            &["spec", "strategy", "type"],
            &["spec", "strategy", "rollingUpdate", "maxUnavailable"],
            "25%",
        )),
        "DeploymentConfig" => Some((
            &["spec", "strategy", "type"],
            &["spec", "strategy", "rollingParams", "maxUnavailable"],
            "25%",
        )),
        "StatefulSet" => Some((
            &["spec", "updateStrategy", "type"],
            &["spec", "updateStrategy", "rollingUpdate", "maxUnavailable"],
            "1",
        )),
        _ => None,
    }
}

/// Points at the replica count when it is written on the workload or its HPA, and says where
/// it came from otherwise.
fn cite_replicas(cx: &Context<'_>, f: &mut Finding, replicas: &pod::Replicas) {
    match replicas.at() {
        Some(at) => {
            f.label(cx.span(at), format!("{} replica(s)", replicas.count));
        }
        None => {
            f.note(format!("replica count: {}", replicas.origin(cx)));
        }
    }
}

/// Whether the pod mounts a PersistentVolumeClaim that only one node can attach: a claim of
/// the input whose `accessModes` are `ReadWriteOnce` or `ReadWriteOncePod`, or a claim not in
/// the input (its access mode is unknown, and ReadWriteOnce is what most storage classes give).
fn single_writer_claim(cx: &Context<'_>, workload: &crate::k8s::Workload) -> bool {
    let Some(spec) = workload.pod_spec else {
        return false;
    };
    let ns = &cx.obj(workload.obj).namespace;
    cx.node(spec)
        .get("volumes")
        .into_iter()
        .flat_map(|v| v.items())
        .filter_map(|v| v.str_at(&["persistentVolumeClaim", "claimName"]))
        .any(|claim| {
            let found = cx.k8s.find("PersistentVolumeClaim", ns, claim);
            if found.is_empty() {
                return true;
            }
            found.iter().any(|id| {
                cx.node(cx.obj(*id).at)
                    .path(&["spec", "accessModes"])
                    .into_iter()
                    .flat_map(|m| m.items())
                    .any(|m| matches!(m.as_str(), Some("ReadWriteOnce" | "ReadWriteOncePod")))
            })
        })
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    for workload in workloads {
        let kind = cx.obj(workload.obj).kind.as_str();
        let Some((type_path, max_path, default_max)) = strategy_paths(kind) else {
            continue;
        };
        let Some((service, replicas)) = pod::served_replicas(cx.k8s, cx.documents, workload) else {
            continue;
        };
        if replicas.count < 1 {
            // Scaled to zero on purpose: there is nothing to keep up.
            continue;
        }
        let object = cx.node(cx.obj(workload.obj).at);
        // Formatted and located only for a finding.
        let describe = || cx.describe(workload.obj);
        let via = || format!("{} sends traffic to these pods", cx.describe(service.obj));
        let selector = || pod::service_selector_span(cx, service);

        // `Recreate` is required, not risky, for a single replica that mounts a volume only
        // one node can attach (ReadWriteOnce): a rolling update would wait on the attachment.
        let recreate_required = replicas.count == 1 && single_writer_claim(cx, workload);
        if let Some(strategy) = object
            .path(type_path)
            .filter(|t| t.as_str() == Some("Recreate") && !recreate_required)
        {
            let describe = describe();
            let f = sink.report(
                strategy.span(),
                format!(
                    "{describe} uses the `Recreate` strategy: a rollout stops all {} pod(s) before starting new ones",
                    replicas.count
                ),
            );
            f.label(selector(), via());
            cite_replicas(cx, f, &replicas);
            f.help("use `RollingUpdate` with `maxUnavailable` below the replica count; if two versions must not run together, add a PodDisruptionBudget and accept a short overlap window elsewhere");
            continue;
        }
        if let Some(max) = object.path(max_path) {
            if let Some(amount) = Amount::parse(max) {
                // Deployments round a percentage of unavailable pods down.
                let unavailable = amount.scaled(replicas.count, false);
                if unavailable >= replicas.count {
                    let describe = describe();
                    let f = sink.report(
                        max.span(),
                        format!(
                            "`maxUnavailable: {amount}` lets a rollout of {describe} take down {unavailable} of {} pod(s), every backend at once",
                            replicas.count
                        ),
                    );
                    f.label(selector(), via());
                    cite_replicas(cx, f, &replicas);
                    f.help(format!(
                        "lower `maxUnavailable` below the replica count (the default is {default_max}) and let `maxSurge` add capacity instead"
                    ));
                    continue;
                }
            }
        }
        if replicas.count == 1 {
            let span = replicas.at().map_or_else(
                || pod::spec_key(cx.k8s, cx.documents, workload).span(),
                |at| cx.span(at),
            );
            let describe = describe();
            let f = sink.report(
                span,
                format!("{describe} runs a single replica, so an eviction, a node drain or a crash leaves {} without a backend", cx.describe(service.obj)),
            );
            f.severity(Severity::Info).label(selector(), via());
            if replicas.at().is_none()
                || matches!(replicas.source, pod::ReplicaSource::HpaMin { .. })
            {
                f.note(format!("replica count: {}", replicas.origin(cx)));
            }
            f.note("the default rolling update starts the new pod first (`maxSurge` rounds up to 1, `maxUnavailable` down to 0), so rollouts themselves keep a backend");
            f.help("run at least 2 replicas (or `minReplicas: 2` on its HPA)");
        }
    }
}
