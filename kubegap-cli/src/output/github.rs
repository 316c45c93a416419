//! `--format github`: GitHub Actions workflow commands, shown as inline annotations on PRs.

use kubegap_core::{Report, Severity};

use super::position;

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One `::error file=…` line per finding.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let file = report.files.get(f.span.file);
        let (line, column, end_line, end_column) = position(file, f.span);
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        // GitHub ignores columns on multi-line annotations; omit them there.
        let columns = if line == end_line {
            format!(",col={column},endColumn={end_column}")
        } else {
            String::new()
        };
        let mut message = f.message.clone();
        if let Some(origin) = &f.origin {
            message.push_str(&format!(" (from {origin})"));
        }
        if let Some(help) = &f.help {
            message.push_str(&format!("\nhelp: {help}"));
        }
        out.push_str(&format!(
            "::{level} file={},line={line},endLine={end_line}{columns},title={}::{}\n",
            escape_property(&file.name),
            escape_property(&format!("kubegap ({})", f.rule)),
            escape_data(&message)
        ));
    }
    out
}
