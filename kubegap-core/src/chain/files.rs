//! Chains that start at file configs: nginx `proxy_pass` targets and haproxy.cfg `server`
//! lines that name a Service of the input through cluster DNS.

use super::{finish_chains, outer_hops, resolve_service, Chain, Hop, Layer, PortRef, Value};
use crate::haproxy::duration::DurationValue;
use crate::rule::Context;

/// An nginx value: `` `proxy_read_timeout` at nginx.conf:12 `` or its default.
fn nginx_value(
    cx: &Context<'_>,
    name: &str,
    secs: f64,
    source: &crate::nginx::ValueSource,
) -> Value {
    match source.span() {
        Some(span) => {
            Value::new(secs, format!("`{name}` at {}", cx.cite(span)), Some(span)).at(cx.cite(span))
        }
        None => Value::new(
            secs,
            format!("`{name}`, {}", source.describe(cx.files)),
            None,
        ),
    }
}

fn ms_secs(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

/// nginx: every `proxy_pass` whose target resolves to a Service.
pub fn nginx_chains(cx: &Context<'_>, out: &mut Vec<Chain>) {
    let new_default = cx
        .settings
        .nginx_version
        .as_ref()
        .is_some_and(|v| v.at_least(&crate::nginx::HTTP11_DEFAULT_SINCE));
    for config in cx.nginx {
        let upstreams = config.upstreams();
        for pass in config.proxy_passes() {
            let location = config
                .enclosing(pass.directive, "location")
                .or_else(|| config.enclosing(pass.directive, "server"));
            let file = cx.files.get(pass.url_span.file);
            let base = file
                .path
                .as_deref()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str())
                .unwrap_or(&file.name);
            let mut proxy = Hop::new(Layer::Proxy, format!("nginx ({base})"), Some(pass.url_span));
            let keepalive = config.keepalive_timeout(location);
            proxy.keepalive = Some(nginx_value(
                cx,
                "keepalive_timeout",
                keepalive.value.as_secs_f64(),
                &keepalive.source,
            ));
            let read = config.proxy_read_timeout(location);
            proxy.read_timeout = Some(nginx_value(
                cx,
                "proxy_read_timeout",
                read.value.as_secs_f64(),
                &read.source,
            ));
            // Upstream connections are pooled with `keepalive N` in the upstream block, or by
            // default from nginx 1.29.7 on.
            if let Some(upstream) = pass.upstream.and_then(|i| upstreams.get(i)) {
                if upstream.keepalive.is_some() || new_default {
                    let idle = config.upstream_keepalive_timeout(upstream.directive);
                    let mut value = nginx_value(
                        cx,
                        "keepalive_timeout",
                        idle.value.as_secs_f64(),
                        &idle.source,
                    );
                    value.source = format!("upstream {}", value.source);
                    value.span = value
                        .span
                        .or_else(|| upstream.keepalive.map(|k| config.get(k).span));
                    proxy.pool_idle = Some(value);
                }
            }
            let mut front = outer_hops(cx);
            front.push(proxy);
            for target in config.targets(&pass, &upstreams) {
                if let Some(service) = resolve_service(cx, &target.host) {
                    let route = format!(
                        "{base}:{} proxy_pass {}",
                        file.line_col(pass.url_span.start).line,
                        pass.url
                    );
                    finish_chains(
                        cx,
                        &route,
                        target.span,
                        &front,
                        service,
                        target.port.map_or(PortRef::Unknown, PortRef::Number),
                        None,
                        out,
                    );
                }
            }
        }
    }
}

/// haproxy.cfg: every backend `server` whose address resolves to a Service.
pub fn haproxy_chains(cx: &Context<'_>, out: &mut Vec<Chain>) {
    for config in cx.haproxy {
        let view = config.view(cx.settings.haproxy_version.as_ref());
        let file = cx.files.get(config.file);
        let base = file
            .path
            .as_deref()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or(&file.name)
            .to_string();
        let backends: Vec<usize> = view.backends().map(|(i, _)| i).collect();
        for backend in backends {
            let servers = view.servers(backend);
            let defaults = view.default_servers(backend);
            for server in &servers {
                let Some(address) = &server.address else {
                    continue;
                };
                let Some(service) = resolve_service(cx, &address.host) else {
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
                    Some(
                        Value::new(
                            ms_secs(ms),
                            format!("`timeout {name}` at {}", cx.cite(d.span)),
                            Some(d.span),
                        )
                        .at(cx.cite(d.span)),
                    )
                };
                proxy.keepalive = timeout("http-keep-alive")
                    .or_else(|| timeout("http-request"))
                    .or_else(|| timeout("client"));
                proxy.read_timeout = timeout("server");
                // Idle server connections are purged every `pool-purge-delay` (default 5s), half
                // of them each time: the pool's idle horizon.
                let purge = std::iter::once(server.line)
                    .chain(defaults.iter().copied())
                    .find_map(|line| {
                        let i = line
                            .words
                            .iter()
                            .position(|w| w.text == "pool-purge-delay")?;
                        let word = line.words.get(i + 1)?;
                        let (value, _) =
                            crate::haproxy::duration::parse_time(&word.text, false).ok()?;
                        let DurationValue::Ms(ms) = value else {
                            return None;
                        };
                        Some(
                            Value::new(
                                ms_secs(ms),
                                format!("`pool-purge-delay` at {}", cx.cite(word.span)),
                                Some(word.span),
                            )
                            .at(cx.cite(word.span)),
                        )
                    });
                let reuse_never = view
                    .find(backend, |l| {
                        l.words.first().is_some_and(|w| w.text == "http-reuse")
                            && l.words.get(1).is_some_and(|w| w.text == "never")
                    })
                    .is_some();
                if !reuse_never {
                    proxy.pool_idle = Some(purge.unwrap_or_else(|| {
                        Value::new(
                            5.0,
                            "HAProxy's built-in default of `pool-purge-delay`",
                            None,
                        )
                    }));
                }
                let port = address
                    .port
                    .as_deref()
                    .and_then(|p| p.parse::<u16>().ok())
                    .map_or(PortRef::Unknown, PortRef::Number);
                let mut front = outer_hops(cx);
                front.push(proxy);
                let route = format!(
                    "{base}:{} server {}",
                    file.line_col(server.line.span.start).line,
                    address.host
                );
                finish_chains(
                    cx,
                    &route,
                    address.host_span,
                    &front,
                    service,
                    port,
                    None,
                    out,
                );
            }
        }
    }
}
