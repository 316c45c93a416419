//! Haproxy-ingress: the ConfigMap keys, annotations and defaults kubegap reads.
//! Sources: `../shared/research/DOMAIN.md` §2.2, §2.4.

use super::*;
use crate::value::duration::Millis;

/// What kubegap knows about haproxy-ingress.
pub(super) const SPEC: Spec = Spec {
    name: "haproxy-ingress",
    annotation_prefixes: &["haproxy-ingress.github.io/"],
    controller_names: &["haproxy-ingress.github.io/controller"],
    controller_name_prefixes: &[],
    image_suffixes: &["jcmoraisjr/haproxy-ingress"],
    image_contains: &[],
    class_names: &[],
    default_class: Some("haproxy"),
    class_family: Some("haproxy"),
    controller_settings: Some(controller_settings),
    ingress_route: Some(ingress_route),
    client_keepalive: Some(CLIENT_KEEPALIVE_DEFAULT),
};

/// Defaults of this product, in milliseconds.
pub mod defaults {
    /// haproxy-ingress `timeout-stop`: 10 m.
    pub const HAPROXY_INGRESS_TIMEOUT_STOP_MS: u64 = 600_000;
    /// haproxy-ingress `timeout-client` / `timeout-server`: 50 s.
    pub const HAPROXY_INGRESS_CLIENT_SERVER_MS: u64 = 50_000;
    /// haproxy-ingress `timeout-tunnel`: 1 h.
    pub const HAPROXY_INGRESS_TUNNEL_MS: u64 = 3_600_000;
    /// haproxy-ingress `timeout-keep-alive`: 1 m.
    pub const HAPROXY_INGRESS_KEEPALIVE_MS: u64 = 60_000;
}

/// Idle keep-alive towards clients when the configuration is not in the input, and what to
/// call it in messages (chains).
pub(super) const CLIENT_KEEPALIVE_DEFAULT: (u64, &str, &str) = (
    defaults::HAPROXY_INGRESS_KEEPALIVE_MS,
    "timeout-keep-alive",
    "haproxy-ingress",
);

/// Controller-wide settings of a controller of this product.
pub(super) fn controller_settings(
    reader: &Reader<'_>,
    c: &Controller,
    _container: NodeRef<'_>,
) -> ControllerSettings {
    use defaults::*;
    let default_str =
        |value: &str| Setting::new(value.to_string(), default_of(c.product, c.version.as_ref()));
    {
        let timeout_stop = cm_or_default(
            reader,
            c,
            "timeout-stop",
            duration::haproxy,
            HAPROXY_INGRESS_TIMEOUT_STOP_MS,
        );
        let close_spread = reader
            .config_map_entry_opt(c.config_map, "close-sessions-duration")
            .and_then(|(k, v)| {
                let text = v.as_str()?.trim();
                let value = match text.strip_suffix('%') {
                    Some(p) => {
                        crate::reload::percent_of(timeout_stop.value, p.trim().parse().ok()?)?
                    }
                    None => duration::haproxy(text)?,
                };
                Some(Setting::new(
                    value,
                    Source::ConfigMapKey {
                        key: "close-sessions-duration".into(),
                        key_span: k.span(),
                        value_span: v.span(),
                    },
                ))
            });
        ControllerSettings {
            reload_deadline: Some(timeout_stop),
            close_spread,
            read_timeout: Some(cm_or_default(
                reader,
                c,
                "timeout-server",
                duration::haproxy,
                HAPROXY_INGRESS_CLIENT_SERVER_MS,
            )),
            client_timeout: Some(cm_or_default(
                reader,
                c,
                "timeout-client",
                duration::haproxy,
                HAPROXY_INGRESS_CLIENT_SERVER_MS,
            )),
            tunnel_timeout: Some(cm_or_default(
                reader,
                c,
                "timeout-tunnel",
                duration::haproxy,
                HAPROXY_INGRESS_TUNNEL_MS,
            )),
            client_keepalive_timeout: Some(cm_or_default(
                reader,
                c,
                "timeout-keep-alive",
                duration::haproxy,
                HAPROXY_INGRESS_KEEPALIVE_MS,
            )),
            balance: Some(
                reader
                    .config_map_str(c.config_map, "balance-algorithm")
                    .unwrap_or_else(|| {
                        default_str(haproxy_ingress_balance_default(c.version.as_ref()))
                    }),
            ),
            ..ControllerSettings::default()
        }
    }
}

/// The settings an Ingress served by this product gets from its annotations, else the
/// controller-wide value, else the product default.
pub(super) fn ingress_route(r: &RouteInput<'_>, route: &mut RouteSettings) {
    use defaults::*;
    let wide = r.wide;
    let version = r.version;
    let p = Product::HaproxyIngress;
    route.read_timeout = Some(r.pick(
        "haproxy-ingress.github.io/timeout-server",
        duration::haproxy,
        wide.and_then(|w| w.read_timeout.as_ref()),
        HAPROXY_INGRESS_CLIENT_SERVER_MS,
        p,
    ));
    route.tunnel_timeout = Some(r.pick(
        "haproxy-ingress.github.io/timeout-tunnel",
        duration::haproxy,
        wide.and_then(|w| w.tunnel_timeout.as_ref()),
        HAPROXY_INGRESS_TUNNEL_MS,
        p,
    ));
    route.reload_deadline = Some(wide.and_then(|w| w.reload_deadline.clone()).unwrap_or_else(
        || {
            Setting::new(
                Millis(HAPROXY_INGRESS_TIMEOUT_STOP_MS),
                default_of(p, version),
            )
        },
    ));
}

/// haproxy-ingress's `balance-algorithm` default at a version: `random(2)` from v0.16,
/// `roundrobin` before; unknown versions get the worst plausible (`roundrobin`).
pub fn haproxy_ingress_balance_default(version: Option<&Version>) -> &'static str {
    match version {
        Some(v) if v.at_least(&[0, 16]) => "random(2)",
        _ => "roundrobin",
    }
}
