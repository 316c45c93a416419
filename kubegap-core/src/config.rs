//! Settings: resolved options that rules read (versions, topology, rule selection).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::finding::Severity;

/// A dotted version such as `2.8` or `1.29.7`, compared component by component.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Version(pub Vec<u32>);

impl Version {
    /// Parses `2.8`, `v1.29.7`, `1.25.3-alpine` (the numeric prefix). `None` if no number starts it.
    pub fn parse(text: &str) -> Option<Version> {
        let text = text.trim().trim_start_matches(['v', 'V']);
        let mut parts = Vec::new();
        for part in text.split('.') {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            if digits.is_empty() {
                break;
            }
            parts.push(digits.parse().ok()?);
            if digits.len() != part.len() {
                break;
            }
        }
        if parts.is_empty() {
            None
        } else {
            Some(Version(parts))
        }
    }

    /// Whether this version is at least `other` (missing components count as 0).
    pub fn at_least(&self, other: &[u32]) -> bool {
        for (i, want) in other.iter().enumerate() {
            let have = self.0.get(i).copied().unwrap_or(0);
            if have != *want {
                return have > *want;
            }
        }
        true
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u32::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

/// Resolved settings for one run.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// HAProxy version the haproxy.cfg files run on (`cluster.haproxy_version`), if known.
    pub haproxy_version: Option<Version>,
    /// nginx version the nginx configs run on, if known.
    pub nginx_version: Option<Version>,
    /// nginx prefix for absolute `include` paths (`--nginx-prefix`).
    pub nginx_prefix: Option<PathBuf>,
    /// Number of schedulable nodes (`--nodes`), if known.
    pub nodes: Option<u32>,
    /// The input is the whole application (`--complete`): absence of objects is meaningful.
    pub complete: bool,
    /// An L7 load balancer sits in front of the proxies (topology).
    pub l7_in_front: bool,
    /// Outer hops declared in the topology, outermost first.
    pub topology: Vec<OuterHop>,
    /// If set, only these rules run.
    pub select: Option<Vec<String>>,
    /// Rules that do not run.
    pub ignore: Vec<String>,
    /// Per-rule severity overrides.
    pub severity: BTreeMap<String, Severity>,
    /// Report suppressions that suppressed nothing (`--report-unused-suppressions`).
    pub report_unused_suppressions: bool,
    /// What may be read besides the inputs, and how much (lint roots, size limit).
    pub reads: crate::reads::ReadPolicy,
    /// Keep every file's text whole. By default the lines inside the values no rule reads (a
    /// CustomResourceDefinition's `spec`) are cut out of the text once it is parsed
    /// ([`crate::yaml::cut_unread`]); a caller that parses the texts again (baselines, which
    /// fingerprint findings by their object and key path) keeps them. Not a configuration key.
    pub keep_whole_texts: bool,
}

/// A hop in front of the cluster, declared in the configuration (e.g. a CDN).
#[derive(Clone, Debug, PartialEq)]
pub struct OuterHop {
    /// Product name, e.g. `cloudfront`.
    pub product: String,
    /// Idle keep-alive towards the next hop.
    pub keepalive: Option<crate::value::duration::Millis>,
    /// Read (response) timeout.
    pub read_timeout: Option<crate::value::duration::Millis>,
    /// Where the values came from, for messages.
    pub source: String,
}

impl Settings {
    /// Whether a rule runs under this selection.
    pub fn rule_enabled(&self, id: &str) -> bool {
        if self.ignore.iter().any(|r| r == id) {
            return false;
        }
        match &self.select {
            Some(select) => select.iter().any(|r| r == id),
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Version;

    #[test]
    fn versions() {
        let v = Version::parse("v1.29.7").unwrap();
        assert!(v.at_least(&[1, 29, 7]));
        assert!(!v.at_least(&[1, 30]));
        assert_eq!(Version::parse("1.25.3-alpine").unwrap().0, vec![1, 25, 3]);
        assert_eq!(Version::parse("latest"), None);
        assert!(Version::parse("2.8").unwrap().at_least(&[2, 4]));
    }
}

/// A problem in a configuration file, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// 1-based line (0 when unknown).
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

/// Durations in the configuration: `5s`, `2m`, `1m30s`, `1h`, `500ms`, or a bare number of
/// seconds; the same reading as `kubegap.io/*` declarations
/// ([`crate::value::duration::declared`]).
pub fn parse_config_duration(text: &str) -> Option<crate::value::duration::Millis> {
    crate::value::duration::declared(text)
}

impl Settings {
    /// Applies a `.kubegap.yaml` (or a `rulesets/*.yaml` preset) on top of these settings.
    /// Returns the `extends:` path, if any, for the caller to load first.
    ///
    /// Keys: `extends`, `select`, `ignore`, `severity` (rule → level), `complete`,
    /// `cluster` (`haproxy_version`, `nginx_version`, `nodes`), `topology` (`l7_in_front`,
    /// `outer`: a list of hops with `product`, `keepalive`, `read_timeout`). Unknown keys and
    /// unknown rule ids are errors, so a typo never silently disables a check.
    pub fn apply_yaml(
        &mut self,
        text: &str,
        known_rule: &dyn Fn(&str) -> bool,
    ) -> Result<Option<String>, Vec<ConfigError>> {
        let file = crate::source::SourceFile::new(
            "config",
            None,
            text.to_string(),
            crate::source::FileKind::Yaml,
        );
        let (docs, parse_errors) = crate::yaml::parse(crate::source::FileId(0), text);
        let line = |span: crate::source::Span| file.line_col(span.start).line;
        let mut errors: Vec<ConfigError> = parse_errors
            .iter()
            .map(|e| ConfigError {
                line: line(e.span),
                message: e.message.clone(),
            })
            .collect();
        // A key written twice would silently drop one of its values (and an unknown key
        // inside it): the configuration is rejected instead, naming both lines.
        for doc in &docs {
            for &(first, again) in doc.duplicates() {
                let name = doc.node(again).as_str().unwrap_or_default().to_string();
                errors.push(ConfigError {
                    line: line(doc.span(again)),
                    message: format!(
                        "duplicate key `{name}` (first at line {})",
                        line(doc.span(first))
                    ),
                });
            }
        }
        if let Some(extra) = docs.get(1) {
            errors.push(ConfigError {
                line: line(crate::source::Span {
                    file: extra.file,
                    start: extra.start,
                    end: extra.end,
                }),
                message: "a second YAML document: the configuration must be one document".into(),
            });
        }
        let Some(root) = docs.first().and_then(|d| d.root()) else {
            return if errors.is_empty() {
                Ok(None)
            } else {
                Err(errors)
            };
        };
        if !root.is_map() && !root.is_null() {
            errors.push(ConfigError {
                line: line(root.span()),
                message: "the configuration must be a mapping".into(),
            });
            return Err(errors);
        }
        let mut extends = None;
        let list = |node: crate::yaml::NodeRef<'_>, errors: &mut Vec<ConfigError>| -> Vec<String> {
            let mut out = Vec::new();
            for item in node.items() {
                match item.as_str() {
                    Some(id) if known_rule(id) => out.push(id.to_string()),
                    Some(id) => errors.push(ConfigError {
                        line: line(item.span()),
                        message: format!("unknown rule `{id}`{}", crate::suggest::rule_hint(id)),
                    }),
                    None => errors.push(ConfigError {
                        line: line(item.span()),
                        message: "expected a rule id".into(),
                    }),
                }
            }
            out
        };
        for (key, value) in root.entries() {
            let k = key.as_str().unwrap_or_default();
            let bad = |message: String| ConfigError {
                line: line(value.span()),
                message,
            };
            match k {
                "extends" => match value.as_str() {
                    Some(name) => extends = Some(name.to_string()),
                    None => errors.push(bad(
                        "expected a preset name or a relative path to a configuration file".into(),
                    )),
                },
                "select" => self.select = Some(list(value, &mut errors)),
                "ignore" => self.ignore.extend(list(value, &mut errors)),
                "severity" => {
                    for (rule, level) in value.entries() {
                        let id = rule.as_str().unwrap_or_default();
                        if !known_rule(id) {
                            errors.push(ConfigError {
                                line: line(rule.span()),
                                message: format!(
                                    "unknown rule `{id}`{}",
                                    crate::suggest::rule_hint(id)
                                ),
                            });
                        } else if let Some(sev) = level.as_str().and_then(Severity::parse) {
                            self.severity.insert(id.to_string(), sev);
                        } else {
                            errors.push(ConfigError {
                                line: line(level.span()),
                                message: "expected `error`, `warning` or `info`".into(),
                            });
                        }
                    }
                }
                "complete" => match value.as_bool() {
                    Some(b) => self.complete = b,
                    None => errors.push(bad("expected true or false".into())),
                },
                "cluster" => {
                    for (ck, cv) in value.entries() {
                        let cbad = |message: String| ConfigError {
                            line: line(cv.span()),
                            message,
                        };
                        match ck.as_str().unwrap_or_default() {
                            "haproxy_version" => match cv.as_str().and_then(Version::parse) {
                                Some(v) => self.haproxy_version = Some(v),
                                None => {
                                    errors.push(cbad("expected a version such as \"2.8\"".into()))
                                }
                            },
                            "nginx_version" => match cv.as_str().and_then(Version::parse) {
                                Some(v) => self.nginx_version = Some(v),
                                None => errors
                                    .push(cbad("expected a version such as \"1.25.3\"".into())),
                            },
                            "nodes" => match cv.as_i64().and_then(|n| u32::try_from(n).ok()) {
                                Some(n) => self.nodes = Some(n),
                                None => errors.push(cbad("expected a number of nodes".into())),
                            },
                            other => errors.push(ConfigError {
                                line: line(ck.span()),
                                message: format!(
                                    "unknown key `cluster.{other}`{}",
                                    crate::suggest::hint(other, CLUSTER_KEYS.iter().map(|k| k.0))
                                ),
                            }),
                        }
                    }
                }
                "topology" => {
                    for (tk, tv) in value.entries() {
                        match tk.as_str().unwrap_or_default() {
                            "l7_in_front" => match tv.as_bool() {
                                Some(b) => self.l7_in_front = b,
                                None => errors.push(ConfigError {
                                    line: line(tv.span()),
                                    message: "expected true or false".into(),
                                }),
                            },
                            "outer" => {
                                for hop in tv.items() {
                                    let Some(product) = hop.str_at(&["product"]) else {
                                        errors.push(ConfigError {
                                            line: line(hop.span()),
                                            message: "an outer hop needs `product`".into(),
                                        });
                                        continue;
                                    };
                                    let duration = |key: &str, errors: &mut Vec<ConfigError>| {
                                        let node = hop.get(key)?;
                                        let parsed = node.as_str().and_then(parse_config_duration);
                                        if parsed.is_none() {
                                            errors.push(ConfigError {
                                                line: line(node.span()),
                                                message: format!(
                                                    "`{key}`: expected a duration such as 60s"
                                                ),
                                            });
                                        }
                                        parsed
                                    };
                                    let keepalive = duration("keepalive", &mut errors);
                                    let read_timeout = duration("read_timeout", &mut errors);
                                    for (hk, _) in hop.entries() {
                                        let hk_text = hk.as_str().unwrap_or_default();
                                        if !HOP_KEYS.iter().any(|k| k.0 == hk_text) {
                                            errors.push(ConfigError {
                                                line: line(hk.span()),
                                                message: format!(
                                                    "unknown key `{hk_text}` in an outer hop{}",
                                                    crate::suggest::hint(
                                                        hk_text,
                                                        HOP_KEYS.iter().map(|k| k.0)
                                                    )
                                                ),
                                            });
                                        }
                                    }
                                    self.topology.push(OuterHop {
                                        product: product.to_string(),
                                        keepalive,
                                        read_timeout,
                                        source: format!("configuration line {}", line(hop.span())),
                                    });
                                }
                            }
                            other => errors.push(ConfigError {
                                line: line(tk.span()),
                                message: format!(
                                    "unknown key `topology.{other}`{}",
                                    crate::suggest::hint(other, TOPOLOGY_KEYS.iter().map(|k| k.0))
                                ),
                            }),
                        }
                    }
                }
                other => errors.push(ConfigError {
                    line: line(key.span()),
                    message: format!(
                        "unknown key `{other}`{}",
                        crate::suggest::hint(other, KEYS.iter().map(|k| k.0))
                    ),
                }),
            }
        }
        if errors.is_empty() {
            Ok(extends)
        } else {
            Err(errors)
        }
    }
}

#[cfg(test)]
mod config_file_tests {
    use super::*;

