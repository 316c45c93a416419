//! `diff-shared-proxy-reload`: a change to a shared proxy's config reloads it, and the reload
//! cuts the long-lived connections of routes the change did not touch.

use std::collections::BTreeMap;

use crate::controllers::Product;
use crate::diff::{DiffContext, Side};
use crate::haproxy::{logic, HaproxyConfig};
use crate::k8s::ObjId;
use crate::nginx::NginxConfig;
use crate::rule::prelude::*;
use crate::value::duration::format_ms;

declare_rule! {
    /// A change to a haproxy.cfg, an nginx config or an ingress controller's ConfigMap reloads
    /// the proxy, and the reload's deadline cuts the long-lived connections of routes the
    /// change did not touch.
    ///
    /// ## What it does
    /// `kubegap diff` only. For each haproxy.cfg and nginx config whose text differs between
    /// BASE and HEAD (matched by path relative to BASE and HEAD): when HEAD has a reload
    /// deadline (`hard-stop-after`; `worker_shutdown_timeout`) and proxies or locations
    /// carrying long-lived connections that outlive it (the same evidence as
    /// `haproxy-hard-stop-cuts-long-lived` and `nginx-worker-shutdown-cuts-long-lived`), and
    /// some of those are identical in BASE (untouched by the change), reports at HEAD's first
    /// changed line, naming the untouched routes and the deadline.
    ///
    /// Ingress controller ConfigMaps: for each controller the controllers model finds in HEAD
    /// whose `--configmap` is in the input and matched in BASE, when that ConfigMap's `data`
    /// differs (values compared canonically: comments, quoting and key order ignored) and the
    /// model says the controller serves long-lived Ingresses or Routes that already exist in
    /// BASE (declared `kubegap.io/long-lived` or the model's heuristic signs), reports at
    /// HEAD's first changed key, naming those routes and the controller's reload deadline with
    /// its source: ingress-nginx `worker-shutdown-timeout` (default 240s), haproxytech
    /// `hard-stop-after`, haproxy-ingress `timeout-stop`, the OpenShift router's hard stop,
    /// as the model resolves them (ConfigMap key, argument or product default).
    ///
    /// ## Why is this bad?
    /// A shared proxy reloads for anyone's change; the old process keeps the existing
    /// connections until the deadline, then cuts them. Seed 000: every tenant's deploy on a
    /// shared HAProxy with `hard-stop-after` cut every WebSocket of every other tenant. The
    /// reviewer of the change sees only the lines changed, not the routes cut.
    ///
    /// ## Example
    /// A new `backend api2` added to a haproxy.cfg with `hard-stop-after 30m` and an
    /// untouched `backend ws` whose `timeout tunnel 1h` carries WebSockets; or
    /// `proxy-body-size` raised in the ingress-nginx ConfigMap while an Ingress of the same
    /// controller carries WebSockets: the reload closes them 240s later.
    ///
    /// Use instead: serve long-lived routes from a proxy that is rarely reloaded, or deploy
    /// such changes in a window the long-lived clients tolerate; make clients reconnect with
    /// jitter.
    pub static DIFF_SHARED_PROXY_RELOAD = {
        id: "diff-shared-proxy-reload",
        severity: Warning,
        domain: Haproxy,
        summary: "a config change reloads a shared proxy whose deadline cuts long-lived connections of routes the change did not touch",
        evidence: &[
            "https://docs.haproxy.org/2.8/configuration.html#3.1-hard-stop-after",
            "https://nginx.org/en/docs/ngx_core_module.html#worker_shutdown_timeout",
            "https://github.com/kubernetes/ingress-nginx/issues/8977",
        ],
        check: crate::diff::lint_check,
    }
}

fn name_of<'s>(side: &'s Side<'_>, file: crate::source::FileId) -> &'s str {
    &side.names[file.0 as usize]
}

/// The first line where HEAD's text differs from BASE's, as a HEAD span.
fn first_change(base: &str, head: &str, head_file: crate::source::FileId) -> Span {
    let mut offset = 0usize;
    let mut b = base.split_inclusive('\n');
    for line in head.split_inclusive('\n') {
        if b.next() != Some(line) {
            let end = offset + line.trim_end().len();
            return Span::new(head_file, offset, end.max(offset));
        }
        offset += line.len();
    }
    Span::new(head_file, offset, offset)
}

