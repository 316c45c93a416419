//! `k8s-risky-liveness-probe`: liveness probes that restart healthy containers.

use crate::k8s::pod;
use crate::rule::prelude::*;
use crate::yaml::NodeRef;

declare_rule! {
    /// A liveness probe that is identical to the readiness probe, or that kills a slow starter.
    ///
    /// ## What it does
    /// For each container with a `livenessProbe`, flags:
    /// - a probe handler (`httpGet`, `tcpSocket`, `grpc` or `exec`) identical to the
    ///   `readinessProbe`'s: the same check decides both "stop sending traffic" and "restart";
    /// - with no `startupProbe`, a liveness budget (`initialDelaySeconds` + `failureThreshold` ×
    ///   `periodSeconds`, defaults 0 + 3 × 10 s) that ends before the readiness probe even
    ///   starts (`readinessProbe.initialDelaySeconds`): the container is restarted before the
    ///   time its own readiness probe says it needs to start.
    ///
    /// ## Why is this bad?
    /// When an endpoint that also checks dependencies fails under load, a shared probe makes
    /// the kubelet restart every replica at once instead of taking them out of rotation, and
    /// the restarts add load: a cascade (Zalando, "Kubernetes liveness probes are dangerous";
    /// kube-score README_PROBES). A liveness budget shorter than startup puts a slow starter in
    /// a crash loop, so a rollout never gets a ready pod and the old ones are all that serve.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: v1
    /// kind: Pod
    /// metadata: {name: web}
    /// spec:
    ///   containers:
    ///     - name: web
    ///       image: nginx:1.25
    ///       readinessProbe: {httpGet: {path: /health, port: 8080}}
    ///       livenessProbe: {httpGet: {path: /health, port: 8080}}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: Pod
    /// metadata: {name: web}
    /// spec:
    ///   containers:
    ///     - name: web
    ///       image: nginx:1.25
    ///       readinessProbe: {httpGet: {path: /ready, port: 8080}}
    ///       livenessProbe: {httpGet: {path: /alive, port: 8080}}
    /// ```
    ///
    /// ## Peers
    /// kube-score `pod-probes-identical` (the first case). No peer checks the startup budget.
    pub static K8S_RISKY_LIVENESS_PROBE = {
        id: "k8s-risky-liveness-probe",
        severity: Info,
        domain: Kubernetes,
        summary: "a liveness probe identical to the readiness probe, or one that kills slow starters",
        evidence: &[
            "https://srcco.de/posts/kubernetes-liveness-probes-are-dangerous.html",
            "https://github.com/zegl/kube-score/blob/master/README_PROBES.md",
            "https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/",
        ],
        check: crate::rule::nothing,
        workloads: check_workloads,
    }
}

/// A step from a node to one of its children in [`walk`].
enum Step<'k> {
    Key(&'k str),
    Index(usize),
}

/// Walks a probe's scalars with an explicit bounded stack: `child` makes a child's path from
/// its parent's (so a walk that only wants the values keeps `()` and formats nothing), `leaf`
/// receives each scalar with its path, and `…` past the bounds (probes are shallow; anything
/// deeper is not worth comparing).
fn walk<'n, P>(
    node: NodeRef<'n>,
    root: P,
    child: impl Fn(&P, Step<'_>) -> P,
    mut leaf: impl FnMut(P, &'n str),
) {
    let mut stack = vec![(root, node, 0usize)];
    let mut leaves = 0usize;
    while let Some((path, n, depth)) = stack.pop() {
        if depth > 16 || leaves > 1000 {
            leaf(path, "…");
            leaves += 1;
            continue;
        }
        if n.is_map() {
            for (k, v) in n.entries() {
                let key = k.as_str().unwrap_or("?");
                stack.push((child(&path, Step::Key(key)), v, depth + 1));
            }
        } else if let Some(s) = n.as_str() {
            leaf(path, s);
            leaves += 1;
        } else {
            for (i, item) in n.items().enumerate() {
                stack.push((child(&path, Step::Index(i)), item, depth + 1));
            }
        }
    }
}

/// Leaves of a node as (path, scalar) pairs, sorted.
fn leaves(node: NodeRef<'_>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk(
        node,
        String::new(),
        |path, step| match step {
            Step::Key(key) => format!("{path}.{key}"),
            Step::Index(i) => format!("{path}[{i}]"),
        },
        |path, s| out.push((path, s.to_string())),
    );
    out.sort();
    out
}