    fn known(id: &str) -> bool {
        crate::rules::find(id).is_some()
    }

    #[test]
    fn reads_every_key() {
        let mut s = Settings::default();
        let text = "extends: rulesets/default.yaml\nignore: [yaml-duplicate-key]\nseverity: {k8s-hpa-with-static-replicas: error}\ncomplete: true\ncluster: {haproxy_version: \"2.8\", nodes: 3}\ntopology:\n  l7_in_front: true\n  outer:\n    - {product: cloudfront, keepalive: 5s, read_timeout: 30s}\n";
        assert_eq!(
            s.apply_yaml(text, &known),
            Ok(Some("rulesets/default.yaml".into()))
        );
        assert_eq!(s.ignore, vec!["yaml-duplicate-key"]);
        assert_eq!(
            s.severity.get("k8s-hpa-with-static-replicas"),
            Some(&Severity::Error)
        );
        assert!(s.complete && s.l7_in_front);
        assert_eq!(s.nodes, Some(3));
        assert_eq!(
            s.topology[0].keepalive,
            Some(crate::value::duration::Millis(5000))
        );
    }

    #[test]
    fn typos_are_errors_with_lines() {
        let mut s = Settings::default();
        let errors = s
            .apply_yaml("ignore: [yaml-duplicate-keys]\nclustr: {}\n", &known)
            .unwrap_err();
        assert_eq!(
            errors.iter().map(|e| e.line).collect::<Vec<_>>(),
            vec![1, 2]
        );
    }

