//! No silent passes: an empty stdin (a failed `helm template` upstream, in a shell without
//! `pipefail`) or an input with no manifest, haproxy or nginx content at all is an error of
//! the command (exit 2) unless `--allow-empty`.

use kubegap_core::{FileKind, Input, Report};

/// What stdin held, when it held nothing to lint: `None` when stdin was not read or has content.
pub fn blank_stdin(inputs: &[Input]) -> Option<String> {
    let stdin = inputs.iter().find(|i| i.path.is_none())?;
    if !kubegap_core::kind::is_blank(&stdin.bytes) {
        return None;
    }
    Some(if stdin.bytes.is_empty() {
        "stdin is empty (0 bytes read): the command that feeds kubegap may have failed; pass --allow-empty if an empty input is expected".to_string()
    } else {
        format!(
            "stdin holds no manifest, haproxy or nginx content ({} bytes of blank lines, comments and document markers): the command that feeds kubegap may have failed; pass --allow-empty if this is expected",
            stdin.bytes.len()
        )
    })
}

/// Why the run linted nothing, if it did: `blank_stdin` first, then a run with no Kubernetes
/// object, no haproxy.cfg, no nginx config and no finding at all.
pub fn nothing_to_lint(report: &Report, blank_stdin: Option<String>) -> Option<String> {
    if blank_stdin.is_some() {
        return blank_stdin;
    }
    let s = &report.summary;
    let configs = report.files.iter().any(|(_, f)| f.kind != FileKind::Yaml);
    if s.objects > 0 || configs || !report.findings.is_empty() || s.suppressed > 0 {
        return None;
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    Some(if s.files == 0 {
        "nothing to lint: no manifest (*.yaml, *.yml, *.json), haproxy.cfg or nginx config was found; pass --allow-empty if that is expected".to_string()
    } else {
        format!(
            "nothing to lint: read {} with {} but no Kubernetes object (no document has `apiVersion` and `kind`), no haproxy.cfg and no nginx config; pass --allow-empty if that is expected",
            plural(s.files, "file"),
            plural(s.documents, "YAML document"),
        )
    })
}
