//! `lb-websocket-lifetime-capped`: a cloud load balancer cuts a long-lived route's connections.

use crate::controllers::lb::{for_service, LbKind, LoadBalancer};
use crate::controllers::{
    long_lived, LongLived, Reader, Setting, PING_INTERVAL_ANNOTATION, SESSION_LIFETIME_ANNOTATION,
};
use crate::k8s::ObjId;
use crate::reload::{idle_survives_ping, lifetime_cap_cuts, MIN_WEBSOCKET_LIFETIME_MS};
use crate::rule::prelude::*;
use crate::value::duration::Millis;

declare_rule! {
    /// A long-lived route behind a GCP load balancer whose `timeoutSec` caps each WebSocket's
    /// total lifetime, or behind an AWS or Azure load balancer whose idle timeout is not longer
    /// than the declared ping interval.
    ///
    /// ## What it does
    /// For each long-lived Ingress, Route or Service of type LoadBalancer (declared with
    /// `kubegap.io/long-lived`, or a sign such as a long timeout or a WebSocket path), finds
    /// the cloud load balancer in front: an ALB (AWS Load Balancer Controller Ingress), the
    /// GCP load balancer of a GKE Ingress (class `gce`, or backends with a BackendConfig), or
    /// the AWS/Azure load balancer of the controller's Service. Reports:
    /// - GCP: the backend's `timeoutSec` (BackendConfig, default 30 s) below the declared
    ///   `kubegap.io/session-lifetime`, or below 1h when none is declared;
    /// - AWS (ALB 60 s, CLB 60 s, NLB 350 s) and Azure (4 min): an idle timeout not longer than
    ///   the declared `kubegap.io/ping-interval`.
    ///
    /// ## Why is this bad?
    /// For a WebSocket, GCP's backend service timeout "is interpreted as the maximum amount of
    /// time that a WebSocket connection can remain open, whether idle or not": the 30 s default
    /// cuts every socket after 30 s. AWS and Azure drop idle connections silently (Azure sends
    /// no reset unless enabled); a ping interval equal to the idle timeout races it
    /// (mattermost/docs#8929: 61% timeouts with ALB 60 s and pings every 60 s).
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: chat
    ///   annotations:
    ///     kubernetes.io/ingress.class: gce
    ///     kubegap.io/long-lived: websocket
    /// spec:
    ///   defaultBackend: {service: {name: chat, port: {number: 80}}}
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: cloud.google.com/v1
    /// kind: BackendConfig
    /// metadata: {name: chat}
    /// spec:
    ///   timeoutSec: 86400
    /// ---
    /// apiVersion: v1
    /// kind: Service
    /// metadata:
    ///   name: chat
    ///   annotations:
    ///     cloud.google.com/backend-config: '{"default": "chat"}'
    /// spec:
    ///   selector: {app: chat}
    ///   ports: [{port: 80}]
    /// ---
    /// apiVersion: networking.k8s.io/v1
    /// kind: Ingress
    /// metadata:
    ///   name: chat
    ///   annotations:
    ///     kubernetes.io/ingress.class: gce
    ///     kubegap.io/long-lived: websocket
    /// spec:
    ///   defaultBackend: {service: {name: chat, port: {number: 80}}}
    /// ```
    ///
    /// ## References
    /// GCP backend service docs (`timeoutSec` and WebSockets); AWS ALB, CLB and NLB idle
    /// timeout docs; Azure Load Balancer idle timeout docs; mattermost/docs#8929;
    /// ApicurioArchive/apicurio-studio#221; kubernetes/kubernetes#82799.
    pub static LB_WEBSOCKET_LIFETIME_CAPPED = {
        id: "lb-websocket-lifetime-capped",
        severity: Warning,
        domain: Controller,
        summary: "a long-lived route behind a GCP backend timeout that caps its lifetime, or an AWS/Azure idle timeout not above the ping interval",
        evidence: &[
            "https://cloud.google.com/load-balancing/docs/backend-service#timeout-setting",
            "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/edit-load-balancer-attributes.html",
            "https://learn.microsoft.com/azure/load-balancer/load-balancer-tcp-idle-timeout",
            "https://github.com/mattermost/docs/issues/8929",
            "https://github.com/kubernetes/kubernetes/issues/82799",
        ],
        check: check,
    }
}

