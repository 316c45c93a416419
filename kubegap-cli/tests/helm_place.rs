//! Helm findings on the templates: a hand-written chart (`testdata/helm-chart/shop`) and the
//! stream `helm template demo shop` gives (`testdata/helm-chart/stream.yaml`).

mod support;

use support::{json, kubegap, root, run_in};

const STREAM: &str = "testdata/helm-chart/stream.yaml";
const CHART: &str = "testdata/helm-chart/shop";
const SERVICE: &str = "testdata/helm-chart/shop/templates/service.yaml";
const DEPLOYMENT: &str = "testdata/helm-chart/shop/templates/deployment.yaml";

/// (rule, file, line, rendered file, rendered line).
fn placed(v: &serde_json::Value) -> Vec<(String, String, u64, String, u64)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["rendered"]["file"].as_str().unwrap_or("-").to_string(),
                f["rendered"]["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn expected(rendered: &str) -> Vec<(String, String, u64, String, u64)> {
    vec![
        (
            "k8s-hpa-with-static-replicas".into(),
            DEPLOYMENT.into(),
            8,
            rendered.into(),
            29,
        ),
        (
            "k8s-service-target-port-missing".into(),
            SERVICE.into(),
            15,
            rendered.into(),
            18,
        ),
    ]
}

#[test]
fn json_places_findings_on_template_lines_and_keeps_the_rendered_line() {
    // Found next to the stream, and with --chart.
    for args in [
        &["lint", STREAM, "--format", "json"][..],
        &["lint", STREAM, "--format", "json", "--chart", CHART][..],
    ] {
        let v = json(&kubegap(args, None));
        assert_eq!(placed(&v), expected(STREAM), "{args:?}");
        assert_eq!(v["findings"][1]["origin"], "shop/templates/service.yaml");
        assert_eq!(v["findings"][1]["column"], 7);
        assert_eq!(v["findings"][1]["rendered"]["column"], 19);
    }
    // From stdin, the chart given.
    let stream = std::fs::read(root().join(STREAM)).unwrap();
    let v = json(&kubegap(
        &["lint", "-", "--format", "json", "--chart", CHART],
        Some(&stream),
    ));
    assert_eq!(placed(&v), expected("<stdin>"));
    // Without a chart to find, today's behaviour: stream positions plus origin.
    let v = json(&kubegap(&["lint", "-", "--format", "json"], Some(&stream)));
    let lines: Vec<(String, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().into(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(lines, vec![("<stdin>".into(), 18), ("<stdin>".into(), 29)]);
    assert!(v["findings"][0].get("rendered").is_none());
}

#[test]
fn piped_from_inside_the_chart_the_templates_are_found_without_the_chart_name() {
    // `helm template . | kubegap lint -` in the chart's directory: `shop/templates/x.yaml`
    // is `templates/x.yaml` there (it holds a `Chart.yaml`); above it, `shop/…` directly.
    let stream = std::fs::read(root().join(STREAM)).unwrap();
    for (dir, prefix) in [(CHART, ""), ("testdata/helm-chart", "shop/")] {
        let out = run_in(
            &root().join(dir),
            &["lint", "-", "--format", "json"],
            Some(&stream),
        );
        let v = json(&out);
        let files: Vec<&str> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file"].as_str().unwrap())
            .collect();
        assert_eq!(
            files,
            [
                format!("{prefix}templates/deployment.yaml"),
                format!("{prefix}templates/service.yaml")
            ],
            "{dir}"
        );
    }
}

#[test]
fn sarif_and_github_point_at_the_templates() {
    let sarif = json(&kubegap(
        &["lint", STREAM, "--format", "sarif", "--chart", CHART],
        None,
    ));
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let loc = &results[1]["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], SERVICE);
    assert_eq!(loc["region"]["startLine"], 15);
    let related = results[1]["relatedLocations"].as_array().unwrap();
    assert!(related.iter().any(|r| {
        r["physicalLocation"]["artifactLocation"]["uri"] == STREAM
            && r["physicalLocation"]["region"]["startLine"] == 18
    }));

    let gh = kubegap(
        &["lint", STREAM, "--format", "github", "--chart", CHART],
        None,
    );
    let text = String::from_utf8_lossy(&gh.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with(&format!("::error file={SERVICE},line=15,"))),
        "{text}"
    );
    assert!(text
        .lines()
        .any(|l| l.starts_with(&format!("::warning file={DEPLOYMENT},line=8,"))));

    let human = kubegap(
        &["lint", STREAM, "--color", "never", "--chart", CHART],
        None,
    );
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains(&format!("{SERVICE}:15:7")), "{text}");
    assert!(text.contains(&format!("{STREAM}:18:19")), "{text}");
}

#[test]
fn each_stream_looks_for_its_templates_from_its_own_directory() {
    // The same stream twice: beside its chart, and copied where no chart is. The copy's
    // findings stay on the copy (its `shop/templates/…` is not the chart beside the other);
    // the original's go to the templates, whichever stream sorts first, at any thread count.
    let dir = std::env::temp_dir().join(format!("kubegap-helm-place-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("stream.yaml");
    std::fs::copy(root().join(STREAM), &copy).unwrap();
    let copy_name = copy.to_str().unwrap().to_string();
    let mut outputs = Vec::new();
    for threads in ["1", "8"] {
        let out = kubegap(
            &[
                "lint",
                STREAM,
                &copy_name,
                "--format",
                "json",
                "--threads",
                threads,
            ],
            None,
        );
        let v = json(&out);
        let mut want = expected(STREAM);
        want.extend([
            (
                "k8s-service-target-port-missing".to_string(),
                copy_name.clone(),
                18,
                "-".to_string(),
                0,
            ),
            (
                "k8s-hpa-with-static-replicas".to_string(),
                copy_name.clone(),
                29,
                "-".to_string(),
                0,
            ),
        ]);
        let mut got = placed(&v);
        got.sort();
        want.sort();
        assert_eq!(got, want, "threads {threads}");
        outputs.push(out.stdout);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        outputs[0], outputs[1],
        "the output depends on the thread count"
    );
}
