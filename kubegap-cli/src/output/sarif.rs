//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning. Columns are Unicode code points
//! (`columnKind`), matching the JSON output.
//!
//! Paths as given (relative to where kubegap runs, usually the repository root) are written as
//! relative URI references with `uriBaseId: %SRCROOT%`, which is how GitHub code scanning reads
//! repository paths; absolute paths become `file://` URIs without a base. Either is
//! percent-encoded, so a name with a space or `<stdin>` is still a valid `uri-reference`
//! (`kubegap-cli/tests/sarif_schema.rs` checks the output against the OASIS schema).

use serde::Serialize;
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
fn fingerprints(report: &Report) -> Vec<(u64, u32)> {
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
            (hash, *n)
        })
        .collect()
}

// One result, typed: serialized alone and written in order (see [`write`]). The fields of each
// struct are in the byte order of their names, the order `serde_json`'s maps (which the rest of
// the log is built with) write keys in, so that the log reads as one document.

#[derive(Serialize)]
struct SarifResult<'a> {
    level: &'static str,
    locations: [Location<'a>; 1],
    message: Text<String>,
    #[serde(rename = "partialFingerprints")]
    partial_fingerprints: Fingerprint,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<Properties<'a>>,
    #[serde(rename = "relatedLocations", skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location<'a>>,
    #[serde(rename = "ruleId")]
    rule_id: &'a str,
    #[serde(rename = "ruleIndex")]
    rule_index: usize,
}

#[derive(Serialize)]
struct Location<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text<&'a str>>,
    #[serde(rename = "physicalLocation")]
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
struct PhysicalLocation {
    #[serde(rename = "artifactLocation")]
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
    #[serde(rename = "uriBaseId", skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
struct Region {
    #[serde(rename = "endColumn")]
    end_column: u32,
    #[serde(rename = "endLine")]
    end_line: u32,
    #[serde(rename = "startColumn")]
    start_column: u32,
    #[serde(rename = "startLine")]
    start_line: u32,
}

#[derive(Serialize)]
struct Text<T> {
    text: T,
}

#[derive(Serialize)]
struct Fingerprint {
    #[serde(rename = "kubegap/v1")]
    kubegap_v1: String,
}

#[derive(Serialize)]
struct Properties<'a> {
    origin: &'a str,
}

/// The `artifactLocation` of a file: a relative reference under `%SRCROOT%`, or a `file://`
/// URI for an absolute path.
fn artifact_location(name: &str) -> ArtifactLocation {
    if name.starts_with('/') {
        ArtifactLocation {
            uri: format!("file://{}", encode_path(name)),
            uri_base_id: None,
        }
    } else {
        ArtifactLocation {
            uri: encode_path(name.trim_start_matches("./")),
            uri_base_id: Some(SRCROOT),
        }
    }
}

fn location<'a>(
    report: &Report,
    span: kubegap_core::Span,
    id: Option<usize>,
    message: Option<&'a str>,
) -> Location<'a> {
    let file = report.files.get(span.file);
    let (line, column, end_line, end_column) = position(file, span);
    Location {
        id,
        message: message.map(|text| Text { text }),
        physical_location: PhysicalLocation {
            artifact_location: artifact_location(&file.name),
            region: Region {
                end_column,
                end_line,
                start_column: column,
                start_line: line,
            },
        },
    }
}

fn result<'a>(
    report: &'a Report,
    rule_ids: &[&str],
    f: &'a kubegap_core::Finding,
    (hash, n): (u64, u32),
) -> SarifResult<'a> {
    let mut text = f.message.clone();
    if let Some(help) = &f.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    SarifResult {
        level: level(f.severity),
        locations: [location(report, f.span, None, None)],
        message: Text { text },
        partial_fingerprints: Fingerprint {
            kubegap_v1: format!("{hash:016x}:{n}"),
        },
        properties: f.origin.as_deref().map(|origin| Properties { origin }),
        related_locations: f
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| location(report, l.span, Some(i + 1), Some(&l.message)))
            .collect(),
        rule_id: f.rule,
        rule_index: rule_ids.iter().position(|id| *id == f.rule).unwrap_or(0),
    }
}

/// The rules that have findings, sorted by id.
fn rule_ids(report: &Report) -> Vec<&'static str> {
    let mut rule_ids: Vec<&str> = report.findings.iter().map(|f| f.rule).collect();
    rule_ids.sort_unstable();
    rule_ids.dedup();
    rule_ids
}

/// The log around its results, as `serde_json` writes it, cut where the results go: the rules
/// (a few dozen) and the constant parts are built as values.
fn frame(rule_ids: &[&str]) -> (String, String) {
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
            "results": []
        }]
    });
    let text = serde_json::to_string_pretty(&log).unwrap_or_default();
    // The one place the key is written unescaped at the results' depth (a string holding it
    // would escape its quotes).
    const RESULTS: &str = "\n      \"results\": []";
    match text.find(RESULTS) {
        Some(at) => {
            let cut = at + RESULTS.len() - "[]".len();
            (
                text[..cut].to_string(),
                text[cut + "[]".len()..].to_string(),
            )
        }
        None => (text, String::new()),
    }
}

