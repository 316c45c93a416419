//! Chains that start at Ingresses, Routes and LoadBalancer Services: the cloud load balancer
//! and the ingress controller, from the effective settings of [`crate::controllers`].

use super::files::FileRoute;
use super::Stage;
use super::{finish_chains, outer_hops, Hop, Layer, PortRef, RouteEnd, Run, Tails, Value};
use crate::controllers::lb::{self, LbKind, LoadBalancer};
use crate::controllers::{Model, Product, Reader, RouteSettings};
use crate::k8s::At;
use crate::value::duration::Millis;
use rayon::prelude::*;
use std::sync::Arc;

/// Client keep-alive defaults of the in-cluster proxies when their configuration is not in the
/// input: each product's file in `controllers/` owns its default.
pub(super) fn default_client_keepalive(product: Product) -> Option<Value> {
    let (ms, source) = crate::controllers::default_client_keepalive(product)?;
    Some(Value::new(Millis(ms), source))
}

/// The load balancer hop.
fn lb_hop(cx: &Stage<'_>, lb: &LoadBalancer) -> Hop {
    let span = Some(super::object_anchor(cx, lb.obj));
    let mut hop = Hop::new(Layer::LoadBalancer, lb.kind.name(), span);
    let idle = lb.idle_timeout.as_ref().map(Value::of);
    match lb.kind {
        LbKind::Gclb => {
            hop.gclb = true;
            hop.pool_idle = lb.backend_keepalive.as_ref().map(Value::of);
            // `timeoutSec` is the response timeout, and a WebSocket's whole lifetime.
            hop.read_timeout = lb.lifetime_cap.as_ref().map(Value::of);
            hop.lifetime = lb.lifetime_cap.as_ref().map(Value::of);
        }
        LbKind::Alb => {
            // An L7 load balancer: the idle timeout bounds both sides and pending responses.
            hop.keepalive.clone_from(&idle);
            hop.pool_idle.clone_from(&idle);
            hop.read_timeout = idle;
        }
        LbKind::Clb => {
            // A CLB pools backend connections only with an HTTP(S) listener
            // (`aws-load-balancer-backend-protocol: http|https`); in TCP mode it is L4.
            let http = cx
                .node(cx.obj(lb.obj).at)
                .path(&[
                    "metadata",
                    "annotations",
                    "service.beta.kubernetes.io/aws-load-balancer-backend-protocol",
                ])
                .and_then(|n| n.as_str())
                .is_some_and(|p| matches!(p, "http" | "https"));
            if http {
                hop.keepalive.clone_from(&idle);
                hop.pool_idle.clone_from(&idle);
            }
            hop.read_timeout = idle;
        }
        LbKind::Nlb | LbKind::Azure => {
            // L4: no pool of its own; an idle flow is dropped after the idle timeout.
            hop.read_timeout = idle;
        }
    }
    hop
}

/// The in-cluster proxy hop of a route.
fn proxy_hop(cx: &Stage<'_>, model: &Model, route: &RouteSettings, product: Product) -> Hop {
    let controller = route.controller.and_then(|i| model.controllers.get(i));
    let span = controller.map(|c| super::object_anchor(cx, c.obj));
    let mut hop = Hop::new(Layer::Proxy, product.name(), span);
    hop.pool_idle = route
        .upstream_keepalive_timeout
        .as_ref()
        .map(Value::of)
        .or_else(|| {
            // HAProxy-based controllers generate an haproxy.cfg whose idle server connections are
            // purged every `pool-purge-delay` (HAProxy's default 5s), like a hand-written one.
            matches!(
                product,
                Product::HaproxyTech | Product::HaproxyIngress | Product::OpenShift
            )
            .then(|| {
                Value::new(
                    Millis::from_secs(5),
                    crate::value::provenance::Source::default_setting(
                        "HAProxy",
                        "pool-purge-delay",
                    )
                    .with_note(format!("in the haproxy.cfg {} generates", product.name())),
                )
            })
        });
    hop.read_timeout = route.read_timeout.as_ref().map(Value::of);
    hop.tunnel_timeout = route.tunnel_timeout.as_ref().map(Value::of);
    hop.keepalive = controller
        .and_then(|c| c.settings.client_keepalive_timeout.as_ref())
        .map(Value::of)
        .or_else(|| default_client_keepalive(product));
    hop.lifetime = route.reload_deadline.as_ref().map(Value::of);
    hop
}

