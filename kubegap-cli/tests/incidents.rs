//! Incident reproductions: every folder of `testdata/incidents/` is linted through the binary,
//! and for each rule its `expected.txt` lists, the reported (rule, file, line) set must be
//! exactly the listed one.
//!
//! `expected.txt`: one `rule-id file:line` per line, `file` relative to the folder; a line
//! with a rule id alone lists the rule with no finding (it must stay silent there); `#`
//! starts a comment. Rules that are not listed may report anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// (rule, file relative to the folder, line).
type Finding = (String, String, u64);

struct Expected {
    rules: BTreeSet<String>,
    findings: BTreeSet<Finding>,
}

fn parse_expected(path: &Path) -> Expected {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut rules = BTreeSet::new();
    let mut findings = BTreeSet::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let rule = words.next().unwrap().to_string();
        match (words.next(), words.next()) {
            (None, _) => {}
            (Some(at), None) => {
                let (file, line_no) = at
                    .rsplit_once(':')
                    .unwrap_or_else(|| panic!("{}:{}: want FILE:LINE", path.display(), i + 1));
                let line_no = line_no
                    .parse()
                    .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
                findings.insert((rule.clone(), file.to_string(), line_no));
            }
            _ => panic!("{}:{}: want `rule-id file:line`", path.display(), i + 1),
        }
        rules.insert(rule);
    }
    Expected { rules, findings }
}

fn known_rules() -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_kubegap"))
        .arg("rules")
        .current_dir(root())
        .output()
        .expect("run kubegap rules");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

fn lint(folder: &str) -> BTreeSet<Finding> {
    // A folder with `base/` and `head/` is a change: `kubegap diff base head`.
    let (base, head) = (format!("{folder}/base"), format!("{folder}/head"));
    let mut args = if root().join(&base).is_dir() && root().join(&head).is_dir() {
        vec!["diff".to_string(), base, head]
    } else {
        vec!["lint".to_string(), folder.to_string()]
    };
    args.extend(["--format", "json", "--fail-on", "never"].map(String::from));
    let config = format!("{folder}/.kubegap.yaml");
    if root().join(&config).is_file() {
        args.extend(["--config".to_string(), config]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kubegap"))
        .args(&args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .output()
        .expect("run kubegap");
    assert_eq!(
        out.status.code(),
        Some(0),
        "kubegap {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let prefix = format!("{folder}/");
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = f["file"].as_str().unwrap();
            let file = file.strip_prefix(&prefix).unwrap_or(file).to_string();
            (
                f["rule"].as_str().unwrap().to_string(),
                file,
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn incident_reproductions_report_exactly_the_expected_findings() {
    let known = known_rules();
    let mut folders: Vec<String> = std::fs::read_dir(root().join("testdata/incidents"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    // The founding incidents (seeds 000-003) and the reports of DOMAIN.md §3.
    assert!(folders.len() >= 8, "incident folders: {folders:?}");

    let mut failures = BTreeMap::new();
    for name in &folders {
        let folder = format!("testdata/incidents/{name}");
        let dir = root().join(&folder);
        assert!(dir.join("README.md").is_file(), "{folder}: no README.md");
        let expected = parse_expected(&dir.join("expected.txt"));
        assert!(!expected.findings.is_empty(), "{folder}: nothing expected");
        for rule in &expected.rules {
            assert!(
                known.contains(rule),
                "{folder}/expected.txt: unknown rule {rule}"
            );
        }
        for (_, file, _) in &expected.findings {
            assert!(
                dir.join(file).is_file(),
                "{folder}/expected.txt: no file {file}"
            );
        }
        let actual: BTreeSet<Finding> = lint(&folder)
            .into_iter()
            .filter(|(rule, _, _)| expected.rules.contains(rule))
            .collect();
        let missing: Vec<_> = expected.findings.difference(&actual).collect();
        let extra: Vec<_> = actual.difference(&expected.findings).collect();
        if !missing.is_empty() || !extra.is_empty() {
            let show = |v: &[&Finding]| {
                if v.is_empty() {
                    return "    (none)".to_string();
                }
                v.iter()
                    .map(|(r, f, l)| format!("    {r} {f}:{l}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            failures.insert(
                folder,
                format!(
                    "  missing:\n{}\n  unexpected:\n{}",
                    show(&missing),
                    show(&extra)
                ),
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{}",
        failures
            .iter()
            .map(|(folder, diff)| format!("{folder}\n{diff}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The README's quick start: the bundled examples must keep showing the cross-layer rules,
/// with no configuration file (the default one is read from the current directory only).
#[test]
fn bundled_examples_show_the_cross_layer_rules() {
    assert!(!root().join("testdata/examples/.kubegap.yaml").exists());
    let found = lint("testdata/examples");
    let expected: BTreeSet<Finding> = [
        ("chain-app-keepalive-below-upstream", "shop.yaml", 77),
        ("haproxy-hard-stop-cuts-long-lived", "haproxy.cfg", 6),
        ("haproxy-hard-stop-without-close-spread", "haproxy.cfg", 6),
        ("k8s-service-target-port-missing", "shop.yaml", 40),
        ("k8s-hpa-with-static-replicas", "shop.yaml", 12),
        ("k8s-no-readiness-probe-behind-service", "shop.yaml", 22),
    ]
    .into_iter()
    .map(|(r, f, l)| (r.to_string(), f.to_string(), l))
    .collect();
    assert_eq!(found, expected);
}
