//! `--format junit`: JUnit XML for GitLab CI, Jenkins and Azure DevOps.
//!
//! One `<testsuite>` per file, one `<testcase>` per rule and file (every enabled rule that
//! reads the file's kind, plus any rule with a finding in it), and one `<failure>` per failing
//! testcase that lists each of its findings. The document satisfies the Apache Ant JUnit
//! schema (`kubegap-cli/tests/junit/JUnit.xsd`), whose attributes include a timestamp: it is
//! fixed at the epoch so the output stays byte-identical from run to run.

use std::collections::BTreeMap;

use kubegap_core::rule::Domain;
use kubegap_core::rules::RULES;
use kubegap_core::{FileKind, Finding, Report, Severity};

use super::{escape_controls, position};

/// Escapes text for XML 1.0 (control characters, which XML cannot carry, shown escaped).
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_xml(&mut out, text, false);
    out
}

/// Appends `text` escaped for XML 1.0 to `out`; newlines stay newlines in text content
/// (`content`) and are written `&#10;` in attributes. Character by character, so text appended
/// in pieces is escaped as it would be whole.
fn push_xml(out: &mut String, text: &str, content: bool) {
    for c in escape_controls(text, false).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' if content => out.push('\n'),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            _ => out.push(c),
        }
    }
}

fn reads(domain: Domain, kind: FileKind) -> bool {
    match domain {
        Domain::Parse | Domain::Chain => true,
        Domain::Kubernetes | Domain::Controller => kind == FileKind::Yaml,
        Domain::Haproxy => kind == FileKind::Haproxy,
        Domain::Nginx => kind == FileKind::Nginx,
    }
}

/// Renders the report (rules that ran are those with findings or enabled by `enabled`).
pub fn render_with(report: &Report, enabled: &dyn Fn(&str) -> bool) -> String {
    let mut out = Vec::new();
    match write_with(report, enabled, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(e) => format!("<!-- error: {} -->\n", xml(&e.to_string())),
    }
}

/// Writes what [`render_with`] returns to `w`, a test suite at a time: the document has a test
/// case for every rule that reads each file (178,788 of them, 32 MB, for the corpus of
/// `docs/PERFORMANCE.md`), which a run held whole before writing it.
pub fn write_with(
    report: &Report,
    enabled: &dyn Fn(&str) -> bool,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let mut by_file: BTreeMap<u32, BTreeMap<&str, Vec<&Finding>>> = BTreeMap::new();
    for f in &report.findings {
        by_file
            .entry(f.span.file.0)
            .or_default()
            .entry(f.rule)
            .or_default()
            .push(f);
    }
    w.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n")?;
    let mut out = String::new();
    let mut files: Vec<_> = report.files.iter().collect();
    files.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    for (suite_id, (id, file)) in files.into_iter().enumerate() {
        let findings = by_file.remove(&id.0).unwrap_or_default();
        let mut cases: Vec<&str> = RULES
            .iter()
            .filter(|r| enabled(r.id) && reads(r.domain, file.kind))
            .map(|r| r.id)
            .collect();
        cases.extend(findings.keys().copied());
        cases.sort_unstable();
        cases.dedup();
        let failures = cases.iter().filter(|r| findings.contains_key(*r)).count();
        out.clear();
        let name = xml(&file.name);
        out.push_str(&format!(
            "  <testsuite name=\"{name}\" package=\"kubegap\" id=\"{suite_id}\" timestamp=\"1970-01-01T00:00:00\" hostname=\"localhost\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" time=\"0\">\n    <properties/>\n",
            cases.len()
        ));
        for rule in cases {
            out.push_str(&format!(
                "    <testcase name=\"{rule}\" classname=\"{name}\" time=\"0\""
            ));
            let Some(list) = findings.get(rule) else {
                out.push_str("/>\n");
                continue;
            };
            let worst = list
                .iter()
                .map(|f| f.severity)
                .max()
                .unwrap_or(Severity::Error);
            let message = if list.len() == 1 {
                list[0].message.clone()
            } else {
                format!("{} findings of {rule}", list.len())
            };
            out.push_str(&format!(
                ">\n      <failure message=\"{}\" type=\"{}\">",
                xml(&message),
                worst.name(),
            ));
            // The findings, escaped as they are appended: a rule with 15,000 findings in a
            // stream was a 5 MB body copied three times over while escaping.
            for f in list {
                let (line, column, _, _) = position(file, f.span);
                let mut text = format!(
                    "{}:{line}:{column}: {} {rule}: {}\n",
                    file.name,
                    f.severity.name(),
                    f.message
                );
                if let Some(origin) = &f.origin {
                    text.push_str(&format!("  in Helm template {origin}\n"));
                }
                if let Some(help) = &f.help {
                    text.push_str(&format!("  help: {help}\n"));
                }
                push_xml(&mut out, &text, true);
            }
            out.push_str("</failure>\n    </testcase>\n");
        }
        out.push_str("    <system-out/>\n    <system-err/>\n  </testsuite>\n");
        w.write_all(out.as_bytes())?;
    }
    w.write_all(b"</testsuites>\n")
}

/// Renders the report; every rule counts as enabled (see [`render_with`]).
pub fn render(report: &Report) -> String {
    render_with(report, &|_| true)
}
