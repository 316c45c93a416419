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
            .line_start(1)
            .is_some_and(|s| s > 0 && text.get(s as usize - 1) == Some(&b'\r'));
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
        let n_lines = self.file.line_count();
        let first = self.file.line_index(start as u32);
        let last = self
            .file
            .line_index(end.saturating_sub(1).max(start) as u32);
        let window_start = first.saturating_sub(before);
        let window_end = (last + after).min(n_lines - 1);
        let data_end = self
            .file
            .line_start(window_end + 1)
            .map_or(len, |s| s as usize);
        let (data_start, line, column) = if before == 0 {
            let line_start = self.file.line_start(first).unwrap_or(0) as usize;
            let column = String::from_utf8_lossy(&text[line_start..start])
                .chars()
                .count();
            (start, first, column)
        } else {
            (
                self.file.line_start(window_start).unwrap_or(0) as usize,
                window_start,
                0,
            )
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

/// Labels spanning more lines than this are shown by their first and last lines.
const MAX_LABEL_LINES: usize = 4;

/// A file's escaped copy and, sorted by original offset, (offset of a control character,
/// bytes added by escaping up to and including it).
type Escaped = (SourceFile, Vec<(u32, u32)>);

/// Whether `bytes` may hold a character shown escaped ([`super::is_escaped`]) other than tab
/// and line feed: a byte below 0x20 (CR included), 0x7f, 0xc2 (the lead byte of C1 controls) or
/// 0xe2 (that of the bidi controls, and of `’`, `—` or `…` too). Branch-free over 64-byte
/// blocks, which the compiler vectorises (an early-exit loop is not).
fn may_hold_controls(bytes: &[u8]) -> bool {
    let suspect =
        |b: u8| (b < 0x20 && b != b'\n' && b != b'\t') | (b == 0x7f) | (b == 0xc2) | (b == 0xe2);
    let mut blocks = bytes.chunks_exact(64);
    for block in blocks.by_ref() {
        if block.iter().fold(false, |any, &b| any | suspect(b)) {
            return true;
        }
    }
    blocks.remainder().iter().any(|&b| suspect(b))
}

/// The files as they are shown: a file whose text holds control characters (or bidi controls)
/// is shown from a copy where each is escaped (`\u{1b}`), with the offsets of spans shifted to
/// match.
pub struct Shown<'a> {
    report: &'a Report,
    /// Per file id: the escaped copy and, sorted by original offset, (offset of a control
    /// character, bytes added by escaping up to and including it).
    escaped: Vec<Option<Escaped>>,
}

