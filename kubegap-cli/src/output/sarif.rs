//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning. Columns are Unicode code points
//! (`columnKind`), matching the JSON output.
//!
//! Paths as given (relative to where kubegap runs, usually the repository root) are written as
//! relative URI references with `uriBaseId: %SRCROOT%`, which is how GitHub code scanning reads
//! repository paths; absolute paths become `file://` URIs without a base. Either is
//! percent-encoded, so a name with a space or `<stdin>` is still a valid `uri-reference`
//! (`kubegap-cli/tests/sarif_schema.rs` checks the output against the OASIS schema).

use serde_json::{json, Value};

use kubegap_core::rules::find;
use kubegap_core::{Report, Severity};

use super::position;

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The base that relative artifact URIs are resolved against: the directory kubegap ran in.
const SRCROOT: &str = "%SRCROOT%";

/// Percent-encodes everything in a path but RFC 3986 unreserved characters and `/`, so the
/// result is a valid URI path whatever the file is called (a first segment with `:` would
/// otherwise read as a scheme).
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The `artifactLocation` of a file: a relative reference under `%SRCROOT%`, or a `file://`
/// URI for an absolute path.
fn artifact_location(name: &str) -> Value {
    if name.starts_with('/') {
        json!({"uri": format!("file://{}", encode_path(name))})
    } else {
        json!({"uri": encode_path(name.trim_start_matches("./")), "uriBaseId": SRCROOT})
    }
}

fn location(report: &Report, span: kubegap_core::Span, message: Option<&str>) -> Value {
    let file = report.files.get(span.file);
    let (line, column, end_line, end_column) = position(file, span);
    let mut loc = json!({
        "physicalLocation": {
            "artifactLocation": artifact_location(&file.name),
            "region": {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}
        }
    });
    if let Some(message) = message {
        loc["message"] = json!({"text": message});
    }
    loc
}

/// FNV-1a, 64 bits: tiny and stable across Rust versions and platforms (`DefaultHasher` is
/// neither), which a fingerprint stored by a server between runs needs.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain([0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// `partialFingerprints` for each finding: a hash of the rule, the file, the Helm origin and
/// the message, without line numbers, so a finding keeps its identity when lines move above
/// it; `:N` counts equal hashes in report order, so two equal findings in one file stay two.
/// GitHub code scanning only reads `primaryLocationLineHash`, which `upload-sarif` computes from
/// the file and adds beside this key (it only skips results that already carry one); the SARIF
/// spec lets any consumer match results on any key.
fn fingerprints(report: &Report) -> Vec<Value> {
    let mut seen: std::collections::BTreeMap<u64, u32> = std::collections::BTreeMap::new();
    report
        .findings
        .iter()
        .map(|f| {
            let file = &report.files.get(f.span.file).name;
            let hash = fnv1a(&[
                f.rule,
                file.trim_start_matches("./"),
                f.origin.as_deref().unwrap_or_default(),
                &f.message,
            ]);
            let n = seen.entry(hash).or_insert(0);
            *n += 1;
            json!({"kubegap/v1": format!("{hash:016x}:{n}")})
        })
        .collect()
}

/// The SARIF log.
pub fn render(report: &Report) -> String {
    let mut rule_ids: Vec<&str> = report.findings.iter().map(|f| f.rule).collect();
    rule_ids.sort_unstable();
    rule_ids.dedup();
    let rules: Vec<Value> = rule_ids
        .iter()
        .map(|id| {
            let rule = find(id);
            let mut r = json!({
                "id": id,
                "shortDescription": {"text": rule.map_or("", |r| r.summary)},
                "fullDescription": {"text": rule.map_or(String::new(), |r| r.docs.lines().next().unwrap_or_default().trim().to_string())},
                "defaultConfiguration": {"level": level(rule.map_or(Severity::Warning, |r| r.default_severity))},
                "help": {"markdown": rule.map_or(String::new(), |r| r.markdown()), "text": rule.map_or("", |r| r.summary)}
            });
            if let Some(url) = rule.and_then(|r| r.evidence.first()) {
                r["helpUri"] = json!(url);
            }
            r
        })
        .collect();
    let fingerprints = fingerprints(report);
    let results: Vec<Value> = report
        .findings
        .iter()
        .zip(fingerprints)
        .map(|(f, fingerprint)| {
            let mut text = f.message.clone();
            if let Some(help) = &f.help {
                text.push_str(&format!("\nhelp: {help}"));
            }
            let mut result = json!({
                "ruleId": f.rule,
                "ruleIndex": rule_ids.iter().position(|id| *id == f.rule).unwrap_or(0),
                "level": level(f.severity),
                "message": {"text": text},
                "locations": [location(report, f.span, None)],
                "partialFingerprints": fingerprint,
            });
            if !f.labels.is_empty() {
                result["relatedLocations"] = Value::Array(
                    f.labels
                        .iter()
                        .enumerate()
                        .map(|(i, l)| {
                            let mut loc = location(report, l.span, Some(&l.message));
                            loc["id"] = json!(i + 1);
                            loc
                        })
                        .collect(),
                );
            }
            if let Some(origin) = &f.origin {
                result["properties"] = json!({"origin": origin});
            }
            result
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kubegap",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/kubegap/kubegap",
                "rules": rules
            }},
            "originalUriBaseIds": {
                SRCROOT: {"description": {"text": "the directory kubegap ran in, usually the repository root"}}
            },
            "columnKind": "unicodeCodePoints",
            "results": results
        }]
    });
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}