/// The scalar values of [`leaves`] (the same walk), without their paths, sorted: probes whose
/// values differ cannot have the same leaves, and comparing these first spares formatting
/// every path of two probes that differ (most of them).
fn leaf_values(node: NodeRef<'_>) -> Vec<&str> {
    let mut out = Vec::new();
    walk(node, (), |_, _| (), |(), s| out.push(s));
    out.sort_unstable();
    out
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    for workload in workloads {
        for container in workload.containers.iter().filter(|c| !c.init) {
            let node = cx.node(container.at);
            let Some((live_key, liveness)) = node.get_entry("livenessProbe") else {
                continue;
            };
            let readiness_entry = node.get_entry("readinessProbe");
            // Formatted only for a finding.
            let describe = || {
                format!(
                    "container `{}` of {}",
                    container.name,
                    cx.describe(workload.obj)
                )
            };
            if let Some((ready_key, readiness)) = readiness_entry {
                if let (Some((lh, lnode)), Some((rh, rnode))) =
                    (pod::probe_handler(liveness), pod::probe_handler(readiness))
                {
                    if lh == rh
                        && leaf_values(lnode) == leaf_values(rnode)
                        && leaves(lnode) == leaves(rnode)
                    {
                        let describe = describe();
                        sink.report(
                            live_key.span(),
                            format!("the liveness probe of {describe} is the readiness probe's `{lh}` check"),
                        )
                        .label(ready_key.span(), "same check")
                        .note("when the check fails under load, the kubelet restarts every replica instead of taking it out of rotation")
                        .help("make liveness check only that the process is alive (a cheap local endpoint); keep dependency checks in readiness");
                        continue;
                    }
                }
            }
            if node.get("startupProbe").is_some() {
                continue;
            }
            let Some((_, readiness)) = readiness_entry else {
                continue;
            };
            let (ready_delay, ready_delay_node) =
                pod::probe_field(readiness, "initialDelaySeconds");
            let Some(ready_delay_node) = ready_delay_node else {
                continue;
            };
            let (delay, delay_node) = pod::probe_field(liveness, "initialDelaySeconds");
            let (threshold, _) = pod::probe_field(liveness, "failureThreshold");
            let (period, _) = pod::probe_field(liveness, "periodSeconds");
            let budget = delay.saturating_add(threshold.saturating_mul(period));
            if budget >= ready_delay {
                continue;
            }
            let span = delay_node.map_or_else(|| live_key.span(), |n| n.span());
            let describe = describe();
            let origin = |field: &str, default: &str| match liveness.get(field) {
                Some(n) => format!("`{field}: {}`", n.as_str().unwrap_or("?")),
                None => format!("{default} (default `{field}`)"),
            };
            sink.report(
                span,
                format!(
                    "the liveness probe of {describe} restarts it after {budget}s, before its readiness probe starts at {ready_delay}s"
                ),
            )
            .label(
                ready_delay_node.span(),
                format!("startup takes {ready_delay}s according to the readiness probe"),
            )
            .note(format!(
                "liveness budget = {} + {} × {}",
                origin("initialDelaySeconds", "0"),
                origin("failureThreshold", "3"),
                origin("periodSeconds", "10")
            ))
            .help("add a `startupProbe` that covers startup, or raise the liveness `initialDelaySeconds`");
        }
    }
}
