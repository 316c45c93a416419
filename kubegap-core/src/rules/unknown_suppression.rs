//! `unknown-suppression`: a suppression naming a rule that does not exist.

use crate::rule::prelude::*;

declare_rule! {
    /// A `# kubegap-ignore:` comment or a `kubegap.io/ignore` annotation names a rule id that
    /// does not exist, so it suppresses nothing.
    ///
    /// ## What it does
    /// Reports every unknown rule id in a suppression, with the closest known id when there is
    /// one (`k8s-no-pdbb` → `k8s-no-pdb`). The engine reports it while applying suppressions;
    /// only comments of the format count (a `kubegap-ignore:` inside a quoted value is not a
    /// suppression).
    ///
    /// ## Why is this bad?
    /// A typo in a suppression looks like a deliberate exemption in review, yet the finding it
    /// meant to silence is still reported, or worse, the author believes a check was
    /// considered when it never ran against that line. Ruff reports the same mistake in
    /// `# noqa` comments as `RUF102`.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: v1
    /// kind: ConfigMap
    /// metadata:
    ///   name: app # kubegap-ignore: k8s-no-pdbb
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: ConfigMap
    /// metadata:
    ///   name: app # kubegap-ignore: k8s-no-pdb
    /// ```
    pub static UNKNOWN_SUPPRESSION = {
        id: "unknown-suppression",
        severity: Warning,
        domain: Parse,
        summary: "a kubegap-ignore comment or annotation naming a rule that does not exist",
        evidence: &["https://docs.astral.sh/ruff/rules/invalid-rule-code/"],
        check: |_, _| {},
    }
}
