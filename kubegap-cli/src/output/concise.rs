//! `--format concise` (one finding a line, like ruff and compilers) and `--statistics`.

use std::collections::BTreeMap;

use serde::Serialize;

use kubegap_core::{Report, Severity};

use super::{escape_controls, position};

/// `path:line:col: severity rule message`, one finding a line (no summary).
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let file = report.files.get(f.span.file);
        let (line, column, _, _) = position(file, f.span);
        out.push_str(&format!(
            "{}:{line}:{column}: {} {} {}",
            escape_controls(&file.name, true),
            f.severity.name(),
            f.rule,
            escape_controls(&f.message, true)
        ));
        if let Some(origin) = &f.origin {
            out.push_str(&format!(
                " (in Helm template {})",
                escape_controls(origin, true)
            ));
        }
        out.push('\n');
    }
    out
}

#[derive(Serialize)]
struct Statistic<'a> {
    rule: &'a str,
    count: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
}

/// Findings per rule, most frequent first (ties by rule id), as text or JSON.
pub fn statistics(report: &Report, json: bool) -> String {
    let mut per_rule: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for f in &report.findings {
        let counts = per_rule.entry(f.rule).or_default();
        counts[match f.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Info => 2,
        }] += 1;
    }
    let mut rows: Vec<Statistic<'_>> = per_rule
        .into_iter()
        .map(|(rule, c)| Statistic {
            rule,
            count: c.iter().sum(),
            errors: c[0],
            warnings: c[1],
            infos: c[2],
        })
        .collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.rule.cmp(b.rule)));
    if json {
        let mut text = serde_json::to_string_pretty(&serde_json::json!({
            "version": 1,
            "statistics": rows,
            "suppressed": report.summary.suppressed,
        }))
        .unwrap_or_default();
        text.push('\n');
        return text;
    }
    let width = rows
        .iter()
        .map(|r| r.count.to_string().len())
        .max()
        .unwrap_or(1);
    let id_width = rows.iter().map(|r| r.rule.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in &rows {
        let mut parts = Vec::new();
        for (n, word) in [
            (r.errors, "error"),
            (r.warnings, "warning"),
            (r.infos, "info"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {word}{}", if n == 1 { "" } else { "s" }));
            }
        }
        out.push_str(&format!(
            "{:>width$}  {:id_width$}  {}\n",
            r.count,
            r.rule,
            parts.join(", ")
        ));
    }
    out.push_str(&super::summary_line(report));
    out.push('\n');
    out
}