fn haproxy_sections(side: &Side<'_>, cfg: &HaproxyConfig) -> BTreeMap<String, String> {
    let file = side.ws.files.get(cfg.file);
    cfg.sections
        .iter()
        .map(|s| {
            let text: Vec<String> = std::iter::once(&s.header)
                .chain(&s.lines)
                .map(|l| {
                    file.slice(l.span)
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            (s.describe(), text.join("\n"))
        })
        .collect()
}

fn nginx_blocks(cfg: &NginxConfig) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (id, d) in cfg.iter() {
        if d.children.is_none() {
            continue;
        }
        let mut key: Vec<String> = cfg.ancestors(id).map(|a| cfg.describe(a)).collect();
        key.reverse();
        key.push(cfg.describe(id));
        let mut text = Vec::new();
        let mut stack = vec![id];
        while let Some(cur) = stack.pop() {
            text.push(cfg.describe(cur));
            stack.extend(cfg.children(Some(cur)).iter().rev().copied());
        }
        out.insert(key.join(" > "), text.join(";"));
    }
    out
}

fn nginx_key(cfg: &NginxConfig, id: crate::nginx::DirectiveId) -> String {
    let mut key: Vec<String> = cfg.ancestors(id).map(|a| cfg.describe(a)).collect();
    key.reverse();
    key.push(cfg.describe(id));
    key.join(" > ")
}

fn changed_text<'a>(
    cx: &'a DiffContext<'_>,
    head_file: crate::source::FileId,
) -> Option<(&'a str, &'a str)> {
    let name = name_of(&cx.head, head_file);
    let (base_id, _) = cx
        .base
        .ws
        .files
        .iter()
        .find(|(id, _)| name_of(&cx.base, *id) == name)?;
    let base = &*cx.base.ws.files.get(base_id).text;
    let head = &*cx.head.ws.files.get(head_file).text;
    (base != head).then_some((base, head))
}

pub(crate) fn diff(cx: &DiffContext<'_>, sink: &mut Sink) {
    controller_config_maps(cx, sink);
    for cfg in &cx.head.ws.haproxy {
        let Some((base_text, head_text)) = changed_text(cx, cfg.file) else {
            continue;
        };
        let name = name_of(&cx.head, cfg.file);
        let Some(base_cfg) = cx
            .base
            .ws
            .haproxy
            .iter()
            .find(|c| name_of(&cx.base, c.file) == name)
        else {
            continue;
        };
        let view = cfg.view(cx.settings.haproxy_version.as_ref());
        let Some((hard_stop, line)) = view.global_time("hard-stop-after") else {
            continue;
        };
        let Some(Some(deadline)) = hard_stop.limit() else {
            continue;
        };
        let base_sections = haproxy_sections(&cx.base, base_cfg);
        let head_sections = haproxy_sections(&cx.head, cfg);
        let websocket = view.websocket_proxies();
        let mut untouched = Vec::new();
        for (index, section) in view.proxies() {
            if view
                .long_lived(index, websocket, |limit| logic::outlives(limit, deadline))
                .is_none()
            {
                continue;
            }
            let key = section.describe();
            if base_sections.get(&key) == head_sections.get(&key) {
                untouched.push(key);
            }
        }
        if untouched.is_empty() {
            continue;
        }
        let at = first_change(base_text, head_text, cfg.file);
        let deadline_span = cx.head.span(line.span);
        let f = sink.report(
            cx.head.span(at),
            format!(
                "this change reloads the HAProxy of {name}: `hard-stop-after {}` ({}) cuts the long-lived connections of {}, which the change does not touch, at most {} after the reload",
                hard_stop.text,
                cx.head.cite(deadline_span),
                logic::enumerate(&untouched),
                deadline,
            ),
        );
        f.label(deadline_span, "the old process is stopped at this deadline");
        f.help("serve long-lived routes from a proxy that is rarely reloaded, or deploy this change when their clients tolerate a reconnect");
    }
    for cfg in &cx.head.ws.nginx {
        let Some(((base_text, head_text), changed_file)) = cfg
            .files
            .iter()
            .find_map(|f| changed_text(cx, *f).map(|t| (t, *f)))
        else {
            continue;
        };
        let name = name_of(&cx.head, cfg.file);
        let Some(base_cfg) = cx
            .base
            .ws
            .nginx
            .iter()
            .find(|c| name_of(&cx.base, c.file) == name)
        else {
            continue;
        };
        let Some(shutdown) = cfg.worker_shutdown_timeout() else {
            continue;
        };
        let base_blocks = nginx_blocks(base_cfg);
        let head_blocks = nginx_blocks(cfg);
        let mut untouched = Vec::new();
        for ll in cfg.long_lived(&cx.head.ws.files) {
            let read = cfg.proxy_read_timeout(Some(ll.proxy_pass));
            if shutdown.value >= read.value {
                continue;
            }
            let key = nginx_key(cfg, ll.location);
            if base_blocks.contains_key(&key) && base_blocks.get(&key) == head_blocks.get(&key) {
                untouched.push(format!("`{}`", cfg.describe(ll.location)));
            }
        }
        if untouched.is_empty() {
            continue;
        }
        let at = first_change(base_text, head_text, changed_file);
        let f = sink.report(
            cx.head.span(at),
            format!(
                "this change reloads the nginx of {name}: `worker_shutdown_timeout` {} ({}) cuts the long-lived connections of {}, which the change does not touch",
                shutdown.value,
                shutdown.source.cite(&cx.head.ws.files),
                logic::enumerate(&untouched),
            ),
        );
        if let Some(span) = shutdown.source.span() {
            f.label(
                cx.head.span(span),
                "old workers are stopped after this deadline",
            );
        }
        f.help("serve long-lived routes from an nginx that is rarely reloaded, or deploy this change when their clients tolerate a reconnect");
    }
}

