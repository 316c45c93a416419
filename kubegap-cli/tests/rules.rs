//! One test per rule: `cargo test k8s_service_target_port_missing` runs that rule's fixtures
//! and snapshots, and nothing else.
//!
//! A rule's folder `testdata/rules/<rule-id>/` holds:
//!
//! - `invalid*` and `valid*` fixtures, each a file or a directory. A line whose comment says
//!   `expect: <rule-id>` must carry a finding of that rule starting on that line (the primary
//!   span); the set of (file, line) pairs must match exactly. `valid*` inputs must give no
//!   finding of the rule and no parse error. Each fixture runs with only its rule and
//!   `parse-error` selected. A directory fixture is linted as one run (cross-file rules), with
//!   Helm charts and kustomizations arranged as discovery arranges them (`layout::arrange`).
//! - `snapshots/<fixture stem>.snap`: the rendered diagnostics of every `invalid*` fixture, as a
//!   user sees them (miette's graphical report, no colour, width 100, paths relative to the
//!   workspace root). Every `invalid*` fixture has one, and every snapshot belongs to one.
//! - optionally `.kubegap.yaml`: the settings of every fixture of the folder, in the format of
//!   a user's configuration file (loaded by the CLI's loader, so unknown keys are errors).
//!
//! Other files in a rule folder are helpers a fixture reaches (an nginx `include` from outside
//! the fixture); settings in another format fail. The list in [`rule_tests!`] below must name exactly
//! the rule folders and the rules of `kubegap_core::rules::RULES` (`scripts/new-rule.sh` adds
//! the line); `every_snapshot_belongs_to_a_test` rejects orphan snapshots anywhere in the
//! workspace.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kubegap_core::{kind, lint, Input, Settings};

/// One `#[test]` per rule folder, named after the rule id with `_` for `-`.
macro_rules! rule_tests {
    ($($rule:ident,)*) => {
        $(
            #[test]
            fn $rule() {
                check_rule(stringify!($rule));
            }
        )*
        /// The rules listed above, as written.
        const LISTED: &[&str] = &[$(stringify!($rule)),*];
    };
}

// Kept sorted; one rule per line (`scripts/new-rule.sh` inserts here).
rule_tests! {
    chain_app_keepalive_below_upstream,
    chain_gcp_backend_keepalive,
    chain_keepalive_ordering,
    chain_request_timeout_inversion,
    chain_websocket_idle_budget,
    controller_hard_stop_cuts_long_lived,
    controller_hard_stop_without_close_spread,
    controller_static_order_roundrobin,
    haproxy_hard_stop_cuts_long_lived,
    haproxy_hard_stop_without_close_spread,
    haproxy_idle_close_on_reload,
    haproxy_long_lived_without_shutdown_sessions,
    haproxy_missing_timeouts,
    haproxy_no_old_process_deadline,
    haproxy_reload_not_seamless,
    haproxy_retries_without_redispatch,
    haproxy_static_order_roundrobin,
    haproxy_timeout_without_unit,
    haproxy_tunnel_without_client_fin,
    haproxy_websocket_without_tunnel_timeout,
    helm_chart_not_rendered,
    ingress_annotation_ignored,
    ingress_nginx_shutdown_vs_grace,
    ingress_nginx_ws_timeout_capped_by_worker_shutdown,
    k8s_alb_ip_target_without_readiness_gate,
    k8s_deprecated_node_labels,
    k8s_edge_proxy_not_spread,
    k8s_etp_local_drain_blackhole,
    k8s_grace_period_too_short,
    k8s_hpa_with_static_replicas,
    k8s_ingress_backend_missing,
    k8s_no_pdb,
    k8s_no_prestop_drain,
    k8s_no_readiness_probe_behind_service,
    k8s_pdb_blocks_eviction,
    k8s_pdb_selects_nothing,
    k8s_probe_port_missing,
    k8s_required_anti_affinity_exceeds_nodes,
    k8s_risky_liveness_probe,
    k8s_rollout_removes_all_backends,
    k8s_service_selects_nothing,
    k8s_service_target_port_missing,
    lb_websocket_lifetime_capped,
    nginx_include_missing,
    nginx_no_worker_shutdown_timeout,
    nginx_retry_non_idempotent,
    nginx_static_order_roundrobin,
    nginx_upstream_keepalive_ineffective,
    nginx_websocket_missing_upgrade,
    nginx_websocket_read_timeout_default,
    nginx_worker_shutdown_cuts_long_lived,
    parse_error,
    route_long_lived_defaults,
    unknown_suppression,
    unused_suppression,
    yaml_duplicate_key,
}

