//! Long-lived route detection (WebSocket, SSE, gRPC streams).
//!
//! A declaration always counts: `kubegap.io/long-lived: websocket|sse|grpc-stream` on the
//! Ingress, Route, Service or workload (or its pod template); `none` or `false` opts out of the
//! heuristics. Otherwise these are signs (DOMAIN.md §4.0): a timeout annotation of 300 s or
//! more, a tunnel timeout annotation, `nginx.org/websocket-services`, and WebSocket or SSE
//! path hints (`/ws`, `/websocket`, `/socket.io`, `/cable`, `/hub`, `/sockjs`, `/events`).

use crate::k8s::{Graph, ObjId};
use crate::source::Span;
use crate::yaml::Document;

use super::{duration, Reader, LONG_LIVED_ANNOTATION};

/// What kind of long-lived traffic a route carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LongLivedKind {
    /// WebSocket (an HTTP upgrade: proxies treat it as a tunnel).
    WebSocket,
    /// Server-sent events (a long HTTP response: read/server timeouts apply, not tunnel).
    Sse,
    /// A gRPC stream (HTTP/2 stream: read/server timeouts apply).
    GrpcStream,
    /// Long-lived, kind unknown (a long timeout).
    Unspecified,
}

impl LongLivedKind {
    /// Name for messages.
    pub fn name(self) -> &'static str {
        match self {
            LongLivedKind::WebSocket => "WebSocket",
            LongLivedKind::Sse => "server-sent events",
            LongLivedKind::GrpcStream => "gRPC stream",
            LongLivedKind::Unspecified => "long-lived",
        }
    }

    /// Whether the proxy treats it as a tunnel (HAProxy `timeout tunnel` applies).
    pub fn is_tunnel(self) -> bool {
        matches!(self, LongLivedKind::WebSocket)
    }
}

/// Why a route counts as long-lived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongLived {
    /// The kind.
    pub kind: LongLivedKind,
    /// Whether it was declared with `kubegap.io/long-lived` (else a heuristic sign).
    pub declared: bool,
    /// The evidence, for messages (``annotation `kubegap.io/long-lived: websocket` ``).
    pub reason: String,
    /// Where the evidence is written.
    pub span: Span,
}

/// Timeout annotations whose value ≥ 300 s is a sign, with their units.
const TIMEOUT_SIGNS: &[(&str, duration::Parser)] = &[
    (
        "nginx.ingress.kubernetes.io/proxy-read-timeout",
        duration::ingress_nginx_int,
    ),
    (
        "nginx.ingress.kubernetes.io/proxy-send-timeout",
        duration::ingress_nginx_int,
    ),
    ("nginx.org/proxy-read-timeout", duration::nginx),
    ("nginx.org/proxy-send-timeout", duration::nginx),
    ("haproxy.router.openshift.io/timeout", duration::haproxy),
    ("haproxy.org/timeout-server", duration::haproxy),
    (
        "haproxy-ingress.github.io/timeout-server",
        duration::haproxy,
    ),
];

/// Tunnel timeout annotations: present means WebSocket-style traffic is expected.
const TUNNEL_SIGNS: &[&str] = &[
    "haproxy.router.openshift.io/timeout-tunnel",
    "haproxy.org/timeout-tunnel",
    "haproxy-ingress.github.io/timeout-tunnel",
];

/// The kind a path suggests: `/ws`, `/websocket`, `/socket.io`, `/cable`, `/hub`, `/sockjs` →
/// WebSocket; `/events`, `/sse` → server-sent events. Matches whole path segments.
pub fn path_hint(path: &str) -> Option<LongLivedKind> {
    path.split('/')
        .map(|seg| {
            seg.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '.' && c != '-')
                .to_ascii_lowercase()
        })
        .find_map(|seg| match seg.as_str() {
            "ws" | "wss" | "websocket" | "websockets" | "socket.io" | "cable" | "hub" | "hubs"
            | "sockjs" => Some(LongLivedKind::WebSocket),
            "events" | "sse" | "event-stream" => Some(LongLivedKind::Sse),
            _ => None,
        })
}

