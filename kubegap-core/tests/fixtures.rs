//! Rule fixtures: `testdata/rules/<rule-id>/{invalid,valid}*` files or directories.
//!
//! A line whose comment says `expect: <rule-id>` must carry a finding of that rule starting on
//! that line (the primary span); the set of (file, line) pairs must match exactly. `valid*`
//! inputs must give no finding of the rule and no parse error. Each fixture runs with only its
//! rule and `parse-error` enabled. A directory fixture is linted as one run (cross-file rules),
//! with Helm charts and kustomizations arranged as discovery arranges them (`layout::arrange`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kubegap_core::{kind, lint, Input, Settings};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// Every file under `path` that kubegap reads, sorted.
fn inputs_of(path: &Path) -> Vec<Input> {
    let mut files = Vec::new();
    if path.is_dir() {
        let mut stack = vec![path.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let p = entry.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    files.push(p);
                }
            }
        }
    } else {
        files.push(path.to_path_buf());
    }
    files.sort();
    let inputs = files
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            let kind = kind::detect(&p, Some(&bytes[..bytes.len().min(4096)]))?;
            // A `kubegap.settings` file next to a fixture is not an input.
            Some(Input {
                name: p.display().to_string(),
                path: Some(p),
                bytes,
                kind,
            })
        })
        .collect();
    // Helm chart sources and kustomizations, as discovery arranges them.
    kubegap_core::layout::arrange(inputs).inputs
}

/// (file name, line) pairs where `expect: RULE` comments are.
fn expectations(inputs: &[Input], rule: &str) -> BTreeSet<(String, u32)> {
    let needle = format!("expect: {rule}");
    let mut out = BTreeSet::new();
    for input in inputs {
        let text = String::from_utf8_lossy(&input.bytes);
        for (i, line) in text.lines().enumerate() {
            if let Some(pos) = line.find('#') {
                if line[pos..]
                    .split(',')
                    .any(|part| part.trim().trim_start_matches('#').trim() == needle)
                    || line[pos..].contains(&format!("{needle} "))
                    || line[pos..].trim_end().ends_with(&needle)
                {
                    out.insert((input.name.clone(), i as u32 + 1));
                }
            }
        }
    }
    out
}

/// Settings for a fixture: only its rule, plus options from a `settings` file in its folder.
fn settings_for(rule: &str, dir: &Path) -> Settings {
    let mut settings = Settings {
        select: Some(vec![rule.to_string(), "parse-error".to_string()]),
        ..Settings::default()
    };
    if let Ok(text) = std::fs::read_to_string(dir.join("settings")) {
        for line in text.lines() {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            assert!(
                settings.apply_fixture_setting(key, value),
                "unknown fixture setting {key}"
            );
        }
    }
    settings
}

#[test]
fn rule_fixtures() {
    let root = testdata().join("rules");
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let rule = dir.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            kubegap_core::rules::find(&rule).is_some(),
            "fixture folder for unknown rule {rule}"
        );
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        cases.sort();
        let mut has_valid = false;
        let mut has_invalid = false;
        for case in cases {
            let name = case.file_name().unwrap().to_str().unwrap().to_string();
            let valid = name.starts_with("valid");
            if !valid && !name.starts_with("invalid") {
                continue;
            }
            has_valid |= valid;
            has_invalid |= !valid;
            let inputs = inputs_of(&case);
            assert!(
                !inputs.is_empty(),
                "{} has no input kubegap reads",
                case.display()
            );
            let expected = expectations(&inputs, &rule);
            let report = lint(inputs, &settings_for(&rule, &dir));
            let got: BTreeSet<(String, u32)> = report
                .findings
                .iter()
                .filter(|f| f.rule == rule)
                .map(|f| {
                    let file = report.files.get(f.span.file);
                    (file.name.clone(), file.line_col(f.span.start).line)
                })
                .collect();
            let parse_errors: Vec<String> = report
                .findings
                .iter()
                .filter(|f| f.rule == "parse-error" && rule != "parse-error")
                .map(|f| {
                    format!(
                        "{}:{}: {}",
                        report.files.get(f.span.file).name,
                        report.files.get(f.span.file).line_col(f.span.start).line,
                        f.message
                    )
                })
                .collect();
            if valid && !expected.is_empty() {
                failures.push(format!(
                    "{}: valid fixtures must not contain expect comments",
                    case.display()
                ));
            }
            if !valid && expected.is_empty() {
                failures.push(format!(
                    "{}: invalid fixture without any `# expect: {rule}`",
                    case.display()
                ));
            }
            if got != expected {
                failures.push(format!(
                    "{}:\n  expected {expected:?}\n  got      {got:?}",
                    case.display()
                ));
            }
            if !parse_errors.is_empty() {
                failures.push(format!(
                    "{}: unexpected parse errors {parse_errors:?}",
                    case.display()
                ));
            }
            checked += 1;
        }
        if !(has_valid && has_invalid) {
            failures.push(format!(
                "{rule}: needs at least one valid* and one invalid* fixture"
            ));
        }
    }
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_fixtures() {
    let root = testdata().join("rules");
    let missing: Vec<&str> = kubegap_core::rules::RULES
        .iter()
        .map(|r| r.id)
        .filter(|id| !root.join(id).is_dir())
        .collect();
    assert!(missing.is_empty(), "rules without fixtures: {missing:?}");
}