/// The workspace root, which is also the current directory of these tests: paths in snapshots
/// are relative to it, as a user would type them. Every test sets the same directory, so the
/// order in which the test threads do it does not matter.
fn workspace() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the workspace root exists");
    std::env::set_current_dir(&root).expect("cd to the workspace root");
    root
}

/// The rule folders under `testdata/rules`, sorted.
fn rule_folders(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root.join("testdata/rules"))
        .expect("testdata/rules is readable")
        .map(|e| {
            e.expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    out.sort();
    out
}

/// The `invalid*` and `valid*` entries of a rule folder, sorted. Other files are helpers that a
/// fixture reaches (e.g. an nginx `include` outside the fixture), except settings in another
/// format than `.kubegap.yaml` and snapshots outside `snapshots/`, which fail.
fn fixtures_of(dir: &Path) -> Vec<String> {
    let mut cases = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            e.expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    for name in names {
        match name.as_str() {
            n if n.starts_with("invalid") || n.starts_with("valid") => cases.push(name),
            "settings" | "kubegap.yaml" | ".kubegap.yml" | "kubegap.settings" => panic!(
                "{}/{name}: the settings of a rule's fixtures are a `.kubegap.yaml` (the user's \
                 configuration format)",
                dir.display()
            ),
            n if n.contains(".snap") => panic!(
                "{}/{name}: snapshots live in the rule folder's `snapshots/`",
                dir.display()
            ),
            _ => {}
        }
    }
    cases
}

/// A fixture's snapshot name: its file name up to the first `.`.
fn stem(fixture: &str) -> &str {
    fixture.split('.').next().unwrap_or(fixture)
}

/// The settings of a rule folder's fixtures: its `.kubegap.yaml`, if any, read by the CLI's
/// configuration loader (unknown keys and unknown rule ids are errors), then only the rule and
/// `parse-error` selected.
fn settings_for(rule: &str, dir: &Path) -> Settings {
    let mut settings = Settings::default();
    let config = dir.join(".kubegap.yaml");
    if config.exists() {
        if let Err(e) = kubegap_cli::config::load_file(&config, &mut settings, 0) {
            panic!("{e}");
        }
        // The test selects the rule; a selection in the file would be silently overridden.
        assert!(
            settings.select.is_none() && settings.ignore.is_empty(),
            "{}: `select` and `ignore` do not apply to fixtures (each runs only its rule)",
            config.display()
        );
    }
    settings.select = Some(vec![rule.to_string(), "parse-error".to_string()]);
    settings
}

/// Every file under `path` that kubegap reads, sorted, arranged as discovery arranges them.
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
            Some(Input {
                name: p.display().to_string(),
                path: Some(p),
                bytes,
                kind,
                canonical: None,
                prepared: None,
            })
        })
        .collect();
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

