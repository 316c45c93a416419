//! `--format json`: a versioned contract (`version: 1`). Field order is stable.

use serde::Serialize;

use kubegap_core::Report;

use super::position;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    findings: Findings<'a>,
    summary: JsonSummary,
}

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

/// The findings, serialized one at a time as they are converted: collecting them first held
/// a second copy of every finding's positions and pointers (15 MB for a 300k-line haproxy.cfg).
struct Findings<'a>(&'a Report);

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let report = self.0;
        serializer.collect_seq(report.findings.iter().map(|f| finding(report, f)))
    }
}

/// Writes the report as JSON (what [`render`] returns) to `w`, without building the text in
/// memory first: 75,000 findings are 86 MB of JSON, and a growing `String` peaked at twice that.
pub fn write(report: &Report, w: &mut impl std::io::Write) -> std::io::Result<()> {
    let s = &report.summary;
    let doc = JsonReport {
        version: 1,
        findings: Findings(report),
        summary: JsonSummary {
            files: s.files,
            documents: s.documents,
            objects: s.objects,
            findings: s.findings,
            errors: s.errors,
            warnings: s.warnings,
            infos: s.infos,
            suppressed: s.suppressed,
        },
    };
    serde_json::to_writer_pretty(&mut *w, &doc).map_err(std::io::Error::from)?;
    w.write_all(b"\n")
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
    let mut out = Vec::new();
    match write(report, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(e) => format!("{{\"error\": \"{e}\"}}\n"),
    }
}
