//! Findings: what rules and parsers report. The CLI turns them into human, JSON or SARIF output.

use std::borrow::Cow;

use crate::source::Span;

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing.
    Info,
    /// Likely to cause an incident.
    Warning,
    /// Wrong: the configuration does not do what it says.
    Error,
}

impl Severity {
    /// The lowercase name used in output and configuration.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Parses `info`, `warning` or `error`.
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// A secondary location of a finding, possibly in another file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What is there (most labels are fixed text: no allocation for those).
    pub message: Cow<'static, str>,
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The rule id, e.g. `k8s-service-target-port-missing`.
    pub rule: &'static str,
    /// Severity after configuration overrides.
    pub severity: Severity,
    /// What is wrong, lowercase, with user text in backticks.
    pub message: String,
    /// The primary location: the shortest span that explains the problem.
    pub span: Span,
    /// Other locations involved (the other half of a conflict, where a value came from).
    pub labels: Vec<Label>,
    /// What to do about it (most help texts are fixed: no allocation for those).
    pub help: Option<Cow<'static, str>>,
    /// Public incident reports and documentation behind the rule.
    pub evidence: &'static [&'static str],
    /// Extra lines shown under the message (e.g. a chain of hops), in order.
    pub notes: Vec<String>,
    /// The template a Helm document came from (`# Source:`), filled in by the engine.
    pub origin: Option<String>,
}

impl Finding {
    /// Adds a secondary label.
    pub fn label(&mut self, span: Span, message: impl Into<Cow<'static, str>>) -> &mut Finding {
        let mut message = message.into();
        if let Cow::Owned(text) = &mut message {
            text.shrink_to_fit();
        }
        // Most findings have one to three labels: grow one at a time up to four instead of
        // starting at four (160 bytes per finding, 25 MB over 250,000 findings).
        if self.labels.len() == self.labels.capacity() && self.labels.len() < 4 {
            self.labels.reserve_exact(1);
        }
        self.labels.push(Label { span, message });
        self
    }

    /// Sets the help text.
    pub fn help(&mut self, help: impl Into<Cow<'static, str>>) -> &mut Finding {
        self.help = Some(help.into());
        self
    }

    /// Adds a note line.
    pub fn note(&mut self, note: impl Into<String>) -> &mut Finding {
        self.notes.push(note.into());
        self
    }

    /// Overrides the rule's default severity for this finding (before configuration overrides).
    pub fn severity(&mut self, severity: Severity) -> &mut Finding {
        self.severity = severity;
        self
    }
}

/// A problem a parser met. Parsers never fail: they return what they could read plus these, and
/// the engine reports each as a `parse-error` finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Where (an empty span at the error position is fine).
    pub span: Span,
    /// What went wrong, lowercase.
    pub message: String,
    /// Other locations (e.g. where an unclosed block was opened).
    pub labels: Vec<Label>,
}

impl ParseError {
    /// A parse error at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> ParseError {
        ParseError {
            span,
            message: message.into(),
            labels: Vec::new(),
        }
    }
}

/// The most characters of input text a message quotes.
pub const EXCERPT_CHARS: usize = 60;

/// Input text as quoted in a message: at most [`EXCERPT_CHARS`] characters (longer text is cut
/// and ends with `…`), control characters escaped. Messages quote tokens, never whole lines of
/// an arbitrary file: a message may be published (a GitHub annotation, SARIF) when the file it
/// quotes should not be.
pub fn excerpt(text: &str) -> String {
    excerpt_n(text, EXCERPT_CHARS)
}

/// [`excerpt`] with another limit, for messages of libraries that may quote input (at most
/// `max` characters, at least 2).
pub fn excerpt_n(text: &str, max: usize) -> String {
    let max = max.max(2);
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max - 1 && text.chars().nth(max).is_some() {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short() {
        assert_eq!(excerpt("proxy_pass"), "proxy_pass");
        assert_eq!(excerpt("a\u{0}b\n"), "a\\u{0}b\\n");
        let long = "9".repeat(1_000_000);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS);
        assert!(cut.ends_with('…'));
        assert_eq!(
            excerpt(&"x".repeat(EXCERPT_CHARS)),
            "x".repeat(EXCERPT_CHARS)
        );
    }
}