/// Checks one fixture against its `expect:` comments; returns what is wrong.
fn check_fixture(rule: &str, case: &Path, valid: bool, settings: &Settings) -> Vec<String> {
    let mut failures = Vec::new();
    let inputs = inputs_of(case);
    assert!(
        !inputs.is_empty(),
        "{} has no input kubegap reads",
        case.display()
    );
    let expected = expectations(&inputs, rule);
    let report = lint(inputs, settings);
    let at = |f: &kubegap_core::Finding| {
        let file = report.files.get(f.span.file);
        (file.name.clone(), file.line_col(f.span.start).line)
    };
    let got: BTreeSet<(String, u32)> = report
        .findings
        .iter()
        .filter(|f| f.rule == rule)
        .map(at)
        .collect();
    let parse_errors: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.rule == "parse-error" && rule != "parse-error")
        .map(|f| {
            let (file, line) = at(f);
            format!("{file}:{line}: {}", f.message)
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
    failures
}

/// The rendered diagnostics of an `invalid*` fixture, found as `kubegap lint <fixture>` finds
/// its files.
fn rendered(relative_case: &Path, settings: &Settings) -> String {
    let discovered = kubegap_cli::walk::discover(&[relative_case.to_path_buf()], None);
    let report = lint(discovered.inputs, settings);
    let mut text = String::new();
    for f in &report.findings {
        text.push_str(&kubegap_cli::output::human::render_finding(&report, f));
        text.push('\n');
    }
    text
}

/// The test of one rule: its fixtures, then its snapshots.
fn check_rule(test_name: &str) {
    let root = workspace();
    let rule = test_name.replace('_', "-");
    assert!(
        kubegap_core::rules::find(&rule).is_some(),
        "`{test_name}` names no rule (`{rule}` is not in kubegap_core::rules::RULES)"
    );
    let relative = Path::new("testdata/rules").join(&rule);
    let dir = root.join(&relative);
    assert!(
        dir.is_dir(),
        "{rule}: no fixture folder {}",
        relative.display()
    );
    let settings = settings_for(&rule, &dir);
    let cases = fixtures_of(&dir);

    let mut failures = Vec::new();
    let (mut has_valid, mut has_invalid) = (false, false);
    for name in &cases {
        let valid = name.starts_with("valid");
        has_valid |= valid;
        has_invalid |= !valid;
        failures.extend(check_fixture(&rule, &dir.join(name), valid, &settings));
    }
    if !(has_valid && has_invalid) {
        failures.push(format!(
            "{rule}: needs at least one valid* and one invalid* fixture"
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Snapshots: one per invalid fixture, and no other.
    let invalid: Vec<&String> = cases.iter().filter(|n| n.starts_with("invalid")).collect();
    let snapshots = dir.join("snapshots");
    let mut insta_settings = insta::Settings::clone_current();
    insta_settings.set_snapshot_path(&snapshots);
    insta_settings.set_prepend_module_to_snapshot(false);
    insta_settings.bind(|| {
        for name in &invalid {
            let text = rendered(&relative.join(name), &settings);
            insta::assert_snapshot!(stem(name), text);
        }
    });
    let wanted: BTreeSet<String> = invalid
        .iter()
        .map(|n| format!("{}.snap", stem(n)))
        .collect();
    let orphans: Vec<String> = std::fs::read_dir(&snapshots)
        .map(|entries| {
            entries
                .map(|e| {
                    e.expect("directory entry")
                        .file_name()
                        .to_string_lossy()
                        .into_owned()
                })
                .filter(|n| !wanted.contains(n))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        orphans.is_empty(),
        "{}: files that belong to no invalid* fixture: {orphans:?}",
        snapshots.display()
    );
}

/// The list of tests, the rule folders and the registry name the same rules, so a rule cannot
/// go untested and a folder cannot be skipped.
#[test]
fn every_rule_folder_has_a_test_and_every_test_a_folder() {
    let root = workspace();
    let listed: Vec<String> = LISTED.iter().map(|t| t.replace('_', "-")).collect();
    let mut sorted = listed.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        listed, sorted,
        "the rule_tests! list must be sorted and unique"
    );
    let folders = rule_folders(&root);
    let registered: Vec<String> = {
        let mut ids: Vec<String> = kubegap_core::rules::RULES
            .iter()
            .map(|r| r.id.to_string())
            .collect();
        ids.sort();
        ids
    };
    let diff = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter().filter(|x| !b.contains(x)).cloned().collect()
    };
    let problems = [
        (
            "rule folders without a test in rule_tests!",
            diff(&folders, &listed),
        ),
        (
            "tests in rule_tests! without a rule folder",
            diff(&listed, &folders),
        ),
        (
            "rules without a fixture folder",
            diff(&registered, &folders),
        ),
        (
            "rule folders of no rule in RULES",
            diff(&folders, &registered),
        ),
    ];
    let problems: Vec<String> = problems
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(what, v)| format!("{what}: {v:?}"))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every `.snap` file in the workspace belongs to a test, and no pending snapshot
/// (`.snap.new`, `.pending-snap`) is left: the equivalent of
/// `cargo insta test --unreferenced reject`, without needing `cargo-insta`.
///
/// - `testdata/rules/<id>/snapshots/<stem>.snap` belongs to the `invalid*` fixture `<stem>` of
///   that rule folder;
/// - any other `…/snapshots/<a>__…__<name>.snap` belongs to a `.rs` file beside the
///   `snapshots/` folder whose stem is one of the `__`-separated parts (the test file or the
///   module insta names it after) and that takes the snapshot named `"<name>"`.
#[test]
fn every_snapshot_belongs_to_a_test() {
    let root = workspace();
    let mut problems = Vec::new();
    let mut snaps = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable directory") {
            let path = entry.expect("directory entry").path();
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    stack.push(path);
                }
            } else if name.ends_with(".snap.new") || name.ends_with(".pending-snap") {
                problems.push(format!("{}: pending snapshot", path.display()));
            } else if name.ends_with(".snap") {
                snaps.push(path);
            }
        }
    }
    snaps.sort();
    assert!(snaps.len() > 50, "found only {} snapshots", snaps.len());
    for snap in snaps {
        let relative = snap.strip_prefix(&root).unwrap_or(&snap);
        let parts: Vec<String> = relative
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let file = parts.last().cloned().unwrap_or_default();
        let stem = file.trim_end_matches(".snap");
        let owned = match parts.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["testdata", "rules", rule, "snapshots", _] => {
                fixtures_of(&root.join("testdata/rules").join(rule))
                    .iter()
                    .any(|n| n.starts_with("invalid") && self::stem(n) == stem)
            }
            [.., "snapshots", _] => {
                let beside = snap
                    .parent()
                    .and_then(Path::parent)
                    .expect("snapshots/ has a parent");
                let segments: Vec<&str> = stem.split("__").collect();
                let name = segments.last().copied().unwrap_or_default();
                segments[..segments.len().saturating_sub(1)]
                    .iter()
                    .any(|module| {
                        std::fs::read_to_string(beside.join(format!("{module}.rs")))
                            .is_ok_and(|code| code.contains(&format!("snapshot!(\"{name}\"")))
                    })
            }
            _ => false,
        };
        if !owned {
            problems.push(format!(
                "{}: orphan snapshot (no test takes it)",
                relative.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The ids of the lines between the line `start` and the next line `end` (exclusive) of
/// `text`: each line's first identifier with `_` read as `-`, skipping lines without one.
fn listed_ids(text: &str, start: &str, end: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with(start))
        .skip(1)
        .take_while(|l| !l.starts_with(end))
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l
                .strip_prefix("mod ")
                .or_else(|| l.strip_prefix('&'))
                .unwrap_or(l);
            let id: String = l
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            (!id.is_empty()).then(|| id.replace('_', "-"))
        })
        .collect()
}

