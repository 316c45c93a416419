//! `ingress-nginx-ws-timeout-capped-by-worker-shutdown`: proxy timeouts above the reload deadline.

use crate::controllers::{Controller, Product, RouteKind, Setting, Source};
use crate::reload::outlives;
use crate::rule::prelude::*;
use crate::value::duration::format_ms;
use crate::value::duration::Millis;

declare_rule! {
    /// An ingress-nginx Ingress whose proxy read or send timeout is longer than the
    /// controller's `worker-shutdown-timeout`, which caps every connection at each reload.
    ///
    /// ## What it does
    /// For each Ingress served by ingress-nginx (through its IngressClass, the controller's
    /// `--ingress-class`, or its `nginx.ingress.kubernetes.io/*` annotations), computes the
    /// effective `proxy-read-timeout` and `proxy-send-timeout` (annotation, else the
    /// controller's ConfigMap, else 60 s) and the controller's effective
    /// `worker-shutdown-timeout` (ConfigMap, else the default of 240 s, even when no ConfigMap
    /// is in the input). Reports once per object and deadline: an Ingress whose annotated
    /// timeouts are above the shutdown timeout is one finding, at the first of them (the read
    /// timeout when both are), with a label at the other naming its value and source;
    /// ConfigMap-wide timeouts above it are likewise one finding per ConfigMap, at its keys.
    ///
    /// ## Why is this bad?
    /// A long `proxy-read-timeout` is the documented advice for WebSockets, but it is not a
    /// lifetime: every reload starts new nginx workers, and the old ones are killed
    /// `worker-shutdown-timeout` later with every connection they still hold. Any Ingress
    /// change anywhere in the controller's scope reloads it. In the founding incident the
    /// timeouts were raised from 300 to 3600 s and WebSockets kept dropping at reloads
    /// (ingress-nginx#8977: cut four minutes after any new Ingress rule).
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: networking.k8s.io/v1
    /// kind: IngressClass
    /// metadata: {name: nginx}
    /// spec: {controller: k8s.io/ingress-nginx}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: chat
    ///   annotations:
    ///     nginx.ingress.kubernetes.io/proxy-read-timeout: "3600"
    /// spec:
    ///   ingressClassName: nginx
    ///   defaultBackend: {service: {name: chat, port: {number: 80}}}
    /// ```
    ///
    /// The fix: a dedicated controller for long-lived traffic whose shutdown timeout is chosen
    /// deliberately, or timeouts within the deadline plus client pings.
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: networking.k8s.io/v1
    /// kind: IngressClass
    /// metadata: {name: nginx}
    /// spec: {controller: k8s.io/ingress-nginx}
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: chat
    ///   annotations:
    ///     nginx.ingress.kubernetes.io/proxy-read-timeout: "120"
    /// spec:
    ///   ingressClassName: nginx
    ///   defaultBackend: {service: {name: chat, port: {number: 80}}}
    /// ```
    ///
    /// ## References
    /// ingress-nginx ConfigMap docs (`worker-shutdown-timeout` 240s); ingress-nginx#2461,
    /// #8977, #7115, #9516; Octops/gameserver-ingress-controller#21; seeds 000 and 001.
    pub static INGRESS_NGINX_WS_TIMEOUT_CAPPED_BY_WORKER_SHUTDOWN = {
        id: "ingress-nginx-ws-timeout-capped-by-worker-shutdown",
        severity: Warning,
        domain: Controller,
        summary: "an ingress-nginx proxy read/send timeout longer than `worker-shutdown-timeout`, which cuts connections at every reload",
        evidence: &[
            "https://github.com/kubernetes/ingress-nginx/issues/8977",
            "https://github.com/kubernetes/ingress-nginx/issues/2461",
            "https://github.com/kubernetes/ingress-nginx/issues/7115",
            "https://github.com/Octops/gameserver-ingress-controller/issues/21",
            "https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/configmap/",
        ],
        check: check,
    }
}

const HELP: &str = "any Ingress change in the controller's scope reloads nginx; serve long-lived \
routes from a dedicated controller (its own IngressClass), or raise `worker-shutdown-timeout` \
deliberately together with the pod's `terminationGracePeriodSeconds`, and make clients \
reconnect with jittered backoff";

