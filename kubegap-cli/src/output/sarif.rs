//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning. Columns are Unicode code points
//! (`columnKind`), matching the JSON output.

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

fn location(report: &Report, span: kubegap_core::Span, message: Option<&str>) -> Value {
    let file = report.files.get(span.file);
    let (line, column, end_line, end_column) = position(file, span);
    let mut loc = json!({
        "physicalLocation": {
            "artifactLocation": {"uri": file.name.trim_start_matches("./")},
            "region": {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}
        }
    });
    if let Some(message) = message {
        loc["message"] = json!({"text": message});
    }
    loc
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
                "fullDescription": {"text": rule.map_or("", |r| r.docs.lines().next().unwrap_or_default().trim())},
                "defaultConfiguration": {"level": level(rule.map_or(Severity::Warning, |r| r.default_severity))},
                "help": {"markdown": rule.map_or("", |r| r.docs), "text": rule.map_or("", |r| r.summary)}
            });
            if let Some(url) = rule.and_then(|r| r.evidence.first()) {
                r["helpUri"] = json!(url);
            }
            r
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
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
            "columnKind": "unicodeCodePoints",
            "results": results
        }]
    });
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}
