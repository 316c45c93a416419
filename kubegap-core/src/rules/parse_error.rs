//! `parse-error`: input that kubegap could not read.

use crate::rule::prelude::*;

declare_rule! {
    /// Input that kubegap could not read: malformed YAML, invalid UTF-8, nesting deeper than
    /// kubegap's limit, or a syntax error in an haproxy.cfg or nginx config.
    ///
    /// ## What it does
    /// Reports where a parser stopped understanding a file. The parsers never give up on a whole
    /// run: the rest of the file (the next YAML document, the next haproxy.cfg line) and every
    /// other file are still linted.
    ///
    /// ## Why is this bad?
    /// A document that does not parse is not applied by `kubectl`, is rejected by `haproxy -c`
    /// or `nginx -t`, and hides every other finding in it.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: web}
    /// ```
    pub static PARSE_ERROR = {
        id: "parse-error",
        severity: Error,
        domain: Parse,
        summary: "input that kubegap could not parse (YAML, haproxy.cfg, nginx)",
        evidence: &[],
        check: |_, _| {},
    }
}
