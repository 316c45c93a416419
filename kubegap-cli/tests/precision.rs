//! The precision benchmark: kubegap's findings on `../shared/corpus`, linted as one run
//! (`kubegap lint k8s helm haproxy nginx`), against the reviewed sample in
//! `testdata/precision/reviewed.tsv` (see docs/PRECISION.md).
//!
//! - a finding reviewed `true` must still be reported (same rule and file, within a few lines);
//! - a finding reviewed `false` or `noise` whose status is `fixed` must not come back (same
//!   rule, severity and file, within a few lines);
//! - rows with status `open` and verdict `false`/`noise` are known imprecisions, measured in
//!   docs/PRECISION.md but not enforced (fixing them is progress).
//!
//! Without the corpus the test skips loudly, unless `KUBEGAP_REQUIRE_CORPUS=1`.

use std::path::Path;
use std::process::Command;

/// How far a finding may move (lines) and still be the one reviewed.
const SLACK: i64 = 3;

struct Row {
    rule: String,
    file: String,
    line: i64,
    severity: String,
    verdict: String,
    status: String,
}

fn rows() -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/precision/reviewed.tsv");
    let text = std::fs::read_to_string(path).expect("reviewed.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 7, "reviewed.tsv: 7 columns expected in {l:?}");
            assert!(
                matches!(cols[4], "true" | "false" | "noise"),
                "reviewed.tsv: verdict {:?}",
                cols[4]
            );
            assert!(
                matches!(cols[5], "open" | "fixed"),
                "reviewed.tsv: status {:?}",
                cols[5]
            );
            assert!(
                !cols[6].trim().is_empty(),
                "reviewed.tsv: no reason in {l:?}"
            );
            Row {
                rule: cols[0].to_string(),
                file: cols[1].to_string(),
                line: cols[2].parse().expect("line"),
                severity: cols[3].to_string(),
                verdict: cols[4].to_string(),
                status: cols[5].to_string(),
            }
        })
        .collect()
}

#[test]
fn reviewed_findings_stay_as_reviewed() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if !corpus.join("k8s").is_dir() {
        assert!(
            std::env::var("KUBEGAP_REQUIRE_CORPUS").as_deref() != Ok("1"),
            "KUBEGAP_REQUIRE_CORPUS=1 but the corpus is not at {}",
            corpus.display()
        );
        eprintln!(
            "\n\n*** SKIPPED: the precision benchmark needs the corpus at {} ***\n\n",
            corpus.display()
        );
        return;
    }
    let rows = rows();
    let output = Command::new(env!("CARGO_BIN_EXE_kubegap"))
        .current_dir(&corpus)
        .args([
            "lint", "k8s", "helm", "haproxy", "nginx", "--format", "json",
        ])
        .output()
        .expect("run kubegap");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("kubegap printed JSON");
    let findings: Vec<(String, String, i64, String)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                f["file"].as_str().unwrap_or_default().to_string(),
                f["line"].as_i64().unwrap_or_default(),
                f["severity"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let near = |row: &Row, severity: bool| {
        findings.iter().any(|(rule, file, line, sev)| {
            rule == &row.rule
                && file == &row.file
                && (line - row.line).abs() <= SLACK
                && (!severity || sev == &row.severity)
        })
    };
    let mut failures = Vec::new();
    for row in &rows {
        match (row.verdict.as_str(), row.status.as_str()) {
            ("true", _) if !near(row, false) => failures.push(format!(
                "reviewed true, no longer reported: {} {}:{}",
                row.rule, row.file, row.line
            )),
            ("false" | "noise", "fixed") if near(row, true) => failures.push(format!(
                "reviewed {}, reported again: {} ({}) {}:{}",
                row.verdict, row.rule, row.severity, row.file, row.line
            )),
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} reviewed findings changed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
