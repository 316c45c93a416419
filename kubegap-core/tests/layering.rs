//! Architecture Invariant (docs/ARCHITECTURE.md): the model and the layers built from it never
//! import the rule API. This test reads every `use` line (and every path) of those modules and
//! fails if one names `crate::rule` or `crate::rules`.

use std::path::{Path, PathBuf};

/// Modules below the rule API: parsers, the model, and the layers built from it. (`config.rs`
/// is not one of them: reading `.kubegap.yaml` checks rule ids against the registry.)
const MODEL_MODULES: &[&str] = &[
    "model.rs",
    "source.rs",
    "kind.rs",
    "reload.rs",
    "layout.rs",
    "reads.rs",
    "value",
    "yaml",
    "haproxy",
    "nginx",
    "k8s",
    "controllers",
    "chain",
];

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            rust_files(&p, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The offending lines of one file: `use` lines or paths that reach the rule API.
fn rule_imports(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with("//"))
        .filter(|line| {
            line.contains("crate::rule::")
                || line.contains("crate::rule;")
                || line.contains("crate::rule}")
                || line.contains("crate::rules")
                || line.contains("crate::{rule")
                || line.contains("super::rule")
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn model_modules_never_import_the_rule_api() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for module in MODEL_MODULES {
        let path = src.join(module);
        assert!(
            path.exists(),
            "{} is gone: update MODEL_MODULES",
            path.display()
        );
        rust_files(&path, &mut files);
    }
    assert!(files.len() > 20, "too few files read: {files:?}");
    let mut offenders = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for line in rule_imports(&text) {
            offenders.push(format!("{}: {line}", file.display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "model modules must not import the rule API (docs/ARCHITECTURE.md):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_check_sees_an_import() {
    assert_eq!(rule_imports("use crate::rule::Context;").len(), 1);
    assert_eq!(rule_imports("    cx: &crate::rule::Context<'_>,").len(), 1);
    assert_eq!(rule_imports("use crate::rules::RULES;").len(), 1);
    assert!(rule_imports("// see crate::rule::Context").is_empty());
    assert!(rule_imports("use crate::model::Model;").is_empty());
}

/// A rule never imports another rule's file: shared helpers live in `rules/helpers/`.
#[test]
fn rules_never_import_another_rule() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
    let mut offenders = Vec::new();
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("mod.rs") {
            continue;
        }
        read += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().map(str::trim) {
            if line.starts_with("//") {
                continue;
            }
            let reaches_rule =
                line.contains("crate::rules::") && !line.contains("crate::rules::helpers");
            // (`use super::…` inside a rule's own test module names that rule's file.)
            if reaches_rule || line.contains("super::super::") {
                offenders.push(format!("{}: {line}", path.display()));
            }
        }
    }
    assert!(read > 40, "too few rule files read");
    assert!(
        offenders.is_empty(),
        "rules must not import other rules (move shared helpers to rules/helpers/):\n{}",
        offenders.join("\n")
    );
}
