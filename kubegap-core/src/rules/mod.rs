//! The rule registry. Every rule lives in its own file; [`RULES`] lists them all, sorted by id.

use crate::rule::Rule;

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
mod parse_error;
mod yaml_duplicate_key;

pub use parse_error::PARSE_ERROR;

/// Every rule, sorted by id (a test checks the order).
pub static RULES: &[&Rule] = &[
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
    &parse_error::PARSE_ERROR,
    &yaml_duplicate_key::YAML_DUPLICATE_KEY,
];

/// Looks a rule up by id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}
