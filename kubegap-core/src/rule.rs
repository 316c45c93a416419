//! Declaring rules: one file per rule holds its documentation, metadata and check.
//!
//! A rule is a `static` [`Rule`] built by [`declare_rule!`]. The doc comment above it *is* the
//! documentation that `kubegap explain` prints and that `docs/rules/` is generated from; its
//! fenced examples tagged `invalid` / `valid` are run as tests (`kubegap-core/tests/rule_docs.rs`).

use crate::config::Settings;
use crate::finding::{Finding, Severity};
use crate::haproxy::HaproxyConfig;
use crate::k8s::Graph;
use crate::nginx::NginxConfig;
use crate::source::{SourceMap, Span};
use crate::yaml::Document;

/// Everything a rule may look at. Rules are pure functions of this.
pub struct Context<'a> {
    /// All files of the run.
    pub files: &'a SourceMap,
    /// Every parsed YAML document of every file, in file order.
    pub documents: &'a [Document],
    /// The Kubernetes object graph built from the documents.
    pub k8s: &'a Graph,
    /// Parsed haproxy.cfg files.
    pub haproxy: &'a [HaproxyConfig],
    /// Parsed nginx configurations (each with its includes).
    pub nginx: &'a [NginxConfig],
    /// Resolved settings (versions, topology, options).
    pub settings: &'a Settings,
    /// Ingress controllers, routes and load balancers with their effective settings, built once
    /// per run.
    pub controllers: &'a crate::controllers::Model,
    /// Workload ↔ Service, HPA and PDB links, resolved once per run.
    pub links: &'a crate::k8s::pod::Links<'a>,
    /// Timeout chains through the layers, built once per run (empty while they are built).
    pub chains: &'a [crate::chain::Chain],
}

impl<'a> Context<'a> {
    /// The YAML node at a graph position.
    pub fn node(&self, at: crate::k8s::At) -> crate::yaml::NodeRef<'a> {
        self.documents[at.doc].node(at.node)
    }

    /// The span of the YAML node at a graph position.
    pub fn span(&self, at: crate::k8s::At) -> Span {
        self.documents[at.doc].span(at.node)
    }

    /// An object of the graph.
    pub fn obj(&self, id: crate::k8s::ObjId) -> &'a crate::k8s::Object {
        &self.k8s.objects[id]
    }

    /// The span of the last key of `path` in an object (`["spec", "selector"]`): where a
    /// finding about a block value points, since a block mapping's value starts on the next
    /// line. `None` when the path is not there.
    pub fn key_span(&self, id: crate::k8s::ObjId, path: &[&str]) -> Option<Span> {
        let (last, parents) = path.split_last()?;
        let parent = self.node(self.obj(id).at).path(parents)?;
        parent.get_entry(last).map(|(key, _)| key.span())
    }

    /// `Kind/namespace/name` of an object, for messages.
    pub fn describe(&self, id: crate::k8s::ObjId) -> String {
        let o = self.obj(id);
        format!("{} `{}/{}`", o.kind, o.namespace, o.name)
    }

    /// `file:line` of a span, for messages that cite where a number came from. The file is
    /// named by its base name: the finding's labels carry the full location.
    pub fn cite(&self, span: Span) -> String {
        let file = self.files.get(span.file);
        format!("{}:{}", file.base_name(), file.line_col(span.start).line)
    }
}

/// A rule's check: reads the context, reports into the sink.
pub type CheckFn = fn(&Context<'_>, &mut Sink);

/// A rule: public id, default severity, documentation and check.
pub struct Rule {
    /// The public id, kebab-case, naming the bad pattern. Users' configs refer to it.
    pub id: &'static str,
    /// Severity unless a finding or the configuration says otherwise.
    pub default_severity: Severity,
    /// One-line summary for `kubegap rules`.
    pub summary: &'static str,
    /// Full Markdown documentation (the doc comment of the declaration).
    pub docs: &'static str,
    /// Links to the public incident reports and documentation the rule comes from.
    pub evidence: &'static [&'static str],
    /// Which inputs the rule reads (for documentation and doc-example tests).
    pub domain: Domain,
    /// The check.
    pub check: CheckFn,
    /// Severities the rule's findings may carry besides the default (a finding that lowers or
    /// raises itself with `Finding::severity`), before configuration overrides. Declared with
    /// the optional `also_reports: [Warning, Info]` of [`declare_rule!`]; a test checks that
    /// every rule calling `.severity(...)` declares what it reports.
    pub also_reports: &'static [Severity],
}

