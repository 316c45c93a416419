//! CLI behaviour: stdin, Helm origins, `kind: List`, exit codes, formats, determinism.

mod support;

use support::{json, kubegap, root};

#[test]
fn helm_stream_on_stdin_keeps_origins_and_stream_lines() {
    let stream = std::fs::read(root().join("testdata/cli/helm-stream.yaml")).unwrap();
    let out = kubegap(&["lint", "-", "--format", "json"], Some(&stream));
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let findings = v["findings"].as_array().unwrap();
    let port = findings
        .iter()
        .find(|f| f["rule"] == "k8s-service-target-port-missing")
        .unwrap();
    assert_eq!(port["file"], "<stdin>");
    assert_eq!(port["origin"], "shop/templates/service.yaml");
    assert_eq!(
        (port["line"].as_u64(), port["column"].as_u64()),
        (Some(37), Some(19))
    );
    assert_eq!(
        (port["end_line"].as_u64(), port["end_column"].as_u64()),
        (Some(37), Some(23))
    );
    // The label points into the Deployment's template, another document of the stream.
    assert_eq!(port["labels"][0]["line"].as_u64(), Some(22));
    let hpa = findings
        .iter()
        .find(|f| f["rule"] == "k8s-hpa-with-static-replicas")
        .unwrap();
    assert_eq!(hpa["origin"], "shop/templates/deployment.yaml");
    assert_eq!(hpa["line"].as_u64(), Some(10));
    assert_eq!(v["summary"]["documents"].as_u64(), Some(3));
}

