//! The command line as users expect it (issue #15): no silent passes, stdin kinds, concise,
//! quiet and statistics, did-you-mean, presets, configuration discovery and confinement,
//! suppressions, `rules`, `chains`, completions and the man page.

mod support;

use std::io::Write;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use support::{json, root, stderr, stdout};

/// Runs kubegap in `dir` with a secret in its environment that no output may show.
fn run_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    support::run_with(
        dir,
        args,
        stdin,
        &[("KUBEGAP_TEST_SECRET", "s3cr3t-t0ken-value")],
    )
}

fn kubegap(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_in(&root(), args, stdin)
}

/// A fresh temporary directory.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubegap-ux-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const SERVICE_AND_DEPLOYMENT: &str = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports:\n    - port: 80\n      targetPort: http-web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n        - name: web\n          image: registry.example.com/web:1.0\n          ports: [{name: http, containerPort: 8080}]\n          readinessProbe: {httpGet: {path: /, port: http}}\n";

#[test]
fn empty_or_blank_stdin_is_an_error_unless_allowed() {
    let out = kubegap(&["lint", "-"], Some(b""));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stdin is empty (0 bytes read)"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
    let out = kubegap(
        &["lint", "-"],
        Some(b"---\n# Source: chart/templates/x.yaml\n\n"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("stdin holds no manifest"),
        "{}",
        stderr(&out)
    );
    let out = kubegap(&["lint", "-", "--allow-empty"], Some(b""));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // `kubegap chains` too.
    let out = kubegap(&["chains", "-"], Some(b""));
    assert_eq!(out.status.code(), Some(2));
    // A closed stdin (`<&-`) reads as empty.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' lint - <&-", env!("CARGO_BIN_EXE_kubegap")))
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("stdin is empty"), "{}", stderr(&out));
}

