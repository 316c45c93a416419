//! `kubegap chains`: every timeout chain found, for people who want to see their whole stack.

use serde::Serialize;

use kubegap_core::chain::{Chains, Layer, Value};
use kubegap_core::SourceMap;

/// Text: the route and where it is written, then the hops, one per line.
pub fn text(files: &SourceMap, chains: &Chains) -> String {
    let mut out = String::new();
    for chain in chains.iter() {
        let file = files.get(chain.anchor().file);
        let at = file.line_col(chain.anchor().start);
        out.push_str(&format!(
            "{} ({}:{}:{})",
            chain.route().label(files),
            file.name,
            at.line,
            at.column
        ));
        if let Some(reason) = chain.long_lived() {
            out.push_str(&format!(" [long-lived: {reason}]"));
        }
        out.push('\n');
        for hop in chain.hops() {
            out.push_str(&format!("  → {}", hop.name));
            let mut parts = Vec::new();
            let mut add = |what: &str, v: &Option<Value>| {
                if let Some(v) = v {
                    parts.push(format!("{what} {}", v.show(files)));
                }
            };
            add("keep-alive", &hop.keepalive);
            add("pool idle", &hop.pool_idle);
            add("timeout", &hop.read_timeout);
            add("tunnel timeout", &hop.tunnel_timeout);
            add("lifetime", &hop.lifetime);
            add("headersTimeout", &hop.headers_timeout);
            if !parts.is_empty() {
                out.push_str(&format!(": {}", parts.join("; ")));
            } else if hop.layer == Layer::App {
                out.push_str(": keep-alive unknown");
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "{} chain{}\n",
        chains.len(),
        if chains.len() == 1 { "" } else { "s" }
    ));
    out
}

#[derive(Serialize)]
struct JsonChain<'a> {
    route: String,
    file: &'a str,
    line: u32,
    column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    long_lived: Option<&'a str>,
    hops: Vec<JsonHop<'a>>,
}

#[derive(Serialize)]
struct JsonHop<'a> {
    layer: &'static str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    keepalive: Option<JsonValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pool_idle: Option<JsonValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout: Option<JsonValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tunnel_timeout: Option<JsonValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lifetime: Option<JsonValue>,
}

#[derive(Serialize)]
struct JsonValue {
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    seconds_max: Option<f64>,
    source: String,
}

fn jv(files: &SourceMap, v: &Option<Value>) -> Option<JsonValue> {
    v.as_ref().map(|v| JsonValue {
        seconds: v.range.low.secs_f64(),
        seconds_max: (v.range.high > v.range.low).then_some(v.range.high.secs_f64()),
        source: v.source.cite(files),
    })
}

/// JSON: `{"version": 1, "chains": [...]}`.
pub fn json(files: &SourceMap, chains: &Chains) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        version: u32,
        chains: Vec<JsonChain<'a>>,
    }
    let chains = chains
        .iter()
        .map(|c| {
            let file = files.get(c.anchor().file);
            let at = file.line_col(c.anchor().start);
            JsonChain {
                route: c.route().label(files),
                file: &file.name,
                line: at.line,
                column: at.column,
                long_lived: c.long_lived(),
                hops: c
                    .hops()
                    .iter()
                    .map(|h| JsonHop {
                        layer: match h.layer {
                            Layer::Outer => "outer",
                            Layer::LoadBalancer => "load-balancer",
                            Layer::Proxy => "proxy",
                            Layer::Service => "service",
                            Layer::App => "app",
                        },
                        name: &h.name,
                        keepalive: jv(files, &h.keepalive),
                        pool_idle: jv(files, &h.pool_idle),
                        timeout: jv(files, &h.read_timeout),
                        tunnel_timeout: jv(files, &h.tunnel_timeout),
                        lifetime: jv(files, &h.lifetime),
                    })
                    .collect(),
            }
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&Doc { version: 1, chains }).unwrap_or_default();
    out.push('\n');
    out
}
