//! Chains that start at file configs: nginx `proxy_pass` targets and haproxy.cfg `server`
//! lines that reach a Service of the input, through cluster DNS (`name.ns.svc…`) or through a
//! node address and the Service's `nodePort` (how an external HAProxy reaches a cluster).

use super::Stage;
use super::{finish_chains, outer_hops, Hop, Layer, PortRef, Route, RouteEnd, Run, Tails, Value};
use crate::haproxy::duration::DurationValue;
use crate::k8s::Service;
use crate::source::Span;
use crate::value::duration::Millis;
use crate::value::provenance::Source;
use std::collections::HashMap;
use std::sync::Arc;

/// A file-config proxy that sends traffic to a Service of the input.
pub struct FileRoute<'a> {
    /// The proxy hop with its values.
    pub hop: Arc<Hop>,
    /// `nginx.conf:17 proxy_pass http://api`, `haproxy.cfg:15 server orders…`.
    pub route: Route,
    /// Where the target is written.
    pub anchor: Span,
    /// The Service reached.
    pub service: &'a Service,
    /// The Service port reached.
    pub port: PortRef,
    /// Whether the proxy routes WebSocket traffic this way (an haproxy backend selected by an
    /// `Upgrade` ACL, an nginx WebSocket location).
    pub websocket: bool,
}

/// An haproxy.cfg value: `` `timeout server` at haproxy.cfg:12 ``.
fn haproxy_value(name: &str, ms: Millis, span: Span) -> Value {
    Value::new(
        ms,
        Source::Directive {
            name: name.to_string(),
            span,
        },
    )
}

fn base_name(cx: &Stage<'_>, span: Span) -> String {
    cx.files.get(span.file).base_name().to_string()
}

/// The Services of the input by name and by `nodePort`, built once per run so that resolving
/// each proxy target does not scan every Service (2,000 haproxy servers beside 4,000 Services
/// were 8 million port look-ups). Candidates keep input order, so the nearest Service chosen
/// is the one the scan chose.
pub struct Targets<'a> {
    by_name: HashMap<&'a str, Vec<&'a Service>>,
    /// nodePort → (Service, index of its first port with that nodePort).
    by_node_port: HashMap<i64, Vec<(&'a Service, usize)>>,
}

impl<'a> Targets<'a> {
    /// Indexes every Service of the input.
    pub fn new(cx: &Stage<'a>) -> Self {
        let mut by_name: HashMap<&'a str, Vec<&'a Service>> = HashMap::new();
        let mut by_node_port: HashMap<i64, Vec<(&'a Service, usize)>> = HashMap::new();
        let services: &'a [Service] = &cx.k8s.services;
        for s in services {
            by_name
                .entry(cx.obj(s.obj).name.as_str())
                .or_default()
                .push(s);
            for (i, sp) in s.ports.iter().enumerate() {
                let Some(n) = cx.node(sp.at).get("nodePort").and_then(|n| n.as_i64()) else {
                    continue;
                };
                let list = by_node_port.entry(n).or_default();
                // Only the first port of a Service with this nodePort counts.
                if list.last().is_none_or(|(last, _)| !std::ptr::eq(*last, s)) {
                    list.push((s, i));
                }
            }
        }
        Targets {
            by_name,
            by_node_port,
        }
    }

    /// The Service a proxy target reaches, and the Service port: a cluster DNS name, or any
    /// address whose port is the `nodePort` of exactly one Service of the input.
    pub fn resolve(
        &self,
        cx: &Stage<'a>,
        file: crate::source::FileId,
        host: &str,
        port: Option<u16>,
    ) -> Option<(&'a Service, PortRef)> {
        if let Some((name, ns)) = super::service_host(host) {
            let candidates = self.by_name.get(name).into_iter().flatten().copied();
            let candidates =
                candidates.filter(|s| ns.is_none_or(|ns| cx.obj(s.obj).namespace == ns));
            if let Some(service) = cx.k8s.nearest_to_file(file, candidates) {
                return Some((service, port.map_or(PortRef::Unknown, PortRef::Number)));
            }
        }
        let port = i64::from(port?);
        let candidates = self.by_node_port.get(&port)?;
        // The nearest Service with this nodePort (two equally near: none).
        let service = cx
            .k8s
            .nearest_to_file(file, candidates.iter().map(|(s, _)| *s))?;
        let (_, i) = candidates.iter().find(|(s, _)| std::ptr::eq(*s, service))?;
        Some((
            service,
            service.ports[*i]
                .port
                .and_then(|p| u16::try_from(p).ok())
                .map_or(PortRef::Unknown, PortRef::Number),
        ))
    }
}

/// Every nginx `proxy_pass` and haproxy.cfg `server` that reaches a Service of the input.
pub fn file_routes<'a>(cx: &Stage<'a>) -> Vec<FileRoute<'a>> {
    if cx.nginx.is_empty() && cx.haproxy.is_empty() {
        return Vec::new();
    }
    let targets = Targets::new(cx);
    // Each config's routes are found apart, in parallel (hundreds of configs in a monorepo),
    // and kept in config order.
    use rayon::prelude::*;
    let nginx = cx
        .nginx
        .par_iter()
        .map(|config| nginx_routes(cx, &targets, config));
    let haproxy = cx
        .haproxy
        .par_iter()
        .map(|config| haproxy_routes(cx, &targets, config));
    let per_config: Vec<Vec<FileRoute<'a>>> = nginx.chain(haproxy).collect();
    per_config.into_iter().flatten().collect()
}

