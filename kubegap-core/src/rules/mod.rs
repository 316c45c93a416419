//! The rule registry. Every rule lives in its own file; [`RULES`] lists them all, sorted by id.

/// What several rules share (no rule imports another rule's file).
pub(crate) mod helpers;

use crate::rule::Rule;

mod chain_app_keepalive_below_upstream;
mod chain_gcp_backend_keepalive;
mod chain_keepalive_ordering;
mod chain_request_timeout_inversion;
mod chain_websocket_idle_budget;
mod controller_hard_stop_cuts_long_lived;
mod controller_hard_stop_without_close_spread;
mod controller_static_order_roundrobin;
mod diff_container_port_renamed;
mod diff_immutable_field_changed;
mod diff_lb_recreated;
mod diff_replicas_drop;
mod diff_selector_changed;
mod diff_service_port_renamed;
mod diff_shared_proxy_reload;
mod diff_workload_renamed;
mod haproxy_hard_stop_cuts_long_lived;
mod haproxy_hard_stop_without_close_spread;
mod haproxy_idle_close_on_reload;
mod haproxy_long_lived_without_shutdown_sessions;
mod haproxy_missing_timeouts;
mod haproxy_no_old_process_deadline;
mod haproxy_reload_not_seamless;
mod haproxy_retries_without_redispatch;
mod haproxy_static_order_roundrobin;
mod haproxy_timeout_without_unit;
mod haproxy_tunnel_without_client_fin;
mod haproxy_websocket_without_tunnel_timeout;
mod helm_chart_not_rendered;
mod ingress_annotation_ignored;
mod ingress_nginx_shutdown_vs_grace;
mod ingress_nginx_ws_timeout_capped_by_worker_shutdown;
mod k8s_alb_ip_target_without_readiness_gate;
mod k8s_deprecated_node_labels;
mod k8s_edge_proxy_not_spread;
mod k8s_etp_local_drain_blackhole;
mod k8s_grace_period_too_short;
mod k8s_hpa_with_static_replicas;
mod k8s_ingress_backend_missing;
mod k8s_no_pdb;
mod k8s_no_prestop_drain;
mod k8s_no_readiness_probe_behind_service;
mod k8s_pdb_blocks_eviction;
mod k8s_pdb_selects_nothing;
mod k8s_probe_port_missing;
mod k8s_required_anti_affinity_exceeds_nodes;
mod k8s_risky_liveness_probe;
mod k8s_rollout_removes_all_backends;
mod k8s_service_selects_nothing;
mod k8s_service_target_port_missing;
mod lb_websocket_lifetime_capped;
mod nginx_include_missing;
mod nginx_no_worker_shutdown_timeout;
mod nginx_retry_non_idempotent;
mod nginx_static_order_roundrobin;
mod nginx_upstream_keepalive_ineffective;
mod nginx_websocket_missing_upgrade;
mod nginx_websocket_read_timeout_default;
mod nginx_worker_shutdown_cuts_long_lived;
mod parse_error;
mod route_long_lived_defaults;
mod unknown_suppression;
mod unused_suppression;
mod yaml_duplicate_key;

pub use nginx_include_missing::NGINX_INCLUDE_MISSING;
pub use parse_error::PARSE_ERROR;
pub use unknown_suppression::UNKNOWN_SUPPRESSION;
pub use unused_suppression::UNUSED_SUPPRESSION;

