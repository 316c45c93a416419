//! `kubegap diff`: formats, exit codes, stdin, `--all`, `--git`, determinism.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::{findings as rules_lines, json, root, run_in};

fn kubegap(args: &[&str]) -> Output {
    support::kubegap(args, None)
}

const BASE: &str = "testdata/incidents/gitlab-port-rename-diff/base";
const HEAD: &str = "testdata/incidents/gitlab-port-rename-diff/head";

#[test]
fn gitlab_rename_in_every_format() {
    let out = kubegap(&["diff", BASE, HEAD, "--format", "json"]);
    // The new findings include errors (a targetPort and a backend that resolve to nothing).
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let found = rules_lines(&v);
    let head = |f: &str| format!("{HEAD}/{f}");
    assert!(found.contains(&(
        "diff-service-port-renamed".into(),
        head("webservice.yaml"),
        21
    )));
    assert!(found.contains(&(
        "k8s-ingress-backend-missing".into(),
        head("gke-neg.yaml"),
        43
    )));
    assert_eq!(v["diff"]["modified"], 2);
    assert_eq!(v["diff"]["added"], 0);
    assert_eq!(v["diff"]["new_findings"].as_u64(), Some(found.len() as u64));
    // The label of a rename points at BASE's name.
    let renamed = &v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "diff-service-port-renamed")
        .unwrap()["labels"][0];
    assert_eq!(renamed["file"], format!("{BASE}/webservice.yaml"));
    assert_eq!(renamed["line"], 21);

    let human = kubegap(&["diff", BASE, HEAD, "--color", "never"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert_eq!(
        text.lines().next(),
        Some("changed: 0 objects added, 0 removed, 2 modified, 0 configs changed; 6 new findings")
    );
    assert_eq!(human.status.code(), Some(1));

    let sarif = json(&kubegap(&["diff", BASE, HEAD, "--format", "sarif"]));
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), found.len());
    assert!(results
        .iter()
        .any(|r| r["ruleId"] == "diff-container-port-renamed"));

    let gh = kubegap(&["diff", BASE, HEAD, "--format", "github"]);
    let text = String::from_utf8_lossy(&gh.stdout);
    assert!(text.lines().any(|l| l.starts_with("::warning")
        && l.contains(&format!("file={HEAD}/webservice.yaml,line=25"))));

    // --fail-on never; --ignore a diff rule; --select only a diff rule.
    assert_eq!(
        kubegap(&["diff", BASE, HEAD, "--fail-on", "never"])
            .status
            .code(),
        Some(0)
    );
    let only = json(&kubegap(&[
        "diff",
        BASE,
        HEAD,
        "--format",
        "json",
        "--select",
        "diff-service-port-renamed",
    ]));
    assert_eq!(
        rules_lines(&only),
        vec![
            (
                "diff-service-port-renamed".into(),
                head("webservice.yaml"),
                21
            ),
            (
                "diff-service-port-renamed".into(),
                head("webservice.yaml"),
                25
            ),
        ]
    );
}

#[test]
fn all_shows_old_findings_and_marks_new_ones() {
    let new = json(&kubegap(&["diff", BASE, HEAD, "--format", "json"]));
    let all = json(&kubegap(&["diff", BASE, HEAD, "--format", "json", "--all"]));
    let n_new = new["findings"].as_array().unwrap().len();
    let findings = all["findings"].as_array().unwrap();
    assert!(findings.len() > n_new);
    let marks = all["diff"]["new"].as_array().unwrap();
    assert_eq!(marks.len(), findings.len());
    assert_eq!(marks.iter().filter(|m| **m == true).count(), n_new);
    for (f, m) in findings.iter().zip(marks) {
        let noted = f["notes"].as_array().is_some_and(|n| {
            n.iter()
                .any(|n| n == "new: BASE does not have this finding")
        });
        let is_diff = f["rule"].as_str().unwrap().starts_with("diff-");
        assert_eq!(noted, *m == true && !is_diff, "{f}");
    }
}