fn nginx_routes<'a>(
    cx: &Stage<'a>,
    targets: &Targets<'a>,
    config: &'a crate::nginx::NginxConfig,
) -> Vec<FileRoute<'a>> {
    let mut out = Vec::new();
    let new_default = cx
        .settings
        .nginx_version
        .as_ref()
        .is_some_and(|v| v.at_least(&crate::nginx::HTTP11_DEFAULT_SINCE));
    let upstreams = config.upstreams();
    let shutdown = config.worker_shutdown_timeout();
    let websocket_locations: Vec<crate::nginx::DirectiveId> = config
        .long_lived(cx.files)
        .iter()
        .map(|l| l.location)
        .collect();
    for pass in config.proxy_passes() {
        let location = config
            .enclosing(pass.directive, "location")
            .or_else(|| config.enclosing(pass.directive, "server"));
        let base = base_name(cx, pass.url_span);
        let mut proxy = Hop::new(Layer::Proxy, format!("nginx ({base})"), Some(pass.url_span));
        let keepalive = config.keepalive_timeout(location);
        proxy.keepalive = Some(Value::of(&keepalive));
        let read = config.proxy_read_timeout(location);
        proxy.read_timeout = Some(Value::of(&read));
        // After a reload, old workers keep open connections until `worker_shutdown_timeout`.
        proxy.lifetime = shutdown.as_ref().map(Value::of);
        // Upstream connections are pooled with `keepalive N` in the upstream block, or by
        // default from nginx 1.29.7 on.
        if let Some(upstream) = pass.upstream.and_then(|i| upstreams.get(i)) {
            if upstream.keepalive.is_some() || new_default {
                let idle = config.upstream_keepalive_timeout(upstream.directive);
                let source = match upstream.keepalive {
                    // A default points at the upstream's `keepalive` line.
                    Some(k) => Arc::new(
                        Source::clone(&idle.source).implied_by("`keepalive`", config.get(k).span),
                    ),
                    None => idle.source,
                };
                proxy.pool_idle = Some(Value::new(idle.value, source));
            }
        }
        let proxy = Arc::new(proxy);
        for target in config.targets(&pass, &upstreams) {
            if let Some((service, port)) =
                targets.resolve(cx, pass.url_span.file, &target.host, target.port)
            {
                out.push(FileRoute {
                    hop: Arc::clone(&proxy),
                    route: Route {
                        at: Some(pass.url_span),
                        text: format!("proxy_pass {}", pass.url).into(),
                    },
                    anchor: target.span,
                    service,
                    port,
                    websocket: websocket_locations.iter().any(|l| Some(*l) == location),
                });
            }
        }
    }
    out
}

