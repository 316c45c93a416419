//! `haproxy-retries-without-redispatch`: retries hammer the same dead server, and the worst
//! case stall is `(retries + 1) × timeout connect`.

use crate::haproxy::{logic, Line, PerRequest, Server, View};
use crate::rule::prelude::*;
use crate::value::duration::Millis;

declare_rule! {
    /// A backend that retries connections (3 times by default) without
    /// `option redispatch`, or whose worst-case connect stall exceeds 10 seconds.
    ///
    /// ## What it does
    /// For each backend (or listen) with servers, computes the effective `retries` (HAProxy's
    /// built-in default is 3) and `timeout connect`, and flags it when it has at least two
    /// servers that are not loopback addresses (somewhere else to go), `retries` > 0 and no
    /// effective `option redispatch`, or when `(retries + 1) × timeout connect` exceeds 10
    /// seconds. A stall of at most 20 seconds in a backend that does redispatch (HAProxy's
    /// recommended `timeout connect 5s` with the built-in `retries 3`) is reported as info
    /// only. The message gives the computed stall and where each number came from.
    ///
    /// In `mode http`, an unconditional `http-request set-timeout connect <time>` (recent
    /// HAProxy versions; 2.6 accepts only `server` and `tunnel` there) along the backend's
    /// defaults chain replaces `timeout connect` for every request and is the one used; a
    /// conditional one, an expression, or one in a frontend that routes to the backend
    /// changes it for some requests only, which the message says.
    /// `mode log` backends (HAProxy 2.9+) are skipped: they send log messages to log
    /// servers, without connections to retry or redispatch.
    ///
    /// ## Why is this bad?
    /// Without `option redispatch`, HAProxy retries a failed connection on the *same* server:
    /// when a pod is gone but still listed (a stale configuration in an old process after a
    /// reload, endpoints not yet updated), every request waits for all the retries before
    /// failing. In kubegap's founding incident (seed 002) the old router process spent about
    /// 15 seconds on dead backends and answered 503 after 20 (openshift/router#654 reports
    /// minutes of such 503s). Even with redispatch, a long `timeout connect` multiplied by
    /// the retries makes clients and load balancers in front give up first.
    ///
    /// `option redispatch` exists in every supported HAProxy version; its `<interval>`
    /// argument was added in 1.6.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.11:8080 check
    ///     server app2 10.0.0.12:8080 check
    /// ```
    ///
    /// Use instead:
    /// ```haproxy,valid
    /// defaults
    ///     mode http
    ///     retries 2
    ///     option redispatch 1
    ///     timeout connect 2s
    ///     timeout client 30s
    ///     timeout server 30s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.11:8080 check
    ///     server app2 10.0.0.12:8080 check
    /// ```
    pub static HAPROXY_RETRIES_WITHOUT_REDISPATCH = {
        id: "haproxy-retries-without-redispatch",
        severity: Warning,
        domain: Haproxy,
        summary: "connection retries on the same server without `option redispatch`, or a connect stall over 10 s (info up to 20 s when retries redispatch)",
        evidence: &[
            "https://github.com/openshift/router/issues/654",
            "https://docs.haproxy.org/2.8/configuration.html#4.2-option%20redispatch",
            "https://docs.haproxy.org/2.8/configuration.html#4.2-retries",
            "https://www.haproxy.com/documentation/haproxy-configuration-tutorials/protocol-support/syslog/",
        ],
        check: check,
        also_reports: [Info],
    }
}

/// A stall up to this (20 s: `timeout connect 5s` × (3 + 1)) is reported as info only.
const QUIET_STALL_MS: Millis = Millis(20_000);

