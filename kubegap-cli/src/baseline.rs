//! Baselines: `kubegap lint --write-baseline FILE` records the current findings by their
//! line-independent fingerprints; `kubegap lint --baseline FILE` reports only the others.
//!
//! The file (format version 1) is JSON with one entry per line, sorted, so that it diffs well:
//!
//! ```json
//! {"kubegap_baseline": 1, "entries": [
//! {"file": "k8s/web.yaml", "rule": "k8s-no-pdb", "object": "Deployment/default/web", "key": "spec.replicas", "fingerprint": "0123456789abcdef"}
//! ]}
//! ```
//!
//! Only `fingerprint` decides; `file`, `rule`, `object` and `key` are for the reader. An entry
//! listed twice stands for two findings with the same fingerprint.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use kubegap_core::fingerprint::{fingerprint, Fingerprint};
use kubegap_core::yaml::Document;
use kubegap_core::{FileKind, Report, Severity};

/// The format version written and accepted.
pub const VERSION: u32 = 1;

/// One baseline entry.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Entry {
    /// The file (relative as given on the command line) or the Helm origin.
    pub file: String,
    /// The rule id.
    pub rule: String,
    /// `Kind/namespace/name`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// Key path or directive.
    #[serde(default)]
    pub key: String,
    /// The fingerprint that decides.
    pub fingerprint: String,
}

impl From<Fingerprint> for Entry {
    fn from(fp: Fingerprint) -> Entry {
        Entry {
            file: fp.file,
            rule: fp.rule,
            object: fp.object,
            key: fp.key,
            fingerprint: fp.hash,
        }
    }
}

#[derive(Deserialize)]
struct File {
    kubegap_baseline: u32,
    entries: Vec<Entry>,
}

/// The fingerprint of every finding of a report, in report order, from `kept`, the documents
/// of the run (in file order, [`kubegap_core::engine::Spent::documents`]): the object and key
/// path of each finding in a YAML file. A file whose kept documents lost a definition's spec
/// (the rules do not read it, see `kubegap_core::yaml::parse_stream_without`) is parsed again
/// whole, so that no path depends on what the rules skipped. `name` maps a file name to the
/// name used in fingerprints.
pub fn fingerprints(
    report: &Report,
    kept: &[Document],
    name: &dyn Fn(&str) -> String,
) -> Vec<Fingerprint> {
    let mut wanted: Vec<_> = report.findings.iter().map(|f| f.span.file).collect();
    wanted.sort();
    wanted.dedup();
    let mut whole = Vec::new();
    let mut parsed_again = Vec::new();
    for id in wanted {
        let file = report.files.get(id);
        let first = kept.partition_point(|d| d.file < id);
        let pruned = kept[first..]
            .iter()
            .take_while(|d| d.file == id)
            .any(Document::spec_dropped);
        if file.kind == FileKind::Yaml && pruned {
            whole.extend(kubegap_core::yaml::parse_stream(id, &file.text).0);
            parsed_again.push(id);
        }
    }
    report
        .findings
        .iter()
        .map(|f| {
            let file = report.files.get(f.span.file);
            let documents = if parsed_again.binary_search(&f.span.file).is_ok() {
                &whole
            } else {
                kept
            };
            fingerprint(f, &report.files, documents, &name(&file.name))
        })
        .collect()
}

/// Renders a baseline file.
pub fn render(mut entries: Vec<Entry>) -> String {
    entries.sort();
    let mut out = format!("{{\"kubegap_baseline\": {VERSION}, \"entries\": [\n");
    for (i, e) in entries.iter().enumerate() {
        out.push_str(&serde_json::to_string(e).unwrap_or_default());
        if i + 1 < entries.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str("]}\n");
    out
}

/// Parses a baseline file.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let file: File = serde_json::from_str(text).map_err(|e| {
        format!(
            "not a kubegap baseline (line {}, column {}): {e}",
            e.line(),
            e.column()
        )
    })?;
    if file.kubegap_baseline != VERSION {
        return Err(format!(
            "baseline format version {} is not supported (this kubegap reads version {VERSION})",
            file.kubegap_baseline
        ));
    }
    Ok(file.entries)
}

/// What applying a baseline did.
#[derive(Debug, Default)]
pub struct Applied {
    /// The baseline file, as named on the command line.
    pub file: String,
    /// Findings hidden because the baseline has them.
    pub matched: usize,
    /// Baseline entries no finding matched any more.
    pub absent: Vec<Entry>,
}

