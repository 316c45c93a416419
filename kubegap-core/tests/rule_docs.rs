//! Rule documentation is part of the product: these tests keep it honest.
//!
//! - ids are unique kebab-case and `RULES` is sorted;
//! - every doc has the required sections;
//! - every fenced example tagged `<yaml|haproxy|nginx|helm-chart>,invalid` makes its rule fire, and every
//!   `…,valid` example makes it stay silent without parse errors (docs whose examples are tests);
//! - a `yaml,settings` block is a `.kubegap.yaml` (the user's configuration format, unknown keys
//!   and rule ids are errors) that applies to the examples after it; fixtures
//!   (`testdata/rules/<id>/.kubegap.yaml`) and incidents use the same format.

use kubegap_core::rules::RULES;
use kubegap_core::{lint, FileKind, Input, Settings};

/// (language, valid?, code) of each tagged fenced block.
fn examples(docs: &str) -> Vec<(String, bool, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, bool, String)> = None;
    for line in docs.lines() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            if let Some(block) = current.take() {
                out.push(block);
                continue;
            }
            let mut parts = info.split(',');
            let lang = parts.next().unwrap_or_default().trim().to_string();
            let tag = parts.next().map(str::trim);
            if matches!(tag, Some("valid" | "invalid")) {
                current = Some((lang, tag == Some("valid"), String::new()));
            } else if tag == Some("settings") {
                // A `.kubegap.yaml` for the examples that follow; only YAML is a configuration.
                assert_eq!(lang, "yaml", "a settings block is ```yaml,settings: {info}");
                current = Some(("settings".to_string(), false, String::new()));
            } else {
                current = Some((String::new(), false, String::new()));
            }
            continue;
        }
        if let Some((_, _, code)) = current.as_mut() {
            // Doc comments keep one leading space after `///`.
            code.push_str(line.strip_prefix(' ').unwrap_or(line));
            code.push('\n');
        }
    }
    out.into_iter()
        .filter(|(lang, _, _)| !lang.is_empty())
        .collect()
}

#[test]
fn ids_are_unique_sorted_kebab_case() {
    let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "RULES must be sorted by id and unique");
    for id in ids {
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{id}"
        );
    }
}

#[test]
fn docs_have_required_sections() {
    for rule in RULES {
        for section in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "Use instead:",
        ] {
            assert!(
                rule.docs.contains(section),
                "{}: missing `{section}`",
                rule.id
            );
        }
        assert!(
            !rule.summary.ends_with('.'),
            "{}: summary ends with a period",
            rule.id
        );
        if rule.id != "parse-error" {
            assert!(!rule.evidence.is_empty(), "{}: no evidence links", rule.id);
        }
    }
}

#[test]
fn doc_examples_behave_as_documented() {
    let mut failures = Vec::new();
    for rule in RULES {
        let examples = examples(rule.docs);
        assert!(
            examples.iter().any(|e| !e.1 && e.0 != "settings"),
            "{}: no invalid example",
            rule.id
        );
        assert!(
            examples.iter().any(|e| e.1),
            "{}: no valid example",
            rule.id
        );
        let mut example_settings = Settings::default();
        for (i, (lang, valid, code)) in examples.into_iter().enumerate() {
            if lang == "settings" {
                let known = |id: &str| kubegap_core::rules::find(id).is_some();
                match example_settings.apply_yaml(&code, &known) {
                    Ok(None) => {}
                    Ok(Some(extends)) => failures.push(format!(
                        "{} example {i} (settings): `extends: {extends}` is not followed in examples",
                        rule.id
                    )),
                    Err(errors) => failures.push(format!(
                        "{} example {i} (settings): {errors:?}",
                        rule.id
                    )),
                }
                continue;
            }
            let kind = match lang.as_str() {
                "yaml" | "json" => FileKind::Yaml,
                "haproxy" => FileKind::Haproxy,
                "nginx" => FileKind::Nginx,
                // A chart's `Chart.yaml`, as discovery marks it (kubegap_core::layout).
                "helm-chart" => FileKind::HelmChart,
                other => panic!("{}: unknown example language {other}", rule.id),
            };
            let settings = Settings {
                select: Some(vec![rule.id.to_string(), "parse-error".to_string()]),
                ..example_settings.clone()
            };
            // nginx examples are files on disk, so their relative includes resolve as nginx
            // resolves them (beside the example, in an empty directory).
            let path = (kind == FileKind::Nginx).then(|| {
                let dir = std::env::temp_dir().join(format!(
                    "kubegap-rule-docs-{}-{}-{i}",
                    std::process::id(),
                    rule.id
                ));
                std::fs::create_dir_all(&dir).unwrap();
                let path = dir.join("nginx.conf");
                std::fs::write(&path, &code).unwrap();
                path
            });
            let input = Input {
                name: format!("{}-example-{i}", rule.id),
                path: path.clone(),
                bytes: code.into_bytes(),
                kind,
                canonical: None,
                prepared: None,
            };
            let report = lint(vec![input], &settings);
            if let Some(dir) = path.as_deref().and_then(std::path::Path::parent) {
                let _ = std::fs::remove_dir_all(dir);
            }
            let hits = report.findings.iter().filter(|f| f.rule == rule.id).count();
            let parse_errors = report
                .findings
                .iter()
                .filter(|f| f.rule == "parse-error")
                .count();
            if valid && (hits > 0 || parse_errors > 0) {
                failures.push(format!(
                    "{} example {i} (valid): {:?}",
                    rule.id, report.findings
                ));
            }
            if !valid && hits == 0 {
                failures.push(format!(
                    "{} example {i} (invalid): rule did not fire; {:?}",
                    rule.id, report.findings
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
