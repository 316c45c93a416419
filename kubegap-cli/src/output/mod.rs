//! Output formats. Each format is a function of the sorted [`Report`]; none of them decides the
//! exit code.

use kubegap_core::{Report, SourceFile, Span};

pub mod chains;
pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

/// 1-based (line, column, end line, end column) of a span, columns in characters.
pub fn position(file: &SourceFile, span: Span) -> (u32, u32, u32, u32) {
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    (start.line, start.column, end.line, end.column)
}

/// The human summary line.
pub fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "{}, {}, {}: {}, {}, {}",
        plural(s.files, "file"),
        plural(s.documents, "document"),
        plural(s.objects, "object"),
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.infos, "info"),
    );
    if s.suppressed > 0 {
        line.push_str(&format!(" ({} suppressed)", s.suppressed));
    }
    line
}
