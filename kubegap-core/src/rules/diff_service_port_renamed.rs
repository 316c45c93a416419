//! `diff-service-port-renamed`: a Service port keeps its number and changes its name.

use crate::diff::DiffContext;
use crate::rule::prelude::*;

declare_rule! {
    /// A Service port keeps its number but changes its `name` between BASE and HEAD.
    ///
    /// ## What it does
    /// `kubegap diff` only. Matches each Service of HEAD with the BASE Service of the same
    /// kind, namespace and name, and each port by its `port` number; reports a port whose
    /// `name` changed. The finding is on HEAD's name; a label points at BASE's.
    ///
    /// ## Why is this bad?
    /// Consumers key on the port *name*: Ingress backends (`port.name`), GKE NEG and cloud
    /// load balancer backends, ServiceMonitors, other charts' values. Both renderings are
    /// valid on their own; applying the change reconfigures every consumer at once, and the
    /// ones that still use the old name lose their backend. GitLab.com served 50x for this on
    /// 2022-03-31 after a chart upgrade renamed the ports.
    ///
    /// ## Example
    /// BASE:
    /// ```yaml
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   ports: [{name: http, port: 80, targetPort: http}]
    /// ```
    /// HEAD:
    /// ```yaml
    /// kind: Service
    /// metadata: {name: web}
    /// spec:
    ///   ports: [{name: http-web, port: 80, targetPort: http}]
    /// ```
    ///
    /// Use instead: keep the name, or rename it in a release that also moves every consumer,
    /// after checking which consumers exist outside the chart.
    pub static DIFF_SERVICE_PORT_RENAMED = {
        id: "diff-service-port-renamed",
        severity: Warning,
        domain: Kubernetes,
        summary: "a Service port keeps its number but changes its name; consumers keyed on the name lose it",
        evidence: &[
            "https://about.gitlab.com/blog/2022/04/15/gitlab-dot-com-incident-2022-03-31/",
            "https://kubernetes.io/docs/concepts/services-networking/service/#multi-port-services",
        ],
        check: crate::diff::lint_check,
    }
}

pub(crate) fn diff(cx: &DiffContext<'_>, sink: &mut Sink) {
    for (b, h) in &cx.matched {
        let (Some(bs), Some(hs)) = (
            cx.base.ws.graph.service_by_obj(*b),
            cx.head.ws.graph.service_by_obj(*h),
        ) else {
            continue;
        };
        for hp in &hs.ports {
            let (Some(number), Some(new_name)) = (hp.port, hp.name.as_deref()) else {
                continue;
            };
            let Some(bp) = bs.ports.iter().find(|p| p.port == Some(number)) else {
                continue;
            };
            let Some(old_name) = bp.name.as_deref() else {
                continue;
            };
            if old_name == new_name {
                continue;
            }
            let name_at = |side: &crate::diff::Side<'_>, at| {
                let node = side.node(at);
                side.span(node.get("name").map_or(node.span(), |n| n.span()))
            };
            let head_span = name_at(&cx.head, hp.at);
            let base_span = name_at(&cx.base, bp.at);
            let f = sink.report(
                head_span,
                format!(
                    "{} port {number} ({}) is renamed from `{old_name}` ({} in BASE) to `{new_name}`: Ingresses, load balancer backends and monitors that refer to `{old_name}` lose this port",
                    cx.describe(*h),
                    cx.head.cite(head_span),
                    cx.base.cite(base_span),
                ),
            );
            f.label(base_span, format!("BASE: `{old_name}`"));
            f.help(format!(
                "keep the name `{old_name}`, or move every consumer of the name in the same change"
            ));
        }
    }
}