#[test]
fn input_without_any_manifest_or_config_is_an_error_unless_allowed() {
    let dir = temp("nothing");
    std::fs::write(
        dir.join("values.yaml"),
        "replicaCount: 2\nimage: {tag: x}\n",
    )
    .unwrap();
    let out = run_in(&dir, &["lint", "."], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("nothing to lint: read 1 file with 1 YAML document but no Kubernetes object"),
        "{}",
        stderr(&out)
    );
    let out = run_in(&dir, &["lint", ".", "--allow-empty"], None);
    assert_eq!(out.status.code(), Some(0));
    std::fs::remove_file(dir.join("values.yaml")).unwrap();
    let out = run_in(&dir, &["lint"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("nothing to lint: no manifest"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdin_kind_is_detected_from_its_content() {
    let haproxy =
        std::fs::read(root().join("testdata/rules/haproxy-retries-without-redispatch/invalid.cfg"))
            .unwrap();
    let out = kubegap(&["lint", "-", "--format", "json"], Some(&haproxy));
    let v = json(&out);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "haproxy-retries-without-redispatch"),
        "{v}"
    );
    let nginx = b"events {}\nhttp {\n  upstream app { server 10.0.0.1:80; keepalive 8; }\n  server {\n    listen 80;\n    location / { proxy_pass http://app; }\n  }\n}\n";
    let out = kubegap(&["lint", "-", "--format", "json"], Some(nginx));
    let v = json(&out);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"].as_str().unwrap().starts_with("nginx-")),
        "{v}"
    );
    // `--kind` overrides: the same bytes read as YAML hold no object, which is no silent pass.
    let out = kubegap(
        &["lint", "-", "--kind", "yaml", "--format", "json"],
        Some(nginx),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("read 1 file with 1 YAML document but no Kubernetes object"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn concise_quiet_and_statistics() {
    let args = ["lint", "testdata/cli/helm-stream.yaml", "--color", "never"];
    let concise = kubegap(&[&args[..], &["--format", "concise"]].concat(), None);
    assert_eq!(concise.status.code(), Some(1));
    insta::assert_snapshot!("concise", stdout(&concise));
    let quiet = kubegap(&[&args[..], &["--format", "concise", "-q"]].concat(), None);
    let text = stdout(&quiet);
    assert_eq!(text.lines().count(), stdout(&concise).lines().count() - 1);
    assert!(text
        .lines()
        .all(|l| l.starts_with("testdata/cli/helm-stream.yaml:")));
    let human_quiet = kubegap(&[&args[..], &["--quiet"]].concat(), None);
    assert!(!stdout(&human_quiet).contains(" files, "));
    assert!(!stdout(&human_quiet).contains("1 file, "));
    let stats = kubegap(&[&args[..], &["--statistics"]].concat(), None);
    assert_eq!(stats.status.code(), Some(1));
    insta::assert_snapshot!("statistics", stdout(&stats));
    let stats = kubegap(
        &[&args[..], &["--statistics", "--format", "json"]].concat(),
        None,
    );
    let v = json(&stats);
    assert!(v["statistics"][0]["count"].as_u64().unwrap() >= 1, "{v}");
}

#[test]
fn unknown_rule_ids_get_a_did_you_mean_everywhere() {
    let out = kubegap(
        &["lint", "testdata/cli/clean.yaml", "--select", "k8s-no-pdbb"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--select: unknown rule `k8s-no-pdbb` (did you mean `k8s-no-pdb`?)"),
        "{}",
        stderr(&out)
    );
    // Every unknown id at once.
    let out = kubegap(
        &["lint", "testdata/cli/clean.yaml", "--ignore", "foo,bar"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown rules `foo`, `bar`"),
        "{}",
        stderr(&out)
    );
    let out = kubegap(&["explain", "k8s-service-targetport-missing"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean `k8s-service-target-port-missing`?"),
        "{}",
        stderr(&out)
    );
    // The configuration file: keys and rule ids, every error at once with its line.
    let dir = temp("typo");
    std::fs::write(
        dir.join(".kubegap.yaml"),
        "ignor: [k8s-no-pdb]\nseverity: {k8s-no-pdbb: error}\ncluster: {node: 3}\n",
    )
    .unwrap();
    std::fs::write(dir.join("app.yaml"), SERVICE_AND_DEPLOYMENT).unwrap();
    let out = run_in(&dir, &["lint", "app.yaml"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(":1: unknown key `ignor` (did you mean `ignore`?)"),
        "{err}"
    );
    assert!(
        err.contains(":2: unknown rule `k8s-no-pdbb` (did you mean `k8s-no-pdb`?)"),
        "{err}"
    );
    assert!(
        err.contains(":3: unknown key `cluster.node` (did you mean `nodes`?)"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn built_in_presets_work_anywhere() {
    let dir = temp("preset");
    std::fs::write(dir.join(".kubegap.yaml"), "extends: partial-input\n").unwrap();
    std::fs::write(
        dir.join("ingress.yaml"),
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  rules:\n    - http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend: {service: {name: web, port: {number: 80}}}\n",
    )
    .unwrap();
    let out = run_in(&dir, &["lint", ".", "--format", "json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["rule"] != "k8s-ingress-backend-missing"),
        "{v}"
    );
    // Without the preset the reference to the missing Service is reported.
    let out = run_in(
        &dir,
        &[
            "lint",
            "ingress.yaml",
            "--config",
            "/dev/null",
            "--format",
            "json",
        ],
        None,
    );
    let v = json(&out);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "k8s-ingress-backend-missing"),
        "{v}"
    );
    // The 0.1 spelling, a path into kubegap's own checkout, still names the built-in preset.
    std::fs::write(
        dir.join(".kubegap.yaml"),
        "extends: rulesets/partial-input.yaml\n",
    )
    .unwrap();
    let out = run_in(&dir, &["lint", "."], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::write(dir.join(".kubegap.yaml"), "extends: partial-inptu\n").unwrap();
    let out = run_in(&dir, &["lint", "."], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("(did you mean `partial-input`?)"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);

    let out = kubegap(&["rules", "--preset", "partial-input"], None);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.starts_with("preset `partial-input`: "), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("k8s-ingress-backend-missing "))
        .unwrap();
    assert!(line.contains("off: "), "{line}");
    let v = json(&kubegap(
        &["rules", "--preset", "partial-input", "--format", "json"],
        None,
    ));
    let off: Vec<&str> = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["enabled"] == false)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        off,
        [
            "k8s-ingress-backend-missing",
            "k8s-pdb-selects-nothing",
            "k8s-service-selects-nothing"
        ]
    );
    // Each rule the preset turns off is named in its description, with its severities.
    let description = v["description"].as_str().unwrap();
    for id in off {
        assert!(description.contains(id), "{description}");
    }
}

#[test]
fn preset_files_match_the_built_in_presets() {
    for preset in kubegap_core::config::PRESETS {
        let path = root()
            .join("rulesets")
            .join(format!("{}.yaml", preset.name));
        if std::env::var_os("KUBEGAP_BLESS").is_some() {
            std::fs::write(&path, preset.yaml).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            on_disk, preset.yaml,
            "{} differs from the built-in preset; run KUBEGAP_BLESS=1 cargo test -p kubegap-cli --test cli_ux",
            path.display()
        );
    }
    let files = std::fs::read_dir(root().join("rulesets")).unwrap().count();
    assert_eq!(
        files,
        kubegap_core::config::PRESETS.len() + 1,
        "one file per preset, plus README.md"
    );
}

#[test]
fn configuration_is_found_up_to_the_repository_root() {
    let repo = temp("discovery");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("deploy/k8s")).unwrap();
    std::fs::write(
        repo.join(".kubegap.yaml"),
        "ignore: [k8s-service-target-port-missing]\n",
    )
    .unwrap();
    std::fs::write(repo.join("deploy/k8s/app.yaml"), SERVICE_AND_DEPLOYMENT).unwrap();
    let out = run_in(
        &repo.join("deploy/k8s"),
        &["lint", "app.yaml", "--format", "json"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Outside a repository only the current directory is searched.
    std::fs::remove_dir_all(repo.join(".git")).unwrap();
    let out = run_in(
        &repo.join("deploy/k8s"),
        &["lint", "app.yaml", "--format", "json"],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&repo);
}

#[test]
fn extends_never_opens_paths_outside_the_repository() {
    let outer = temp("confine");
    let repo = outer.join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(repo.join("app.yaml"), SERVICE_AND_DEPLOYMENT).unwrap();
    std::fs::write(outer.join("secret.yaml"), "ignore: [KUBEGAP_TEST_SECRET]\n").unwrap();
    let cases: Vec<(String, &str)> = vec![
        ("/proc/self/environ".into(), "an absolute path is not read"),
        (
            "../../../../../../../../proc/self/environ".into(),
            "is outside the repository root",
        ),
        ("../secret.yaml".into(), "is outside the repository root"),
        ("/dev/zero".into(), "an absolute path is not read"),
    ];
    for (target, expected) in &cases {
        std::fs::write(repo.join(".kubegap.yaml"), format!("extends: {target}\n")).unwrap();
        let out = run_in(&repo, &["lint", "app.yaml"], None);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{target}: {err}");
        assert!(err.contains(expected), "{target}: {err}");
        assert!(err.contains(target.as_str()), "the path is named: {err}");
        assert!(
            !err.contains("s3cr3t") && !err.contains("KUBEGAP_TEST"),
            "no content: {err}"
        );
    }
    // A FIFO inside the repository is not a regular file: refused without opening it (which
    // would block).
    let fifo = repo.join("preset.fifo");
    if Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        std::fs::write(repo.join(".kubegap.yaml"), "extends: preset.fifo\n").unwrap();
        let out = run_in(&repo, &["lint", "app.yaml"], None);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains("is not a regular file"),
            "{}",
            stderr(&out)
        );
    } else {
        eprintln!("SKIPPED: mkfifo unavailable, the FIFO case of extends_never_opens_paths_outside_the_repository did not run");
    }
    // A regular file inside the repository is fine.
    std::fs::create_dir_all(repo.join("ci")).unwrap();
    std::fs::write(
        repo.join("ci/base.yaml"),
        "extends: partial-input\nignore: [k8s-service-target-port-missing]\n",
    )
    .unwrap();
    std::fs::write(repo.join(".kubegap.yaml"), "extends: ci/base.yaml\n").unwrap();
    let out = run_in(&repo, &["lint", "app.yaml"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&outer);
}

#[test]
fn suppressions_only_in_comments_and_unknown_ids_reported() {
    // #16: a quoted value holding the marker suppresses nothing on its line or the next.
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations: {note: \"x # kubegap-ignore: all\"}\nspec:\n  selector: {app: web}\n  ports:\n    - name: \"x # kubegap-ignore: all\"\n      targetPort: http-web\n---\n".to_string()
        + SERVICE_AND_DEPLOYMENT.split("---\n").nth(1).unwrap();
    let out = kubegap(&["lint", "-", "--format", "json"], Some(text.as_bytes()));
    let v = json(&out);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "k8s-service-target-port-missing" && f["line"] == 10),
        "{v}"
    );
    assert_eq!(v["summary"]["suppressed"], 0);
    // A typo in a comment is a warning with a suggestion; unused ones are reported on request.
    let text = SERVICE_AND_DEPLOYMENT.replace(
        "targetPort: http-web",
        "targetPort: http-web # kubegap-ignore: k8s-service-target-port-missin",
    );
    let out = kubegap(
        &["lint", "-", "--format", "concise", "-q"],
        Some(text.as_bytes()),
    );
    let concise = stdout(&out);
    assert!(
        concise.contains(":8:46: warning unknown-suppression unknown rule `k8s-service-target-port-missin` in a kubegap-ignore comment"),
        "{concise}"
    );
    assert!(
        concise.contains("k8s-service-target-port-missing"),
        "{concise}"
    );
    let text = SERVICE_AND_DEPLOYMENT.replace(
        "metadata: {name: web}\nspec:\n  selector",
        "metadata: {name: web} # kubegap-ignore: k8s-no-pdb\nspec:\n  selector",
    );
    let out = kubegap(
        &[
            "lint",
            "-",
            "--format",
            "concise",
            "-q",
            "--report-unused-suppressions",
        ],
        Some(text.as_bytes()),
    );
    assert!(
        stdout(&out).contains(":3:41: info unused-suppression this kubegap-ignore comment for `k8s-no-pdb` suppressed nothing"),
        "{}",
        stdout(&out)
    );
    let out = kubegap(
        &["lint", "-", "--format", "concise", "-q"],
        Some(text.as_bytes()),
    );
    assert!(!stdout(&out).contains("unused-suppression"));
}

#[test]
fn annotations_exempt_their_object() {
    let text = SERVICE_AND_DEPLOYMENT.replace(
        "metadata: {name: web}\nspec:\n  selector",
        "metadata:\n  name: web\n  annotations:\n    kubegap.io/ignore: \"k8s-service-target-port-missing\"\n    kubegap.io/ignore-reason: generated by the operator\nspec:\n  selector",
    );
    let out = kubegap(&["lint", "-", "--format", "json"], Some(text.as_bytes()));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let v = json(&out);
    assert_eq!(v["summary"]["suppressed"], 1, "{v}");
    // Another object is not exempt: the annotation on the Deployment does not cover the Service.
    let text = SERVICE_AND_DEPLOYMENT.replace(
        "kind: Deployment\nmetadata: {name: web}",
        "kind: Deployment\nmetadata:\n  name: web\n  annotations: {kubegap.io/ignore: k8s-service-target-port-missing}",
    );
    let out = kubegap(&["lint", "-", "--format", "json"], Some(text.as_bytes()));
    assert_eq!(out.status.code(), Some(1));
    let human = kubegap(&["lint", "-", "--color", "never"], Some(SERVICE_AND_DEPLOYMENT.replace(
        "metadata: {name: web}\nspec:\n  selector",
        "metadata: {name: web, annotations: {kubegap.io/ignore: \"k8s-service-target-port-missing\"}}\nspec:\n  selector",
    ).as_bytes()));
    assert!(
        stdout(&human).contains("(1 suppressed)"),
        "{}",
        stdout(&human)
    );
    // An annotation that exempts from a rule that does not fire is reported when asked.
    let text = SERVICE_AND_DEPLOYMENT.replace(
        "metadata: {name: web}\nspec:\n  selector",
        "metadata: {name: web, annotations: {kubegap.io/ignore: \"k8s-no-pdb, k8s-service-target-port-missing\"}}\nspec:\n  selector",
    );
    let out = kubegap(
        &[
            "lint",
            "-",
            "--format",
            "concise",
            "-q",
            "--report-unused-suppressions",
        ],
        Some(text.as_bytes()),
    );
    let concise = stdout(&out);
    assert!(
        concise.contains("<stdin>:3:57: info unused-suppression this kubegap-ignore annotation for `k8s-no-pdb` suppressed nothing\n"),
        "{concise}"
    );
    assert_eq!(
        concise.matches("unused-suppression").count(),
        1,
        "{concise}"
    );
    assert!(
        !concise.contains("k8s-service-target-port-missing"),
        "{concise}"
    );
}

#[test]
fn chains_accepts_only_what_it_honours() {
    for bad in [
        &["--format", "sarif"][..],
        &["--fail-on", "warning"],
        &["--format", "github"],
    ] {
        let out = kubegap(&[&["chains", "testdata/examples"][..], bad].concat(), None);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
    let help = stdout(&kubegap(&["chains", "--help"], None));
    assert!(help.contains("Print every timeout chain"), "{help}");
    assert!(!help.contains("to lint"), "{help}");
    assert!(help.contains("--format <FORMAT>"), "{help}");
    let out = kubegap(&["chains", "testdata/examples", "--format", "json"], None);
    assert_eq!(out.status.code(), Some(0));
    json(&out);
}

#[test]
fn rules_show_every_severity_they_report_at() {
    let v = json(&kubegap(&["rules", "--format", "json"], None));
    let rules = v["rules"].as_array().unwrap();
    // The lint rules, then the `diff-*` rules of `kubegap diff`.
    assert_eq!(
        rules.len(),
        kubegap_core::rules::RULES.len() + kubegap_core::rules::DIFF_CHECKS.len()
    );
    assert!(rules.iter().any(|r| r["id"] == "diff-service-port-renamed"));
    let ingress = rules
        .iter()
        .find(|r| r["id"] == "k8s-ingress-backend-missing")
        .unwrap();
    assert_eq!(ingress["default_severity"], "error");
    assert_eq!(ingress["severities"], serde_json::json!(["error", "info"]));
    assert_eq!(ingress["family"], "kubernetes");
    assert!(ingress["summary"]
        .as_str()
        .unwrap()
        .contains("Service port"));
    assert!(!ingress["sources"].as_array().unwrap().is_empty());
    let text = stdout(&kubegap(&["rules"], None));
    let line = text
        .lines()
        .find(|l| l.starts_with("k8s-ingress-backend-missing "))
        .unwrap();
    assert!(line.contains("error, info"), "{line}");
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = kubegap(&["completions", shell], None);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let text = stdout(&out);
        assert!(
            text.contains("kubegap") && text.contains("statistics"),
            "{shell}"
        );
    }
    let out = kubegap(&["man"], None);
    assert_eq!(out.status.code(), Some(0));
    let page = stdout(&out);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq"),
        "{}",
        &page[..page.len().min(200)]
    );
    let path = root().join("docs/kubegap.1");
    if std::env::var_os("KUBEGAP_BLESS").is_some() {
        std::fs::write(&path, &page).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap_or_default(),
        page,
        "docs/kubegap.1 is stale: KUBEGAP_BLESS=1 cargo test -p kubegap-cli --test cli_ux"
    );
}

#[test]
fn human_output_is_bounded_by_columns_and_escapes_control_characters() {
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: \"web\\e]0;title\\a\\e[2J\"\n  namespace: default\nspec:\n  selector: {app: web}\n  ports:\n    - port: 80\n      targetPort: http-web\n";
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubegap"));
    cmd.args(["lint", "-", "--color", "never", "--kind", "yaml"])
        .current_dir(root())
        .env("COLUMNS", "60")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let doc = text.to_string() + "---\n" + SERVICE_AND_DEPLOYMENT.split("---\n").nth(1).unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(doc.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let shown = stdout(&out);
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "{shown}"
    );
    assert!(shown.contains("\\u{1b}"), "{shown}");
    assert!(shown.contains("k8s-service-target-port-missing"), "{shown}");
    // Message lines wrap at 60 columns (source lines and their underlines are shown as they
    // are).
    for line in shown.lines() {
        let t = line.trim_start();
        if t.starts_with(|c: char| c.is_ascii_digit()) || t.starts_with('·') {
            continue;
        }
        assert!(
            line.chars().count() <= 60,
            "{line:?} is wider than COLUMNS=60:\n{shown}"
        );
    }
}

#[test]
fn haproxy_and_nginx_suppressions_count_only_in_comments() {
    let concise = |text: &str| {
        stdout(&kubegap(
            &["lint", "-", "--format", "concise"],
            Some(text.as_bytes()),
        ))
    };
    let haproxy = "defaults\n    mode http\n    {LINE}\n    timeout client 30\n    timeout connect 5s\n    timeout server 30s\n";
    for (line, suppressed) in [
        (
            "http-request set-header X-Note \"a # kubegap-ignore: all\"",
            false,
        ),
        (
            "http-request set-header X-Note 'a # kubegap-ignore: all'",
            false,
        ),
        (
            "http-request set-header X-Note a\\ \\# kubegap-ignore: all",
            false,
        ),
        ("# kubegap-ignore: haproxy-timeout-without-unit", true),
        (
            "http-request set-header X-Note a # kubegap-ignore: all",
            true,
        ),
    ] {
        let out = concise(&haproxy.replace("{LINE}", line));
        assert_eq!(
            !out.contains(":4:20: warning haproxy-timeout-without-unit"),
            suppressed,
            "{line}: {out}"
        );
    }
    let nginx = "events {}\nhttp {\n  upstream app { server 10.0.0.1:80; keepalive 8; }\n  server {\n    {LINE}\n    location / { proxy_pass http://app; }\n  }\n}\n";
    for (line, suppressed) in [
        ("add_header X-Note \"# kubegap-ignore: all\";", false),
        ("add_header X-Note '# kubegap-ignore: all';", false),
        (
            "# kubegap-ignore: nginx-upstream-keepalive-ineffective",
            true,
        ),
        ("add_header X-Note a; # kubegap-ignore: all", true),
    ] {
        let out = concise(&nginx.replace("{LINE}", line));
        assert_eq!(
            !out.contains(":6:18: warning nginx-upstream-keepalive-ineffective"),
            suppressed,
            "{line}: {out}"
        );
    }
}

#[test]
fn rules_json_contract() {
    let v = json(&kubegap(&["rules", "--format", "json"], None));
    let mine: Vec<&serde_json::Value> = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            ["parse-error", "unknown-suppression", "unused-suppression"]
                .contains(&r["id"].as_str().unwrap())
        })
        .collect();
    insta::assert_json_snapshot!("rules_json", (v["version"].clone(), mine));
}
