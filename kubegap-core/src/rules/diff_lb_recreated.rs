//! `diff-lb-recreated`: a change that makes the cloud provider create a new load balancer.

use crate::diff::DiffContext;
use crate::rule::prelude::*;

declare_rule! {
    /// A change makes the cloud provider create a new load balancer or address.
    ///
    /// ## What it does
    /// `kubegap diff` only. For Services matched by kind, namespace and name: `spec.type` to
    /// or from `LoadBalancer`, a changed `spec.loadBalancerClass`, a removed
    /// `spec.loadBalancerIP`, a changed, added or removed load balancer type or scheme
    /// annotation of AWS, GCP or Azure, or `cloud.google.com/neg`. For Ingresses: a changed
    /// class (`spec.ingressClassName` or `kubernetes.io/ingress.class`).
    ///
    /// ## Why is this bad?
    /// The provider deletes the old load balancer and creates a new one, with a new address:
    /// DNS records, allow-lists and clients pinned to the old address break until they catch
    /// up, and in-flight connections are cut. An Ingress moved to another class is dropped by
    /// one controller and picked up by another, with another address.
    ///
    /// ## Example
    /// BASE `service.beta.kubernetes.io/aws-load-balancer-type: nlb`, HEAD `external`.
    ///
    /// Use instead: create the new load balancer next to the old one, move DNS, then remove
    /// the old one.
    pub static DIFF_LB_RECREATED = {
        id: "diff-lb-recreated",
        severity: Warning,
        domain: Controller,
        summary: "a change makes the cloud provider create a new load balancer or address",
        evidence: &[
            "https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/annotations/",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/container-native-load-balancing",
            "https://kubernetes.io/docs/concepts/services-networking/service/#loadbalancer",
        ],
        check: crate::diff::lint_check,
    }
}

const ANNOTATIONS: &[&str] = &[
    "service.beta.kubernetes.io/aws-load-balancer-type",
    "service.beta.kubernetes.io/aws-load-balancer-scheme",
    "service.beta.kubernetes.io/aws-load-balancer-internal",
    "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type",
    "networking.gke.io/load-balancer-type",
    "cloud.google.com/load-balancer-type",
    "cloud.google.com/neg",
    "service.beta.kubernetes.io/azure-load-balancer-internal",
];

pub(crate) fn diff(cx: &DiffContext<'_>, sink: &mut Sink) {
    for (b, h) in &cx.matched {
        let kind = cx.head.ws.graph.objects[*h].kind.as_str();
        let (bn, hn) = (cx.base.obj_node(*b), cx.head.obj_node(*h));
        let mut changes: Vec<(Vec<&str>, String)> = Vec::new();
        let val = |n: crate::yaml::NodeRef<'_>, p: &[&str]| n.str_at(p).map(str::to_string);
        let show =
            |v: &Option<String>| v.as_ref().map_or("unset".to_string(), |v| format!("`{v}`"));
        match kind {
            "Service" => {
                let ty = |n| val(n, &["spec", "type"]).unwrap_or_else(|| "ClusterIP".into());
                let (old, new) = (ty(bn), ty(hn));
                if old != new && (old == "LoadBalancer" || new == "LoadBalancer") {
                    changes.push((
                        vec!["spec", "type"],
                        format!("`spec.type` changes from `{old}` to `{new}`"),
                    ));
                }
                let lb = old == "LoadBalancer" || new == "LoadBalancer";
                let p = ["spec", "loadBalancerClass"];
                if lb && val(bn, &p) != val(hn, &p) {
                    changes.push((
                        p.to_vec(),
                        format!(
                            "`loadBalancerClass` changes from {} to {}",
                            show(&val(bn, &p)),
                            show(&val(hn, &p))
                        ),
                    ));
                }
                let p = ["spec", "loadBalancerIP"];
                if lb && val(bn, &p).is_some() && val(hn, &p).is_none() {
                    changes.push((
                        p.to_vec(),
                        format!("`loadBalancerIP` {} is removed", show(&val(bn, &p))),
                    ));
                }
                for a in ANNOTATIONS {
                    if !lb && *a != "cloud.google.com/neg" {
                        continue;
                    }
                    let p = ["metadata", "annotations", a];
                    let (o, n) = (val(bn, &p), val(hn, &p));
                    if o != n {
                        changes.push((
                            p.to_vec(),
                            format!("annotation `{a}` changes from {} to {}", show(&o), show(&n)),
                        ));
                    }
                }
            }
            "Ingress" => {
                let class = |n: crate::yaml::NodeRef<'_>| {
                    val(n, &["spec", "ingressClassName"])
                        .map(|c| (c, vec!["spec", "ingressClassName"]))
                        .or_else(|| {
                            val(
                                n,
                                &["metadata", "annotations", "kubernetes.io/ingress.class"],
                            )
                            .map(|c| {
                                (
                                    c,
                                    vec!["metadata", "annotations", "kubernetes.io/ingress.class"],
                                )
                            })
                        })
                };
                let (o, n) = (class(bn), class(hn));
                if let (Some((o, _)), Some((n, path))) = (&o, &n) {
                    if o != n {
                        changes.push((
                            path.clone(),
                            format!("the Ingress class changes from `{o}` to `{n}`"),
                        ));
                    }
                }
            }
            _ => {}
        }
        for (path, what) in changes {
            let at = cx.place(*b, *h, &path);
            let f = sink.report(
                at.primary,
                format!(
                    "{}: {what} ({} in {}): the cloud provider creates a new load balancer with a new address and deletes the old one",
                    cx.describe(*h),
                    cx.cite(at.other),
                    at.other_side(),
                ),
            );
            f.label(
                at.other,
                if at.in_base {
                    "HEAD: gone"
                } else {
                    "BASE value"
                },
            );
            f.help("create the new load balancer next to the old one, move DNS and clients, then remove the old one");
        }
    }
}