impl Rule {
    /// Every severity the rule can report at (before configuration overrides), highest first.
    pub fn reported_severities(&self) -> Vec<Severity> {
        let mut out = vec![self.default_severity];
        out.extend(self.also_reports.iter().copied());
        out.sort_by(|a, b| b.cmp(a));
        out.dedup();
        out
    }

    /// The documentation as Markdown: the doc comment without the space that follows each
    /// `///`.
    pub fn markdown(&self) -> String {
        let mut out = String::with_capacity(self.docs.len());
        for line in self.docs.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out
    }
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The layer a rule looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Domain {
    /// The parsers themselves.
    Parse,
    /// Kubernetes objects.
    Kubernetes,
    /// haproxy.cfg.
    Haproxy,
    /// nginx configs.
    Nginx,
    /// Ingress controllers, routes and cloud load balancers configured through objects.
    Controller,
    /// Several layers at once (timeout chains).
    Chain,
}

/// Collects a rule's findings.
pub struct Sink {
    rule: &'static Rule,
    findings: Vec<Finding>,
}

impl Sink {
    /// A sink for one rule.
    pub fn new(rule: &'static Rule) -> Sink {
        Sink {
            rule,
            findings: Vec::new(),
        }
    }

    /// Reports a finding at `span` and returns it for labels and help.
    pub fn report(&mut self, span: Span, message: impl Into<String>) -> &mut Finding {
        self.findings.push(finding(self.rule, span, message));
        let last = self.findings.len() - 1;
        &mut self.findings[last]
    }

    /// The findings reported so far.
    pub fn into_findings(self) -> Vec<Finding> {
        self.findings
    }
}

/// A finding of `rule` at `span` with the rule's default severity and evidence.
pub fn finding(rule: &'static Rule, span: Span, message: impl Into<String>) -> Finding {
    Finding {
        rule: rule.id,
        severity: rule.default_severity,
        message: message.into(),
        span,
        labels: Vec::new(),
        help: None,
        evidence: rule.evidence,
        notes: Vec::new(),
        origin: None,
    }
}

/// Declares a rule. The doc comment becomes [`Rule::docs`]; its first line should be one sentence.
///
/// ```ignore
/// declare_rule! {
///     /// Flags X.
///     pub static MY_RULE = {
///         id: "my-rule", severity: Warning, domain: Kubernetes,
///         summary: "…", evidence: &["https://…"], check: check,
///     }
/// }
/// ```
#[macro_export]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        $vis:vis static $name:ident = {
            id: $id:literal,
            severity: $sev:ident,
            domain: $domain:ident,
            summary: $summary:literal,
            evidence: $evidence:expr,
            check: $check:expr
            $(, also_reports: [$($also:ident),* $(,)?])? $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        $vis static $name: $crate::rule::Rule = $crate::rule::Rule {
            id: $id,
            default_severity: $crate::finding::Severity::$sev,
            summary: $summary,
            docs: concat!($($doc, "\n"),*),
            evidence: $evidence,
            domain: $crate::rule::Domain::$domain,
            check: $check,
            also_reports: &[$($($crate::finding::Severity::$also),*)?],
        };
    };
}

/// What rule files import.
pub mod prelude {
    pub use crate::declare_rule;
    pub use crate::finding::{Finding, Severity};
    pub use crate::rule::{Context, Sink};
    pub use crate::source::Span;
}
