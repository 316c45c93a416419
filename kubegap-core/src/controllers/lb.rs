//! Cloud load balancers configured through annotations and BackendConfigs (DOMAIN.md §2.5).
//!
//! - AWS Load Balancer Controller on an Ingress: `alb.ingress.kubernetes.io/
//!   load-balancer-attributes` `idle_timeout.timeout_seconds` (default 60),
//!   `target-group-attributes` `deregistration_delay.timeout_seconds` (default 300),
//!   `target-type` (default `instance`).
//! - AWS on a Service of type LoadBalancer: CLB idle 60 s
//!   (`service.beta.kubernetes.io/aws-load-balancer-connection-idle-timeout`), NLB 350 s.
//! - GKE: BackendConfig `spec.timeoutSec` (default 30 s; for a WebSocket, its total lifetime),
//!   `connectionDraining.drainingTimeoutSec` (default 0), backend keep-alive fixed at 600 s.
//! - Azure: `service.beta.kubernetes.io/azure-load-balancer-tcp-idle-timeout`, minutes, default 4.

use crate::k8s::ObjId;
use crate::value::duration::Millis;

use super::{
    annotation_source, duration, Controller, Product, Reader, RouteSettings, Setting, Source,
};

/// Which load balancer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LbKind {
    /// AWS Application Load Balancer (AWS Load Balancer Controller Ingress).
    Alb,
    /// AWS Classic Load Balancer (Service type LoadBalancer, in-tree provider).
    Clb,
    /// AWS Network Load Balancer.
    Nlb,
    /// GCP external Application Load Balancer (GKE Ingress).
    Gclb,
    /// Azure Load Balancer.
    Azure,
}

impl LbKind {
    /// Name for messages.
    pub fn name(self) -> &'static str {
        match self {
            LbKind::Alb => "AWS ALB",
            LbKind::Clb => "AWS CLB",
            LbKind::Nlb => "AWS NLB",
            LbKind::Gclb => "GCP load balancer",
            LbKind::Azure => "Azure Load Balancer",
        }
    }
}

/// A cloud load balancer in front of a route, with its effective settings (milliseconds).
#[derive(Clone, Debug)]
pub struct LoadBalancer {
    /// Which one.
    pub kind: LbKind,
    /// The Ingress or Service whose annotations configure it.
    pub obj: ObjId,
    /// Idle timeout (client and target connections).
    pub idle_timeout: Option<Setting<Millis>>,
    /// Cap on a WebSocket's total lifetime (GCP backend service `timeoutSec`).
    pub lifetime_cap: Option<Setting<Millis>>,
    /// Keep-alive of the LB's connections to the backends (GCP: 600 s, fixed).
    pub backend_keepalive: Option<Setting<Millis>>,
    /// Target deregistration delay (ALB target groups; GKE BackendConfig
    /// `connectionDraining.drainingTimeoutSec`, default 0).
    pub deregistration_delay: Option<Setting<Millis>>,
    /// ALB target type (`instance` or `ip`).
    pub target_type: Option<Setting<String>>,
}

fn default(product: &'static str, value: u64) -> Setting<Millis> {
    Setting::new(Millis(value), Source::default_of(product, None))
}

/// `key=value` from an AWS attribute list (`a=1,b=2`), as a setting in seconds.
fn attribute(
    reader: &Reader<'_>,
    obj: ObjId,
    annotation: &str,
    key: &str,
) -> Option<Setting<Millis>> {
    let (k, v) = reader.annotation(obj, annotation)?;
    let text = v.as_str()?;
    let value = text.split(',').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (name.trim() == key).then(|| duration::seconds(value))?
    })?;
    Some(Setting::new(value, annotation_source(annotation, k, v)))
}

