//! `k8s-probe-port-missing`: a probe port that its container does not declare.

use crate::k8s::{pod, ContainerPort};
use crate::rule::prelude::*;

declare_rule! {
    /// A probe's port, named or numbered, is not declared by its container.
    ///
    /// ## What it does
    /// For every `livenessProbe`, `readinessProbe` and `startupProbe` with an `httpGet`,
    /// `tcpSocket` or `grpc` port, checks the container's own `ports`:
    /// - a named port must be the `name` of one of them (the kubelet resolves it there, and
    ///   fails the probe otherwise);
    /// - a numbered port should be one of the `containerPort`s, when the container declares
    ///   ports at all. The kubelet probes undeclared numbers, so this is reported as info
    ///   (a container that declares no ports is not flagged);
    /// - the port must not be a UDP port: probes connect over TCP.
    ///
    /// A workload whose ports or probes a kustomize patch written close to it sets (a file
    /// listed under `patches`, or a partial definition of the same workload) is not checked:
    /// its ports and probes as deployed are a merge kubegap does not do.
    ///
    /// ## Why is this bad?
    /// A readiness probe that can never succeed keeps every pod out of the Service's
    /// endpoints; a liveness probe that cannot succeed restarts the container forever. The
    /// usual cause is renaming or renumbering a port on one side only, the same drift that broke
    /// GitLab.com when a chart upgrade renamed port names (2022-03-31).
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
    ///       ports: [{name: http-web, containerPort: 8080}]
    ///       readinessProbe: {httpGet: {path: /ready, port: http}}
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
    ///       ports: [{name: http, containerPort: 8080}]
    ///       readinessProbe: {httpGet: {path: /ready, port: http}}
    /// ```
    ///
    /// ## Peers
    /// kube-linter `liveness-port`, `readiness-port` and `startup-port`.
    pub static K8S_PROBE_PORT_MISSING = {
        id: "k8s-probe-port-missing",
        severity: Error,
        domain: Kubernetes,
        summary: "a probe's port name that its container does not declare (info for an undeclared number, which the kubelet probes anyway)",
        evidence: &[
            "https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#use-a-named-port",
            "https://about.gitlab.com/blog/2022/04/15/gitlab-dot-com-incident-2022-03-31/",
        ],
        check: crate::rule::nothing,
        workloads: check_workloads,
        also_reports: [Info],
    }
}

/// An `IANA_SVC_NAME`: at most 15 lowercase letters, digits and dashes, with a letter.
fn is_port_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 15
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && s.bytes().any(|b| b.is_ascii_lowercase())
}

fn check_workloads<'a>(cx: &Context<'a>, workloads: &'a [Workload], sink: &mut Sink) {
    for workload in workloads {
        // Defined twice close together (a kustomize patch beside its base): the ports as
        // deployed are a merge kubegap does not do.
        if workload.patched.ports || workload.patched.probes {
            continue;
        }
        for container in workload.containers.iter().filter(|c| !c.init) {
            let node = cx.node(container.at);
            for probe_name in pod::PROBES {
                let Some(probe) = node.get(probe_name) else {
                    continue;
                };
                let Some((handler, handler_node)) = pod::probe_handler(probe) else {
                    continue;
                };
                let Some(port) = handler_node.get("port") else {
                    continue;
                };
                // Each declared port with its protocol, looked up only for a match.
                let protocol =
                    |p: &ContainerPort| cx.node(p.at).str_at(&["protocol"]).unwrap_or("TCP");
                let (number, name) = if let Some(number) = port.as_i64() {
                    if container.ports.is_empty() {
                        continue;
                    }
                    (Some(number), None)
                } else {
                    // Template left-overs (`${PORT}`, `{{ .port }}`) are not port names.
                    let Some(name) = port.as_str().filter(|s| is_port_name(s)) else {
                        continue;
                    };
                    (None, Some(name))
                };
                let matched = container
                    .ports
                    .iter()
                    .find(|p| match number {
                        Some(n) => p.number == Some(n),
                        None => p.name.as_deref() == name,
                    })
                    .map(|p| (p, protocol(p)));
                if matches!(matched, Some((_, protocol)) if !protocol.eq_ignore_ascii_case("UDP")) {
                    continue;
                }
                // A finding: its words.
                let what = match (number, name) {
                    (Some(number), _) => format!("port {number}"),
                    (None, name) => format!("port `{}`", name.unwrap_or_default()),
                };
                let describe = format!(
                    "container `{}` of {}",
                    container.name,
                    cx.describe(workload.obj)
                );
                let ports_label = node
                    .get_entry("ports")
                    .map(|(k, _)| k.span())
                    .or_else(|| node.get("name").map(|n| n.span()));
                match matched {
                    Some((p, protocol)) if protocol.eq_ignore_ascii_case("UDP") => {
                        let f = sink.report(
                            port.span(),
                            format!("the {probe_name} of {describe} connects over TCP to {what}, which is a UDP port"),
                        );
                        f.label(cx.span(p.at), "declared with `protocol: UDP`");
                        f.help("probe a TCP port of the container, or use an `exec` probe");
                    }
                    Some(_) => {}
                    None => {
                        let list: Vec<String> = container
                            .ports
                            .iter()
                            .map(ContainerPort::describe)
                            .collect();
                        let f = sink.report(
                            port.span(),
                            format!("the {probe_name} ({handler}) of {describe} uses {what}, which the container does not declare"),
                        );
                        if port.as_i64().is_some() {
                            // The kubelet probes an undeclared number all the same: the probe
                            // works, the port is only undocumented (or the probe is stale).
                            f.severity(Severity::Info);
                            f.note("the kubelet probes undeclared port numbers, so this works today; it breaks silently when the container's ports are renumbered");
                        }
                        if let Some(span) = ports_label {
                            let text = if list.is_empty() {
                                "the container declares no ports".to_string()
                            } else {
                                format!("the container declares {}", list.join(", "))
                            };
                            f.label(span, text);
                        }
                        f.help(
                            "use one of the container's port names or numbers, or declare the port",
                        );
                    }
                }
            }
        }
    }
}
