//! The SARIF output validates against the official OASIS SARIF 2.1.0 schema (errata 01,
//! vendored in `testdata/schemas/`), on inputs that use every part of it: many rules, labels in other
//! files (`relatedLocations`), Helm origins, stdin, and file names that need URI encoding.
//!
//! The validator is `boon` (see docs/DEPENDENCIES.md): it reads the schema's draft-04 and
//! asserts `format`s, which is what catches an artifact URI that is not a `uri-reference`.

use std::path::{Path, PathBuf};

use kubegap_core::{FileKind, Input, Settings};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The compiled OASIS schema.
fn sarif_schema() -> (boon::Schemas, boon::SchemaIndex) {
    let path = root().join("testdata/schemas/sarif-schema-2.1.0.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (vendored in the repository)", path.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        schema["$schema"], "http://json-schema.org/draft-04/schema#",
        "the schema's draft changed: check that boon still reads it"
    );
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    // On by default for draft-04, but the test is about formats too, so say it.
    compiler.enable_format_assertions();
    let url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
    compiler.add_resource(url, schema).unwrap();
    let index = compiler.compile(url, &mut schemas).unwrap();
    (schemas, index)
}

/// Schema errors of a SARIF log, as text (empty when it is valid).
fn schema_errors(log: &Value) -> String {
    let (schemas, index) = sarif_schema();
    match schemas.validate(log, index) {
        Ok(()) => String::new(),
        Err(error) => format!("{error:#}"),
    }
}

/// Lints the paths (relative to the workspace root, as a user types them) plus extra inputs,
/// and renders SARIF.
fn sarif(paths: &[&str], extra: Vec<Input>) -> Value {
    std::env::set_current_dir(root()).unwrap();
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let mut inputs = if paths.is_empty() {
        Vec::new() // `discover` would walk the current directory
    } else {
        kubegap_cli::walk::discover(&paths, None).inputs
    };
    inputs.extend(extra);
    let report = kubegap_core::lint(inputs, &Settings::default());
    let text = kubegap_cli::output::sarif::render(&report);
    serde_json::from_str(&text).unwrap()
}

fn uri(location: &Value) -> &str {
    location["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
}

#[test]
fn every_rule_fixture_renders_valid_sarif() {
    let log = sarif(
        &["testdata/rules", "testdata/cli/helm-stream.yaml"],
        Vec::new(),
    );
    let errors = schema_errors(&log);
    assert!(errors.is_empty(), "{errors}");

    // The input is as rich as it should be, so the validation above means something.
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert!(rules.len() >= 40, "only {} rules reported", rules.len());
    assert!(results.len() >= 100, "only {} results", results.len());
    let cross_file = results.iter().any(|r| {
        let primary = uri(&r["locations"][0]);
        r["relatedLocations"]
            .as_array()
            .is_some_and(|related| related.iter().any(|l| uri(l) != primary))
    });
    assert!(cross_file, "no relatedLocation in another file");
    assert!(
        results
            .iter()
            .any(|r| r["properties"]["origin"].is_string()),
        "no Helm origin"
    );
    for (i, result) in results.iter().enumerate() {
        let index = usize::try_from(result["ruleIndex"].as_u64().unwrap()).unwrap();
        assert_eq!(rules[index]["id"], result["ruleId"], "result {i}");
        let location = &result["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(location["uriBaseId"], "%SRCROOT%", "result {i}");
        assert!(
            !uri(&result["locations"][0]).starts_with("./"),
            "result {i}"
        );
    }
}

#[test]
fn stdin_absolute_paths_and_odd_file_names_are_valid_uris() {
    let stream = std::fs::read(root().join("testdata/cli/helm-stream.yaml")).unwrap();
    let stdin = Input {
        name: "<stdin>".into(),
        path: None,
        bytes: stream.clone(),
        kind: FileKind::Yaml,
        canonical: None,
        prepared: None,
    };
    let absolute = Input {
        name: "/tmp/kubegap sarif/100%:helm,stream#1.yaml".into(),
        path: None,
        bytes: stream.clone(),
        kind: FileKind::Yaml,
        canonical: None,
        prepared: None,
    };
    let relative = Input {
        name: "c:charts/my chart [prod].yaml".into(),
        path: None,
        bytes: stream,
        kind: FileKind::Yaml,
        canonical: None,
        prepared: None,
    };
    let log = sarif(&[], vec![stdin, absolute, relative]);
    let errors = schema_errors(&log);
    assert!(errors.is_empty(), "{errors}");
    let mut uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| uri(&r["locations"][0]))
        .collect();
    uris.sort_unstable();
    uris.dedup();
    assert_eq!(
        uris,
        [
            "%3Cstdin%3E",
            "c%3Acharts/my%20chart%20%5Bprod%5D.yaml",
            "file:///tmp/kubegap%20sarif/100%25%3Ahelm%2Cstream%231.yaml",
        ]
    );
}

#[test]
fn the_schema_check_fails_on_a_broken_log() {
    // The test above is only worth something if the check can fail: break one field at a time.
    let log = sarif(&["testdata/cli/helm-stream.yaml"], Vec::new());
    assert!(schema_errors(&log).is_empty());
    type Corrupt = fn(&mut Value);
    let breakages: [(&str, Corrupt); 4] = [
        ("level", |v| {
            v["runs"][0]["results"][0]["level"] = "fatal".into()
        }),
        ("startLine", |v| {
            v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
                0.into();
        }),
        ("uri", |v| {
            v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
                ["uri"] = "testdata/cli/helm stream.yaml".into();
        }),
        ("message", |v| {
            v["runs"][0]["results"][0]["message"] = Value::Object(serde_json::Map::new());
        }),
    ];
    for (what, corrupt) in breakages {
        let mut broken = log.clone();
        corrupt(&mut broken);
        let errors = schema_errors(&broken);
        assert!(!errors.is_empty(), "a broken `{what}` passed the schema");
    }
}

#[test]
fn fingerprints_ignore_line_numbers_and_keep_equal_findings_apart() {
    let text = std::fs::read_to_string(root().join("testdata/cli/helm-stream.yaml")).unwrap();
    let input = |text: String| Input {
        name: "stream.yaml".into(),
        path: None,
        bytes: text.into_bytes(),
        kind: FileKind::Yaml,
        canonical: None,
        prepared: None,
    };
    let before = sarif(&[], vec![input(text.clone())]);
    let after = sarif(&[], vec![input(format!("# a comment\n\n{text}"))]);
    let fingerprints = |log: &Value| -> Vec<(String, u64)> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["partialFingerprints"]["kubegap/v1"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .unwrap(),
                )
            })
            .collect()
    };
    let (before, after) = (fingerprints(&before), fingerprints(&after));
    assert!(!before.is_empty());
    for ((fp_before, line_before), (fp_after, line_after)) in before.iter().zip(&after) {
        assert_eq!(fp_before, fp_after);
        assert_eq!(line_before + 2, *line_after);
    }
    // Every fingerprint of a log is distinct, even for findings with equal messages.
    let log = sarif(&["testdata/rules"], Vec::new());
    let mut all: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["partialFingerprints"]["kubegap/v1"].as_str().unwrap())
        .collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n);
}