/// Adds the chains of every Ingress, Route and LoadBalancer Service. A file-config proxy
/// (`file_routes`) that reaches a controller's Service is a hop in front of that controller.
pub fn chains(
    cx: &Stage<'_>,
    file_routes: &[FileRoute<'_>],
    controller_services: &[usize],
    tails: &Tails,
    out: &mut Vec<Run>,
) {
    if cx.k8s.ingresses.is_empty()
        && cx.k8s.routes.is_empty()
        && cx
            .k8s
            .services
            .iter()
            .all(|s| s.service_type != "LoadBalancer")
    {
        return;
    }
    let model = cx.controllers;
    let reader = Reader {
        graph: cx.k8s,
        documents: cx.documents,
    };
    // Routes are independent: their chains are built in parallel, a block of routes per task
    // (one vector per block, not per route: fewer short-lived allocations among the chains,
    // which live to the end of the run), and concatenated in route order, so the result does
    // not depend on the thread count.
    let blocks: Vec<Vec<Run>> = model
        .routes
        .par_chunks(ROUTE_BLOCK)
        .map(|block| {
            let mut chains = Vec::new();
            for route in block {
                route_chains(
                    cx,
                    route,
                    file_routes,
                    controller_services,
                    tails,
                    &mut chains,
                );
            }
            chains
        })
        .collect();
    out.reserve(blocks.iter().map(Vec::len).sum());
    out.extend(blocks.into_iter().flatten());
    // LoadBalancer Services that do not front an ingress controller.
    for service in &cx.k8s.services {
        let Some(lb) = lb::for_service(&reader, service.obj) else {
            continue;
        };
        if controller_services.contains(&service.obj) {
            continue;
        }
        let o = cx.obj(service.obj);
        let mut front = outer_hops(cx);
        front.push(Arc::new(lb_hop(cx, &lb)));
        let route_name = format!("Service {}/{} ({})", o.namespace, o.name, lb.kind.name());
        let end = RouteEnd {
            route: super::Route::object(route_name),
            anchor: cx.span(o.at),
            object: None,
            service,
            port: PortRef::Unknown,
            long_lived: None,
        };
        finish_chains(cx, &end, &front, tails, out);
    }
}

/// Routes per parallel task when building chains.
const ROUTE_BLOCK: usize = 512;

/// The chains of one Ingress or Route: one per way in (front) and backend.
fn route_chains(
    cx: &Stage<'_>,
    route: &RouteSettings,
    file_routes: &[FileRoute<'_>],
    controller_services: &[usize],
    tails: &Tails,
    out: &mut Vec<Run>,
) {
    let model = cx.controllers;
    let obj = cx.obj(route.obj);
    // What sits in front of the controller: its cloud load balancer and/or file-config
    // proxies that reach its Service; one front per way in.
    let controller = route.controller.and_then(|i| model.controllers.get(i));
    let controller_svcs: Vec<usize> = controller
        .and_then(|c| cx.k8s.workload(c.obj))
        .map(|w| cx.k8s.services_of(w).iter().map(|s| s.obj).collect())
        .unwrap_or_default();
    let mut fronts: Vec<Vec<Arc<Hop>>> = Vec::new();
    // A proxy with a WebSocket-only path to the controller carries this route's WebSockets
    // there, and its other traffic elsewhere.
    let reaching: Vec<&FileRoute<'_>> = file_routes
        .iter()
        .filter(|fr| {
            controller_svcs.contains(&fr.service.obj)
                && controller_services.contains(&fr.service.obj)
        })
        .collect();
    let want_ws = route.long_lived.is_some() && reaching.iter().any(|fr| fr.websocket);
    let want_plain = route.long_lived.is_none() && reaching.iter().any(|fr| !fr.websocket);
    for fr in reaching {
        if (want_ws && !fr.websocket) || (want_plain && fr.websocket) {
            continue;
        }
        {
            let mut front = outer_hops(cx);
            front.push(Arc::clone(&fr.hop));
            fronts.push(front);
        }
    }
    if fronts.is_empty() || route.lb.is_some() {
        let mut front = outer_hops(cx);
        if let Some(lb) = &route.lb {
            front.push(Arc::new(lb_hop(cx, lb)));
        }
        fronts.push(front);
    }
    if let Some(binding) = route.binding.as_ref() {
        if !matches!(binding.product, Product::AwsAlb | Product::Gke) {
            let hop = Arc::new(proxy_hop(cx, model, route, binding.product));
            for front in &mut fronts {
                front.push(Arc::clone(&hop));
            }
        }
    }
    // Backends: (service name node, port node, path).
    let mut backends: Vec<(At, Option<At>, Option<String>)> = Vec::new();
    // Ingresses and Routes are in object order: found by binary search (a scan per route
    // was quadratic in the number of Ingresses).
    let ingresses = &cx.k8s.ingresses;
    let routes = &cx.k8s.routes;
    let ingress = ingresses
        .binary_search_by_key(&route.obj, |i| i.obj)
        .ok()
        .map(|i| &ingresses[i]);
    if let Some(ingress) = ingress {
        for b in &ingress.backends {
            backends.push((b.service_name, b.port, b.path.clone()));
        }
    }
    let found = routes
        .binary_search_by_key(&route.obj, |r| r.obj)
        .ok()
        .map(|i| &routes[i]);
    if let Some(r) = found {
        if let Some(to) = r.to {
            backends.push((to, r.target_port, None));
        }
    }
    let long_lived: Option<Arc<str>> = route.long_lived.as_ref().map(|l| l.reason.as_str().into());
    for (name_at, port_at, path) in backends {
        let Some(name) = cx.node(name_at).as_str() else {
            continue;
        };
        let Some(service) = cx.k8s.service_from(route.obj, &obj.namespace, name).found() else {
            continue;
        };
        let port = match port_at.map(|p| cx.node(p)) {
            Some(p) => match p.as_i64() {
                Some(n) => u16::try_from(n).map_or(PortRef::Unknown, PortRef::Number),
                None => p
                    .as_str()
                    .map_or(PortRef::Unknown, |s| PortRef::Name(s.to_string())),
            },
            None => PortRef::Unknown,
        };
        let route_name = format!(
            "{} {}/{}{}",
            obj.kind,
            obj.namespace,
            obj.name,
            path.map(|p| format!(" {p}")).unwrap_or_default()
        );
        let end = RouteEnd {
            route: super::Route::object(route_name),
            anchor: cx.span(name_at),
            object: Some(route.obj),
            service,
            port,
            long_lived: long_lived.clone(),
        };
        for front in &fronts {
            finish_chains(cx, &end, front, tails, out);
        }
    }
}
