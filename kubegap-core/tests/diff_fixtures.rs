//! Diff fixtures: `testdata/diff/<rule-id>/<case>/{base,head}/`, compared as `kubegap diff
//! base head` would.
//!
//! A line of a BASE or HEAD file whose comment says `expect: <rule-id>` must carry a finding
//! of that rule starting on that line; the set of (file, line) pairs must match exactly.
//! `valid*` cases must give no finding of the rule. Every diff rule needs at least one
//! `invalid*` and one `valid*` case.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kubegap_core::diff::compare;
use kubegap_core::engine::load;
use kubegap_core::{kind, Input, Settings};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// Every file under `dir`, named `<side>/<relative path>`, sorted.
fn inputs_of(dir: &Path, side: &str) -> Vec<Input> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            let kind = kind::detect(&p, Some(&bytes[..bytes.len().min(4096)]))?;
            let rel = p
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            Some(Input {
                name: format!("{side}/{rel}"),
                path: Some(p),
                bytes,
                kind,
                canonical: None,
                prepared: None,
            })
        })
        .collect()
}

fn expected(inputs: &[Input], rule: &str) -> BTreeSet<(String, u32)> {
    let mark = format!("expect: {rule}");
    let mut out = BTreeSet::new();
    for input in inputs {
        let text = String::from_utf8_lossy(&input.bytes);
        for (i, line) in text.lines().enumerate() {
            if line
                .split_once('#')
                .is_some_and(|(_, c)| c.split(',').any(|m| m.trim() == mark))
            {
                out.insert((input.name.clone(), i as u32 + 1));
            }
        }
    }
    out
}

fn run_case(dir: &Path, rule: &str) -> Result<(), String> {
    let base = inputs_of(&dir.join("base"), "base");
    let head = inputs_of(&dir.join("head"), "head");
    let mut want = expected(&base, rule);
    want.extend(expected(&head, rule));
    let settings = Settings::default();
    let strip = |n: &str| n.split_once('/').map_or(n, |(_, r)| r).to_string();
    let result = compare(
        load(base, &settings),
        load(head, &settings),
        &settings,
        &strip,
        &strip,
        false,
    );
    let got: BTreeSet<(String, u32)> = result
        .report
        .findings
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| {
            let file = result.report.files.get(f.span.file);
            (file.name.clone(), file.line_col(f.span.start).line)
        })
        .collect();
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    if name.starts_with("invalid") && want.is_empty() {
        return Err("an invalid case marks no line with `expect:`".into());
    }
    if name.starts_with("valid") && !want.is_empty() {
        return Err("a valid case marks lines with `expect:`".into());
    }
    if got != want {
        let messages: Vec<String> = result
            .report
            .findings
            .iter()
            .filter(|f| f.rule == rule)
            .map(|f| f.message.clone())
            .collect();
        return Err(format!(
            "expected {want:?}\n     got {got:?}\n     messages {messages:#?}"
        ));
    }
    Ok(())
}

#[test]
fn diff_fixtures() {
    let root = testdata().join("diff");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (rule, _) in kubegap_core::rules::DIFF_CHECKS {
        let dir = root.join(rule.id);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            failures.push(format!(
                "{}: no testdata/diff/{} directory",
                rule.id, rule.id
            ));
            continue;
        };
        let mut cases: Vec<PathBuf> = entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        let names: Vec<String> = cases
            .iter()
            .map(|c| c.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        if !names.iter().any(|n| n.starts_with("valid"))
            || !names.iter().any(|n| n.starts_with("invalid"))
        {
            failures.push(format!("{}: needs invalid* and valid* cases", rule.id));
        }
        for case in cases {
            checked += 1;
            if let Err(e) = run_case(&case, rule.id) {
                failures.push(format!("{}: {e}", case.display()));
            }
        }
    }
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn diff_rules_are_documented_and_sorted() {
    let ids: Vec<&str> = kubegap_core::rules::DIFF_CHECKS
        .iter()
        .map(|(r, _)| r.id)
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted);
    for (rule, _) in kubegap_core::rules::DIFF_CHECKS {
        assert!(rule.id.starts_with("diff-"), "{}", rule.id);
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
        assert!(!rule.evidence.is_empty(), "{}", rule.id);
        assert!(kubegap_core::rules::RULES.iter().all(|r| r.id != rule.id));
    }
}