impl<'a> Shown<'a> {
    /// Prepares every file of a report for display.
    pub fn new(report: &'a Report) -> Shown<'a> {
        use rayon::prelude::*;
        let files: Vec<&SourceFile> = report.files.iter().map(|(_, file)| file).collect();
        // Every file in parallel; most hold no control character, which a byte scan tells
        // (every control character but tab and line feed has a byte below 0x20, 0x7f, or,
        // for C1, a 0xc2 lead byte; the bidi controls have a 0xe2 lead byte).
        let escaped = files
            .par_iter()
            .map(|file| {
                let text = &file.text;
                if !may_hold_controls(text.as_bytes()) {
                    return None;
                }
                // CR of a CRLF line end is a line end, not something to show.
                let raw = |i: usize, c: char| {
                    super::is_escaped(c)
                        && c != '\n'
                        && c != '\t'
                        && !(c == '\r' && text.as_bytes().get(i + 1) == Some(&b'\n'))
                };
                if !text.char_indices().any(|(i, c)| raw(i, c)) {
                    return None;
                }
                let mut shown = String::with_capacity(text.len() + 64);
                let mut shifts = Vec::new();
                let mut added = 0u32;
                for (i, c) in text.char_indices() {
                    if c == '\r' && text.as_bytes().get(i + 1) != Some(&b'\n') {
                        // A CR-only line end (old Mac files) is shown as a line end: same length,
                        // so no shift, and the terminal never sees a raw carriage return.
                        shown.push('\n');
                        continue;
                    }
                    if raw(i, c) {
                        let e =
                            super::escape_controls(c.encode_utf8(&mut [0; 4]), true).into_owned();
                        added += (e.len() - c.len_utf8()) as u32;
                        shifts.push((i as u32, added));
                        shown.push_str(&e);
                    } else {
                        shown.push(c);
                    }
                }
                let mut shown =
                    SourceFile::new(file.name.clone(), file.path.clone(), shown, file.kind);
                // Lines cut out of the text (`SourceFile::holes`) are cut out of what is shown
                // too: their places move by the escapes before them, their lines stay counted.
                if !file.holes().is_empty() {
                    let holes = file
                        .holes()
                        .iter()
                        .map(|hole| {
                            let k = shifts.partition_point(|(p, _)| *p < hole.at);
                            let added = k.checked_sub(1).map_or(0, |k| shifts[k].1);
                            kubegap_core::source::Hole {
                                at: hole.at + added,
                                ..*hole
                            }
                        })
                        .collect();
                    let text = std::sync::Arc::clone(&shown.text);
                    shown.set_holes(text, holes);
                }
                Some((shown, shifts))
            })
            .collect();
        Shown { report, escaped }
    }

    fn file(&self, id: kubegap_core::FileId) -> &SourceFile {
        match self.escaped.get(id.0 as usize) {
            Some(Some((file, _))) => file,
            _ => self.report.files.get(id),
        }
    }

    /// A span of the report in the shown text.
    fn span(&self, span: kubegap_core::Span) -> kubegap_core::Span {
        let Some(Some((_, shifts))) = self.escaped.get(span.file.0 as usize) else {
            return span;
        };
        // Bytes added by the escapes of the control characters before `off`: a span starting
        // on a control character starts at its escape, and one ending after it covers it.
        let shift = |off: u32| {
            let k = shifts.partition_point(|(p, _)| *p < off);
            off + if k == 0 { 0 } else { shifts[k - 1].1 }
        };
        let start = shift(span.start);
        let end = shift(span.end).max(start);
        kubegap_core::Span {
            file: span.file,
            start,
            end,
        }
    }
}

/// Whether every line a span touches is short enough to show.
fn showable(file: &SourceFile, span: kubegap_core::Span) -> bool {
    let first = file.line_index(span.start);
    let last = file.line_index(span.end.max(span.start));
    (first..=last).all(|i| file.line_range(i).len() <= MAX_SNIPPET_LINE)
}

/// `file:line:column` of a span, for findings whose lines are too long to show.
fn where_is(file: &SourceFile, span: kubegap_core::Span) -> String {
    let at = file.line_col(span.start);
    format!("{}:{}:{}", esc(&file.name), at.line, at.column)
}

fn esc(text: &str) -> String {
    super::escape_controls(text, false).into_owned()
}

/// The labels of one span: the span itself, or, when it covers more than
/// [`MAX_LABEL_LINES`] lines, its first line (with the label text and the line range) and its
/// last line, so a label over a 280-line pod template shows two lines, not 280.
fn labels_of(
    file: &SourceFile,
    span: kubegap_core::Span,
    text: Option<String>,
    primary: bool,
) -> Vec<LabeledSpan> {
    let first = file.line_index(span.start);
    let last = file.line_index(span.end.saturating_sub(1).max(span.start));
    if last - first < MAX_LABEL_LINES {
        let label = text;
        return vec![if primary {
            LabeledSpan::new_primary_with_span(label, span_of(span))
        } else {
            LabeledSpan::new_with_span(label, span_of(span))
        }];
    }
    let line_end = |i: usize| {
        let range = file.line_range(i);
        let line = file.text.get(range.clone()).unwrap_or("");
        range.start + line.trim_end().len()
    };
    let first_end = line_end(first).max(span.start as usize);
    let last_line_start = file.line_start(last).unwrap_or(0) as usize;
    let last_line = file.text.get(last_line_start..).unwrap_or("");
    let indent = last_line.len() - last_line.trim_start().len();
    let last_start = (last_line_start + indent).min(span.end as usize);
    let range = format!("lines {}–{}", first + 1, last + 1);
    let head = Some(match text {
        Some(t) => format!("{t} ({range})"),
        None => range.clone(),
    });
    // The head starts at the first non-blank character of its line (a block's indentation is
    // not part of what the label means).
    let head_text = file.text.get(span.start as usize..first_end).unwrap_or("");
    let head_start = span.start as usize + (head_text.len() - head_text.trim_start().len());
    let head_span = kubegap_core::Span {
        file: span.file,
        start: head_start.min(first_end) as u32,
        end: first_end as u32,
    };
    let tail_span = kubegap_core::Span {
        file: span.file,
        start: last_start as u32,
        end: span.end,
    };
    let tail = Some(format!("… to line {}", last + 1));
    if primary {
        vec![
            LabeledSpan::new_primary_with_span(head, span_of(head_span)),
            LabeledSpan::new_with_span(tail, span_of(tail_span)),
        ]
    } else {
        vec![
            LabeledSpan::new_with_span(head, span_of(head_span)),
            LabeledSpan::new_with_span(tail, span_of(tail_span)),
        ]
    }
}

fn build<'a>(shown: &'a Shown<'a>, f: &Finding) -> Rendered<'a> {
    let fspan = shown.span(f.span);
    let file = shown.file(f.span.file);
    if !showable(file, fspan)
        || f.labels.iter().any(|l| {
            let span = shown.span(l.span);
            !showable(shown.file(l.span.file), span)
        })
    {
        return build_without_snippets(shown, f);
    }
    let mut labels = labels_of(file, fspan, None, true);
    let mut related = Vec::new();
    for l in &f.labels {
        let lspan = shown.span(l.span);
        if l.span.file == f.span.file {
            labels.extend(labels_of(file, lspan, Some(esc(&l.message)), false));
        } else {
            let lfile = shown.file(l.span.file);
            related.push(Rendered {
                message: esc(&l.message),
                code: None,
                severity: miette::Severity::Advice,
                help: None,
                source: IndexedSource::new(lfile),
                labels: labels_of(lfile, lspan, None, true),
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
    help_lines.extend(f.notes.iter().map(|n| esc(n)));
    if let Some(origin) = &f.origin {
        help_lines.push(format!("in Helm template {}", esc(origin)));
    }
    if let Some(help) = &f.help {
        help_lines.push(esc(help));
    }
    Rendered {
        message: esc(&f.message),
        code: Some(f.rule),
        severity: severity(f.severity),
        help: (!help_lines.is_empty()).then(|| help_lines.join("\n")),
        source,
        labels,
        related,
    }
}

/// A finding whose lines are too long to print: positions in words, no source snippets.
fn build_without_snippets<'a>(shown: &'a Shown<'a>, f: &Finding) -> Rendered<'a> {
    let report = shown.report;
    let file = report.files.get(f.span.file);
    let mut help_lines = vec![format!(
        "at {} (the line is too long to show)",
        where_is(file, f.span)
    )];
    for l in &f.labels {
        help_lines.push(format!(
            "{}: {}",
            where_is(report.files.get(l.span.file), l.span),
            esc(&l.message)
        ));
    }
    finding_diagnostic(
        f,
        IndexedSource::new(shown.file(f.span.file)),
        help_lines,
        Vec::new(),
        Vec::new(),
    )
}

/// The terminal width: `COLUMNS` when set, else the width of the terminal on stdout, else
/// 100 columns. Never below 40.
pub fn width() -> usize {
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0);
    let width = from_env.or_else(|| {
        terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0))
    });
    width.unwrap_or(100).max(40)
}

fn handler(color: bool, width: usize) -> GraphicalReportHandler {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(width)
        .with_links(false)
        .with_show_related_as_nested(true)
        // Wrap only at spaces: never inside an identifier such as `default/web`.
        .with_break_words(false)
        .with_word_separator(textwrap::WordSeparator::AsciiSpace)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
}

/// Renders every finding, then the summary line, at the terminal's width.
pub fn render(report: &Report, color: bool) -> String {
    render_at(report, color, width())
}

/// Renders every finding, then the summary line, at `width` columns.
pub fn render_at(report: &Report, color: bool, width: usize) -> String {
    let mut out = Vec::new();
    // Writing to a vector does not fail.
    let _ = write_at(report, color, width, true, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes every finding, then (with `summary`) the summary line, at the terminal's width, one
/// finding at a time: the rendered report of a large input is never held whole (250,000
/// findings of a 1M-line haproxy.cfg rendered to 260 MB of text).
pub fn write(
    report: &Report,
    color: bool,
    summary: bool,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    write_at(report, color, width(), summary, w)
}

fn write_at(
    report: &Report,
    color: bool,
    width: usize,
    summary: bool,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let handler = handler(color, width);
    let shown = Shown::new(report);
    // Rendered in parallel, 64 findings a task, two tasks a thread a round, and written in
    // order (the whole text is never held: see above).
    super::write_in_order(
        &report.findings,
        64,
        2 * rayon::current_num_threads().max(1),
        |_, chunk| {
            let mut out = String::new();
            for f in chunk {
                let diag = build(&shown, f);
                if handler.render_report(&mut out, &diag).is_err() {
                    out.push_str(&format!("{}: {}\n", f.rule, esc(&f.message)));
                }
                out.push('\n');
            }
            Ok(out.into_bytes())
        },
        w,
    )?;
    if summary {
        writeln!(w, "{}", super::summary_line(report))?;
    }
    Ok(())
}

/// Renders one finding without the summary (for snapshot tests).
pub fn render_finding(report: &Report, f: &Finding) -> String {
    let handler = handler(false, 100);
    let shown = Shown::new(report);
    let mut out = String::new();
    if handler.render_report(&mut out, &build(&shown, f)).is_err() {
        out.push_str(&format!("{}: {}\n", f.rule, esc(&f.message)));
    }
    out
}

#[cfg(test)]
mod tests {
    use kubegap_core::{FileKind, Finding, Label, Report, Severity, SourceFile, SourceMap, Span};

    use super::render_at;

    /// A 300-line Deployment whose pod template (lines 8–287) is labelled as a whole, with a
    /// finding on its name: the kind of label that printed 280 lines before.
    fn long_label_report(name_value: &str) -> Report {
        let mut text = format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name_value}\nspec:\n  replicas: 1\n  template:\n    metadata:\n      labels: {{app: web}}\n    spec:\n      containers:\n"
        );
        for i in 0..69 {
            text.push_str(&format!(
                "        - name: c{i}\n          image: registry.example.com/c{i}:1.0\n          args: [--port, \"80{i:02}\"]\n          ports: [{{containerPort: 80}}]\n"
            ));
        }
        let template_start = text.find("    metadata:\n      labels").unwrap();
        let template_end = text.trim_end().len();
        text.push_str("status: {}\n");
        let name_start = text.find(name_value).unwrap();
        let mut files = SourceMap::default();
        let id = files.add(SourceFile::new("deploy.yaml", None, text, FileKind::Yaml));
        let finding = Finding {
            rule: "k8s-rollout-removes-all-backends",
            severity: Severity::Warning,
            message: format!("Deployment `default/{name_value}` runs a single replica, so every rollout leaves Service `default/web` without a backend"),
            span: Span::new(id, name_start, name_start + name_value.len()),
            labels: vec![Label {
                span: Span::new(id, template_start, template_end),
                message: "the pod template".into(),
            }],
            help: Some("set `replicas: 2` or more".into()),
            evidence: &[],
            notes: Vec::new(),
            origin: None,
        };
        Report {
            files,
            findings: vec![finding],
            summary: Default::default(),
        }
    }

    /// Findings rendered in parallel chunks come out as rendering each one alone, in order,
    /// across several rounds of chunks (300 findings, 64 a chunk).
    #[test]
    fn findings_are_written_in_order_across_rounds() {
        let mut report = long_label_report("web");
        let first = report.findings[0].clone();
        report.findings = (0..300)
            .map(|i| {
                let mut f = first.clone();
                f.message = format!("finding {i}");
                f
            })
            .collect();
        let mut expected = String::new();
        for f in &report.findings {
            expected.push_str(&super::render_finding(&report, f));
            expected.push('\n');
        }
        expected.push_str(&crate::output::summary_line(&report));
        expected.push('\n');
        assert_eq!(render_at(&report, false, 100), expected);
    }

    /// A file with lines cut out of its text (`SourceFile::holes`) and control characters
    /// before the cuts keeps, as shown, every line where it was: each cut is at the start of
    /// the same line, and every line after it starts on the line of the file as written.
    #[test]
    fn escapes_before_cut_lines_move_the_cuts_with_them() {
        let kept = "a: \u{7}\u{1b}\n\u{7}\nb: 1\nc: 2\nd: 3\ne: \u{7}4\nf: 5\n";
        let mut file = SourceFile::new("cut.yaml", None, kept.to_string(), FileKind::Yaml);
        // Ten lines cut before `c:` (the fourth line as kept), five before `f:`.
        let holes = vec![
            kubegap_core::source::Hole {
                at: kept.find("c:").unwrap() as u32,
                lines: 10,
                line: 0,
                before: 0,
            },
            kubegap_core::source::Hole {
                at: kept.find("f:").unwrap() as u32,
                lines: 5,
                line: 0,
                before: 0,
            },
        ];
        file.set_holes(std::sync::Arc::new(kept.to_string()), holes);
        let mut files = SourceMap::default();
        let id = files.add(file);
        let report = Report {
            files,
            findings: Vec::new(),
            summary: Default::default(),
        };
        let shown = super::Shown::new(&report);
        let (written, escaped) = (report.files.get(id), shown.file(id));
        assert_ne!(
            written.text, escaped.text,
            "the control characters are escaped"
        );
        let lines: Vec<&str> = written.text.lines().collect();
        let shown_lines: Vec<&str> = escaped.text.lines().collect();
        assert_eq!(lines.len(), shown_lines.len());
        for (a, b) in written.holes().iter().zip(escaped.holes()) {
            assert_eq!((a.line, a.lines), (b.line, b.lines));
            assert_eq!(escaped.text.as_bytes()[b.at as usize - 1], b'\n');
        }
        for (k, line) in lines.iter().enumerate() {
            let at = written.text.find(line).unwrap() as u32;
            let shown_at = escaped.text.find(shown_lines[k]).unwrap() as u32;
            assert_eq!(
                written.line_col(at),
                escaped.line_col(shown_at),
                "line {k} as kept: {line:?}"
            );
        }
    }

    /// The byte pre-check never misses a control character the char-level scan would see,
    /// wherever it sits (in a 64-byte block or in the remainder).
    #[test]
    fn the_byte_check_sees_every_control_character() {
        use super::may_hold_controls;
        let plain = "key: value é ü 日本\tx\n".repeat(9);
        assert!(!may_hold_controls(plain.as_bytes()));
        let controls = (0u32..0x20)
            .chain(0x7f..0xa0)
            .chain(0x202a..=0x202e)
            .chain(0x2066..=0x2069)
            .filter_map(char::from_u32)
            .filter(|c| *c != '\n' && *c != '\t');
        for c in controls {
            for at in [0, 5, 63, 64, 100, plain.len()] {
                let mut text = plain.clone();
                let at = (0..=at)
                    .rev()
                    .find(|i| text.is_char_boundary(*i))
                    .unwrap_or(0);
                text.insert(at, c);
                assert!(may_hold_controls(text.as_bytes()), "{c:?} at {at}");
            }
        }
    }

    #[test]
    fn a_label_over_280_lines_shows_its_first_and_last_lines() {
        let report = long_label_report("web");
        let text = render_at(&report, false, 100);
        assert!(text.lines().count() < 30, "{text}");
        insta::assert_snapshot!("long_label", text);
    }

    /// Bidi controls in the source ("Trojan Source": they reorder what a terminal shows around
    /// them) are shown escaped in the snippet, as they are in the message, and the label
    /// underlines the whole name as shown.
    #[test]
    fn bidi_controls_in_the_source_are_escaped() {
        let report = long_label_report("we\u{202e}b\u{2066}x");
        let text = render_at(&report, false, 100);
        assert!(
            !text.contains('\u{202e}') && !text.contains('\u{2066}'),
            "{text}"
        );
        insta::assert_snapshot!("bidi_escaped", text);
    }

    #[test]
    fn control_characters_are_escaped_and_width_is_honoured() {
        let report = long_label_report("\"web\\e]0;title\\a\\e[2J\"");
        // The parser is not involved here: the text holds the backslashes literally, so put
        // real control characters in the message and the source.
        let mut report = report;
        let file = report.files.get(kubegap_core::FileId(0));
        let text = file.text.replace("\\e", "\u{1b}").replace("\\a", "\u{7}");
        let mut files = SourceMap::default();
        files.add(SourceFile::new(
            "deploy.yaml",
            None,
            text.clone(),
            FileKind::Yaml,
        ));
        let start = text.find("\"web").unwrap();
        let end = text[start + 1..].find('"').unwrap() + start + 2;
        report.files = files;
        report.findings[0].span = Span::new(kubegap_core::FileId(0), start, end);
        report.findings[0].message = report.findings[0].message.replace("\\e", "\u{1b}");
        let label_start = text.find("    metadata:\n      labels").unwrap();
        report.findings[0].labels[0].span = Span::new(
            kubegap_core::FileId(0),
            label_start,
            text.trim_end().len() - 11,
        );
        let narrow = render_at(&report, false, 60);
        assert!(
            !narrow.contains('\u{1b}') && !narrow.contains('\u{7}'),
            "{narrow}"
        );
        insta::assert_snapshot!("escaped_narrow", narrow);
        for line in narrow.lines() {
            let t = line.trim_start();
            if !t.starts_with(|c: char| c.is_ascii_digit()) && !t.starts_with('·') {
                assert!(line.chars().count() <= 60, "{line:?}");
            }
        }
    }
}
