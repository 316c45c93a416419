//! `haproxy-hard-stop-without-close-spread`: at the hard stop, every old connection dies at
//! the same instant.

use crate::haproxy::{cite, logic};
use crate::rule::prelude::*;
use crate::value::duration::Millis;

declare_rule! {
    /// A hard stop is in effect over long-lived proxies without a `close-spread-time` shorter
    /// than `hard-stop-after`.
    ///
    /// ## What it does
    /// Flags the global `hard-stop-after` when some proxy carries connections that outlive it
    /// (the same detection as `haproxy-hard-stop-cuts-long-lived`: tunnel or `mode tcp`
    /// timeouts longer than the deadline, WebSocket routes) and there is no
    /// `close-spread-time`, or `close-spread-time` is `infinite` or not shorter than
    /// `hard-stop-after`.
    ///
    /// ## Why is this bad?
    /// Without `close-spread-time`, the old process closes its idle connections all at once
    /// at soft-stop and kills every remaining one at once at the hard stop. All those clients
    /// reconnect in the same second: in kubegap's founding incident (seed 000) the reconnect
    /// wave overloaded the token API, its database and the conntrack tables of the ingress
    /// nodes. HAProxy's documentation recommends setting `close-spread-time` lower than
    /// `hard-stop-after` "so that all connections have a chance to gracefully close";
    /// haproxy-ingress documents the same herd for its `timeout-stop` ("all the disconnected
    /// clients will reconnect almost at the same time") and added `close-sessions-duration`.
    ///
    /// `close-spread-time` was added in HAProxy 2.6; `hard-stop-after` in 1.8.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// global
    ///     hard-stop-after 30m
    ///
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 50s
    ///     timeout server 50s
    ///     timeout tunnel 1h
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    ///
    /// Use instead: a spread window at 50–90 % of the deadline (HAProxy ≥ 2.6):
    /// ```haproxy,valid
    /// global
    ///     hard-stop-after 30m
    ///     close-spread-time 20m
    ///
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 50s
    ///     timeout server 50s
    ///     timeout tunnel 1h
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    pub static HAPROXY_HARD_STOP_WITHOUT_CLOSE_SPREAD = {
        id: "haproxy-hard-stop-without-close-spread",
        severity: Warning,
        domain: Haproxy,
        summary: "a hard stop over long-lived connections without `close-spread-time`: every client reconnects at the same instant",
        evidence: &[
            "https://docs.haproxy.org/2.8/configuration.html#3.1-close-spread-time",
            "https://haproxy-ingress.github.io/docs/configuration/keys/#close-sessions-duration",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let version = cx.settings.haproxy_version.as_ref();
    for view in cx.haproxy_views {
        let Some((hard_stop, hard_stop_line)) = view.global_time("hard-stop-after") else {
            continue;
        };
        let Some(Some(deadline)) = hard_stop.limit() else {
            continue;
        };
        let websocket = view.websocket_proxies();
        let long_lived: Vec<_> = view
            .proxies()
            .filter_map(|(index, section)| {
                view.long_lived(index, websocket, |limit| logic::outlives(limit, deadline))
                    .map(|reason| (section.describe(), reason))
            })
            .collect();
        let Some((first_proxy, first_reason)) = long_lived.first() else {
            continue;
        };
        let names: Vec<String> = long_lived.iter().map(|(n, _)| n.clone()).collect();
        let hard = crate::haproxy::cite(cx.files, hard_stop_line);
        let spread = view.global_time("close-spread-time");
        let problem = match &spread {
            None => {
                let too_old = version.is_some_and(|v| !v.at_least(&[2, 6]));
                if too_old {
                    format!(
                        "HAProxy {} has no `close-spread-time` (added in 2.6)",
                        version.map(ToString::to_string).unwrap_or_default()
                    )
                } else {
                    "there is no `close-spread-time`".to_string()
                }
            }
            Some((value, line)) => match value.limit() {
                None => continue,
                Some(limit) if logic::spread_before_hard_stop(limit, deadline) => continue,
                Some(None) => format!("{} disables spreading", cite(cx.files, line)),
                Some(Some(_)) => format!(
                    "{} is not shorter than the {} hard stop",
                    cite(cx.files, line),
                    deadline
                ),
            },
        };
        let finding = sink.report(
            hard_stop_line.span,
            format!(
                "{hard} kills the remaining connections of {} all at the same instant: {problem}, so every client reconnects at once",
                logic::enumerate(&names)
            ),
        );
        finding.label(
            first_reason.span(),
            format!(
                "{first_proxy} is long-lived: {}",
                first_reason.describe(cx.files)
            ),
        );
        if let Some((_, line)) = &spread {
            finding.label(line.span, "spread window set here");
        }
        finding.help(format!(
            "set `close-spread-time` to 50-90% of the deadline, e.g. `close-spread-time {}` (HAProxy 2.6+)",
            Millis(deadline.ms() / 3 * 2)
        ));
    }
}
