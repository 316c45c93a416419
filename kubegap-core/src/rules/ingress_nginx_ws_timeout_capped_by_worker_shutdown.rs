//! `ingress-nginx-ws-timeout-capped-by-worker-shutdown`: proxy timeouts above the reload deadline.

use crate::controllers::{Controller, Model, Product, RouteKind, Setting, Source};
use crate::reload::{format_ms, outlives};
use crate::rule::prelude::*;

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
    /// is in the input). Reports a timeout above the shutdown timeout, at the annotation; a
    /// ConfigMap-wide timeout above it is reported at the ConfigMap key.
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

fn report(
    cx: &Context<'_>,
    sink: &mut Sink,
    knob: &str,
    timeout: &Setting<u64>,
    deadline: &Setting<u64>,
    controller: Option<&Controller>,
) {
    let Some(span) = timeout.source.span() else {
        return;
    };
    let finding = sink.report(
        span,
        format!(
            "`{knob}` is {} but the controller's `worker-shutdown-timeout` is {}: any \
             reload ends these connections within {}",
            format_ms(timeout.value),
            deadline.describe(cx.files),
            format_ms(deadline.value),
        ),
    );
    if let Source::ConfigMapKey { key_span, .. } = &deadline.source {
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
    let model = Model::of(cx);
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
        for (knob, timeout) in [
            ("proxy-read-timeout", &route.read_timeout),
            ("proxy-send-timeout", &route.send_timeout),
        ] {
            let Some(timeout) = timeout else { continue };
            if matches!(timeout.source, Source::Annotation { .. })
                && outlives(Some(timeout.value), deadline.value)
            {
                report(cx, sink, knob, timeout, deadline, controller);
            }
        }
    }
    // ConfigMap-wide timeouts: once per controller, at the key.
    for c in &model.controllers {
        if c.product != Product::IngressNginx {
            continue;
        }
        let Some(deadline) = &c.settings.reload_deadline else {
            continue;
        };
        for (knob, timeout) in [
            ("proxy-read-timeout", &c.settings.read_timeout),
            ("proxy-send-timeout", &c.settings.send_timeout),
        ] {
            let Some(timeout) = timeout else { continue };
            if matches!(timeout.source, Source::ConfigMapKey { .. })
                && outlives(Some(timeout.value), deadline.value)
            {
                report(cx, sink, knob, timeout, deadline, Some(c));
            }
        }
    }
}