/// The ALB of an AWS Load Balancer Controller Ingress.
pub(super) fn alb(reader: &Reader<'_>, obj: ObjId) -> LoadBalancer {
    let target_type = reader
        .annotation(obj, "alb.ingress.kubernetes.io/target-type")
        .and_then(|(k, v)| {
            Some(Setting::new(
                v.as_str()?.trim().to_string(),
                annotation_source("alb.ingress.kubernetes.io/target-type", k, v),
            ))
        });
    LoadBalancer {
        kind: LbKind::Alb,
        obj,
        idle_timeout: Some(
            attribute(
                reader,
                obj,
                "alb.ingress.kubernetes.io/load-balancer-attributes",
                "idle_timeout.timeout_seconds",
            )
            .unwrap_or_else(|| default("AWS ALB", 60_000)),
        ),
        lifetime_cap: None,
        backend_keepalive: None,
        deregistration_delay: Some(
            attribute(
                reader,
                obj,
                "alb.ingress.kubernetes.io/target-group-attributes",
                "deregistration_delay.timeout_seconds",
            )
            .unwrap_or_else(|| default("AWS target groups", 300_000)),
        ),
        target_type: Some(target_type.unwrap_or_else(|| {
            Setting::new(
                "instance".to_string(),
                Source::default_of(Product::AwsAlb.name(), None),
            )
        })),
    }
}

const BACKEND_CONFIG_KEYS: [&str; 2] = [
    "cloud.google.com/backend-config",
    "beta.cloud.google.com/backend-config",
];

/// Whether a Service is set up for GKE Ingress (BackendConfig or NEG for ingress).
fn gke_service(reader: &Reader<'_>, service: ObjId) -> bool {
    BACKEND_CONFIG_KEYS
        .iter()
        .any(|k| reader.annotation(service, k).is_some())
        || reader
            .annotation(service, "cloud.google.com/neg")
            .and_then(|(_, v)| v.as_str())
            .is_some_and(|v| v.replace(' ', "").contains("\"ingress\":true"))
}

/// The BackendConfig a Service's annotation names (`{"default": …}` or the first of
/// `{"ports": {…}}`), when it is in the input.
fn backend_config(reader: &Reader<'_>, service: ObjId) -> Option<(ObjId, String)> {
    let graph = reader.graph;
    let ns = &graph.objects[service].namespace;
    let name = BACKEND_CONFIG_KEYS.iter().find_map(|key| {
        let (_, v) = reader.annotation(service, key)?;
        let json: serde_json::Value = serde_json::from_str(v.as_str()?).ok()?;
        let name = json.get("default").and_then(|d| d.as_str()).or_else(|| {
            json.get("ports")
                .and_then(|p| p.as_object())
                .and_then(|p| p.values().find_map(|v| v.as_str()))
        })?;
        Some(name.to_string())
    })?;
    let bc = *graph.find("BackendConfig", ns, &name).first()?;
    Some((bc, name))
}

/// A seconds field of a Service's BackendConfig, else the default.
fn backend_config_secs(
    reader: &Reader<'_>,
    service: ObjId,
    path: &[&str],
    default_ms: u64,
) -> Setting<Millis> {
    backend_config(reader, service)
        .and_then(|(bc, name)| {
            let v = reader.object(bc).path(path)?;
            let value = v.as_i64().and_then(|n| u64::try_from(n).ok())?;
            Some(Setting::new(
                Millis::from_secs(value),
                Source::Field {
                    what: format!("BackendConfig `{name}` `{}`", path.join(".")),
                    span: v.span(),
                },
            ))
        })
        .unwrap_or_else(|| default("GCP backend services", default_ms))
}