fn haproxy_routes<'a>(
    cx: &Stage<'a>,
    targets: &Targets<'a>,
    config: &'a crate::haproxy::HaproxyConfig,
) -> Vec<FileRoute<'a>> {
    let view = config.view(cx.settings.haproxy_version.as_ref());
    let file = cx.files.get(config.file);
    let base = file.base_name().to_string();
    // Every reload cuts the old process's connections at `hard-stop-after`.
    let hard_stop = view
        .global_time("hard-stop-after")
        .and_then(|(d, _)| match d.value {
            DurationValue::Ms(ms) => Some(haproxy_value("hard-stop-after", ms, d.span)),
            _ => None,
        });
    let websocket = view.websocket_proxies();
    let backends: Vec<usize> = view.backends().map(|(i, _)| i).collect();
    // Backends in parallel (a generated haproxy.cfg has thousands), routes kept in order.
    use rayon::prelude::*;
    let routes: Vec<Vec<FileRoute<'a>>> = backends
        .into_par_iter()
        .map(|backend| {
            let mut out = Vec::new();
            let servers = view.servers(backend);
            let defaults = view.default_servers(backend);
            for server in &servers {
                let Some(address) = &server.address() else {
                    continue;
                };
                let port = address.port.as_deref().and_then(|p| p.parse::<u16>().ok());
                let Some((service, port)) = targets.resolve(cx, config.file, &address.host, port)
                else {
                    continue;
                };
                let mut proxy = Hop::new(
                    Layer::Proxy,
                    format!("HAProxy ({base})"),
                    Some(server.line.span),
                );
                let timeout = |name: &str| -> Option<Value> {
                    let eff = view.timeout(backend, name);
                    let d = eff.value.as_ref()?;
                    let DurationValue::Ms(ms) = d.value else {
                        return None;
                    };
                    Some(haproxy_value(&format!("timeout {name}"), ms, d.span))
                };
                proxy.keepalive = timeout("http-keep-alive")
                    .or_else(|| timeout("http-request"))
                    .or_else(|| timeout("client"));
                proxy.read_timeout = timeout("server");
                proxy.tunnel_timeout = timeout("tunnel");
                proxy.lifetime.clone_from(&hard_stop);
                // Idle server connections are purged every `pool-purge-delay` (default 5s), half
                // of them each time: the pool's idle horizon.
                let purge = view
                    .server_time(&defaults, server, "pool-purge-delay")
                    .and_then(|d| match d.value {
                        DurationValue::Ms(ms) => {
                            Some(haproxy_value("pool-purge-delay", ms, d.span))
                        }
                        _ => None,
                    });
                let reuse_never = view.http_reuse(backend).value == "never";
                let tcp = view.mode(backend).value == "tcp";
                if !reuse_never && !tcp {
                    proxy.pool_idle = Some(purge.unwrap_or_else(|| {
                        Value::new(
                            Millis::from_secs(5),
                            Source::default_setting("HAProxy", "pool-purge-delay"),
                        )
                    }));
                }
                out.push(FileRoute {
                    hop: Arc::new(proxy),
                    route: Route {
                        at: Some(server.line.span),
                        text: format!("server {}", address.host).into(),
                    },
                    anchor: address.host_span,
                    service,
                    port,
                    websocket: websocket.contains_key(&backend),
                });
            }
            out
        })
        .collect();
    routes.into_iter().flatten().collect()
}

/// Chains of file routes that end at an application (routes to an ingress controller's
/// Service continue through its Ingresses instead; see `ingress.rs`).
pub fn file_chains(
    cx: &Stage<'_>,
    routes: &[FileRoute<'_>],
    controller_services: &[usize],
    tails: &Tails,
    out: &mut Vec<Run>,
) {
    for r in routes {
        if controller_services.contains(&r.service.obj) {
            continue;
        }
        let mut front = outer_hops(cx);
        front.push(Arc::clone(&r.hop));
        let end = RouteEnd {
            route: r.route.clone(),
            anchor: r.anchor,
            object: None,
            service: r.service,
            port: r.port.clone(),
            long_lived: None,
        };
        finish_chains(cx, &end, &front, tails, out);
    }
}