/// Writes the SARIF log (what [`render`] returns) to `w`. The results are serialized from
/// typed values in parallel, a bounded batch at a time, and written in order (as the JSON
/// output's findings are): a tree of `serde_json` values for every result, copied once more
/// into the log by `json!`, held a 51 MB stream's run at 517 MB instead of 199 and doubled its
/// time. The bytes are those of `serde_json::to_string_pretty` over the whole log (a test
/// compares them).
pub fn write(report: &Report, w: &mut impl std::io::Write) -> std::io::Result<()> {
    write_in(report, w, super::batch())
}

/// [`write`], in batches of (results a task, tasks a round).
fn write_in(
    report: &Report,
    w: &mut impl std::io::Write,
    batch: (usize, usize),
) -> std::io::Result<()> {
    let rule_ids = rule_ids(report);
    let (before, after) = frame(&rule_ids);
    let fingerprints = fingerprints(report);
    w.write_all(before.as_bytes())?;
    w.write_all(b"[")?;
    let findings: Vec<(&kubegap_core::Finding, (u64, u32))> =
        report.findings.iter().zip(fingerprints).collect();
    super::write_json_items(
        &findings,
        4,
        batch,
        |(f, fingerprint)| result(report, &rule_ids, f, *fingerprint),
        w,
    )?;
    if !findings.is_empty() {
        w.write_all(b"\n      ")?;
    }
    w.write_all(b"]")?;
    w.write_all(after.as_bytes())?;
    w.write_all(b"\n")
}

/// The SARIF log, with a trailing newline.
pub fn render(report: &Report) -> String {
    super::json_text(|w| write(report, w))
}

#[cfg(test)]
mod tests {
    use super::super::lint_texts;
    use super::*;

    /// The log built whole as `serde_json` values (how this format was first written): what
    /// [`write`] must produce byte for byte.
    fn reference(report: &Report) -> String {
        let location = |span: kubegap_core::Span, message: Option<&str>| {
            let file = report.files.get(span.file);
            let (line, column, end_line, end_column) = position(file, span);
            let artifact = if file.name.starts_with('/') {
                json!({"uri": format!("file://{}", encode_path(&file.name))})
            } else {
                json!({"uri": encode_path(file.name.trim_start_matches("./")), "uriBaseId": SRCROOT})
            };
            let mut loc = json!({
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}
                }
            });
            if let Some(message) = message {
                loc["message"] = json!({"text": message});
            }
            loc
        };
        let rule_ids = rule_ids(report);
        let results: Vec<Value> = report
            .findings
            .iter()
            .zip(fingerprints(report))
            .map(|(f, (hash, n))| {
                let mut text = f.message.clone();
                if let Some(help) = &f.help {
                    text.push_str(&format!("\nhelp: {help}"));
                }
                let mut result = json!({
                    "ruleId": f.rule,
                    "ruleIndex": rule_ids.iter().position(|id| *id == f.rule).unwrap_or(0),
                    "level": level(f.severity),
                    "message": {"text": text},
                    "locations": [location(f.span, None)],
                    "partialFingerprints": {"kubegap/v1": format!("{hash:016x}:{n}")},
                });
                if !f.labels.is_empty() {
                    result["relatedLocations"] = Value::Array(
                        f.labels
                            .iter()
                            .enumerate()
                            .map(|(i, l)| {
                                let mut loc = location(l.span, Some(&l.message));
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
        let (before, after) = frame(&rule_ids);
        let mut whole: Value = serde_json::from_str(&format!("{before}[]{after}")).unwrap();
        whole["runs"][0]["results"] = Value::Array(results);
        let mut out = serde_json::to_string_pretty(&whole).unwrap();
        out.push('\n');
        out
    }

    #[test]
    fn results_written_in_batches_match_the_whole_log() {
        let stream = include_str!("../../../testdata/cli/helm-stream.yaml");
        let many = include_str!("../../../testdata/rules/k8s-grace-period-too-short/invalid.yaml");
        let names = ["a.yaml", "./dir/b c.yaml", "/abs/c.yaml", "<stdin>"];
        let reports = [
            lint_texts::<&str>(&[]),
            lint_texts(&[("broken.yaml", "a: [")]),
            lint_texts(&[("stream.yaml", stream)]),
            lint_texts(&names.map(|n| (n, many))),
        ];
        for report in &reports {
            let expected = reference(report);
            for (chunk, tasks) in [(128, 4), (1, 1), (3, 2), (7, 5)] {
                let mut out = Vec::new();
                write_in(report, &mut out, (chunk, tasks)).unwrap();
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    expected,
                    "{chunk} a task, {tasks} tasks"
                );
            }
            assert_eq!(render(report), expected);
        }
        // Several rounds were written, with labels, origins and help, under every kind of path.
        let findings = &reports[3].findings;
        assert!(findings.len() > 7 * 5);
        assert!(findings
            .iter()
            .any(|f| !f.labels.is_empty() && f.help.is_some()));
        assert!(reports[2].findings.iter().any(|f| f.origin.is_some()));
        let text = render(&reports[3]);
        assert!(text.contains("file:///abs/c.yaml") && text.contains("dir/b%20c.yaml"));
    }
}
