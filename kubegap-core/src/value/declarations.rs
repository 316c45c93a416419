//! The `kubegap.io/*` declarations: annotations with which a manifest tells kubegap what it
//! cannot infer. This table is the one list of them; `docs/USER_GUIDE.md` embeds
//! [`markdown_table`] (checked by `kubegap-core/tests/generated_docs.rs`).
//!
//! ## Lookup order of route declarations
//!
//! A route-level declaration (`kubegap.io/ping-interval`, `kubegap.io/session-lifetime`) is
//! looked up by [`lookup`] on these objects, and the first one that carries it wins:
//!
//! 1. the route itself (the Ingress or OpenShift Route), when there is one;
//! 2. the backend Service;
//! 3. each workload that Service selects, then that workload's pod template.
//!
//! The most specific object wins: a value written on an Ingress applies to that route even when
//! its Service declares another. Controller rules ([`crate::controllers::Reader::declared_ms`])
//! and chain rules ([`crate::chain`]) read declarations through this one function, so they
//! always agree.

use crate::k8s::{Graph, ObjId};
use crate::yaml::{Document, NodeRef};

/// `kubegap.io/long-lived`.
pub const LONG_LIVED: &str = "kubegap.io/long-lived";
/// `kubegap.io/keepalive-timeout`.
pub const KEEPALIVE_TIMEOUT: &str = "kubegap.io/keepalive-timeout";
/// `kubegap.io/headers-timeout`.
pub const HEADERS_TIMEOUT: &str = "kubegap.io/headers-timeout";
/// `kubegap.io/ping-interval`.
pub const PING_INTERVAL: &str = "kubegap.io/ping-interval";
/// `kubegap.io/session-lifetime`.
pub const SESSION_LIFETIME: &str = "kubegap.io/session-lifetime";
/// `kubegap.io/ignore`.
pub const IGNORE: &str = "kubegap.io/ignore";
/// `kubegap.io/ignore-reason`.
pub const IGNORE_REASON: &str = "kubegap.io/ignore-reason";

/// Whether an annotations mapping may hold a `kubegap.io/` declaration: a key with that prefix,
/// or a merge key (`<<`), whose merged keys are not read here. `false` means that no
/// declaration lookup on it can find anything ([`crate::k8s::Object::declarations`]).
pub fn may_declare(annotations: Option<NodeRef<'_>>) -> bool {
    annotations.is_some_and(|a| {
        a.own_entries().any(|(k, _)| {
            k.as_str()
                .is_some_and(|k| k.starts_with("kubegap.io/") || k == "<<")
        })
    })
}

/// One declaration.
#[derive(Clone, Copy, Debug)]
pub struct Declaration {
    /// The annotation key.
    pub key: &'static str,
    /// An example value, as written.
    pub example: &'static str,
    /// The objects it is read on, in lookup order.
    pub on: &'static str,
    /// What it declares.
    pub meaning: &'static str,
}

/// Every `kubegap.io/*` declaration. Durations are Go-style (`90s`, `1m30s`, `2h`; a bare
/// number is seconds), read by [`crate::value::duration::declared_secs`].
pub const DECLARATIONS: &[Declaration] = &[
    Declaration {
        key: LONG_LIVED,
        example: "websocket|sse|grpc-stream",
        on: "Ingress, Route, Service, workload",
        meaning: "the route carries long-lived connections (otherwise inferred from timeouts ≥ 300 s, tunnel timeouts, WebSocket paths, `nginx.org/websocket-services`)",
    },
    Declaration {
        key: KEEPALIVE_TIMEOUT,
        example: "65s",
        on: "workload, then pod template",
        meaning: "the application's idle keep-alive; always wins over detection",
    },
    Declaration {
        key: HEADERS_TIMEOUT,
        example: "66s",
        on: "the workload or pod template that declares `kubegap.io/keepalive-timeout`",
        meaning: "Node.js `headersTimeout`, checked against the keep-alive",
    },
    Declaration {
        key: PING_INTERVAL,
        example: "30s",
        on: "Ingress/Route, then Service, then workload, then pod template",
        meaning: "how often clients or servers ping a long-lived connection",
    },
    Declaration {
        key: SESSION_LIFETIME,
        example: "2h",
        on: "Ingress/Route, then Service, then workload, then pod template",
        meaning: "how long a long-lived session is expected to last",
    },
    Declaration {
        key: IGNORE,
        example: "\"rule-a,rule-b\"",
        on: "any object",
        meaning: "exempts the object from these rules (`all` for every rule): findings inside the object are suppressed and counted in `suppressed`; unknown ids are `unknown-suppression` warnings",
    },
    Declaration {
        key: IGNORE_REASON,
        example: "\"…\"",
        on: "any object",
        meaning: "why (for reviewers; kubegap does not interpret it)",
    },
];

/// The declarations as the Markdown table of `docs/USER_GUIDE.md`.
pub fn markdown_table() -> String {
    let mut out =
        String::from("| annotation | on (first found wins) | declares |\n|---|---|---|\n");
    for d in DECLARATIONS {
        out.push_str(&format!(
            "| `{}: {}` | {} | {} |\n",
            d.key,
            d.example.replace('|', "\\|"),
            d.on,
            d.meaning.replace('|', "\\|")
        ));
    }
    out
}

/// The first of `places` (in order) that declares `key`, as (key node, value node): each
/// place's own `metadata.annotations`, then — for a workload — its pod template's. Callers pass
/// the places in the order of the module documentation (route, Service, workloads).
pub fn lookup<'a>(
    graph: &Graph,
    documents: &'a [Document],
    places: &[ObjId],
    key: &str,
) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
    if !graph.declares_any() {
        return None;
    }
    places
        .iter()
        .find_map(|&obj| mapping_with(graph, documents, obj, key)?.get_entry(key))
}

/// The annotations mapping of one place that has `key`: the object's own
/// `metadata.annotations`, else — for a workload — its pod template's. `None` when neither
/// has it, at once for an object that declares nothing ([`crate::k8s::Object::declarations`]).
/// Other declarations read beside `key` come from the same mapping.
pub fn mapping_with<'a>(
    graph: &Graph,
    documents: &'a [Document],
    obj: ObjId,
    key: &str,
) -> Option<NodeRef<'a>> {
    if !graph.objects[obj].declarations {
        return None;
    }
    let has = |annotations: &NodeRef<'a>| annotations.get(key).is_some();
    graph.annotations(documents, obj).filter(has).or_else(|| {
        let at = graph.workload(obj)?.template;
        documents[at.doc]
            .node(at.node)
            .path(&["metadata", "annotations"])
            .filter(has)
    })
}
