//! The rule registry. Every rule lives in its own file; [`RULES`] lists them all, sorted by id.

use crate::rule::Rule;

mod k8s_hpa_with_static_replicas;
mod k8s_ingress_backend_missing;
mod k8s_pdb_selects_nothing;
mod k8s_service_selects_nothing;
mod k8s_service_target_port_missing;
mod parse_error;
mod yaml_duplicate_key;

pub use parse_error::PARSE_ERROR;

/// Every rule, sorted by id (a test checks the order).
pub static RULES: &[&Rule] = &[
    &k8s_hpa_with_static_replicas::K8S_HPA_WITH_STATIC_REPLICAS,
    &k8s_ingress_backend_missing::K8S_INGRESS_BACKEND_MISSING,
    &k8s_pdb_selects_nothing::K8S_PDB_SELECTS_NOTHING,
    &k8s_service_selects_nothing::K8S_SERVICE_SELECTS_NOTHING,
    &k8s_service_target_port_missing::K8S_SERVICE_TARGET_PORT_MISSING,
    &parse_error::PARSE_ERROR,
    &yaml_duplicate_key::YAML_DUPLICATE_KEY,
];

/// Looks a rule up by id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}