/// Removes the findings the baseline lists (each entry hides one finding) and recounts.
pub fn apply(report: &mut Report, kept: &[Document], entries: Vec<Entry>, file: String) -> Applied {
    let mut left: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    for e in entries {
        left.entry(e.fingerprint.clone()).or_default().push(e);
    }
    let fps = fingerprints(report, kept, &|n| n.to_string());
    let mut keep = Vec::with_capacity(report.findings.len());
    let mut matched = 0;
    for (f, fp) in std::mem::take(&mut report.findings).into_iter().zip(fps) {
        match left.get_mut(&fp.hash).and_then(Vec::pop) {
            Some(_) => matched += 1,
            None => keep.push(f),
        }
    }
    report.findings = keep;
    recount(report);
    let mut absent: Vec<Entry> = left.into_values().flatten().collect();
    absent.sort();
    Applied {
        file,
        matched,
        absent,
    }
}

/// Recomputes the finding counts of the summary after findings were removed.
pub fn recount(report: &mut Report) {
    let count = |s: Severity| report.findings.iter().filter(|f| f.severity == s).count();
    report.summary.errors = count(Severity::Error);
    report.summary.warnings = count(Severity::Warning);
    report.summary.infos = count(Severity::Info);
    report.summary.findings = report.findings.len();
}

/// The human line under the summary.
pub fn human_line(applied: &Applied) -> String {
    format!(
        "baseline {}: {} finding{} hidden, {} entr{} no longer found\n",
        applied.file,
        applied.matched,
        if applied.matched == 1 { "" } else { "s" },
        applied.absent.len(),
        if applied.absent.len() == 1 {
            "y"
        } else {
            "ies"
        },
    )
}

/// The JSON `baseline` member: `{"file", "matched", "absent": [entries]}`.
pub fn json_value(applied: &Applied) -> serde_json::Value {
    serde_json::json!({
        "file": applied.file,
        "matched": applied.matched,
        "absent": applied.absent,
    })
}

/// Adds a top-level member to a rendered JSON report (before its closing brace), keeping the
/// field order of the report as it is.
pub fn add_json_member(json: &str, name: &str, value: &serde_json::Value) -> String {
    let body = json.trim_end();
    let Some(open) = body.strip_suffix('}') else {
        return json.to_string();
    };
    let pretty = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".into());
    let indented = pretty.replace('\n', "\n  ");
    format!("{},\n  \"{name}\": {indented}\n}}\n", open.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A definition whose spec the rules skip (with a schema, as charts ship them), put before
    /// the findings of a fixture in the same file.
    const DEFINITION: &str = include_str!("../../testdata/definitions/widgets-crd.yaml");

    /// Every rule's `invalid.yaml` fixture, a Helm stream, and the fixtures again behind a
    /// definition: linted as `lint` runs (definitions' specs not kept).
    fn inputs() -> Vec<kubegap_core::Input> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
        let mut texts = vec![(
            "stream.yaml".to_string(),
            std::fs::read_to_string(root.join("cli/helm-stream.yaml")).unwrap(),
        )];
        let mut rules: Vec<_> = std::fs::read_dir(root.join("rules"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        rules.sort();
        for dir in rules {
            let Ok(text) = std::fs::read_to_string(dir.join("invalid.yaml")) else {
                continue;
            };
            let rule = dir.file_name().unwrap().to_string_lossy().into_owned();
            texts.push((format!("{rule}.yaml"), text.clone()));
            texts.push((
                format!("{rule}-after-definition.yaml"),
                format!("{DEFINITION}{text}"),
            ));
        }
        texts
            .into_iter()
            .map(|(name, text)| kubegap_core::Input {
                name,
                path: None,
                bytes: text.into_bytes(),
                kind: FileKind::Yaml,
                canonical: None,
                prepared: None,
            })
            .collect()
    }

    #[test]
    fn fingerprints_from_the_kept_documents_are_those_of_a_whole_parse() {
        let settings = kubegap_core::Settings::default();
        let (report, spent) = kubegap_core::engine::lint_keeping(inputs(), &settings);
        // Every file with a finding parsed again whole: how fingerprints were first computed.
        let mut whole = Vec::new();
        for (id, file) in report.files.iter() {
            whole.extend(kubegap_core::yaml::parse_stream(id, &file.text).0);
        }
        let name = |n: &str| n.to_string();
        let expected: Vec<String> = report
            .findings
            .iter()
            .map(|f| {
                fingerprint(
                    f,
                    &report.files,
                    &whole,
                    &name(&report.files.get(f.span.file).name),
                )
                .hash
            })
            .collect();
        let got: Vec<String> = fingerprints(&report, spent.documents(), &name)
            .into_iter()
            .map(|fp| fp.hash)
            .collect();
        assert_eq!(got, expected);
        // The files behind a definition were linted with its spec dropped, and have findings.
        assert!(spent.documents().iter().any(|d| d.spec_dropped()));
        let behind = |f: &&kubegap_core::Finding| {
            report
                .files
                .get(f.span.file)
                .name
                .ends_with("-after-definition.yaml")
        };
        assert!(report.findings.iter().filter(behind).count() > 20);
    }
}
