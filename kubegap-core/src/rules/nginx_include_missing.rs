//! `nginx-include-missing`: an nginx `include` that kubegap could not follow.

use crate::rule::prelude::*;

declare_rule! {
    /// An nginx `include` names a file that is missing, that includes itself again, or that lies
    /// outside what kubegap may read.
    ///
    /// ## What it does
    /// Reports an `include` directive (at the including file and line, which the message names)
    /// when:
    /// - the path has no glob characters and no file matches it, looked up as nginx does:
    ///   relative to the directory of the main configuration (nginx's conf prefix), absolute
    ///   paths under `--nginx-prefix`;
    /// - following it comes back to a file already being included (an include cycle; the
    ///   message lists the cycle);
    /// - it resolves outside the lint roots (the directories given, the directory of each file
    ///   given, the repository root), or into `/proc`, `/sys` or `/dev`, or to something that is
    ///   not a regular file: the message says "outside the lint root, not read" (or why else it
    ///   was not read) and names the path as written, never the file's content.
    ///
    /// A glob that matches nothing is fine (nginx accepts it). An absolute path without
    /// `--nginx-prefix`, and what a fragment (a `conf.d/*.conf` given alone) cannot find, are
    /// not reported: those files live on the server, not in the repository. Nor is a path
    /// holding a template placeholder (`%%TESTDIR%%/inc.conf`, `${CONF_DIR}/x.conf`): it is an
    /// unknown path, not a missing file.
    ///
    /// ## Why is this bad?
    /// `nginx -t` refuses a configuration whose plain `include` is missing or cyclic, so it
    /// never loads. Either way kubegap lints the configuration without the included
    /// directives: a finding that depends on them may be missing. A file outside the roots is
    /// not read on purpose: kubegap lints untrusted pull requests, and an `include
    /// ../../secret` must not copy a file of the CI runner into public annotations. Pass
    /// `--allow-read-outside-root` to lint a configuration spread over several trees.
    ///
    /// ## Example
    /// ```nginx,invalid
    /// events {}
    /// http {
    ///     include upstreams.conf;
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```nginx,valid
    /// events {}
    /// http {
    ///     # A glob may match nothing, as in nginx.
    ///     include conf.d/*.conf;
    /// }
    /// ```
    pub static NGINX_INCLUDE_MISSING = {
        id: "nginx-include-missing",
        severity: Warning,
        domain: Nginx,
        summary: "an nginx `include` that is missing, cyclic, or outside the lint root (not read)",
        evidence: &[
            "https://nginx.org/en/docs/ngx_core_module.html#include",
            "https://securitylab.github.com/resources/github-actions-preventing-pwn-requests/",
        ],
        check: |_, _| {},
    }
}
