//! Label selectors: `matchLabels` and `matchExpressions`, as PDBs and most objects use them.

use std::collections::BTreeMap;

use crate::yaml::NodeRef;

/// One `matchExpressions` requirement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requirement {
    /// Label key.
    pub key: String,
    /// `In`, `NotIn`, `Exists`, `DoesNotExist`.
    pub operator: String,
    /// Values.
    pub values: Vec<String>,
}

/// A label selector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector {
    /// `matchLabels`.
    pub match_labels: BTreeMap<String, String>,
    /// `matchExpressions`.
    pub match_expressions: Vec<Requirement>,
}

impl LabelSelector {
    /// Reads a selector mapping.
    pub fn parse(node: NodeRef<'_>) -> LabelSelector {
        let match_labels = super::string_map(node.get("matchLabels"));
        let match_expressions = node
            .get("matchExpressions")
            .into_iter()
            .flat_map(|e| e.items())
            .map(|e| Requirement {
                key: e.str_at(&["key"]).unwrap_or_default().to_string(),
                operator: e.str_at(&["operator"]).unwrap_or_default().to_string(),
                values: e
                    .get("values")
                    .into_iter()
                    .flat_map(|v| v.items())
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
            })
            .collect();
        LabelSelector {
            match_labels,
            match_expressions,
        }
    }

    /// Whether it selects nothing by construction (empty selects everything in Kubernetes
    /// for a PDB of policy/v1; kubegap treats an empty selector as "matches all").
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }

    /// Whether labels satisfy the selector.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.matches_with(labels, |_, _| false)
    }

    /// Whether the selector matches these labels, where `extra(key, value)` says whether a
    /// `matchLabels` pair the labels lack is carried anyway (labels a controller sets on pods).
    pub fn matches_with(
        &self,
        labels: &BTreeMap<String, String>,
        extra: impl Fn(&str, &str) -> bool,
    ) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v) || extra(k, v))
            && self.match_expressions.iter().all(|r| {
                let value = labels.get(&r.key);
                match r.operator.as_str() {
                    "In" => value.is_some_and(|v| r.values.contains(v)),
                    "NotIn" => value.is_none_or(|v| !r.values.contains(v)),
                    "Exists" => value.is_some(),
                    "DoesNotExist" => value.is_none(),
                    _ => false,
                }
            })
    }
}