/// The GCP load balancer of a GKE Ingress; the lifetime cap is the smallest `timeoutSec` of its
/// backend Services.
pub(super) fn gclb(reader: &Reader<'_>, obj: ObjId) -> LoadBalancer {
    let cap = reader
        .backend_services(obj)
        .into_iter()
        .map(|s| backend_config_secs(reader, s, &["spec", "timeoutSec"], 30_000))
        .min_by_key(|s| s.value)
        .unwrap_or_else(|| default("GCP backend services", 30_000));
    let draining = reader
        .backend_services(obj)
        .into_iter()
        .map(|s| {
            backend_config_secs(
                reader,
                s,
                &["spec", "connectionDraining", "drainingTimeoutSec"],
                0,
            )
        })
        .min_by_key(|s| s.value)
        .unwrap_or_else(|| default("GCP backend services", 0));
    LoadBalancer {
        kind: LbKind::Gclb,
        obj,
        idle_timeout: None,
        lifetime_cap: Some(cap),
        backend_keepalive: Some(default("GCP load balancers (fixed)", 600_000)),
        deregistration_delay: Some(draining),
        target_type: None,
    }
}

/// The load balancer a Service of type LoadBalancer gets, when its annotations name the
/// provider (AWS or Azure). `None` for other Services or unknown providers.
pub fn for_service(reader: &Reader<'_>, service: ObjId) -> Option<LoadBalancer> {
    let s = reader.graph.service_by_obj(service)?;
    if s.service_type != "LoadBalancer" {
        return None;
    }
    let keys: Vec<String> = reader
        .annotations(service)
        .iter()
        .filter_map(|(k, _)| k.as_str().map(str::to_string))
        .collect();
    let lb = |kind, idle| LoadBalancer {
        kind,
        obj: service,
        idle_timeout: Some(idle),
        lifetime_cap: None,
        backend_keepalive: None,
        deregistration_delay: None,
        target_type: None,
    };
    if keys
        .iter()
        .any(|k| k.starts_with("service.beta.kubernetes.io/azure-"))
    {
        const KEY: &str = "service.beta.kubernetes.io/azure-load-balancer-tcp-idle-timeout";
        let idle = reader
            .annotation_ms(service, KEY, duration::azure_minutes)
            .unwrap_or_else(|| default("Azure Load Balancer", 240_000));
        return Some(lb(LbKind::Azure, idle));
    }
    if keys
        .iter()
        .any(|k| k.starts_with("service.beta.kubernetes.io/aws-load-balancer-"))
    {
        let nlb = reader
            .annotation(service, "service.beta.kubernetes.io/aws-load-balancer-type")
            .and_then(|(_, v)| v.as_str())
            .is_some_and(|t| matches!(t.trim(), "nlb" | "external" | "nlb-ip"));
        if nlb {
            return Some(lb(LbKind::Nlb, default("AWS NLB", 350_000)));
        }
        const KEY: &str = "service.beta.kubernetes.io/aws-load-balancer-connection-idle-timeout";
        let idle = reader
            .annotation_ms(service, KEY, duration::seconds)
            .unwrap_or_else(|| default("AWS CLB", 60_000));
        return Some(lb(LbKind::Clb, idle));
    }
    None
}

/// The load balancer in front of a controller: its Service of type LoadBalancer.
pub(super) fn for_controller_service(
    reader: &Reader<'_>,
    controllers: &[Controller],
    controller: Option<usize>,
) -> Option<LoadBalancer> {
    let c = controllers.get(controller?)?;
    let workload = reader.graph.workload(c.obj)?;
    reader
        .graph
        .services_of(workload)
        .into_iter()
        .find_map(|s| for_service(reader, s.obj))
}

/// The load balancer in front of an Ingress: its own ALB or GCP LB, else the controller's.
pub(super) fn for_ingress(
    reader: &Reader<'_>,
    controllers: &[Controller],
    route: &RouteSettings,
) -> Option<LoadBalancer> {
    match route.binding.as_ref().map(|b| b.product) {
        Some(Product::AwsAlb) => Some(alb(reader, route.obj)),
        Some(Product::Gke) => Some(gclb(reader, route.obj)),
        None if reader
            .backend_services(route.obj)
            .into_iter()
            .any(|s| gke_service(reader, s)) =>
        {
            Some(gclb(reader, route.obj))
        }
        _ => for_controller_service(reader, controllers, route.controller),
    }
}