/// Whether a server host is this machine.
fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host == "::1"
        || host == "[::1]"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A `http-request set-timeout connect` of a frontend that routes to `backend` (by its name
/// or by a dynamic name), as a value that varies between requests. `setters` are the
/// frontends with such a rule (usually none).
fn frontend_set_timeout<'a>(
    view: &View<'a>,
    setters: &[(usize, &'a Line)],
    backend: usize,
    name: &str,
) -> PerRequest<'a> {
    setters
        .iter()
        .find(|(index, _)| {
            *index != backend
                && view
                    .routes(*index)
                    .iter()
                    .any(|route| route.backend.text == name || route.backend.text.contains("%["))
        })
        .map_or(PerRequest::Unchanged, |(_, line)| PerRequest::Varies(line))
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for view in cx.haproxy_views {
        let setters: Vec<(usize, &Line)> = view
            .proxies()
            .filter(|(_, section)| section.kind.has_frontend())
            .filter_map(|(index, _)| match view.set_timeout(index, "connect") {
                PerRequest::Fixed(_, line, _) | PerRequest::Varies(line) => Some((index, line)),
                PerRequest::Unchanged => None,
            })
            .collect();
        for (index, section) in view.backends() {
            // A `mode log` backend (HAProxy 2.9+) sends log messages to log servers: no
            // connection to retry, no request to stall.
            if view.mode(index).value == "log" {
                continue;
            }
            let servers = view.servers(index);
            if Server::total(&servers) == 0 {
                continue;
            }
            let retries = view.retries(index);
            let Some(count) = retries.value else {
                continue;
            };
            let redispatch = view.option(index, "redispatch");
            let connect = view.timeout(index, "connect");
            // An unconditional `http-request set-timeout connect 3s` replaces `timeout connect`
            // for every request; a conditional one, or an expression, for some requests only.
            let per_request = match view.set_timeout(index, "connect") {
                // The backend's own rules run last; without one, a frontend that routes here
                // (by name or by a dynamic `%[...]` name) can set it for its requests.
                PerRequest::Unchanged => {
                    frontend_set_timeout(view, &setters, index, section.name())
                }
                own => own,
            };
            let (connect_ms, connect_cite, connect_line) = match &per_request {
                PerRequest::Fixed(time, line, _) => (
                    time.limit().and_then(|limit| limit),
                    crate::haproxy::cite(cx.files, line),
                    Some(*line),
                ),
                _ => (
                    connect
                        .value
                        .as_ref()
                        .and_then(|d| d.limit())
                        .and_then(|limit| limit),
                    connect.line.map_or_else(String::new, |line| {
                        connect.cite_as(cx.files, &format!("timeout connect {}", line.text(2)))
                    }),
                    connect.line,
                ),
            };
            let stall = connect_ms.map(|ms| logic::retry_stall_ms(count, ms));
            // Only servers that are elsewhere are somewhere to redispatch to: loopback ones
            // (`127.0.0.1`, placeholders of disabled slots) are not.
            let remote: u64 = servers
                .iter()
                .filter(|s| !s.address().is_some_and(|a| is_loopback(&a.host)))
                .fold(0u64, |sum, s| sum.saturating_add(s.count()));
            let no_redispatch = remote >= 2 && count > 0 && !redispatch.value;
            let long_stall = stall.is_some_and(|s| s > logic::RETRY_STALL_LIMIT_MS);
            if !no_redispatch && !long_stall {
                continue;
            }
            let retries_text = retries.cite_as(cx.files, &format!("retries {count}"));
            let stall_text = match (stall, connect_line) {
                (Some(stall), Some(_)) => {
                    let mut text = format!(
                        "with {connect_cite} a request to a dead server waits up to {stall} ((retries + 1) × timeout connect) before failing"
                    );
                    if let PerRequest::Varies(line) = per_request {
                        text.push_str(&format!(
                            " (for the requests whose connect timeout {} does not change)",
                            crate::haproxy::cite(cx.files, line)
                        ));
                    }
                    text
                }
                _ => String::new(),
            };
            let message = if no_redispatch {
                let mut m = format!(
                    "{} retries failed connections on the same server: {retries_text} and no `option redispatch`",
                    section.describe()
                );
                if let Some(line) = redispatch.line {
                    m.push_str(&format!(
                        " (disabled: {})",
                        crate::haproxy::cite(cx.files, line)
                    ));
                }
                if !stall_text.is_empty() {
                    m.push_str(&format!("; {stall_text}"));
                }
                m
            } else {
                format!(
                    "{} can stall a request for too long: {retries_text}, and {stall_text}",
                    section.describe()
                )
            };
            let own = |line: Option<&'_ crate::haproxy::Line>, section_of: Option<usize>| {
                line.filter(|_| section_of == Some(index)).map(|l| l.span)
            };
            let primary = own(retries.line, retries.section)
                .or_else(|| match &per_request {
                    PerRequest::Fixed(_, line, found_in) if long_stall => {
                        own(Some(line), Some(*found_in))
                    }
                    _ if long_stall => own(connect.line, connect.section),
                    _ => None,
                })
                .unwrap_or(section.header_span());
            let finding = sink.report(primary, message);
            // HAProxy's recommended `timeout connect 5s` with the built-in `retries 3` stalls
            // 20s at worst: worth knowing, not a warning, when retries can leave the server.
            if !no_redispatch && stall.is_some_and(|s| s <= QUIET_STALL_MS) {
                finding.severity(Severity::Info);
            }
            if let Some(line) = retries.line {
                if line.span != primary {
                    finding.label(line.span, "retries set here");
                }
            }
            if let Some(line) = connect_line {
                if line.span != primary && stall.is_some() {
                    finding.label(line.span, "connect timeout set here");
                }
            }
            if let (PerRequest::Varies(line), Some(_)) = (&per_request, stall) {
                finding.label(line.span, "changes the connect timeout of some requests");
            }
            finding.help("add `option redispatch 1` so retries go to another server, and keep `(retries + 1) × timeout connect` under 10s (e.g. `retries 2`, `timeout connect 2s`)");
        }
    }
}
