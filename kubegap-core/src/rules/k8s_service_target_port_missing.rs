//! `k8s-service-target-port-missing`: a Service port that no selected container declares.

use crate::rule::prelude::*;

declare_rule! {
    /// A Service's `targetPort` that no container of the pods it selects declares.
    ///
    /// ## What it does
    /// For every Service whose selector matches at least one pod template in the input, checks
    /// that each port's `targetPort` is declared by a container of those pods: a named
    /// `targetPort` must match a container port `name`; a numeric one must match a
    /// `containerPort` when the selected containers declare ports at all (Kubernetes forwards to
    /// undeclared numeric ports, so an image that declares none is not flagged). A missing
    /// `targetPort` defaults to `port` and is checked the same way. A named port that no
    /// container declares is an error (the Service has no endpoints for it); an undeclared
    /// number is only info, since Kubernetes forwards to it and the process may listen anyway.
    /// Unrendered template placeholders (`${PORT}`, `{{ .Port }}`, `%%PORT%%`) and names that
    /// Kubernetes would reject (`PORT`: port names are lowercase) are unknown values and are
    /// skipped.
    ///
    /// Only pods written close to the Service count as evidence: the nearest matching pod
    /// templates in the same file, directory, kustomization tree or chart (see "What kubegap
    /// links, and how" in docs/USER_GUIDE.md). A workload whose ports a kustomize
    /// patch written there sets (a file listed under `patches`, or a partial definition of the
    /// same workload) has ports kubegap cannot know, and is not checked.
    ///
    /// ## Why is this bad?
    /// A named `targetPort` that no container declares gives the Service no endpoints for that
    /// port: requests fail while every pod is healthy. The classic way to get there is renaming
    /// a port on one side only: GitLab.com's 2022-03-31 incident began with a Helm chart
    /// upgrade that renamed the port names of Services and Deployments, which reconfigured the
    /// GCP load balancer and served 50x errors.
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
    ///           image: nginx:1.25
    ///           ports: [{name: http-web, containerPort: 8080}]
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
    /// ## Peers
    /// kube-score `service-targets-pod` and kube-linter `dangling-service` check the selector;
    /// kube-linter `service-port` (non-default) checks the port names.
    pub static K8S_SERVICE_TARGET_PORT_MISSING = {
        id: "k8s-service-target-port-missing",
        severity: Error,
        domain: Kubernetes,
        summary: "a Service targetPort name that no container of the selected pods declares (info for an undeclared number, which Kubernetes forwards to anyway)",
        evidence: &[
            "https://about.gitlab.com/blog/2022/04/15/gitlab-dot-com-incident-2022-03-31/",
            "https://kubernetes.io/docs/concepts/services-networking/service/#defining-a-service",
        ],
        check: check,
        also_reports: [Warning, Info],
    }
}

