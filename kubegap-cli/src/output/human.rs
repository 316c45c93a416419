//! `--format human`: miette's graphical report, with a line-indexed source so rendering stays
//! fast and correct deep in large streams (see docs/DEPENDENCIES.md: miette's default source
//! scans from byte 0 for every diagnostic and drops labels on large inputs).

use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use kubegap_core::{Finding, Report, Severity, SourceFile};

/// A source file as miette sees it: text plus the line index kubegap already built.
struct IndexedSource<'a> {
    file: &'a SourceFile,
    /// For a file whose lines end with a lone CR: its text with those CRs as LFs (same length,
    /// same offsets), because miette splits snippet lines at LF only.
    cr_only: std::sync::OnceLock<Vec<u8>>,
}

impl<'a> IndexedSource<'a> {
    fn new(file: &'a SourceFile) -> IndexedSource<'a> {
        IndexedSource {
            file,
            cr_only: std::sync::OnceLock::new(),
        }
    }

    /// The bytes snippets are cut from.
    fn bytes(&self) -> &[u8] {
        let text = self.file.text.as_bytes();
        // kubegap's line index ends lines at a lone CR too: look at the first line end.
        let lone_cr = self
            .file
            .line_starts()
            .get(1)
            .is_some_and(|&s| s > 0 && text.get(s as usize - 1) == Some(&b'\r'));
        if !lone_cr {
            return text;
        }
        self.cr_only.get_or_init(|| {
            let mut bytes = text.to_vec();
            for i in 0..bytes.len() {
                if bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
                    bytes[i] = b'\n';
                }
            }
            bytes
        })
    }
}

impl SourceCode for IndexedSource<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let text = self.bytes();
        let len = text.len();
        let start = span.offset();
        if start > len || start + span.len() > len {
            return Err(MietteError::OutOfBounds);
        }
        let end = start + span.len();
        let starts = self.file.line_starts();
        let n_lines = starts.len();
        let first = self.file.line_index(start as u32);
        let last = self
            .file
            .line_index(end.saturating_sub(1).max(start) as u32);
        let window_start = first.saturating_sub(before);
        let window_end = (last + after).min(n_lines - 1);
        let data_end = if window_end + 1 < n_lines {
            starts[window_end + 1] as usize
        } else {
            len
        };
        let (data_start, line, column) = if before == 0 {
            let line_start = starts[first] as usize;
            let column = String::from_utf8_lossy(&text[line_start..start])
                .chars()
                .count();
            (start, first, column)
        } else {
            (starts[window_start] as usize, window_start, 0)
        };
        let data = &text[data_start..data_end.max(data_start)];
        Ok(Box::new(MietteSpanContents::new_named(
            self.file.name.clone(),
            data,
            (data_start, data.len()).into(),
            line,
            column,
            window_end - window_start,
        )))
    }
}

/// One finding (or one of its cross-file labels) as a miette diagnostic.
struct Rendered<'a> {
    message: String,
    code: Option<&'static str>,
    severity: miette::Severity,
    help: Option<String>,
    source: IndexedSource<'a>,
    labels: Vec<LabeledSpan>,
    related: Vec<Rendered<'a>>,
}

impl fmt::Debug for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered<'_> {}

impl Diagnostic for Rendered<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.code.map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }

    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn Diagnostic> + 'b>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
        }
    }
}

fn severity(s: Severity) -> miette::Severity {
    match s {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    }
}

fn span_of(span: kubegap_core::Span) -> SourceSpan {
    (span.start as usize, span.len()).into()
}

/// Lines longer than this are not printed as snippets (minified JSON would flood the terminal);
/// the finding then names its position in words instead.
const MAX_SNIPPET_LINE: usize = 400;