/// The first `data` key of HEAD's ConfigMap whose value differs from BASE's (or is new), as a
/// HEAD workspace span; the `data` key when only removals differ; `None` when unchanged.
fn changed_data_key(cx: &DiffContext<'_>, base: ObjId, head: ObjId) -> Option<Span> {
    let old = cx.base.obj_node(base).get("data");
    let new = cx.head.obj_node(head).get("data");
    let old_entries: BTreeMap<String, String> = old
        .map(|d| d.entries())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(k, v)| Some((k.as_str()?.to_string(), crate::diff::canon(v))))
        .collect();
    let new_entries = new.map(|d| d.entries()).unwrap_or_default();
    for (k, v) in &new_entries {
        let Some(key) = k.as_str() else { continue };
        if old_entries.get(key) != Some(&crate::diff::canon(*v)) {
            return Some(k.span());
        }
    }
    let removed = old_entries.len()
        != new_entries
            .iter()
            .filter(|(k, _)| k.as_str().is_some())
            .count();
    removed.then(|| cx.head.key_span(head, &["data"]))
}

/// Ingress controller ConfigMaps: the controllers model binds the ConfigMap (`--configmap`) to
/// a controller in HEAD, knows its reload deadline, and which of its routes are long-lived.
fn controller_config_maps(cx: &DiffContext<'_>, sink: &mut Sink) {
    let model = &cx.head.ws.controllers;
    let files = &cx.head.ws.files;
    for (index, controller) in model.controllers.iter().enumerate() {
        let Some(cm) = controller.config_map else {
            continue;
        };
        let Some(deadline) = &controller.settings.reload_deadline else {
            continue;
        };
        let Some(&(base_cm, _)) = cx.matched.iter().find(|(_, h)| *h == cm) else {
            continue;
        };
        let Some(at) = changed_data_key(cx, base_cm, cm) else {
            continue;
        };
        let at = cx.head.span(at);
        let mut routes = Vec::new();
        for route in model.routes_of(index) {
            let Some(long_lived) = &route.long_lived else {
                continue;
            };
            // A route new in HEAD has no connection to cut yet.
            if !cx.matched.iter().any(|(_, h)| *h == route.obj) {
                continue;
            }
            routes.push(format!(
                "{} ({}, {})",
                cx.describe(route.obj),
                long_lived.kind.name(),
                long_lived.reason
            ));
        }
        if routes.is_empty() {
            continue;
        }
        let knob = match controller.product {
            Product::IngressNginx => "worker-shutdown-timeout",
            Product::HaproxyIngress => "timeout-stop",
            _ => "hard-stop-after",
        };
        let f = sink.report(
            at,
            format!(
                "this change to {} reloads the {} of {}: its reload deadline `{knob}` {} cuts the long-lived connections of {}, which the change does not touch, at most {} after the reload",
                cx.describe(cm),
                controller.product.name(),
                cx.describe(controller.obj),
                deadline.describe(files),
                logic::enumerate(&routes),
                format_ms(deadline.value.ms()),
            ),
        );
        if let Some(span) = deadline.source.key_span() {
            f.label(cx.head.span(span), "the reload deadline");
        }
        if let Some(note) = controller.assumed_default_note(&deadline.source) {
            f.note(note);
        }
        f.help("serve long-lived routes from a controller whose configuration rarely changes, or deploy this change when their clients tolerate a reconnect");
    }
}
