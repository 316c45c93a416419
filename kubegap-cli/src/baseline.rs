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

/// The fingerprint of every finding of a report, in report order. YAML files with findings
/// are parsed again for their object and key paths; `name` maps a file name to the name used
/// in fingerprints (relative to a root for `diff`).
pub fn fingerprints(report: &Report, name: &dyn Fn(&str) -> String) -> Vec<Fingerprint> {
    let mut wanted: Vec<_> = report.findings.iter().map(|f| f.span.file).collect();
    wanted.sort();
    wanted.dedup();
    let mut documents = Vec::new();
    for id in wanted {
        let file = report.files.get(id);
        if file.kind == FileKind::Yaml {
            documents.extend(kubegap_core::yaml::parse_stream(id, &file.text).0);
        }
    }
    report
        .findings
        .iter()
        .map(|f| {
            let file = report.files.get(f.span.file);
            fingerprint(f, &report.files, &documents, &name(&file.name))
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
pub fn apply(report: &mut Report, entries: Vec<Entry>, file: String) -> Applied {
    let mut left: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    for e in entries {
        left.entry(e.fingerprint.clone()).or_default().push(e);
    }
    let fps = fingerprints(report, &|n| n.to_string());
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