/// Whether every line a span touches is short enough to show.
fn showable(file: &SourceFile, span: kubegap_core::Span) -> bool {
    let starts = file.line_starts();
    let first = file.line_index(span.start);
    let last = file.line_index(span.end.max(span.start));
    (first..=last).all(|i| {
        let start = starts[i] as usize;
        let end = starts.get(i + 1).map_or(file.text.len(), |e| *e as usize);
        end - start <= MAX_SNIPPET_LINE
    })
}

/// `file:line:column` of a span, for findings whose lines are too long to show.
fn where_is(file: &SourceFile, span: kubegap_core::Span) -> String {
    let at = file.line_col(span.start);
    format!("{}:{}:{}", file.name, at.line, at.column)
}

fn build<'a>(report: &'a Report, f: &Finding) -> Rendered<'a> {
    let file = report.files.get(f.span.file);
    if !showable(file, f.span)
        || f.labels
            .iter()
            .any(|l| !showable(report.files.get(l.span.file), l.span))
    {
        return build_without_snippets(report, f);
    }
    let mut labels = vec![LabeledSpan::new_primary_with_span(None, span_of(f.span))];
    let mut related = Vec::new();
    for l in &f.labels {
        if l.span.file == f.span.file {
            labels.push(LabeledSpan::new_with_span(
                Some(l.message.clone()),
                span_of(l.span),
            ));
        } else {
            related.push(Rendered {
                message: l.message.clone(),
                code: None,
                severity: miette::Severity::Advice,
                help: None,
                source: IndexedSource::new(report.files.get(l.span.file)),
                labels: vec![LabeledSpan::new_primary_with_span(None, span_of(l.span))],
                related: Vec::new(),
            });
        }
    }
    finding_diagnostic(f, IndexedSource::new(file), Vec::new(), labels, related)
}

/// The diagnostic of a finding: `lead` lines, then its notes, its Helm origin and its help
/// become the help text.
fn finding_diagnostic<'a>(
    f: &Finding,
    source: IndexedSource<'a>,
    lead: Vec<String>,
    labels: Vec<LabeledSpan>,
    related: Vec<Rendered<'a>>,
) -> Rendered<'a> {
    let mut help_lines = lead;
    help_lines.extend(f.notes.iter().cloned());
    if let Some(origin) = &f.origin {
        help_lines.push(format!("in Helm template {origin}"));
    }
    if let Some(help) = &f.help {
        help_lines.push(help.clone());
    }
    Rendered {
        message: f.message.clone(),
        code: Some(f.rule),
        severity: severity(f.severity),
        help: (!help_lines.is_empty()).then(|| help_lines.join("\n")),
        source,
        labels,
        related,
    }
}

/// A finding whose lines are too long to print: positions in words, no source snippets.
fn build_without_snippets<'a>(report: &'a Report, f: &Finding) -> Rendered<'a> {
    let file = report.files.get(f.span.file);
    let mut help_lines = vec![format!(
        "at {} (the line is too long to show)",
        where_is(file, f.span)
    )];
    for l in &f.labels {
        help_lines.push(format!(
            "{}: {}",
            where_is(report.files.get(l.span.file), l.span),
            l.message
        ));
    }
    finding_diagnostic(
        f,
        IndexedSource::new(file),
        help_lines,
        Vec::new(),
        Vec::new(),
    )
}

/// Renders every finding, then the summary line.
pub fn render(report: &Report, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false)
        .with_show_related_as_nested(true);
    let mut out = String::new();
    for f in &report.findings {
        let diag = build(report, f);
        if handler.render_report(&mut out, &diag).is_err() {
            out.push_str(&format!("{}: {}\n", f.rule, f.message));
        }
        out.push('\n');
    }
    out.push_str(&super::summary_line(report));
    out.push('\n');
    out
}

/// Renders one finding without the summary (for snapshot tests).
pub fn render_finding(report: &Report, f: &Finding) -> String {
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .with_links(false)
        .with_show_related_as_nested(true);
    let mut out = String::new();
    if handler.render_report(&mut out, &build(report, f)).is_err() {
        out.push_str(&format!("{}: {}\n", f.rule, f.message));
    }
    out
}