/// `scripts/new-rule.sh` keeps working: it runs on a copy of just the files it edits (no
/// compilation), and each edit is checked — the rule file has every field `declare_rule!`
/// takes and the doc sections `rule_docs.rs` requires, the registry and this file's list each
/// gain exactly one line at its sorted place, the fixture folder has an invalid fixture that
/// expects the rule and a valid one that does not. Running it again, or with a wrong family,
/// fails and changes nothing.
#[test]
fn new_rule_script_adds_a_rule_everywhere() {
    let root = workspace();
    let tmp = std::env::temp_dir().join(format!("kubegap-new-rule-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let registry = "kubegap-core/src/rules/mod.rs";
    let tests = "kubegap-cli/tests/rules.rs";
    for file in [registry, tests] {
        std::fs::create_dir_all(tmp.join(file).parent().unwrap()).unwrap();
        std::fs::copy(root.join(file), tmp.join(file)).unwrap();
    }
    std::fs::create_dir_all(tmp.join("testdata/rules")).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new("bash")
            .arg(root.join("scripts/new-rule.sh"))
            .arg("--root")
            .arg(&tmp)
            .args(args)
            .output()
            .expect("bash runs scripts/new-rule.sh")
    };
    // The fields `declare_rule!` takes, read from its definition.
    let rule_rs = std::fs::read_to_string(root.join("kubegap-core/src/rule.rs")).unwrap();
    let fields: Vec<&str> = rule_rs
        .lines()
        .skip_while(|l| !l.starts_with("macro_rules! declare_rule"))
        .take_while(|l| !l.contains(") => {"))
        .filter_map(|l| l.trim().split_once(": $").map(|(k, _)| k))
        .filter(|k| k.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    assert!(
        fields.contains(&"id") && fields.contains(&"check"),
        "{fields:?}"
    );

    for (id, family, domain, lang, ext) in [
        (
            "k8s-probe-scaffold-check",
            "k8s",
            "Kubernetes",
            "yaml",
            "yaml",
        ),
        (
            "haproxy-aaa-scaffold-check",
            "haproxy",
            "Haproxy",
            "haproxy",
            "cfg",
        ),
        (
            "nginx-zzz-scaffold-check",
            "nginx",
            "Nginx",
            "nginx",
            "conf",
        ),
    ] {
        let before_registry = std::fs::read_to_string(tmp.join(registry)).unwrap();
        let before_tests = std::fs::read_to_string(tmp.join(tests)).unwrap();
        let out = run(&[id, family]);
        assert!(
            out.status.success(),
            "new-rule.sh {id} {family}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let module = id.replace('-', "_");
        let konst = module.to_uppercase();

        let rule = std::fs::read_to_string(tmp.join(format!("kubegap-core/src/rules/{module}.rs")))
            .expect("the rule file is created");
        for needle in [
            format!("pub static {konst} = {{"),
            format!("id: \"{id}\","),
            format!("domain: {domain},"),
            format!("```{lang},invalid"),
            format!("```{lang},valid"),
        ] {
            assert!(
                rule.contains(&needle),
                "{module}.rs lacks `{needle}`:\n{rule}"
            );
        }
        for field in &fields {
            assert!(
                rule.contains(&format!("\n        {field}: ")),
                "{module}.rs lacks the declare_rule! field `{field}`"
            );
        }
        for section in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "Use instead:",
        ] {
            assert!(rule.contains(section), "{module}.rs lacks `{section}`");
        }

        let after_registry = std::fs::read_to_string(tmp.join(registry)).unwrap();
        let after_tests = std::fs::read_to_string(tmp.join(tests)).unwrap();
        for (name, before, after, added) in [
            (
                registry,
                &before_registry,
                &after_registry,
                vec![format!("mod {module};"), format!("    &{module}::{konst},")],
            ),
            (
                tests,
                &before_tests,
                &after_tests,
                vec![format!("    {module},")],
            ),
        ] {
            let mut lines: Vec<&str> = after.lines().collect();
            for line in &added {
                let at = lines
                    .iter()
                    .position(|l| l == line)
                    .unwrap_or_else(|| panic!("{name} lacks `{line}`"));
                lines.remove(at);
            }
            assert_eq!(
                lines,
                before.lines().collect::<Vec<_>>(),
                "{name}: new-rule.sh must only add {added:?}"
            );
        }
        for (text, start, end) in [
            (
                &after_registry,
                "use crate::rule::Rule;",
                "pub use nginx_include_missing",
            ),
            (&after_registry, "pub static RULES: ", "];"),
            (&after_tests, "rule_tests! {", "}"),
        ] {
            let ids = listed_ids(text, start, end);
            let mut sorted = ids.clone();
            sorted.sort();
            assert_eq!(ids, sorted, "not sorted after `{start}`");
            assert!(
                ids.iter().any(|i| i == id),
                "`{id}` not listed after `{start}`"
            );
        }

        let folder = tmp.join("testdata/rules").join(id);
        let invalid = std::fs::read_to_string(folder.join(format!("invalid.{ext}"))).unwrap();
        let valid = std::fs::read_to_string(folder.join(format!("valid.{ext}"))).unwrap();
        assert!(invalid.contains(&format!("# expect: {id}\n")), "{invalid}");
        assert!(!valid.contains("expect:"), "{valid}");

        // Again: refused, nothing changes.
        let again = run(&[id, family]);
        assert!(!again.status.success(), "a second run must fail");
        assert_eq!(
            std::fs::read_to_string(tmp.join(registry)).unwrap(),
            after_registry
        );
        assert_eq!(
            std::fs::read_to_string(tmp.join(tests)).unwrap(),
            after_tests
        );
    }
    for bad in [
        ["k8s-x-y", "haproxy"],
        ["k8s-x-y", "cobol"],
        ["K8s_x", "k8s"],
    ] {
        let out = run(&bad);
        assert!(!out.status.success(), "new-rule.sh {bad:?} must fail");
        assert!(!tmp.join("testdata/rules").join(bad[0]).exists());
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
