//! Baselines: `--write-baseline` then `--baseline` hides every recorded finding; moving lines
//! hides still; an edit shows exactly its own findings.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::{findings, json, root};

fn kubegap_in(dir: &Path, args: &[&str]) -> Output {
    support::run_in(dir, args, None)
}

fn temp_copy(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubegap-baseline-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["shop.yaml", "haproxy.cfg", "nginx.conf"] {
        std::fs::copy(root().join("testdata/examples").join(f), dir.join(f)).unwrap();
    }
    dir
}

/// Inserts `n` comment lines after every line matching `at`.
fn insert_comments(path: &Path, at: &str, n: usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        if line.trim_start().starts_with(at) {
            let indent = &line[..line.len() - line.trim_start().len()];
            for i in 0..n {
                out.push_str(&format!("{indent}# moved {i}\n"));
            }
        }
    }
    std::fs::write(path, out).unwrap();
}

const INPUTS: &[&str] = &["shop.yaml", "haproxy.cfg", "nginx.conf"];

#[test]
fn baseline_hides_recorded_findings_survives_moves_and_shows_edits() {
    let dir = temp_copy("moves");
    let lint = |extra: &[&str]| {
        let mut args = vec!["lint", "--format", "json"];
        args.extend_from_slice(INPUTS);
        args.extend_from_slice(extra);
        kubegap_in(&dir, &args)
    };
    let before = findings(&json(&lint(&[])));
    assert!(before.len() >= 5, "{before:?}");

    let written = lint(&["--write-baseline", "baseline.json"]);
    assert_eq!(written.status.code(), Some(0));
    let text = std::fs::read_to_string(dir.join("baseline.json")).unwrap();
    assert!(text.starts_with("{\"kubegap_baseline\": 1, \"entries\": [\n"));
    assert_eq!(text.lines().count(), before.len() + 2, "one entry per line");
    // Writing twice gives the same bytes (sorted).
    lint(&["--write-baseline", "baseline2.json"]);
    assert_eq!(
        text,
        std::fs::read_to_string(dir.join("baseline2.json")).unwrap()
    );

    let with = lint(&["--baseline", "baseline.json"]);
    assert_eq!(with.status.code(), Some(0));
    let v = json(&with);
    assert_eq!(findings(&v), vec![]);
    assert_eq!(v["summary"]["findings"], 0);
    assert_eq!(v["baseline"]["matched"].as_u64(), Some(before.len() as u64));
    assert_eq!(v["baseline"]["absent"].as_array().map(Vec::len), Some(0));

    // Comments inserted all over move every finding's line: nothing is new.
    insert_comments(&dir.join("shop.yaml"), "---", 3);
    insert_comments(&dir.join("shop.yaml"), "spec:", 2);
    insert_comments(&dir.join("haproxy.cfg"), "global", 2);
    insert_comments(&dir.join("nginx.conf"), "http {", 4);
    let moved_all = findings(&json(&lint(&[])));
    assert_eq!(moved_all.len(), before.len());
    assert_ne!(moved_all, before, "the lines did move");
    let moved = json(&lint(&["--baseline", "baseline.json"]));
    assert_eq!(findings(&moved), vec![]);

    // One edit: the chat Service's targetPort names a port no container has.
    let shop = dir.join("shop.yaml");
    let text = std::fs::read_to_string(&shop).unwrap();
    let edited = text.replacen("targetPort: ws", "targetPort: wss", 1);
    assert_ne!(edited, text);
    std::fs::write(&shop, &edited).unwrap();
    let line = edited
        .lines()
        .position(|l| l.contains("targetPort: wss"))
        .unwrap() as u64
        + 1;
    let out = lint(&["--baseline", "baseline.json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(
        findings(&v),
        vec![(
            "k8s-service-target-port-missing".to_string(),
            "shop.yaml".to_string(),
            line
        )]
    );
    assert_eq!(v["baseline"]["absent"].as_array().map(Vec::len), Some(0));

    // Undo a finding: its entry is listed as absent.
    let fixed = edited.replacen("targetPort: http", "targetPort: 8080", 1);
    std::fs::write(&shop, fixed).unwrap();
    let v = json(&lint(&["--baseline", "baseline.json"]));
    let absent = v["baseline"]["absent"].as_array().unwrap();
    assert_eq!(absent.len(), 1, "{absent:?}");
    assert_eq!(absent[0]["rule"], "k8s-service-target-port-missing");
    let _ = std::fs::remove_dir_all(&dir);
}

/// SARIF and JUnit, written as they are rendered, carry only what the baseline leaves; the
/// baseline's own line goes to stderr, keeping stdout one document.
#[test]
fn sarif_and_junit_with_a_baseline_hold_only_new_findings() {
    let dir = temp_copy("formats");
    let lint = |extra: &[&str]| {
        let mut args = vec!["lint"];
        args.extend_from_slice(INPUTS);
        args.extend_from_slice(extra);
        kubegap_in(&dir, &args)
    };
    let before = lint(&["--format", "json"]);
    let recorded = findings(&json(&before)).len();
    assert!(recorded >= 5);
    assert_eq!(lint(&["--write-baseline", "b.json"]).status.code(), Some(0));
    let shop = dir.join("shop.yaml");
    let text = std::fs::read_to_string(&shop).unwrap();
    std::fs::write(&shop, text.replacen("targetPort: ws", "targetPort: wss", 1)).unwrap();
    let line = format!("baseline b.json: {recorded} findings hidden, 0 entries no longer found");

    let sarif = lint(&["--format", "sarif", "--baseline", "b.json"]);
    assert_eq!(sarif.status.code(), Some(1));
    let v = json(&sarif);
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["ruleId"], "k8s-service-target-port-missing");
    assert_eq!(String::from_utf8_lossy(&sarif.stderr).trim_end(), line);

    let junit = lint(&["--format", "junit", "--baseline", "b.json"]);
    assert_eq!(junit.status.code(), Some(1));
    let xml = String::from_utf8_lossy(&junit.stdout);
    assert!(xml.starts_with("<?xml") && xml.ends_with("</testsuites>\n"));
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    assert!(xml.contains("type=\"error\">shop.yaml:"), "{xml}");
    assert_eq!(String::from_utf8_lossy(&junit.stderr).trim_end(), line);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_baselines_are_usage_errors() {
    let dir = temp_copy("bad");
    std::fs::write(
        dir.join("b.json"),
        "{\"kubegap_baseline\": 9, \"entries\": []}",
    )
    .unwrap();
    let out = kubegap_in(&dir, &["lint", "shop.yaml", "--baseline", "b.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("version 9"));
    std::fs::write(dir.join("b.json"), "not json").unwrap();
    let out = kubegap_in(&dir, &["lint", "shop.yaml", "--baseline", "b.json"]);
    assert_eq!(out.status.code(), Some(2));
    let out = kubegap_in(&dir, &["lint", "shop.yaml", "--baseline", "missing.json"]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn whole_corpus_baseline_reports_nothing() {
    let corpus = root().join("../shared/corpus");
    if !corpus.is_dir() {
        assert!(
            std::env::var_os("KUBEGAP_REQUIRE_CORPUS").is_none(),
            "KUBEGAP_REQUIRE_CORPUS is set but {} is missing",
            corpus.display()
        );
        eprintln!(
            "SKIPPED whole_corpus_baseline_reports_nothing: {} not found",
            corpus.display()
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("kubegap-baseline-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("baseline.json");
    let file = file.to_str().unwrap();
    let parts = ["k8s", "helm", "haproxy", "nginx"].map(|p| corpus.join(p));
    let mut args: Vec<&str> = vec!["lint", "--format", "json", "--fail-on", "never"];
    args.extend(parts.iter().map(|p| p.to_str().unwrap()));
    let mut write = args.clone();
    write.extend(["--write-baseline", file]);
    assert_eq!(kubegap_in(&root(), &write).status.code(), Some(0));
    let entries = std::fs::read_to_string(file).unwrap().lines().count() - 2;
    assert!(entries > 1000, "{entries} entries");
    let mut read = args.clone();
    read.extend(["--baseline", file]);
    let v = json(&kubegap_in(&root(), &read));
    assert_eq!(v["summary"]["findings"], 0);
    assert_eq!(v["baseline"]["matched"].as_u64(), Some(entries as u64));
    assert_eq!(v["baseline"]["absent"].as_array().map(Vec::len), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}
