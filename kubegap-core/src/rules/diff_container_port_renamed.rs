//! `diff-container-port-renamed`: a container port keeps its number, changes its name, and
//! something refers to it by name.

use crate::diff::{DiffContext, Side};
use crate::k8s::{ObjId, Workload};
use crate::rule::prelude::*;

declare_rule! {
    /// A container port keeps its number but changes its name while a Service `targetPort` or
    /// a probe refers to a container port by name.
    ///
    /// ## What it does
    /// `kubegap diff` only. Matches workloads by kind, namespace and name, containers by
    /// name and ports by `containerPort`; reports a renamed port when, in BASE or HEAD, a
    /// Service selecting the workload has a named `targetPort` or a probe of the container
    /// uses a named port, with the old or the new name. A renamed port nothing refers to by
    /// name is not reported. Ingresses refer to *Service* ports, which reach the container
    /// through the Service's `targetPort`: a named `targetPort` is what makes them depend on
    /// the container port's name, and it is what this rule looks at.
    ///
    /// ## Why is this bad?
    /// During the rollout old pods carry the old name and new pods the new one. A Service
    /// `targetPort` by name resolves per pod: with the new name the old pods leave the
    /// endpoints at once, with the old name the new pods never join; probes by the old name
    /// fail on new pods. GitLab.com's 2022-03-31 outage renamed container and Service ports
    /// together.
    ///
    /// ## Example
    /// BASE:
    /// ```yaml
    /// containers: [{name: web, ports: [{name: http, containerPort: 8080}]}]
    /// ```
    /// HEAD, with a Service `targetPort: http-web`:
    /// ```yaml
    /// containers: [{name: web, ports: [{name: http-web, containerPort: 8080}]}]
    /// ```
    ///
    /// Use instead: keep the name, or point the Service's `targetPort` at the number for
    /// the rollout, then rename.
    pub static DIFF_CONTAINER_PORT_RENAMED = {
        id: "diff-container-port-renamed",
        severity: Warning,
        domain: Kubernetes,
        summary: "a container port keeps its number but changes its name while Services or probes refer to ports by name",
        evidence: &[
            "https://about.gitlab.com/blog/2022/04/15/gitlab-dot-com-incident-2022-03-31/",
            "https://kubernetes.io/docs/concepts/services-networking/service/#field-spec-ports",
        ],
        check: crate::diff::lint_check,
    }
}

/// Where the side refers to one of `names` by name: (span, what), first found.
fn named_reference(
    side: &Side<'_>,
    w: &Workload,
    container: &str,
    names: &[&str],
) -> Option<(Span, String)> {
    for s in side.ws.graph.services_of(w) {
        for p in &s.ports {
            if let Some(t) = p.target_port {
                let node = side.node(t);
                if let Some(v) = node.as_str().filter(|v| names.contains(v)) {
                    if node.as_i64().is_none() {
                        let o = &side.ws.graph.objects[s.obj];
                        return Some((
                            side.at(t),
                            format!("Service `{}/{}` targetPort `{v}`", o.namespace, o.name),
                        ));
                    }
                }
            }
        }
    }
    let c = w.containers.iter().find(|c| c.name == container)?;
    let node = side.node(c.at);
    for probe in crate::k8s::pod::PROBES {
        let Some((_, handler)) = node.get(probe).and_then(crate::k8s::pod::probe_handler) else {
            continue;
        };
        if let Some(port) = handler.get("port") {
            if let Some(v) = port.as_str().filter(|v| names.contains(v)) {
                if port.as_i64().is_none() {
                    return Some((side.span(port.span()), format!("{probe} port `{v}`")));
                }
            }
        }
    }
    None
}

fn workload<'a>(side: &'a Side<'_>, id: ObjId) -> Option<&'a Workload> {
    side.ws.graph.workload(id)
}

pub(crate) fn diff(cx: &DiffContext<'_>, sink: &mut Sink) {
    for (b, h) in &cx.matched {
        let (Some(bw), Some(hw)) = (workload(&cx.base, *b), workload(&cx.head, *h)) else {
            continue;
        };
        for hc in &hw.containers {
            let Some(bc) = bw.containers.iter().find(|c| c.name == hc.name) else {
                continue;
            };
            for hp in &hc.ports {
                let (Some(number), Some(new_name)) = (hp.number, hp.name.as_deref()) else {
                    continue;
                };
                let Some(bp) = bc.ports.iter().find(|p| p.number == Some(number)) else {
                    continue;
                };
                let Some(old_name) = bp.name.as_deref() else {
                    continue;
                };
                if old_name == new_name {
                    continue;
                }
                let names = [old_name, new_name];
                let reference = named_reference(&cx.head, hw, &hc.name, &names)
                    .map(|r| (r, "HEAD"))
                    .or_else(|| {
                        named_reference(&cx.base, bw, &bc.name, &names).map(|r| (r, "BASE"))
                    });
                let Some(((ref_span, what), side)) = reference else {
                    continue;
                };
                let name_at = |side: &Side<'_>, at| {
                    let node = side.node(at);
                    side.span(node.get("name").map_or(node.span(), |n| n.span()))
                };
                let head_span = name_at(&cx.head, hp.at);
                let base_span = name_at(&cx.base, bp.at);
                let cite = if side == "HEAD" {
                    cx.head.cite(ref_span)
                } else {
                    cx.base.cite(ref_span)
                };
                let f = sink.report(
                    head_span,
                    format!(
                        "container `{}` of {} renames port {number} ({}) from `{old_name}` ({} in BASE) to `{new_name}` while {what} ({cite}, {side}) refers to a port by name: during the rollout old and new pods disagree on the name",
                        hc.name,
                        cx.describe(*h),
                        cx.head.cite(head_span),
                        cx.base.cite(base_span),
                    ),
                );
                f.label(base_span, format!("BASE: `{old_name}`"));
                f.label(ref_span, format!("{side}: refers by name"));
                f.help("keep the port name, or refer to the port by number during the rollout and rename afterwards");
            }
        }
    }
}
