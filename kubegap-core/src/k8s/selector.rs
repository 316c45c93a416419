//! Labels ([`Labels`]) and label selectors: `matchLabels` and `matchExpressions`, as PDBs and
//! most objects use them.

use compact_str::CompactString;

use crate::yaml::NodeRef;

/// String pairs of a mapping of scalars (labels, selectors, annotations), sorted by key, each
/// key once (the last one written wins, as in a map). A sorted boxed slice rather than a
/// `BTreeMap`: a map's first node is 540 bytes for any number of pairs, and every workload and
/// Service holds one or two (20,000 small manifests held 13 MB of them). Compares, orders and
/// hashes like the `BTreeMap` it replaces. Keys and values of up to 24 bytes (`app`, `web`,
/// `app.kubernetes.io/name`) are held inline, without an allocation each.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Labels(Box<[(CompactString, CompactString)]>);

impl Labels {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&CompactString> {
        self.0
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|i| &self.0[i].1)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The pairs in key order.
    pub fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = (&CompactString, &CompactString)> + ExactSizeIterator + Clone
    {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The keys in order.
    pub fn keys(
        &self,
    ) -> impl DoubleEndedIterator<Item = &CompactString> + ExactSizeIterator + Clone {
        self.0.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(
        &self,
    ) -> impl DoubleEndedIterator<Item = &CompactString> + ExactSizeIterator + Clone {
        self.0.iter().map(|(_, v)| v)
    }

    /// How many pairs.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Into<CompactString>, V: Into<CompactString>> FromIterator<(K, V)> for Labels {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Labels {
        let mut pairs: Vec<(CompactString, CompactString)> = pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        // Stable: among equal keys the last written stays last, and is the one kept.
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(CompactString, CompactString)> = Vec::with_capacity(pairs.len());
        for pair in pairs {
            match kept.last_mut() {
                Some(last) if last.0 == pair.0 => *last = pair,
                _ => kept.push(pair),
            }
        }
        Labels(kept.into_boxed_slice())
    }
}

impl<'a> IntoIterator for &'a Labels {
    type Item = (&'a CompactString, &'a CompactString);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (CompactString, CompactString)>,
        fn(&'a (CompactString, CompactString)) -> (&'a CompactString, &'a CompactString),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

/// One `matchExpressions` requirement.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Requirement {
    /// Label key.
    pub key: String,
    /// `In`, `NotIn`, `Exists`, `DoesNotExist`.
    pub operator: String,
    /// Values.
    pub values: Vec<String>,
}

/// A label selector.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LabelSelector {
    /// `matchLabels`.
    pub match_labels: Labels,
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
    pub fn matches(&self, labels: &Labels) -> bool {
        self.matches_with(labels, |_, _| false)
    }

    /// Whether the selector matches these labels, where `extra(key, value)` says whether a
    /// `matchLabels` pair the labels lack is carried anyway (labels a controller sets on pods).
    pub fn matches_with(&self, labels: &Labels, extra: impl Fn(&str, &str) -> bool) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v) || extra(k, v))
            && self.match_expressions.iter().all(|r| {
                let value = labels.get(&r.key);
                match r.operator.as_str() {
                    "In" => value.is_some_and(|v| r.values.iter().any(|x| x == v)),
                    "NotIn" => value.is_none_or(|v| !r.values.iter().any(|x| x == v)),
                    "Exists" => value.is_some(),
                    "DoesNotExist" => value.is_none(),
                    _ => false,
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::Labels;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn labels_behave_like_the_map_they_replace() {
        let written = pairs(&[("tier", "web"), ("app", "a"), ("tier", "api"), ("b", "")]);
        let labels: Labels = written.iter().cloned().collect();
        let map: BTreeMap<String, String> = written.into_iter().collect();
        // Sorted by key; a repeated key keeps the value written last.
        assert_eq!(
            labels
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect::<Vec<_>>(),
            map.iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect::<Vec<_>>()
        );
        assert_eq!(labels.get("tier").map(|v| v.as_str()), Some("api"));
        assert_eq!(labels.get("missing"), None);
        assert!(labels.contains_key("b") && !labels.contains_key("c"));
        assert_eq!(labels.len(), 3);
        // Ordered like the maps: by pairs in key order.
        let other: Labels = pairs(&[("app", "a"), ("tier", "web")])
            .into_iter()
            .collect();
        let other_map: BTreeMap<String, String> = pairs(&[("app", "a"), ("tier", "web")])
            .into_iter()
            .collect();
        assert_eq!(labels.cmp(&other), map.cmp(&other_map));
        assert!(Labels::default().is_empty());
    }
}