/// What the workloads a Service selects have in common with every other Service selecting the
/// same list: computed once per distinct list (N copies of a release share one), so the rule
/// stays linear where N Services each select N workloads.
struct Selected<'a> {
    /// Some selected workload has ports a kustomize patch sets.
    patched: bool,
    /// The app containers (init containers excluded), in input order.
    containers: Vec<&'a crate::k8s::Container>,
    /// Some container declares ports.
    any_declared: bool,
    names: std::collections::HashSet<&'a str>,
    numbers: std::collections::HashSet<i64>,
    /// The `selected:` note.
    pods: String,
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    // Services that select the same workloads share one selection list (copies of a release:
    // thousands). Grouped by that list (in order of first appearance), each list's facts are
    // computed once and dropped before the next group; a cache of every list held 16 MB on a
    // 100 MB stream in which no two Services share one.
    let mut groups: std::collections::HashMap<(usize, usize), usize> =
        std::collections::HashMap::new();
    let mut services: Vec<(usize, &[usize], &crate::k8s::Service)> = Vec::new();
    for service in &cx.k8s.services {
        let indices = cx.k8s.service_target_indices(service);
        // Only pods written close to the Service (same file, directory, kustomization tree or
        // chart) are evidence; a workload whose ports a kustomize patch there sets has ports
        // kubegap cannot know.
        if indices.is_empty()
            || !cx
                .k8s
                .service_link_near(service)
                .is_some_and(|n| n.is_close())
        {
            continue;
        }
        let next = groups.len();
        let group = *groups
            .entry((indices.as_ptr() as usize, indices.len()))
            .or_insert(next);
        services.push((group, indices, service));
    }
    services.sort_by_key(|(group, _, _)| *group);
    for group in services.chunk_by(|a, b| a.0 == b.0) {
        let indices = group[0].1;
        let selected = {
            let targets: Vec<&crate::k8s::Workload> =
                indices.iter().map(|i| &cx.k8s.workloads[*i]).collect();
            let containers: Vec<&crate::k8s::Container> = targets
                .iter()
                .flat_map(|w| w.containers.iter().filter(|c| !c.init))
                .collect();
            let ports = || containers.iter().flat_map(|c| c.ports.iter());
            Selected {
                patched: targets.iter().any(|w| w.patched.ports),
                any_declared: containers.iter().any(|c| !c.ports.is_empty()),
                names: ports().filter_map(|p| p.name.as_deref()).collect(),
                numbers: ports().filter_map(|p| p.number).collect(),
                pods: bounded_list(targets.len(), targets.iter().map(|w| cx.describe(w.obj))),
                containers,
            }
        };
        if selected.patched {
            continue;
        }
        // The declared names and numbers, quoted, once per group (a list as long as the group,
        // built for each finding, made identical copies of a release quadratic).
        let mut name_list: Option<Option<String>> = None;
        let mut number_list: Option<String> = None;
        for &(_, _, service) in group {
            let containers = &selected.containers;
            let any_declared = selected.any_declared;
            let pods = &selected.pods;
            for port in &service.ports {
                let (value_span, name, number) = match port.target_port {
                    Some(at) => {
                        let node = cx.node(at);
                        match node.as_i64() {
                            Some(n) => (cx.span(at), None, Some(n)),
                            None => match node.as_str() {
                                // A quoted number is still a name to Kubernetes only if it is not
                                // numeric; IntOrString accepts "8080" as the string "8080".
                                // `${PORT}` / `{{ .Port }}`: an unrendered template, not a name.
                                // `PORT` (uppercase: not a valid port name), `%%PORT%%`: unknown too.
                                Some(s) if crate::k8s::is_placeholder_port_name(s) => continue,
                                Some(s) if !s.is_empty() => {
                                    (cx.span(at), Some(s.to_string()), None)
                                }
                                _ => continue,
                            },
                        }
                    }
                    None => match (port.port, cx.node(port.at).get("port")) {
                        (Some(n), Some(node)) => (node.span(), None, Some(n)),
                        _ => continue,
                    },
                };
                if let Some(name) = name {
                    if selected.names.contains(name.as_str()) {
                        continue;
                    }
                    let declared = name_list.get_or_insert_with(|| {
                        let names: Vec<String> = containers
                            .iter()
                            .flat_map(|c| {
                                c.ports
                                    .iter()
                                    .filter_map(|p| p.name.as_deref().map(str::to_string))
                            })
                            .collect();
                        (!names.is_empty()).then(|| quote_list(&names))
                    });
                    let f = sink.report(
                        value_span,
                        format!(
                            "targetPort `{name}` is not a port name of any container selected by {}",
                            cx.describe(service.obj)
                        ),
                    );
                    f.note(format!("selected: {pods}"));
                    label_containers(cx, f, containers);
                    match declared {
                        None => {
                            f.help("declare the port in the container's `ports` with this `name`, or use the port number");
                        }
                        Some(list) => {
                            f.help(format!("the selected containers name their ports {list}"));
                        }
                    }
                } else if let Some(number) = number {
                    if !any_declared || selected.numbers.contains(&number) {
                        continue;
                    }
                    let declared = number_list.get_or_insert_with(|| {
                        let numbers: Vec<String> = containers
                            .iter()
                            .flat_map(|c| {
                                c.ports
                                    .iter()
                                    .filter_map(|p| p.number.map(|n| n.to_string()))
                            })
                            .collect();
                        quote_list(&numbers)
                    });
                    // Kubernetes forwards to a port the container does not declare, so an undeclared
                    // number works whenever the process listens on it (sidecars, TLS and metrics
                    // listeners rarely declare theirs): info, not a warning.
                    let f = sink.report(
                        value_span,
                        format!("target port {number} is not a containerPort of any container selected by {}", cx.describe(service.obj)),
                    );
                    f.severity(Severity::Info);
                    f.note(format!("selected: {pods}"));
                    label_containers(cx, f, containers);
                    f.help(format!("the selected containers declare {declared}"));
                }
            }
        }
    }
}

/// Labels each selected container at its `ports` key (or its name), saying what it declares.
fn label_containers(cx: &Context<'_>, f: &mut Finding, containers: &[&crate::k8s::Container]) {
    for c in containers.iter().take(3) {
        let node = cx.node(c.at);
        let Some((key, _)) = node.get_entry("ports").or_else(|| node.get_entry("name")) else {
            continue;
        };
        let declared: Vec<String> = c
            .ports
            .iter()
            .map(crate::k8s::ContainerPort::describe)
            .collect();
        let text = if declared.is_empty() {
            format!("container `{}` declares no ports", c.name)
        } else {
            format!("container `{}` declares {}", c.name, declared.join(", "))
        };
        f.label(key.span(), text);
    }
}

/// The first five of `count` items (in input order), then how many more: a Service that
/// selects thousands of workloads (a stream of copies) gets a note of bounded size, not one that
/// grows with the input on every finding. Only the five shown are formatted.
fn bounded_list(count: usize, items: impl Iterator<Item = String>) -> String {
    const SHOWN: usize = 5;
    let shown: Vec<String> = items.take(SHOWN).collect();
    let more = count.saturating_sub(shown.len());
    let mut text = shown.join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

fn quote_list(items: &[String]) -> String {
    let mut items: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
    items.sort();
    items.dedup();
    items.join(", ")
}

#[cfg(test)]
mod tests {
    use super::bounded_list;

    #[test]
    fn long_lists_are_bounded() {
        let names = |n: usize| (0..n).map(|i| format!("w{i}"));
        assert_eq!(bounded_list(2, names(2)), "w0, w1");
        assert_eq!(bounded_list(5, names(5)), "w0, w1, w2, w3, w4");
        assert_eq!(
            bounded_list(3200, names(3200)),
            "w0, w1, w2, w3, w4 and 3195 more"
        );
    }
}
