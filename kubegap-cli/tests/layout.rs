//! Repositories as they are: Helm chart sources and kustomizations among plain manifests
//! (`testdata/sample-repo`), and rendering them with `--render-charts` / `--render-kustomize`
//! through stand-ins for `helm` and `kubectl` put first on `PATH`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::{findings, json, root};

const REPO: &str = "testdata/sample-repo";

/// Runs kubegap from the workspace root with `PATH` set to `path`.
fn kubegap(args: &[&str], path: &str) -> Output {
    kubegap_in(&root(), args, path)
}

fn kubegap_in(dir: &Path, args: &[&str], path: &str) -> Output {
    support::run_with(dir, args, None, &[("PATH", path)])
}

/// A directory holding executable shell scripts named after the tools they stand in for.
fn fake_bin(test: &str, scripts: &[(&str, &str)]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fake-bin-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, body) in scripts {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// An empty directory: a `PATH` on which no tool is found.
fn empty_path(test: &str) -> String {
    fake_bin(test, &[]).display().to_string()
}

fn path_with(dir: &Path) -> String {
    format!("{}:/usr/bin:/bin", dir.display())
}

#[test]
fn a_repository_with_a_chart_and_kustomizations_lints_without_parse_errors() {
    let out = kubegap(
        &["lint", REPO, "--format", "json", "--fail-on", "info"],
        &empty_path("plain"),
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(
        findings(&v),
        vec![
            (
                "helm-chart-not-rendered".into(),
                format!("{REPO}/charts/shop/Chart.yaml"),
                2
            ),
            (
                "k8s-service-target-port-missing".into(),
                format!("{REPO}/k8s/web.yaml"),
                12
            ),
        ]
    );
    // Read: Chart.yaml (not as a manifest), k8s/web.yaml, the two files the base lists, and
    // the two kustomizations and the overlay's patch (the model reads what an overlay changes;
    // a patch is a fragment no rule reports on); not the templates or values.yaml.
    assert_eq!(v["summary"]["files"], 7);
    assert_eq!(v["summary"]["objects"], 7);
    let chart = &v["findings"][0];
    assert_eq!(chart["severity"], "info");
    assert!(
        chart["help"].as_str().unwrap().contains(&format!(
            "helm template {REPO}/charts/shop | kubegap lint -"
        )),
        "{chart}"
    );
    // The default --fail-on error: the info alone does not fail; the port error does.
    let out = kubegap(&["lint", &format!("{REPO}/charts")], &empty_path("plain2"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_template_named_explicitly_is_not_parsed_and_its_chart_is_reported() {
    let out = kubegap(
        &[
            "lint",
            &format!("{REPO}/charts/shop/templates/deployment.yaml"),
            &format!("{REPO}/charts/shop/values.yaml"),
            "--format",
            "json",
        ],
        &empty_path("explicit"),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        findings(&json(&out)),
        vec![(
            "helm-chart-not-rendered".into(),
            format!("{REPO}/charts/shop/Chart.yaml"),
            2
        )]
    );
}

#[test]
fn inside_a_chart_the_current_directory_is_the_chart() {
    // `kubegap lint` walks `.` and names files `./…`; `.` is the chart.
    let chart = root().join(REPO).join("charts/shop");
    let out = kubegap_in(&chart, &["lint", "--format", "json"], &empty_path("cwd"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        findings(&json(&out)),
        vec![("helm-chart-not-rendered".into(), "./Chart.yaml".into(), 2)]
    );
    let out = kubegap_in(
        &chart,
        &["lint", "Chart.yaml", "templates", "--format", "json"],
        &empty_path("cwd2"),
    );
    assert_eq!(
        findings(&json(&out)),
        vec![("helm-chart-not-rendered".into(), "Chart.yaml".into(), 2)]
    );
    let v = json(&out);
    assert!(v["findings"][0]["help"]
        .as_str()
        .unwrap()
        .contains("`helm template . | kubegap lint -`"));
}

#[test]
fn render_charts_without_helm_is_an_error_that_names_the_command() {
    let out = kubegap(
        &["lint", REPO, "--render-charts", "--format", "json"],
        &empty_path("nohelm"),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "--render-charts: `helm` is not on PATH, so `helm template {REPO}/charts/shop` cannot run"
        )),
        "{stderr}"
    );
    // The rest is still linted, and the chart is still reported as not rendered.
    let rules: Vec<String> = findings(&json(&out)).into_iter().map(|f| f.0).collect();
    assert_eq!(
        rules,
        ["helm-chart-not-rendered", "k8s-service-target-port-missing"]
    );
}

/// What `helm template` prints for the sample chart: a Service whose port name the pods lack.
const HELM_STREAM: &str = r#"---
# Source: shop/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: release-name-shop
spec:
  selector: {app: shop}
  ports:
    - port: 80
      targetPort: http
---
# Source: shop/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: release-name-shop
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
        - name: shop
          image: "shop:1.4.2"
          ports: [{name: web, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /, port: web}}
"#;

#[test]
fn render_charts_lints_helm_template_output_with_its_origins() {
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join("helm-args.log");
    let _ = std::fs::remove_file(&log);
    let bin = fake_bin(
        "helm",
        &[(
            "helm",
            &format!(
                "echo \"$@\" >> '{}'\ncat <<'STREAM'\n{HELM_STREAM}STREAM\n",
                log.display()
            ),
        )],
    );
    let out = kubegap(
        &[
            "lint",
            REPO,
            "--render-charts",
            "--format",
            "json",
            "--fail-on",
            "info",
        ],
        &path_with(&bin),
    );
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("template {REPO}/charts/shop\n")
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let name = format!("<helm template {REPO}/charts/shop>");
    assert_eq!(
        findings(&v),
        vec![
            ("k8s-service-target-port-missing".into(), name, 11),
            (
                "k8s-service-target-port-missing".into(),
                format!("{REPO}/k8s/web.yaml"),
                12
            ),
        ],
        "the rendered chart replaces helm-chart-not-rendered"
    );
    assert_eq!(v["findings"][0]["origin"], "shop/templates/service.yaml");
}

#[test]
fn a_failing_helm_is_an_error_with_its_message() {
    let bin = fake_bin(
        "helm-fails",
        &[(
            "helm",
            "echo 'Error: template: shop/templates/service.yaml:1: unexpected EOF' >&2\nexit 1\n",
        )],
    );
    let out = kubegap(&["lint", REPO, "--render-charts"], &path_with(&bin));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`helm template testdata/sample-repo/charts/shop` failed (exit status: 1): Error: template: shop/templates/service.yaml:1: unexpected EOF"),
        "{stderr}"
    );
}

#[test]
fn render_kustomize_replaces_the_listed_files_by_the_rendered_overlay() {
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kubectl-args.log");
    let _ = std::fs::remove_file(&log);
    // What `kubectl kustomize` prints for the overlay: the patched Deployment, whose new
    // `metrics` port the Service does not use, and a Service pointing at a port that is gone.
    let stream = "apiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: prod}\nspec:\n  selector: {app: api}\n  ports: [{name: http, port: 80, targetPort: grpc}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: prod}\nspec:\n  replicas: 4\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec:\n      containers:\n        - name: api\n          image: example/api:1.0\n          ports: [{name: http, containerPort: 8080}]\n          readinessProbe: {httpGet: {path: /ready, port: http}}\n";
    let bin = fake_bin(
        "kubectl",
        &[(
            "kubectl",
            &format!(
                "echo \"$@\" >> '{}'\ncat <<'STREAM'\n{stream}STREAM\n",
                log.display()
            ),
        )],
    );
    let out = kubegap(
        &[
            "lint",
            &format!("{REPO}/kustomize"),
            "--render-kustomize",
            "--format",
            "json",
        ],
        &path_with(&bin),
    );
    // Only the overlay is rendered: the base is one of its resources.
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("kustomize {REPO}/kustomize/overlays/prod\n")
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(
        findings(&v),
        vec![(
            "k8s-service-target-port-missing".into(),
            format!("<kubectl kustomize {REPO}/kustomize/overlays/prod>"),
            6
        )]
    );
    // The base's files are replaced by the rendered stream, not linted beside it.
    assert_eq!(v["summary"]["files"], 1);
}

#[test]
fn render_kustomize_without_kubectl_keeps_the_listed_files() {
    let out = kubegap(
        &[
            "lint",
            &format!("{REPO}/kustomize"),
            "--render-kustomize",
            "--format",
            "json",
        ],
        &empty_path("nokubectl"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "--render-kustomize: `kubectl` is not on PATH, so `kubectl kustomize testdata/sample-repo/kustomize/overlays/prod` cannot run"
    ));
    let v = json(&out);
    // The base's two resources, the two kustomizations and the overlay's patch.
    assert_eq!(v["summary"]["files"], 5);
    assert!(findings(&v).is_empty());
}

#[test]
fn the_layout_does_not_depend_on_argument_order_or_threads() {
    let path = empty_path("order");
    let a = format!("{REPO}/kustomize");
    let b = format!("{REPO}/charts/shop/templates");
    let c = format!("{REPO}/k8s");
    let first = kubegap(
        &["lint", &a, &b, &c, "--format", "json", "--threads", "1"],
        &path,
    );
    let second = kubegap(
        &["lint", &c, &b, &a, "--format", "json", "--threads", "2"],
        &path,
    );
    assert_eq!(first.status.code(), Some(1));
    assert_eq!(first.stdout, second.stdout);
    assert_eq!(findings(&json(&first)).len(), 2);
}
