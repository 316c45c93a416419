//! Declaring rules: one file per rule holds its documentation, metadata and check.
//!
//! A rule is a `static` [`Rule`] built by [`declare_rule!`]. The doc comment above it *is* the
//! documentation that `kubegap explain` prints and that `docs/rules/` is generated from; its
//! fenced examples tagged `invalid` / `valid` are run as tests (`kubegap-core/tests/rule_docs.rs`).

use crate::finding::{Finding, Severity};
use crate::model::Model;
use crate::source::Span;

/// Everything a rule may look at: the read-only [`Model`] (reachable directly through `Deref`:
/// `cx.files`, `cx.k8s`, `cx.node(at)`, `cx.cite(span)`) and the layers built from it once per
/// run. Rules are pure functions of this.
pub struct Context<'a> {
    /// Parsed inputs, graph, proxy configs and settings.
    pub model: &'a Model<'a>,
    /// Ingress controllers, routes and load balancers with their effective settings, built once
    /// per run.
    pub controllers: &'a crate::controllers::Model,
    /// One prepared view per haproxy.cfg (same order as `haproxy`), for the configured HAProxy
    /// version: built once per run, not once per rule.
    pub haproxy_views: &'a [crate::haproxy::View<'a>],
    /// Timeout chains through the layers, built once per run.
    pub chains: &'a crate::chain::Chains,
}

impl<'a> std::ops::Deref for Context<'a> {
    type Target = Model<'a>;

    fn deref(&self) -> &Model<'a> {
        self.model
    }
}

impl<'a> Context<'a> {
    /// The stage the chains are built in (model and controllers), for rules that call chain
    /// helpers such as [`crate::chain::app::detect`].
    pub fn chain_stage(&self) -> crate::chain::Stage<'a> {
        crate::chain::Stage {
            model: self.model,
            controllers: self.controllers,
        }
    }
}

/// A rule's check: reads the context, reports into the sink.
pub type CheckFn = fn(&Context<'_>, &mut Sink);

/// A rule's check of workloads, one block of them at a time: reads the context and those
/// workloads (consecutive ones of `cx.k8s.workloads`, in order), reports into the sink. What it
/// finds about one workload depends on that workload and the run's shared structures only,
/// never on the other workloads of the block.
///
/// The engine runs every rule's workload check over one block before going to the next, so
/// that the block's documents are read from the cache by all rules rather than from memory
/// by each (the rules stage grew ×2.6–2.7 per doubling of a 51 MB stream when each rule walked
/// every workload in turn; docs/PERFORMANCE.md).
pub type WorkloadsFn = for<'a> fn(&Context<'a>, &'a [crate::k8s::Workload], &mut Sink);

/// A rule's check of objects, one block of them at a time: reads the context and the objects
/// whose ids are in the range (of any kind: an HPA, an Ingress, a Service), reports into the
/// sink. The engine runs it with [`WorkloadsFn`]s, over the objects from a block's first
/// workload up to the next block's, so that the documents a workload check has just read are
/// still in the cache (a `helm template` release's HPA, Ingress and Service sit beside its
/// Deployment). Like a workload check, what it finds about one object never depends on which
/// other objects share its block. [`crate::k8s::in_block`] cuts a list in object order to the
/// range.
pub type ObjectsFn = fn(&Context<'_>, std::ops::Range<crate::k8s::ObjId>, &mut Sink);

/// A check with nothing to do outside its workload or object check.
pub fn nothing(_: &Context<'_>, _: &mut Sink) {}

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
    /// The check of everything but workloads (or of everything, for a rule without
    /// [`Rule::workloads`]).
    pub check: CheckFn,
    /// The check of workloads, run one block at a time ([`WorkloadsFn`]). A rule's findings
    /// are those of its workload check, block after block, then those of its object check
    /// ([`Rule::objects`]), then those of [`Rule::check`].
    pub workloads: Option<WorkloadsFn>,
    /// The check of objects, run one block of them at a time with the workload checks
    /// ([`ObjectsFn`]). Its findings come after the workload check's, before [`Rule::check`]'s.
    pub objects: Option<ObjectsFn>,
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
    let mut message = message.into();
    // `format!` over-allocates; findings live until the report is written.
    message.shrink_to_fit();
    Finding {
        rule: rule.id,
        severity: rule.default_severity,
        message,
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
///         // Optional: a check of workloads, run a block of them at a time (`WorkloadsFn`).
///         workloads: check_workloads,
///         // Optional: a check of objects, run with each block of workloads (`ObjectsFn`).
///         objects: check_objects,
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
            $(, workloads: $workloads:expr)?
            $(, objects: $objects:expr)?
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
            workloads: $crate::declare_rule!(@optional $($workloads)?),
            objects: $crate::declare_rule!(@optional $($objects)?),
            also_reports: &[$($($crate::finding::Severity::$also),*)?],
        };
    };
    (@optional) => { None };
    (@optional $check:expr) => { Some($check) };
}

/// What rule files import.
pub mod prelude {
    pub use crate::declare_rule;
    pub use crate::finding::{Finding, Severity};
    pub use crate::k8s::{ObjId, Workload};
    pub use crate::rule::{Context, Sink};
    pub use crate::source::Span;
}
