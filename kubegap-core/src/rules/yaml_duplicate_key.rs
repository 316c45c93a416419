//! `yaml-duplicate-key`: a mapping key written twice.

use crate::rule::prelude::*;

declare_rule! {
    /// A mapping key that appears twice in the same YAML mapping.
    ///
    /// ## What it does
    /// Flags the second occurrence of a key and points at the first.
    ///
    /// ## Why is this bad?
    /// YAML forbids duplicate keys, but most tools silently keep one of the values: `kubectl`
    /// and Helm keep the last, other tools the first or reject the file. The value that reaches
    /// the cluster is then not the one a reviewer reads. Nine files of the public corpus
    /// kubegap is tested on carry such duplicates.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: v1
    /// kind: ConfigMap
    /// metadata:
    ///   name: web
    /// data:
    ///   timeout: "30"
    ///   timeout: "3600"
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: ConfigMap
    /// metadata:
    ///   name: web
    /// data:
    ///   timeout: "3600"
    /// ```
    pub static YAML_DUPLICATE_KEY = {
        id: "yaml-duplicate-key",
        severity: Warning,
        domain: Parse,
        summary: "a YAML mapping key written twice (tools disagree on which value wins)",
        evidence: &["https://yaml.org/spec/1.2.2/#mapping"],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for doc in cx.documents {
        for (first, dup) in doc.duplicates() {
            // A key may be any scalar of the input: quote a short excerpt only.
            let key = crate::finding::excerpt(doc.node(*dup).as_str().unwrap_or_default());
            sink.report(
                doc.span(*dup),
                format!("duplicate key `{key}`; kubectl keeps this value, other tools the first"),
            )
            .label(doc.span(*first), "first written here")
            .help("remove one of the two entries");
        }
    }
}
