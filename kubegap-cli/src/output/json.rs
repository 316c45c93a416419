//! `--format json`: a versioned contract (`version: 1`). Field order is stable.

use serde::Serialize;

use kubegap_core::Report;

use super::{position, write_pretty_at};

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: &'a str,
    severity: &'a str,
    message: &'a str,
    file: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<&'a str>,
    /// Where a finding placed on a Helm template is in the rendered stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    rendered: Option<JsonRendered<'a>>,
    labels: Vec<JsonLabel<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
    evidence: &'a [&'a str],
}

#[derive(Serialize)]
struct JsonLabel<'a> {
    file: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonRendered<'a> {
    file: &'a str,
    line: u32,
    column: u32,
}

#[derive(Serialize)]
struct JsonSummary {
    files: usize,
    documents: usize,
    objects: usize,
    findings: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
    suppressed: usize,
}

/// Writes the report as JSON (what [`render`] returns) to `w`, without building the text in
/// memory first: 75,000 findings are 86 MB of JSON, and a growing `String` peaked at twice that.
///
/// The findings are rendered in parallel, a bounded batch at a time, and written in order: the
/// bytes are those of `serde_json::to_writer_pretty` over the whole report (a test compares
/// them), as each finding is serialized alone, indented as it is written to the depth it has
/// in the report ([`write_pretty_at`]).
pub fn write(report: &Report, w: &mut impl std::io::Write) -> std::io::Result<()> {
    write_in(report, w, super::batch())
}

/// [`write`], in batches of (findings a task, tasks a round).
fn write_in(
    report: &Report,
    w: &mut impl std::io::Write,
    batch: (usize, usize),
) -> std::io::Result<()> {
    w.write_all(b"{\n  \"version\": 1,\n  \"findings\": [")?;
    super::write_json_items(&report.findings, 2, batch, |f| finding(report, f), w)?;
    if !report.findings.is_empty() {
        w.write_all(b"\n  ")?;
    }
    w.write_all(b"],\n  \"summary\": ")?;
    let mut out = Vec::with_capacity(256);
    write_pretty_at(&mut out, &json_summary(report), 1)?;
    out.extend_from_slice(b"\n}\n");
    w.write_all(&out)
}

fn json_summary(report: &Report) -> JsonSummary {
    let s = &report.summary;
    JsonSummary {
        files: s.files,
        documents: s.documents,
        objects: s.objects,
        findings: s.findings,
        errors: s.errors,
        warnings: s.warnings,
        infos: s.infos,
        suppressed: s.suppressed,
    }
}

fn finding<'a>(report: &'a Report, f: &'a kubegap_core::Finding) -> JsonFinding<'a> {
    let file = report.files.get(f.span.file);
    let (line, column, end_line, end_column) = position(file, f.span);
    JsonFinding {
        rule: f.rule,
        severity: f.severity.name(),
        message: &f.message,
        file: &file.name,
        line,
        column,
        end_line,
        end_column,
        origin: f.origin.as_deref(),
        rendered: crate::helm_place::rendered(f).map(|span| {
            let rf = report.files.get(span.file);
            let at = rf.line_col(span.start);
            JsonRendered {
                file: &rf.name,
                line: at.line,
                column: at.column,
            }
        }),
        labels: f
            .labels
            .iter()
            .map(|l| {
                let lf = report.files.get(l.span.file);
                let (line, column, end_line, end_column) = position(lf, l.span);
                JsonLabel {
                    file: &lf.name,
                    line,
                    column,
                    end_line,
                    end_column,
                    message: &l.message,
                }
            })
            .collect(),
        notes: f.notes.iter().map(String::as_str).collect(),
        help: f.help.as_deref(),
        evidence: f.evidence,
    }
}

/// Renders the report as pretty JSON with a trailing newline.
pub fn render(report: &Report) -> String {
    super::json_text(|w| write(report, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report as one `serde_json` document: what [`write`] must produce byte for byte.
    fn reference(report: &Report) -> String {
        #[derive(Serialize)]
        struct JsonReport<'a> {
            version: u32,
            findings: Vec<JsonFinding<'a>>,
            summary: JsonSummary,
        }
        let doc = JsonReport {
            version: 1,
            findings: report.findings.iter().map(|f| finding(report, f)).collect(),
            summary: json_summary(report),
        };
        let mut text = serde_json::to_string_pretty(&doc).unwrap();
        text.push('\n');
        text
    }

    fn report_of(text: &str, copies: usize) -> Report {
        let inputs: Vec<(String, &str)> = (0..copies)
            .map(|i| (format!("in-{i:04}.yaml"), text))
            .collect();
        super::super::lint_texts(&inputs)
    }

    #[test]
    fn parallel_writer_matches_serde() {
        let stream = include_str!("../../../testdata/cli/helm-stream.yaml");
        let many = include_str!("../../../testdata/rules/k8s-grace-period-too-short/invalid.yaml");
        // No finding, a few, and more than one round of batches (with labels, notes, help,
        // origins and a message with quotes and line breaks escaped).
        for (text, copies) in [("", 1), ("a: [", 1), (stream, 1), (many, 3)] {
            let report = report_of(text, copies);
            let expected = reference(&report);
            for (chunk, tasks) in [(256, 8), (1, 1), (3, 2), (7, 5)] {
                let mut out = Vec::new();
                write_in(&report, &mut out, (chunk, tasks)).unwrap();
                let out = String::from_utf8(out).unwrap();
                assert_eq!(
                    out, expected,
                    "{copies} copies, {chunk} a task, {tasks} tasks"
                );
            }
            let mut out = Vec::new();
            write(&report, &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
        // Several rounds were written.
        assert!(report_of(many, 3).findings.len() > 7 * 5);
    }
}