/// Every rule, sorted by id (a test checks the order).
pub static RULES: &[&Rule] = &[
    &chain_app_keepalive_below_upstream::CHAIN_APP_KEEPALIVE_BELOW_UPSTREAM,
    &chain_gcp_backend_keepalive::CHAIN_GCP_BACKEND_KEEPALIVE,
    &chain_keepalive_ordering::CHAIN_KEEPALIVE_ORDERING,
    &chain_request_timeout_inversion::CHAIN_REQUEST_TIMEOUT_INVERSION,
    &chain_websocket_idle_budget::CHAIN_WEBSOCKET_IDLE_BUDGET,
    &controller_hard_stop_cuts_long_lived::CONTROLLER_HARD_STOP_CUTS_LONG_LIVED,
    &controller_hard_stop_without_close_spread::CONTROLLER_HARD_STOP_WITHOUT_CLOSE_SPREAD,
    &controller_static_order_roundrobin::CONTROLLER_STATIC_ORDER_ROUNDROBIN,
    &haproxy_hard_stop_cuts_long_lived::HAPROXY_HARD_STOP_CUTS_LONG_LIVED,
    &haproxy_hard_stop_without_close_spread::HAPROXY_HARD_STOP_WITHOUT_CLOSE_SPREAD,
    &haproxy_idle_close_on_reload::HAPROXY_IDLE_CLOSE_ON_RELOAD,
    &haproxy_long_lived_without_shutdown_sessions::HAPROXY_LONG_LIVED_WITHOUT_SHUTDOWN_SESSIONS,
    &haproxy_missing_timeouts::HAPROXY_MISSING_TIMEOUTS,
    &haproxy_no_old_process_deadline::HAPROXY_NO_OLD_PROCESS_DEADLINE,
    &haproxy_reload_not_seamless::HAPROXY_RELOAD_NOT_SEAMLESS,
    &haproxy_retries_without_redispatch::HAPROXY_RETRIES_WITHOUT_REDISPATCH,
    &haproxy_static_order_roundrobin::HAPROXY_STATIC_ORDER_ROUNDROBIN,
    &haproxy_timeout_without_unit::HAPROXY_TIMEOUT_WITHOUT_UNIT,
    &haproxy_tunnel_without_client_fin::HAPROXY_TUNNEL_WITHOUT_CLIENT_FIN,
    &haproxy_websocket_without_tunnel_timeout::HAPROXY_WEBSOCKET_WITHOUT_TUNNEL_TIMEOUT,
    &helm_chart_not_rendered::HELM_CHART_NOT_RENDERED,
    &ingress_annotation_ignored::INGRESS_ANNOTATION_IGNORED,
    &ingress_nginx_shutdown_vs_grace::INGRESS_NGINX_SHUTDOWN_VS_GRACE,
    &ingress_nginx_ws_timeout_capped_by_worker_shutdown::INGRESS_NGINX_WS_TIMEOUT_CAPPED_BY_WORKER_SHUTDOWN,
    &k8s_alb_ip_target_without_readiness_gate::K8S_ALB_IP_TARGET_WITHOUT_READINESS_GATE,
    &k8s_deprecated_node_labels::K8S_DEPRECATED_NODE_LABELS,
    &k8s_edge_proxy_not_spread::K8S_EDGE_PROXY_NOT_SPREAD,
    &k8s_etp_local_drain_blackhole::K8S_ETP_LOCAL_DRAIN_BLACKHOLE,
    &k8s_grace_period_too_short::K8S_GRACE_PERIOD_TOO_SHORT,
    &k8s_hpa_with_static_replicas::K8S_HPA_WITH_STATIC_REPLICAS,
    &k8s_ingress_backend_missing::K8S_INGRESS_BACKEND_MISSING,
    &k8s_no_pdb::K8S_NO_PDB,
    &k8s_no_prestop_drain::K8S_NO_PRESTOP_DRAIN,
    &k8s_no_readiness_probe_behind_service::K8S_NO_READINESS_PROBE_BEHIND_SERVICE,
    &k8s_pdb_blocks_eviction::K8S_PDB_BLOCKS_EVICTION,
    &k8s_pdb_selects_nothing::K8S_PDB_SELECTS_NOTHING,
    &k8s_probe_port_missing::K8S_PROBE_PORT_MISSING,
    &k8s_required_anti_affinity_exceeds_nodes::K8S_REQUIRED_ANTI_AFFINITY_EXCEEDS_NODES,
    &k8s_risky_liveness_probe::K8S_RISKY_LIVENESS_PROBE,
    &k8s_rollout_removes_all_backends::K8S_ROLLOUT_REMOVES_ALL_BACKENDS,
    &k8s_service_selects_nothing::K8S_SERVICE_SELECTS_NOTHING,
    &k8s_service_target_port_missing::K8S_SERVICE_TARGET_PORT_MISSING,
    &lb_websocket_lifetime_capped::LB_WEBSOCKET_LIFETIME_CAPPED,
    &nginx_include_missing::NGINX_INCLUDE_MISSING,
    &nginx_no_worker_shutdown_timeout::NGINX_NO_WORKER_SHUTDOWN_TIMEOUT,
    &nginx_retry_non_idempotent::NGINX_RETRY_NON_IDEMPOTENT,
    &nginx_static_order_roundrobin::NGINX_STATIC_ORDER_ROUNDROBIN,
    &nginx_upstream_keepalive_ineffective::NGINX_UPSTREAM_KEEPALIVE_INEFFECTIVE,
    &nginx_websocket_missing_upgrade::NGINX_WEBSOCKET_MISSING_UPGRADE,
    &nginx_websocket_read_timeout_default::NGINX_WEBSOCKET_READ_TIMEOUT_DEFAULT,
    &nginx_worker_shutdown_cuts_long_lived::NGINX_WORKER_SHUTDOWN_CUTS_LONG_LIVED,
    &parse_error::PARSE_ERROR,
    &route_long_lived_defaults::ROUTE_LONG_LIVED_DEFAULTS,
    &unknown_suppression::UNKNOWN_SUPPRESSION,
    &unused_suppression::UNUSED_SUPPRESSION,
    &yaml_duplicate_key::YAML_DUPLICATE_KEY,
];

/// The rules only `kubegap diff` runs (they compare BASE and HEAD), sorted by id, with their
/// checks.
pub static DIFF_CHECKS: &[crate::diff::DiffRule] = &[
    (
        &diff_container_port_renamed::DIFF_CONTAINER_PORT_RENAMED,
        diff_container_port_renamed::diff,
    ),
    (
        &diff_immutable_field_changed::DIFF_IMMUTABLE_FIELD_CHANGED,
        diff_immutable_field_changed::diff,
    ),
    (
        &diff_lb_recreated::DIFF_LB_RECREATED,
        diff_lb_recreated::diff,
    ),
    (
        &diff_replicas_drop::DIFF_REPLICAS_DROP,
        diff_replicas_drop::diff,
    ),
    (
        &diff_selector_changed::DIFF_SELECTOR_CHANGED,
        diff_selector_changed::diff,
    ),
    (
        &diff_service_port_renamed::DIFF_SERVICE_PORT_RENAMED,
        diff_service_port_renamed::diff,
    ),
    (
        &diff_shared_proxy_reload::DIFF_SHARED_PROXY_RELOAD,
        diff_shared_proxy_reload::diff,
    ),
    (
        &diff_workload_renamed::DIFF_WORKLOAD_RENAMED,
        diff_workload_renamed::diff,
    ),
];

/// Looks a rule up by id (lint and diff rules).
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .copied()
        .chain(DIFF_CHECKS.iter().map(|(r, _)| *r))
        .find(|r| r.id == id)
}