    #[test]
    fn a_key_written_twice_or_a_second_document_is_an_error() {
        let mut s = Settings::default();
        let errors = s
            .apply_yaml("cluster:\n  nodes: 3\ncluster:\n  nodez: 4\n", &known)
            .unwrap_err();
        let seen: Vec<_> = errors
            .iter()
            .map(|e| (e.line, e.message.as_str()))
            .collect();
        assert!(
            seen.contains(&(3, "duplicate key `cluster` (first at line 1)")),
            "{seen:?}"
        );
        let errors = s
            .apply_yaml("complete: true\n---\ncomplete: false\n", &known)
            .unwrap_err();
        assert_eq!(
            errors
                .iter()
                .map(|e| (e.line, e.message.as_str()))
                .collect::<Vec<_>>(),
            vec![(
                2,
                "a second YAML document: the configuration must be one document"
            )]
        );
    }
}

/// A configuration key: name, JSON Schema type (or `None` for the keys whose schema is built
/// below), description. These tables drive the did-you-mean hints and the JSON Schema
/// (`docs/kubegap.schema.json`), so the two never disagree with [`Settings::apply_yaml`].
pub type Key = (&'static str, Option<&'static str>, &'static str);

/// Top-level keys of `.kubegap.yaml`.
pub const KEYS: &[Key] = &[
    (
        "extends",
        None,
        "A built-in preset (`kubegap rules --preset NAME`) or a relative path to another configuration file inside the repository; its keys apply first and this file's keys win.",
    ),
    ("select", None, "Run only these rules."),
    ("ignore", None, "Do not run these rules."),
    ("severity", None, "Per-rule severity overrides (`error`, `warning` or `info`)."),
    (
        "complete",
        Some("boolean"),
        "The input is the whole application: missing objects (e.g. no PDB) are meaningful (`--complete`).",
    ),
    ("cluster", None, "Facts about the cluster the input runs on."),
    ("topology", None, "What sits in front of the cluster's proxies."),
];

/// Keys of `cluster:`.
pub const CLUSTER_KEYS: &[Key] = &[
    (
        "haproxy_version",
        Some("string"),
        "HAProxy version the haproxy.cfg files run on, e.g. \"2.8\".",
    ),
    (
        "nginx_version",
        Some("string"),
        "nginx version the nginx configs run on, e.g. \"1.25.3\".",
    ),
    ("nodes", Some("integer"), "Number of schedulable nodes."),
];

/// Keys of `topology:`.
pub const TOPOLOGY_KEYS: &[Key] = &[
    (
        "l7_in_front",
        Some("boolean"),
        "An L7 load balancer sits in front of the proxies (`--l7-in-front`).",
    ),
    (
        "outer",
        None,
        "Hops in front of the cluster (CDNs, load balancers), outermost first.",
    ),
];

/// Keys of one hop of `topology.outer`.
pub const HOP_KEYS: &[Key] = &[
    (
        "product",
        Some("string"),
        "Product name, e.g. `cloudfront`.",
    ),
    (
        "keepalive",
        None,
        "Idle keep-alive towards the next hop: `5s`, `2m`, `1h`, `500ms` or a number of seconds.",
    ),
    (
        "read_timeout",
        None,
        "Read (response) timeout: `30s`, `2m`, `1h`, `500ms` or a number of seconds.",
    ),
];

/// A preset built into kubegap: `extends: NAME` in any configuration file.
#[derive(Debug)]
pub struct Preset {
    /// The name used in `extends:`.
    pub name: &'static str,
    /// What the preset does, in one sentence (`kubegap rules --preset NAME`).
    pub description: &'static str,
    /// The preset as a configuration file (the same text as `rulesets/NAME.yaml`).
    pub yaml: &'static str,
}

/// The built-in presets, sorted by name. `rulesets/` holds the same text as plain files
/// (checked by a test).
pub static PRESETS: &[Preset] = &[
    Preset {
        name: "default",
        description: "every rule at its default severity; nothing is turned off (the same as no configuration)",
        yaml: "# kubegap preset `default` (built into kubegap: `extends: default`).\n# Every rule at its default severity; nothing is turned off (the same as no configuration).\nignore: []\nseverity: {}\n",
    },
    Preset {
        name: "partial-input",
        description: "for linting one chart or one file at a time: turns off the three rules that compare objects with other objects of the input (k8s-ingress-backend-missing, including its error-level findings, k8s-service-selects-nothing and k8s-pdb-selects-nothing), since the objects they look for may be in files that are not linted",
        yaml: "# kubegap preset `partial-input` (built into kubegap: `extends: partial-input`).\n# For linting one chart or one file at a time: the objects a reference points to may be in\n# files that are not linted. Turns off the three rules that compare objects with other objects\n# of the input, whatever the severity of their findings:\n# - k8s-ingress-backend-missing (error when the Service is in the input without the port,\n#   info when the Service is not in the input),\n# - k8s-service-selects-nothing and k8s-pdb-selects-nothing (warnings).\nignore:\n  - k8s-ingress-backend-missing\n  - k8s-pdb-selects-nothing\n  - k8s-service-selects-nothing\nseverity: {}\n",
    },
];

/// A built-in preset by name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The JSON Schema (draft 2020-12) of `.kubegap.yaml`, generated from [`KEYS`], the rule
/// registry and [`PRESETS`].
pub fn json_schema() -> serde_json::Value {
    use serde_json::{json, Map, Value};
    let rule_ids: Vec<&str> = crate::rules::RULES.iter().map(|r| r.id).collect();
    let presets: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    let duration = json!({
        "anyOf": [
            {"type": "string", "pattern": "^\\s*[0-9]+(\\.[0-9]+)?\\s*(ms|s|m|h)?\\s*$"},
            {"type": "number", "minimum": 0}
        ]
    });
    let object = |keys: &[Key], special: &dyn Fn(&str) -> Option<Value>| -> Value {
        let mut props = Map::new();
        for (name, ty, description) in keys {
            let mut schema = match ty {
                Some(ty) => json!({ "type": ty }),
                None => special(name).unwrap_or_else(|| json!({})),
            };
            if let Value::Object(o) = &mut schema {
                o.insert("description".into(), Value::String((*description).into()));
            }
            props.insert((*name).into(), schema);
        }
        json!({"type": "object", "additionalProperties": false, "properties": props})
    };
    let rule_list = json!({"type": "array", "items": {"$ref": "#/$defs/rule"}});
    let hop = object(HOP_KEYS, &|name| match name {
        "keepalive" | "read_timeout" => Some(duration.clone()),
        _ => None,
    });
    let mut hop = hop;
    hop["required"] = json!(["product"]);
    let topology = object(TOPOLOGY_KEYS, &|name| {
        (name == "outer").then(|| json!({"type": "array", "items": hop.clone()}))
    });
    let cluster = object(CLUSTER_KEYS, &|_| None);
    let mut root = object(KEYS, &|name| match name {
        "extends" => Some(json!({
            "type": "string",
            "anyOf": [
                {"enum": presets},
                {"pattern": "^[^/]"}
            ]
        })),
        "select" | "ignore" => Some(rule_list.clone()),
        "severity" => Some(json!({
            "type": "object",
            "propertyNames": {"$ref": "#/$defs/rule"},
            "additionalProperties": {"enum": ["error", "warning", "info"]}
        })),
        "cluster" => Some(cluster.clone()),
        "topology" => Some(topology.clone()),
        _ => None,
    });
    // `nodes` is an integer ≥ 0; versions are dotted numbers.
    root["properties"]["cluster"]["properties"]["nodes"]["minimum"] = json!(0);
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "kubegap configuration (.kubegap.yaml)",
        "description": "Generated from kubegap-core/src/config.rs (KEYS, PRESETS, the rule registry); do not edit: KUBEGAP_BLESS=1 cargo test -p kubegap-cli --test config_schema regenerates it.",
        "$defs": {"rule": {"enum": rule_ids}}
    });
    if let (Value::Object(s), Value::Object(r)) = (&mut schema, root) {
        for (k, v) in r {
            s.insert(k, v);
        }
    }
    schema
}
