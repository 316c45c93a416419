//! `unused-suppression`: a suppression that suppressed nothing.

use crate::rule::prelude::*;

declare_rule! {
    /// A `# kubegap-ignore:` comment or a `kubegap.io/ignore` annotation that suppressed
    /// nothing in this run (reported with `--report-unused-suppressions`, or when the rule is
    /// selected explicitly).
    ///
    /// ## What it does
    /// Reports each rule id of a suppression that matched no finding. Ids of rules that did not
    /// run (`--select`, `--ignore`) are not reported, since they could not match.
    ///
    /// ## Why is this bad?
    /// Suppressions outlive the findings they were written for: once the configuration is
    /// fixed, a stale comment silently exempts the next real problem on that line. Ruff's
    /// `RUF100` (unused `noqa`) exists for the same reason.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: v1
    /// kind: ConfigMap
    /// metadata:
    ///   name: app # kubegap-ignore: all
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: ConfigMap
    /// metadata:
    ///   name: app
    /// ```
    pub static UNUSED_SUPPRESSION = {
        id: "unused-suppression",
        severity: Info,
        domain: Parse,
        summary: "a kubegap-ignore comment or annotation that suppressed nothing",
        evidence: &["https://docs.astral.sh/ruff/rules/unused-noqa/"],
        check: |_, _| {},
    }
}