struct Case<'a> {
    obj: ObjId,
    long_lived: &'a LongLived,
    lb: &'a LoadBalancer,
    ping: Option<&'a Setting<Millis>>,
    lifetime: Option<&'a Setting<Millis>>,
}

fn check_case(cx: &Context<'_>, sink: &mut Sink, case: Case<'_>) {
    let Case {
        obj,
        long_lived,
        lb,
        ping,
        lifetime,
    } = case;
    if lb.kind == LbKind::Gclb {
        let Some(cap) = &lb.lifetime_cap else { return };
        if !lifetime_cap_cuts(cap.value, lifetime.map(|l| l.value)) {
            return;
        }
        let wanted = match lifetime {
            Some(l) => format!("its declared session lifetime {}", l.describe(cx.files)),
            None => format!(
                "{} (no `{SESSION_LIFETIME_ANNOTATION}` is declared)",
                MIN_WEBSOCKET_LIFETIME_MS
            ),
        };
        let f = sink.report(
            cap.source.span().unwrap_or(long_lived.span),
            format!(
                "{} carries {} connections ({}) behind a {} whose backend timeout {} is each connection's total lifetime, below {wanted}",
                cx.describe(obj),
                long_lived.kind.name(),
                long_lived.reason,
                lb.kind.name(),
                cap.describe(cx.files),
            ),
        );
        if cap.source.span().is_some() {
            f.label(long_lived.span, "long-lived here");
        }
        f.help("raise `timeoutSec` in the Service's BackendConfig to the longest session you want to keep (e.g. 86400), and make clients reconnect with jittered backoff");
        return;
    }
    let (Some(idle), Some(ping)) = (&lb.idle_timeout, ping) else {
        return;
    };
    if idle_survives_ping(idle.value, ping.value) {
        return;
    }
    let f = sink.report(
        idle.source.span().unwrap_or(long_lived.span),
        format!(
            "{} carries {} connections ({}) behind an {} whose idle timeout {} is not longer than the ping interval {}: idle connections are dropped",
            cx.describe(obj),
            long_lived.kind.name(),
            long_lived.reason,
            lb.kind.name(),
            idle.describe(cx.files),
            ping.describe(cx.files),
        ),
    );
    if let Some(span) = ping.source.key_span() {
        f.label(span, "the ping interval");
    }
    f.help(match lb.kind {
        LbKind::Alb => "raise `idle_timeout.timeout_seconds` in `alb.ingress.kubernetes.io/load-balancer-attributes`, or ping at most every half of it",
        LbKind::Clb => "raise `service.beta.kubernetes.io/aws-load-balancer-connection-idle-timeout`, or ping at most every half of it",
        LbKind::Azure => "raise `service.beta.kubernetes.io/azure-load-balancer-tcp-idle-timeout` (minutes), enable TCP reset, or ping at most every half of it",
        _ => "raise the load balancer's idle timeout, or ping at most every half of it",
    });
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let model = cx.controllers;
    for route in &model.routes {
        let (Some(long_lived), Some(lb)) = (&route.long_lived, &route.lb) else {
            continue;
        };
        check_case(
            cx,
            sink,
            Case {
                obj: route.obj,
                long_lived,
                lb,
                ping: route.ping_interval.as_ref(),
                lifetime: route.session_lifetime.as_ref(),
            },
        );
    }
    // Services of type LoadBalancer that carry long-lived traffic themselves.
    let reader = Reader {
        graph: cx.k8s,
        documents: cx.documents,
    };
    for service in &cx.k8s.services {
        let Some(lb) = for_service(&reader, service.obj) else {
            continue;
        };
        let Some(long_lived) = long_lived(cx.k8s, cx.documents, service.obj) else {
            continue;
        };
        let ping = reader.declared_ms(service.obj, PING_INTERVAL_ANNOTATION);
        let lifetime = reader.declared_ms(service.obj, SESSION_LIFETIME_ANNOTATION);
        check_case(
            cx,
            sink,
            Case {
                obj: service.obj,
                long_lived: &long_lived,
                lb: &lb,
                ping: ping.as_ref(),
                lifetime: lifetime.as_ref(),
            },
        );
    }
}