/// The source kind of several capped timeouts of one object, and their lines:
/// "annotations, chat.yaml:7 and 8".
fn cite_all(cx: &Context<'_>, capped: &[(&str, &Setting<Millis>)]) -> String {
    let kind = if capped
        .iter()
        .all(|(_, t)| matches!(*t.source, Source::ConfigMapKey { .. }))
    {
        "ConfigMap keys"
    } else {
        "annotations"
    };
    let mut file = String::new();
    let mut lines = Vec::new();
    for (_, t) in capped {
        if let Some(span) = t.source.key_span() {
            let f = cx.files.get(span.file);
            if file.is_empty() {
                file = f.base_name().to_string();
            }
            lines.push(f.line_col(span.start).line.to_string());
        }
    }
    let lines = match lines.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    };
    format!("{kind}, {file}:{lines}")
}

/// One finding per object (Ingress or ConfigMap) and deadline: at the first capped timeout,
/// with a label at each other one.
fn report(
    cx: &Context<'_>,
    sink: &mut Sink,
    capped: &[(&str, &Setting<Millis>)],
    deadline: &Setting<Millis>,
    controller: Option<&Controller>,
) {
    let Some(((first_knob, first), rest)) = capped.split_first() else {
        return;
    };
    let Some(span) = first.source.span() else {
        return;
    };
    let what = if rest.is_empty() {
        format!("`{first_knob}` is {}", format_ms(first.value.ms()))
    } else {
        let named: Vec<String> = capped
            .iter()
            .map(|(knob, t)| format!("`{knob}` is {}", format_ms(t.value.ms())))
            .collect();
        format!("{} ({})", named.join(" and "), cite_all(cx, capped))
    };
    let finding = sink.report(
        span,
        format!(
            "{what} but the controller's `worker-shutdown-timeout` is {}: any \
             reload ends these connections within {}",
            deadline.describe(cx.files),
            format_ms(deadline.value.ms()),
        ),
    );
    for (knob, timeout) in rest {
        if let Some(other) = timeout.source.span() {
            finding.label(
                other,
                format!(
                    "`{knob}` is {} ({}), capped by the same deadline",
                    format_ms(timeout.value.ms()),
                    timeout.source.cite(cx.files)
                ),
            );
        }
    }
    if let Source::ConfigMapKey { key_span, .. } = &*deadline.source {
        finding.label(*key_span, "the controller's shutdown deadline");
    }
    match controller {
        None => {
            finding.note("no ingress-nginx controller serving this class is in the input: its default applies unless its ConfigMap says otherwise");
        }
        Some(c) => {
            if let Some(note) = c.assumed_default_note(&deadline.source) {
                finding.note(note);
            }
        }
    }
    finding.help(HELP);
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let model = cx.controllers;
    for route in &model.routes {
        if route.kind != RouteKind::Ingress
            || route.binding.as_ref().map(|b| b.product) != Some(Product::IngressNginx)
        {
            continue;
        }
        let Some(deadline) = &route.reload_deadline else {
            continue;
        };
        let controller = route.controller.and_then(|i| model.controllers.get(i));
        let capped: Vec<(&str, &Setting<Millis>)> = [
            ("proxy-read-timeout", &route.read_timeout),
            ("proxy-send-timeout", &route.send_timeout),
        ]
        .into_iter()
        .filter_map(|(knob, timeout)| Some((knob, timeout.as_ref()?)))
        .filter(|(_, timeout)| {
            matches!(*timeout.source, Source::Annotation { .. })
                && outlives(Some(timeout.value), deadline.value)
        })
        .collect();
        report(cx, sink, &capped, deadline, controller);
    }
    // ConfigMap-wide timeouts: once per controller, at the first capped key.
    for c in &model.controllers {
        if c.product != Product::IngressNginx {
            continue;
        }
        let Some(deadline) = &c.settings.reload_deadline else {
            continue;
        };
        let capped: Vec<(&str, &Setting<Millis>)> = [
            ("proxy-read-timeout", &c.settings.read_timeout),
            ("proxy-send-timeout", &c.settings.send_timeout),
        ]
        .into_iter()
        .filter_map(|(knob, timeout)| Some((knob, timeout.as_ref()?)))
        .filter(|(_, timeout)| {
            matches!(*timeout.source, Source::ConfigMapKey { .. })
                && outlives(Some(timeout.value), deadline.value)
        })
        .collect();
        report(cx, sink, &capped, deadline, Some(c));
    }
}