#[test]
fn json_shape_is_the_documented_contract() {
    let out = kubegap(
        &[
            "lint",
            "testdata/cli/helm-stream.yaml",
            "testdata/cli/clean.yaml",
            "--format",
            "json",
        ],
        None,
    );
    insta::assert_snapshot!("json_contract", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn kubectl_list_items_are_objects() {
    let list = std::fs::read(root().join("testdata/cli/kubectl-list.yaml")).unwrap();
    let out = kubegap(
        &["lint", "-", "--format", "json", "--fail-on", "warning"],
        Some(&list),
    );
    let v = json(&out);
    assert_eq!(v["summary"]["objects"].as_u64(), Some(2));
    assert_eq!(v["summary"]["documents"].as_u64(), Some(1));
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "k8s-service-selects-nothing");
    assert_eq!(f["line"].as_u64(), Some(34));
    assert_eq!(out.status.code(), Some(1));
}

/// The objects of `kubectl-list.yaml` as `kubectl get -o yaml` prints them from a cluster:
/// every default, `metadata.managedFields` and `status` written out. The rules' parse leaves
/// the last two out (`k8s::UNREAD_BY_RULES`); the report is the list's, at the dump's lines.
#[test]
fn kubectl_dump_with_status_and_managed_fields_is_reported_at_its_lines() {
    let dump = kubegap(
        &["lint", "testdata/cli/kubectl-dump.yaml", "--format", "json"],
        None,
    );
    let list = kubegap(
        &["lint", "testdata/cli/kubectl-list.yaml", "--format", "json"],
        None,
    );
    let (dump, list) = (json(&dump), json(&list));
    assert_eq!(dump["summary"], list["summary"]);
    let (f, g) = (&dump["findings"][0], &list["findings"][0]);
    assert_eq!(f["rule"], "k8s-service-selects-nothing");
    assert_eq!((&f["rule"], &f["message"]), (&g["rule"], &g["message"]));
    assert_eq!(
        [&f["line"], &f["column"], &f["end_line"], &f["end_column"]].map(|v| v.as_u64()),
        [Some(141), Some(5), Some(141), Some(13)]
    );
    let human = kubegap(&["lint", "testdata/cli/kubectl-dump.yaml"], None);
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(
        human.contains(
            "kubectl-dump.yaml:141:5]\n 140 │       targetPort: http\n 141 │     selector:\n"
        ),
        "{human}"
    );
}

#[test]
fn exit_codes_follow_fail_on() {
    let clean = kubegap(&["lint", "testdata/cli/clean.yaml"], None);
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&clean.stdout)
    );
    let list = "testdata/cli/kubectl-list.yaml"; // one warning, no error
    assert_eq!(kubegap(&["lint", list], None).status.code(), Some(0));
    assert_eq!(
        kubegap(&["lint", list, "--fail-on", "warning"], None)
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        kubegap(&["lint", list, "--fail-on", "info"], None)
            .status
            .code(),
        Some(1)
    );
    let helm = "testdata/cli/helm-stream.yaml"; // an error
    assert_eq!(kubegap(&["lint", helm], None).status.code(), Some(1));
    assert_eq!(
        kubegap(&["lint", helm, "--fail-on", "never"], None)
            .status
            .code(),
        Some(0)
    );
    // Errors of the command itself.
    assert_eq!(
        kubegap(&["lint", "testdata/cli/does-not-exist.yaml"], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        kubegap(&["lint", helm, "--select", "no-such-rule"], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        kubegap(&["lint", "--format", "xml", helm], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        kubegap(&["explain", "no-such-rule"], None).status.code(),
        Some(2)
    );
}

#[test]
fn bad_input_is_a_finding_and_the_rest_is_still_linted() {
    let out = kubegap(
        &[
            "lint",
            "testdata/cli/malformed.yaml",
            "testdata/cli/invalid-utf8.yaml",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let rules: Vec<(&str, &str, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap(),
                f["file"].as_str().unwrap(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rules,
        vec![
            ("parse-error", "testdata/cli/invalid-utf8.yaml", 4),
            ("parse-error", "testdata/cli/malformed.yaml", 5),
            // The document after the broken one is still linted (its namespace has no workloads,
            // so no selector finding; but it is counted).
        ]
    );
    assert_eq!(v["summary"]["objects"].as_u64(), Some(2));
}

#[test]
fn output_is_identical_for_any_thread_count_and_argument_order() {
    let a = kubegap(
        &["lint", "testdata", "--threads", "1", "--format", "json"],
        None,
    );
    let b = kubegap(
        &["lint", "testdata", "--threads", "2", "--format", "json"],
        None,
    );
    let c = kubegap(
        &[
            "lint",
            "testdata/rules",
            "testdata/cli",
            "testdata/examples",
            "--threads",
            "2",
            "--format",
            "json",
        ],
        None,
    );
    let d = kubegap(
        &[
            "lint",
            "testdata/examples",
            "testdata/cli",
            "testdata/rules",
            "--threads",
            "1",
            "--format",
            "json",
        ],
        None,
    );
    assert!(!a.stdout.is_empty());
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(c.stdout, d.stdout);
    let h1 = kubegap(
        &["lint", "testdata", "--threads", "1", "--color", "never"],
        None,
    );
    let h2 = kubegap(
        &["lint", "testdata", "--threads", "2", "--color", "never"],
        None,
    );
    assert_eq!(h1.stdout, h2.stdout);
}

#[test]
fn human_output_shows_the_source_line_and_honours_color_flags() {
    let out = kubegap(
        &["lint", "testdata/cli/helm-stream.yaml", "--color", "never"],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("targetPort: http"), "{text}");
    assert!(
        text.contains("in Helm template shop/templates/service.yaml"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'));
    let colored = kubegap(
        &["lint", "testdata/cli/helm-stream.yaml", "--color", "always"],
        None,
    );
    assert!(String::from_utf8_lossy(&colored.stdout).contains('\u{1b}'));
    // `auto` with NO_COLOR set (and a pipe) never colours.
    let no_color = support::run_with(
        &root(),
        &["lint", "testdata/cli/helm-stream.yaml"],
        None,
        &[("NO_COLOR", "1")],
    );
    assert!(!String::from_utf8_lossy(&no_color.stdout).contains('\u{1b}'));
    insta::assert_snapshot!("human_helm_stream", text);
}

#[test]
fn github_and_sarif_formats() {
    let gh = kubegap(
        &[
            "lint",
            "testdata/cli/helm-stream.yaml",
            "--format",
            "github",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&gh.stdout);
    assert!(text.starts_with("::warning file=testdata/cli/helm-stream.yaml,line=10,endLine=10,col=13,endColumn=14,title=kubegap (k8s-hpa-with-static-replicas)::"), "{text}");
    assert!(
        text.contains("::error file=testdata/cli/helm-stream.yaml,line=37"),
        "{text}"
    );
    let sarif = kubegap(
        &["lint", "testdata/cli/helm-stream.yaml", "--format", "sarif"],
        None,
    );
    let v = json(&sarif);
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    assert_eq!(run["tool"]["driver"]["rules"].as_array().unwrap().len(), 2);
    assert_eq!(
        run["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64(),
        Some(37)
    );
    assert_eq!(sarif.status.code(), Some(1));
}

#[test]
fn rules_and_explain() {
    let out = kubegap(&["rules"], None);
    let text = String::from_utf8_lossy(&out.stdout);
    for rule in kubegap_core::rules::RULES {
        assert!(
            text.lines().any(|l| l.starts_with(rule.id)),
            "{} missing",
            rule.id
        );
    }
    let explain = kubegap(&["explain", "k8s-service-target-port-missing"], None);
    let text = String::from_utf8_lossy(&explain.stdout);
    assert_eq!(explain.status.code(), Some(0));
    assert!(text.contains("## Why is this bad?"));
    assert!(text
        .contains("https://about.gitlab.com/blog/2022/04/15/gitlab-dot-com-incident-2022-03-31/"));
}

#[test]
fn discovery_honours_gitignore_and_skips_vcs_dirs() {
    let dir = std::env::temp_dir().join(format!("kubegap-walk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join("vendor")).unwrap();
    let bad = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n";
    std::fs::write(dir.join(".git/bad.yaml"), bad).unwrap();
    std::fs::write(dir.join("vendor/bad.yaml"), bad).unwrap();
    std::fs::write(dir.join(".gitignore"), "vendor/\n").unwrap();
    std::fs::write(
        dir.join("ok.yml"),
        b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), bad).unwrap();
    let out = kubegap(&["lint", dir.to_str().unwrap(), "--format", "json"], None);
    let v = json(&out);
    assert_eq!(v["summary"]["files"].as_u64(), Some(1), "{v}");
    assert_eq!(out.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn configuration_file_and_presets() {
    let out = kubegap(
        &[
            "lint",
            "testdata/cli/helm-stream.yaml",
            "--config",
            "testdata/cli/kubegap-config.yaml",
            "--format",
            "json",
        ],
        None,
    );
    let v = json(&out);
    let hpa = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "k8s-hpa-with-static-replicas")
        .unwrap();
    assert_eq!(
        hpa["severity"], "error",
        "severity override from the config file"
    );
    // A typo in the configuration is an error of the command, with the line.
    let dir = std::env::temp_dir().join(format!("kubegap-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "select: [k8s-service-target-port-missing]\nignor: [yaml-duplicate-key]\n",
    )
    .unwrap();
    let out = kubegap(
        &[
            "lint",
            "testdata/cli/clean.yaml",
            "--config",
            bad.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.yaml:2: unknown key `ignor`"));
    for preset in ["rulesets/default.yaml", "rulesets/partial-input.yaml"] {
        let out = kubegap(
            &["lint", "testdata/cli/clean.yaml", "--config", preset],
            None,
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{preset}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Three `server` lines of one haproxy.cfg backend reach the ingress controller's nodePort the
/// same way: three ways in whose chains read alike, printed once.
#[test]
fn chains_that_read_alike_are_printed_once() {
    let dir = "testdata/incidents/line-shared-haproxy-hard-stop";
    let out = kubegap(&["chains", dir], None);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().last(), Some("1 chain"), "{text}");
    assert_eq!(text.matches("→ HAProxy (haproxy.cfg)").count(), 1, "{text}");
}

#[test]
fn chains_command_prints_every_hop_with_its_source() {
    let dir = "testdata/rules/chain-app-keepalive-below-upstream/invalid-nginx";
    let out = kubegap(&["chains", dir], None);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    insta::assert_snapshot!("chains_text", text);
    let json = kubegap(&["chains", dir, "--format", "json"], None);
    let v = serde_json::from_slice::<serde_json::Value>(&json.stdout).unwrap();
    let chains = v["chains"].as_array().unwrap();
    assert_eq!(chains.len(), 2);
    let app = &chains[0]["hops"][2];
    assert_eq!(app["layer"], "app");
    assert_eq!(app["keepalive"]["seconds"].as_f64(), Some(2.0));
    assert!(app["keepalive"]["source"]
        .as_str()
        .unwrap()
        .contains("apps.yaml:18"));
}

/// A suppressed chain finding reached through two Ingresses is one cause: it would have been
/// reported once, so it is counted once.
#[test]
fn a_suppressed_cause_reached_through_two_routes_counts_once() {
    let path = "testdata/cli/suppressed-routes.yaml";
    let out = kubegap(&["lint", path, "--format", "json"], None);
    let v = json(&out);
    assert_eq!(v["summary"]["suppressed"].as_u64(), Some(1), "{v}");
    // Without the comment, the two routes give the one finding.
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let bare = text.replace("# kubegap-ignore:", "# no longer ignored:");
    let out = kubegap(&["lint", "-", "--format", "json"], Some(bare.as_bytes()));
    let v = json(&out);
    let chain: Vec<u64> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "chain-app-keepalive-below-upstream")
        .map(|f| f["line"].as_u64().unwrap())
        .collect();
    assert_eq!(chain, vec![13], "{v}");
    assert_eq!(v["summary"]["suppressed"].as_u64(), Some(0), "{v}");
}

#[test]
fn inline_suppressions() {
    let out = kubegap(
        &["lint", "testdata/cli/suppressed.yaml", "--format", "json"],
        None,
    );
    let v = json(&out);
    let found: Vec<(String, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    // The comment above line 6 and the one at the end of line 31 suppress their rules; the one
    // on line 33 names another rule, so that finding stays.
    assert_eq!(
        found,
        vec![("k8s-service-target-port-missing".to_string(), 33)],
        "{v}"
    );
    assert_eq!(v["summary"]["suppressed"].as_u64(), Some(2));
    let human = kubegap(
        &["lint", "testdata/cli/suppressed.yaml", "--color", "never"],
        None,
    );
    assert!(String::from_utf8_lossy(&human.stdout).contains("(2 suppressed)"));
    // haproxy.cfg and nginx use the same comments.
    let cfg = "global\n    # kubegap-ignore: haproxy-reload-not-seamless, haproxy-no-old-process-deadline\n    maxconn 100\n";
    let out = kubegap(
        &["lint", "-", "--kind", "haproxy", "--format", "json"],
        Some(cfg.as_bytes()),
    );
    let v = json(&out);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["rule"] != "haproxy-reload-not-seamless"),
        "{v}"
    );
}

#[test]
fn a_file_named_twice_is_linted_once() {
    let once = kubegap(
        &["lint", "testdata/cli/helm-stream.yaml", "--format", "json"],
        None,
    );
    let twice = kubegap(
        &[
            "lint",
            "./testdata/cli/helm-stream.yaml",
            "testdata/cli/helm-stream.yaml",
            "testdata/cli",
            "--format",
            "json",
        ],
        None,
    );
    let a = json(&once);
    let b = json(&twice);
    let count = |v: &serde_json::Value| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["file"].as_str().unwrap().ends_with("helm-stream.yaml"))
            .count()
    };
    assert_eq!(count(&a), count(&b));
    // The smallest name wins, whatever the order of the arguments.
    let names: Vec<&str> = b["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["file"].as_str())
        .filter(|f| f.ends_with("helm-stream.yaml"))
        .collect();
    assert!(
        names
            .iter()
            .all(|n| *n == "./testdata/cli/helm-stream.yaml"),
        "{names:?}"
    );
}

#[test]
fn minified_json_does_not_flood_the_terminal() {
    // `kubectl get -o json | jq -c`: one huge line. The finding names its position instead of
    // printing the line.
    let mut items = Vec::new();
    for i in 0..2000 {
        items.push(format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}","namespace":"x"}},"data":{{"k":"v"}}}}"#
        ));
    }
    items.push(r#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","namespace":"x"},"spec":{"selector":{"app":"nope"},"ports":[{"port":80}]}}"#.to_string());
    items.push(r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"x"},"spec":{"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}"#.to_string());
    let json_list = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
        items.join(",")
    );
    assert!(json_list.len() > 150_000);
    let out = kubegap(
        &["lint", "-", "--color", "never", "--fail-on", "never"],
        Some(json_list.as_bytes()),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.len() < 2_000, "{} bytes of output", text.len());
    assert!(text.contains("at <stdin>:1:"), "{text}");
    assert!(text.contains("k8s-service-selects-nothing"));
}

#[test]
fn kubegap_phases_prints_each_phase_to_stderr_and_leaves_the_report_alone() {
    let args = [
        "lint",
        "testdata/examples",
        "testdata/definitions",
        "--format",
        "json",
    ];
    let plain = kubegap(&args, None);
    let timed = support::run_with(&root(), &args, None, &[("KUBEGAP_PHASES", "1")]);
    assert_eq!(timed.status.code(), plain.status.code());
    assert_eq!(timed.stdout, plain.stdout);
    assert!(!support::stderr(&plain).contains("kubegap phases"));
    // An empty value is unset, as for NO_COLOR.
    let empty = support::run_with(&root(), &args, None, &[("KUBEGAP_PHASES", "")]);
    assert!(!support::stderr(&empty).contains("kubegap phases"));

    let stderr = support::stderr(&timed);
    let table: Vec<&str> = stderr
        .lines()
        .skip_while(|l| *l != "kubegap phases (KUBEGAP_PHASES):")
        .skip(1)
        .collect();
    assert_eq!(table.first(), Some(&"phase\tms\tshare\trss_mib\tpeak_mib"));
    let rows: Vec<Vec<&str>> = table[1..].iter().map(|l| l.split('\t').collect()).collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        names,
        [
            "arguments",
            "settings",
            "walk and read",
            "  of which files opened, sized and read",
            "  of which definitions parsed and cut",
            "decode",
            "parse",
            "graph",
            "controllers",
            "chains",
            "rules and suppressions",
            "findings merged",
            "findings sorted",
            "lines indexed",
            "baseline and helm places",
            "output",
        ]
    );
    let mut shares = 0.0;
    for row in &rows {
        assert_eq!(row.len(), 5, "{row:?}");
        let ms: f64 = row[1].parse().unwrap();
        let share: f64 = row[2].strip_suffix('%').unwrap().parse().unwrap();
        assert!(ms >= 0.0 && share >= 0.0, "{row:?}");
        if row[0].starts_with("  of which ") {
            // A part is summed over the threads that ran it: its share may pass 100 %.
            assert_eq!(&row[3..], ["-", "-"]);
        } else {
            assert!(share <= 100.0, "{row:?}");
            shares += share;
            if cfg!(target_os = "linux") {
                let rss: f64 = row[3].parse().unwrap();
                let peak: f64 = row[4].parse().unwrap();
                assert!(rss > 0.0 && peak >= rss, "{row:?}");
            }
        }
    }
    // The phases, not their parts, make up the time to the last mark.
    assert!((shares - 100.0).abs() < 1.0, "{shares}");
}
