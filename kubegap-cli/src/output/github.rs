//! `--format github`: GitHub Actions workflow commands, shown as inline annotations on PRs.

use kubegap_core::{Report, Severity};

use super::position;

fn escape_data(s: &str) -> String {
    // Control characters from the input (terminal escape sequences) are shown escaped; the
    // line ends of multi-line messages are encoded below.
    super::escape_controls_except(s, &['\n', '\r', '\t'])
        .replace('%', "%25")
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
            // Repository-relative, as GitHub matches annotations to files (and as SARIF does).
            escape_property(file.name.trim_start_matches("./")),
            escape_property(&format!("kubegap ({})", f.rule)),
            escape_data(&message)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use kubegap_core::{FileKind, Finding, Report, Severity, SourceFile, SourceMap, Span, Summary};

    use super::render;

    /// A report over one file with one finding per (severity, start, end, message), so each test
    /// states exactly the lines it expects.
    fn report(name: &str, text: &str, findings: &[(Severity, usize, usize, &str)]) -> Report {
        let mut files = SourceMap::default();
        let id = files.add(SourceFile::new(
            name,
            None,
            text.to_string(),
            FileKind::Yaml,
        ));
        let findings = findings
            .iter()
            .map(|&(severity, start, end, message)| Finding {
                rule: "k8s-service-target-port-missing",
                severity,
                message: message.to_string(),
                span: Span::new(id, start, end),
                labels: Vec::new(),
                help: None,
                evidence: &[],
                notes: Vec::new(),
                origin: None,
            })
            .collect();
        Report {
            files,
            findings,
            summary: Summary::default(),
        }
    }

    #[test]
    fn data_escapes_percent_carriage_return_and_newline_but_not_colon_or_comma() {
        let mut r = report(
            "a.yaml",
            "key: value\n",
            &[(Severity::Error, 5, 10, "100% wrong\r\nsee: a, b")],
        );
        r.findings[0].help = Some("use `50%`".into());
        assert_eq!(
            render(&r),
            "::error file=a.yaml,line=1,endLine=1,col=6,endColumn=11,\
             title=kubegap (k8s-service-target-port-missing)::\
             100%25 wrong%0D%0Asee: a, b%0Ahelp: use `50%25`\n"
        );
    }

    #[test]
    fn properties_also_escape_colon_and_comma() {
        // A file name with every character GitHub's property syntax reserves: `,` ends a
        // property and `:` ends the property list; `%`, CR and LF are escaped everywhere.
        let r = report(
            "dir,x/a:b%c\r\n.yaml",
            "k: v\n",
            &[(Severity::Warning, 3, 4, "m")],
        );
        assert_eq!(
            render(&r),
            "::warning file=dir%2Cx/a%3Ab%25c%0D%0A.yaml,line=1,endLine=1,col=4,endColumn=5,\
             title=kubegap (k8s-service-target-port-missing)::m\n"
        );
    }

    #[test]
    fn file_names_are_repository_relative_without_a_leading_dot_slash() {
        // `kubegap lint` walks `.` by default and names files `./k8s/a.yaml`.
        let r = report("./k8s/a.yaml", "k: v\n", &[(Severity::Info, 0, 1, "m")]);
        assert_eq!(
            render(&r),
            "::notice file=k8s/a.yaml,line=1,endLine=1,col=1,endColumn=2,\
             title=kubegap (k8s-service-target-port-missing)::m\n"
        );
    }

    #[test]
    fn origin_goes_into_the_message_escaped_as_data() {
        let mut r = report("<stdin>", "k: v\n", &[(Severity::Error, 0, 1, "m")]);
        r.findings[0].origin = Some("chart/templates/a,b.yaml".to_string());
        assert_eq!(
            render(&r),
            "::error file=<stdin>,line=1,endLine=1,col=1,endColumn=2,\
             title=kubegap (k8s-service-target-port-missing)::m (from chart/templates/a,b.yaml)\n"
        );
    }

    #[test]
    fn multi_line_spans_omit_columns() {
        // Columns only make sense on one line; GitHub ignores them otherwise.
        let r = report(
            "a.yaml",
            "spec:\n  ports:\n  - port: 80\n",
            &[(Severity::Error, 8, 25, "m")],
        );
        assert_eq!(
            render(&r),
            "::error file=a.yaml,line=2,endLine=3,\
             title=kubegap (k8s-service-target-port-missing)::m\n"
        );
    }

    #[test]
    fn info_is_a_notice_and_columns_count_characters() {
        // `é` is two bytes but one column, as in the JSON and SARIF output.
        let text = "name: é-x\n";
        let start = text.find('x').unwrap();
        let r = report("a.yaml", text, &[(Severity::Info, start, start + 1, "m")]);
        assert_eq!(
            render(&r),
            "::notice file=a.yaml,line=1,endLine=1,col=9,endColumn=10,\
             title=kubegap (k8s-service-target-port-missing)::m\n"
        );
    }

    #[test]
    fn one_line_per_finding_in_report_order() {
        let r = report(
            "a.yaml",
            "a: 1\nb: 2\n",
            &[
                (Severity::Error, 0, 1, "first"),
                (Severity::Warning, 5, 6, "second"),
                (Severity::Info, 8, 9, "third"),
            ],
        );
        let out = render(&r);
        let levels: Vec<&str> = out
            .lines()
            .map(|l| l.split(' ').next().unwrap_or_default())
            .collect();
        assert_eq!(levels, ["::error", "::warning", "::notice"]);
        assert!(out.ends_with("::third\n"), "{out}");
    }
}