fn declared_kind(value: &str) -> Option<Option<LongLivedKind>> {
    match value.trim().to_ascii_lowercase().as_str() {
        "websocket" | "websockets" | "ws" => Some(Some(LongLivedKind::WebSocket)),
        "sse" | "server-sent-events" => Some(Some(LongLivedKind::Sse)),
        "grpc-stream" | "grpc" => Some(Some(LongLivedKind::GrpcStream)),
        "none" | "false" | "no" => Some(None),
        "true" | "yes" => Some(Some(LongLivedKind::Unspecified)),
        _ => None,
    }
}

/// Whether an Ingress, Route, Service or workload carries long-lived connections, and why.
/// `None` when nothing says so (or a declaration opts out).
pub fn long_lived(graph: &Graph, documents: &[Document], obj: ObjId) -> Option<LongLived> {
    let reader = Reader { graph, documents };
    long_lived_among(&reader, obj, &reader.declaring(obj))
}

/// [`long_lived`], given the objects that may declare it ([`Reader::declaring`]), for a caller
/// that reads other declarations on them too.
pub fn long_lived_among(reader: &Reader<'_>, obj: ObjId, declaring: &[ObjId]) -> Option<LongLived> {
    let graph = reader.graph;
    // 1. Declarations: the object, its backend Services, their workloads and pod templates.
    for &o in declaring {
        let mut found = reader.annotation(o, LONG_LIVED_ANNOTATION);
        if found.is_none() {
            if let Some(w) = graph.workload(o) {
                found = reader
                    .node(w.template)
                    .path(&["metadata", "annotations"])
                    .and_then(|a| a.get_entry(LONG_LIVED_ANNOTATION));
            }
        }
        if let Some((k, v)) = found {
            let text = v.as_str().unwrap_or_default();
            if let Some(kind) = declared_kind(text) {
                return kind.map(|kind| LongLived {
                    kind,
                    declared: true,
                    reason: format!("annotation `{LONG_LIVED_ANNOTATION}: {}`", text.trim()),
                    span: k.span().to(v.span()),
                });
            }
        }
    }
    // 2. Signs in the object's own annotations.
    let annotations = reader.annotations_of(obj);
    let annotation = |key: &str| annotations.and_then(|a| a.get_entry(key));
    for (key, parse) in TIMEOUT_SIGNS {
        if let Some((k, v)) = annotation(key) {
            if let Some(ms) = v.as_str().and_then(parse) {
                if ms >= crate::reload::LONG_LIVED_MS {
                    return Some(LongLived {
                        kind: LongLivedKind::Unspecified,
                        declared: false,
                        reason: format!("annotation `{key}` is {} (≥ 300s)", ms),
                        span: k.span().to(v.span()),
                    });
                }
            }
        }
    }
    for key in TUNNEL_SIGNS
        .iter()
        .chain(std::iter::once(&"nginx.org/websocket-services"))
    {
        if let Some((k, v)) = annotation(key) {
            return Some(LongLived {
                kind: LongLivedKind::WebSocket,
                declared: false,
                reason: format!("annotation `{key}`"),
                span: k.span().to(v.span()),
            });
        }
    }
    // 3. Path hints.
    let node = reader.object(obj);
    let mut paths = Vec::new();
    if let Some(p) = node.path(&["spec", "path"]) {
        paths.push(p);
    }
    for rule in node
        .path(&["spec", "rules"])
        .into_iter()
        .flat_map(|r| r.items())
    {
        for p in rule
            .path(&["http", "paths"])
            .into_iter()
            .flat_map(|p| p.items())
        {
            if let Some(path) = p.get("path") {
                paths.push(path);
            }
        }
    }
    for p in paths {
        let Some(text) = p.as_str() else { continue };
        if let Some(kind) = path_hint(text) {
            return Some(LongLived {
                kind,
                declared: false,
                reason: format!("path `{text}`"),
                span: p.span(),
            });
        }
    }
    None
}
