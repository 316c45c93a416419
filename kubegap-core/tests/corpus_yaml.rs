//! Robustness and agreement on real manifests: every file of `../shared/corpus/k8s` and
//! `../shared/corpus/helm` is linted with every rule (no panic, findings allowed), and the YAML
//! layer is compared with PyYAML/libyaml (`testdata/corpus/pyyaml_oracle.tsv`, written by
//! `scripts/pyyaml_oracle.py`):
//! - where PyYAML loads a file, kubegap reports no parse error and finds the same number of
//!   non-empty documents;
//! - where both report an error, they agree on the line;
//! - the files PyYAML rejects but kubegap accepts are exactly the YAML 1.1 vs 1.2 differences
//!   listed in `ACCEPTED_BY_YAML_1_2` (Go-template braces read as flow mappings with complex
//!   keys, `::` inside flow scalars, the YAML 1.1 value key `=`). PyYAML stops at its first
//!   error, kubegap resumes at the next document, so it may also report later errors there.

use std::path::Path;

use kubegap_core::{lint, FileKind, Input, Settings};

mod support;
use support::corpus;

/// Files PyYAML (YAML 1.1) rejects that are valid YAML 1.2 and parse in kubegap.
const ACCEPTED_BY_YAML_1_2: &[&str] = &[
    "vllm-llama4-maverick-17b-128e-instruct-fp8.yaml",
    "vllm-llama4-maverick-17b-128e-instruct.yaml",
    "vllm-llama4-maverick-17b-128e.yaml",
    "vllm-llama4-scout-17b-16e-instruct.yaml",
    "vllm-llama4-scout-17b-16e.yaml",
    "declarative-apps/app.yaml",
    "declarative-apps/invalid-helm.yaml",
    "serviceentry-valid.yaml",
    "newrelic/newrelic-config-template.yaml",
    "newrelic-infrastructure/newrelic-config-template.yaml",
    "etcd-controller-template.yaml",
    "etcd-service-template.yaml",
    "vtgate-controller-template.yaml",
    "multicluster/testdata/allow.golden",
    "0alertmanagerConfigCustomResourceDefinition.yaml",
];

#[test]
fn corpus_agrees_with_pyyaml_and_never_panics() {
    if !support::present(
        &corpus().join("k8s"),
        "corpus_agrees_with_pyyaml_and_never_panics",
    ) {
        return;
    }
    let oracle = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/corpus/pyyaml_oracle.tsv"),
    )
    .expect("oracle file");
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    for line in oracle.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let path = corpus().join(cols[0]);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        inputs.push(Input {
            name: cols[0].to_string(),
            path: Some(path),
            bytes,
            kind: FileKind::Yaml,
            canonical: None,
            prepared: None,
        });
        expected.push((
            cols[0].to_string(),
            cols[1].parse::<usize>().unwrap(),
            cols[2].to_string(),
        ));
    }
    assert!(inputs.len() > 4000, "corpus missing: {}", inputs.len());
    let workspace = kubegap_core::engine::load(inputs.clone(), &Settings::default());
    let mut failures = Vec::new();
    for (name, docs, error) in &expected {
        let (id, file) = workspace
            .files
            .iter()
            .find(|(_, f)| &f.name == name)
            .unwrap();
        let ours: usize = workspace
            .documents
            .iter()
            .filter(|d| d.file == id)
            .filter(|d| d.root().is_some_and(|r| !r.is_null()))
            .count();
        let errors: Vec<u32> = workspace
            .parse_findings
            .iter()
            .filter(|f| f.span.file == id)
            .map(|f| file.line_col(f.span.start).line)
            .collect();
        let allowed = ACCEPTED_BY_YAML_1_2
            .iter()
            .any(|suffix| name.ends_with(suffix));
        match error.as_str() {
            "-" => {
                if !errors.is_empty() {
                    failures.push(format!(
                        "{name}: parse errors at {errors:?}, PyYAML loads it"
                    ));
                } else if ours != *docs {
                    failures.push(format!("{name}: {ours} documents, PyYAML {docs}"));
                }
            }
            line if allowed => {
                // PyYAML stops at its first error; kubegap carries on and may find a real one in
                // a later document (allow.golden: `{{ .AccountName }}-token` at line 54).
                let line: u32 = line.parse().unwrap_or(0);
                if errors.iter().any(|e| *e <= line) {
                    failures.push(format!(
                        "{name}: expected to parse as YAML 1.2 up to line {line}, got {errors:?}"
                    ));
                }
            }
            line => {
                let line: u32 = line.parse().unwrap_or(0);
                if !errors.contains(&line) {
                    failures.push(format!(
                        "{name}: PyYAML fails at line {line}, kubegap says {errors:?}"
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every rule over the whole corpus: no panic.
    let report = lint(inputs, &Settings::default());
    assert!(report.summary.objects > 8000, "{:?}", report.summary);
}

/// The `List`s of the corpus laid out as kubectl prints them (the grafana dashboards of
/// kube-prometheus: 1 MB, one item per dashboard, each a JSON block scalar), parsed in parts
/// of every size, give the documents of the whole parse.
#[test]
fn corpus_lists_parsed_in_parts_are_parsed_whole() {
    if !support::present(
        &corpus().join("k8s"),
        "corpus_lists_parsed_in_parts_are_parsed_whole",
    ) {
        return;
    }
    // Whether each is read in parts: the last ends with a `---`, another (empty) document.
    let lists = [
        ("k8s/prometheus-operator__kube-prometheus/manifests/grafana-dashboardDefinitions.yaml", true),
        ("k8s/prometheus-operator__kube-prometheus/manifests/prometheus-roleSpecificNamespaces.yaml", true),
        ("k8s/linkerd__linkerd2/cli/cmd/testdata/inject_emojivoto_list.golden.yml", false),
    ];
    for (name, in_parts) in lists {
        let path = corpus().join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let unread = &kubegap_core::k8s::UNREAD_BY_RULES;
        let (whole, _) = kubegap_core::yaml::parse_stream(kubegap_core::FileId(0), &text);
        let (pruned, _) =
            kubegap_core::yaml::parse_stream_without(kubegap_core::FileId(0), &text, unread);
        for part in [1, 4096, 64 << 10, 1 << 20] {
            assert_eq!(
                kubegap_core::fuzz::list_in_parts(&text, &whole, &pruned, part),
                in_parts,
                "{name} in parts of {part} bytes"
            );
        }
    }
}