#[test]
fn identical_sides_report_nothing_and_order_does_not_matter() {
    let out = kubegap(&["diff", HEAD, HEAD, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["findings"].as_array().unwrap().len(), 0);
    assert_eq!(v["diff"]["modified"], 0);
    // Byte-identical across thread counts.
    let one = kubegap(&["diff", BASE, HEAD, "--format", "json", "--threads", "1"]);
    let four = kubegap(&["diff", BASE, HEAD, "--format", "json", "--threads", "4"]);
    assert_eq!(one.stdout, four.stdout);
}

#[test]
fn stdin_and_usage_errors() {
    let base = std::fs::read(root().join(BASE).join("webservice.yaml")).unwrap();
    let head = format!("{HEAD}/webservice.yaml");
    let out = run_in(
        &root(),
        &["diff", "-", &head, "--format", "json"],
        Some(&base),
    );
    let v = json(&out);
    let found = rules_lines(&v);
    assert!(found.contains(&("diff-service-port-renamed".into(), head.clone(), 21)));
    let label = &v["findings"][0]["labels"][0];
    assert_eq!(label["file"], "<stdin>");

    // A plain file on stdin is the same file as its copy on disk: its findings are not new.
    let plain = "testdata/examples/haproxy.cfg";
    let text = std::fs::read(root().join(plain)).unwrap();
    assert!(
        !json(&kubegap(&["lint", plain, "--format", "json"]))["findings"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let out = run_in(
        &root(),
        &["diff", "-", plain, "--format", "json", "--kind", "haproxy"],
        Some(&text),
    );
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["findings"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["diff"]["configs_changed"], 0);

    for args in [
        &["diff", "-", "-"][..],
        &["diff", BASE][..],
        &["diff", BASE, HEAD, HEAD][..],
        &["diff", "testdata/nope", HEAD][..],
        &["diff", BASE, HEAD, "--baseline", "x.json"][..],
    ] {
        let out = kubegap(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn git_revision_is_base() {
    if Command::new("git").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "git is required on CI for this test"
        );
        eprintln!("SKIPPED git_revision_is_base: no git binary");
        return;
    }
    let dir = std::env::temp_dir().join(format!("kubegap-git-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("k8s")).unwrap();
    let svc = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {{app: web}}\n  ports:\n    - name: {name}\n      port: 80\n      targetPort: 8080\n"
        )
    };
    std::fs::write(dir.join("k8s/svc.yaml"), svc("http")).unwrap();
    std::fs::write(dir.join("README.md"), "not a manifest\n").unwrap();
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "one"]);
    std::fs::write(dir.join("k8s/svc.yaml"), svc("web")).unwrap();
    git(&dir, &["commit", "-q", "-a", "-m", "two"]);

    let out = run_in(&dir, &["diff", "--git", "HEAD~1", "--format", "json"], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(
        rules_lines(&v),
        vec![(
            "diff-service-port-renamed".to_string(),
            // As `lint` names files found under the default `.`.
            "./k8s/svc.yaml".to_string(),
            8
        )]
    );
    assert_eq!(v["findings"][0]["labels"][0]["file"], "HEAD~1:k8s/svc.yaml");
    // With PATHS, and against HEAD itself (nothing changed in the working tree).
    let same = json(&run_in(
        &dir,
        &["diff", "--git", "HEAD", "k8s", "--format", "json"],
        None,
    ));
    assert_eq!(same["findings"].as_array().unwrap().len(), 0);
    let scoped = json(&run_in(
        &dir,
        &["diff", "--git", "HEAD~1", "k8s", "--format", "json"],
        None,
    ));
    assert_eq!(rules_lines(&scoped).len(), 1);
    // Read-only: the repository is as it was.
    let status = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(status.stdout.is_empty());
    // A revision that does not exist is a usage error.
    let bad = run_in(&dir, &["diff", "--git", "nope"], None);
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
