//! `--format junit` validates against the Apache Ant JUnit schema that Jenkins and GitLab
//! accept (`tests/junit/JUnit.xsd`, see `tests/junit/README.md`), checked with `xmllint`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn junit(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kubegap"))
        .args(["lint", "--format", "junit"])
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn junit_output_is_one_testcase_per_rule_and_file() {
    let xml = junit(&[
        "testdata/cli/helm-stream.yaml",
        "testdata/cli/clean.yaml",
        "--select",
        "k8s-service-target-port-missing,k8s-hpa-with-static-replicas,parse-error",
    ]);
    insta::assert_snapshot!("junit", xml);
}

#[test]
fn junit_output_validates_against_the_junit_schema() {
    let have_xmllint = Command::new("xmllint")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_xmllint {
        assert!(
            std::env::var_os("KUBEGAP_REQUIRE_XMLLINT").is_none(),
            "KUBEGAP_REQUIRE_XMLLINT is set but xmllint is not installed"
        );
        eprintln!(
            "SKIPPED: xmllint not found (Debian: apt-get install libxml2-utils); --format junit was NOT validated against tests/junit/JUnit.xsd"
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("kubegap-junit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Findings with labels, Helm origins, several files and kinds, a control character and
    // markup characters in messages.
    let control = dir.join("control.yaml");
    std::fs::write(
        &control,
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: \"w<b>&\\e[2Jeb\"}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n        - name: web\n          image: registry.example.com/web:1.0\n          ports: [{name: http, containerPort: 8080}]\n",
    )
    .unwrap();
    let cases: Vec<Vec<String>> = vec![
        vec!["testdata/examples".into()],
        vec!["testdata/cli".into()],
        vec![control.display().to_string()],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let xml = junit(&args);
        let file = dir.join("report.xml");
        std::fs::write(&file, &xml).unwrap();
        let out = Command::new("xmllint")
            .arg("--noout")
            .arg("--schema")
            .arg(root().join("kubegap-cli/tests/junit/JUnit.xsd"))
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}\n{xml}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(xml.contains("<failure "), "{args:?}: no failure in {xml}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
