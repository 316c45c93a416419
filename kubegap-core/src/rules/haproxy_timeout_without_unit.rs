//! `haproxy-timeout-without-unit`: a bare number is milliseconds, and `3600` is 3.6 seconds.

use crate::haproxy::{logic, parse_time, Line, SectionKind};
use crate::rule::prelude::*;
use crate::value::duration::format_ms;

declare_rule! {
    /// A `timeout`, `hard-stop-after` or `close-spread-time` value without a unit that is
    /// below 1000 or reads like seconds.
    ///
    /// ## What it does
    /// Flags bare numbers (which HAProxy reads as milliseconds) on `timeout` lines of
    /// defaults and proxies and on the global `hard-stop-after` and `close-spread-time`, when
    /// they are below 1000 or are a whole number of minutes that is not a round number of
    /// milliseconds (`3600`, `1800`, `86400`), the values people write in seconds.
    ///
    /// ## Why is this bad?
    /// HAProxy time values default to milliseconds: `timeout tunnel 3600` is 3.6 seconds, not
    /// an hour, and `timeout client 30` is 30 ms. Other layers read bare numbers differently:
    /// nginx and ingress-nginx timeouts are seconds, the Azure load balancer annotation is
    /// minutes. Copying a value across layers without its unit silently changes it by a
    /// factor of 1000. Writing the unit removes the ambiguity.
    ///
    /// Units (`us`, `ms`, `s`, `m`, `h`, `d`) are accepted by every HAProxy version.
    ///
    /// ## Example
    /// ```haproxy,invalid
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s
    ///     timeout tunnel 3600
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    ///
    /// Use instead:
    /// ```haproxy,valid
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 30s
    ///     timeout server 30s
    ///     timeout tunnel 1h
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    pub static HAPROXY_TIMEOUT_WITHOUT_UNIT = {
        id: "haproxy-timeout-without-unit",
        severity: Warning,
        domain: Haproxy,
        summary: "a bare-number timeout is milliseconds: `timeout tunnel 3600` is 3.6 s",
        evidence: &["https://docs.haproxy.org/2.8/configuration.html#2.5"],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for view in cx.haproxy_views {
        let config = view.config;
        for (index, section) in config.sections.iter().enumerate() {
            let value_at = |line: &Line| -> Option<usize> {
                match (section.kind, line.keyword()) {
                    (SectionKind::Global, "hard-stop-after" | "close-spread-time") => Some(1),
                    (kind, "timeout") if kind.is_proxy() || kind == SectionKind::Defaults => {
                        Some(2)
                    }
                    _ => None,
                }
            };
            for line in view.lines(index) {
                let Some(at) = value_at(line) else {
                    continue;
                };
                let Some(word) = line.word(at) else {
                    continue;
                };
                let Ok((crate::haproxy::DurationValue::Ms(ms), None)) = parse_time(word.text, true)
                else {
                    continue;
                };
                let ms = ms.ms();
                if !logic::bare_number_is_suspicious(ms) {
                    continue;
                }
                let setting = line.span_text_keywords(at);
                let reading = format!("{ms} milliseconds ({})", format_ms(ms));
                let advice = if ms < 1000 {
                    format!("write `{ms}ms` if that is intended, or `{ms}s`")
                } else {
                    format!(
                        "write `{}` if seconds were meant, or `{}` if not",
                        format_ms(ms.saturating_mul(1000)),
                        format_ms(ms)
                    )
                };
                sink.report(
                    word.span,
                    format!(
                        "`{setting} {}` has no unit, so HAProxy reads it as {reading}",
                        word.text
                    ),
                )
                .help(format!("{advice}; bare HAProxy times are milliseconds"));
            }
        }
    }
}
