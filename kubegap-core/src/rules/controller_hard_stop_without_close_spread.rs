//! `controller-hard-stop-without-close-spread`: haproxy-ingress closes every remaining
//! connection at the same instant when `timeout-stop` expires.

use crate::controllers::Product;
use crate::reload::{close_spread_gap, SpreadGap};
use crate::rule::prelude::*;
use crate::value::duration::format_ms;

declare_rule! {
    /// A haproxy-ingress controller whose hard stop (`timeout-stop`, 10m by default) is not
    /// spread by `close-sessions-duration` with `--track-old-instances`.
    ///
    /// ## What it does
    /// For each haproxy-ingress controller workload, resolves `timeout-stop` (ConfigMap, else
    /// 10m) and `close-sessions-duration` (ConfigMap; a duration or a percentage of
    /// `timeout-stop`), and checks the `--track-old-instances` argument. Reports when the
    /// spread is missing, when it is not shorter than `timeout-stop`, or when
    /// `--track-old-instances` is missing (the spread then does nothing). The reasoning is
    /// shared with the haproxy.cfg rule on `close-spread-time` ([`crate::reload`]).
    ///
    /// ## Why is this bad?
    /// haproxy-ingress documents it: without the spread, "all the active sessions will be
    /// closed at the same time when timeout-stop expires", and "all the disconnected clients
    /// will reconnect almost at the same time". In the founding incident that herd overloaded
    /// the token API's database and the conntrack tables of the ingress nodes.
    ///
    /// ## Example
    /// ```yaml,invalid
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: haproxy-ingress, namespace: ingress}
    /// spec:
    ///   template:
    ///     spec:
    ///       containers:
    ///         - name: haproxy-ingress
    ///           image: quay.io/jcmoraisjr/haproxy-ingress:v0.15.0
    ///           args: [--configmap=ingress/haproxy-ingress]
    /// ```
    ///
    /// Use instead:
    /// ```yaml,valid
    /// apiVersion: v1
    /// kind: ConfigMap
    /// metadata: {name: haproxy-ingress, namespace: ingress}
    /// data:
    ///   close-sessions-duration: "50%"
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: haproxy-ingress, namespace: ingress}
    /// spec:
    ///   template:
    ///     spec:
    ///       containers:
    ///         - name: haproxy-ingress
    ///           image: quay.io/jcmoraisjr/haproxy-ingress:v0.15.0
    ///           args: [--configmap=ingress/haproxy-ingress, --track-old-instances]
    /// ```
    ///
    /// ## References
    /// haproxy-ingress docs, `close-sessions-duration` and `--track-old-instances`; seeds 000
    /// and 001; DOMAIN.md R02.
    pub static CONTROLLER_HARD_STOP_WITHOUT_CLOSE_SPREAD = {
        id: "controller-hard-stop-without-close-spread",
        severity: Warning,
        domain: Controller,
        summary: "a haproxy-ingress hard stop that closes every remaining connection at once (no `close-sessions-duration` with `--track-old-instances`)",
        evidence: &[
            "https://haproxy-ingress.github.io/docs/configuration/keys/#close-sessions-duration",
            "https://haproxy-ingress.github.io/docs/configuration/command-line/#track-old-instances",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let model = cx.controllers;
    for c in &model.controllers {
        if c.product != Product::HaproxyIngress {
            continue;
        }
        let Some(deadline) = &c.settings.reload_deadline else {
            continue;
        };
        let track = c.flag("track-old-instances");
        let spread = c.settings.close_spread.as_ref();
        let Some(gap) = close_spread_gap(
            Some(deadline.value),
            spread.map(|s| s.value),
            track.is_some(),
        ) else {
            continue;
        };
        let Some(anchor) = c
            .image
            .or_else(|| c.config_map_arg.as_ref().map(|a| a.span))
        else {
            continue;
        };
        let stop = deadline.describe(cx.files);
        let old = c.version.as_ref().is_some_and(|v| !v.at_least(&[0, 14]));
        let (span, message, help) = match (gap, spread) {
            (SpreadGap::Missing, _) => (
                anchor,
                format!(
                    "haproxy-ingress {} has `timeout-stop` {stop} and no `close-sessions-duration`: every connection still open at the hard stop is closed at the same instant",
                    cx.describe(c.obj)
                ),
                if old {
                    "upgrade to haproxy-ingress v0.14 or later, then set `close-sessions-duration` (e.g. `50%`) and `--track-old-instances`".to_string()
                } else {
                    "set `close-sessions-duration` (e.g. `50%`) in the ConfigMap and add `--track-old-instances` to the controller's arguments".to_string()
                },
            ),
            (SpreadGap::Inert, Some(s)) => (
                s.source.span().unwrap_or(anchor),
                format!(
                    "`close-sessions-duration` {} does nothing without `--track-old-instances`: connections are still all closed when `timeout-stop` {stop} expires",
                    format_ms(s.value.ms())
                ),
                "add `--track-old-instances` to the controller's arguments".to_string(),
            ),
            (_, Some(s)) => (
                s.source.span().unwrap_or(anchor),
                format!(
                    "`close-sessions-duration` {} is not shorter than `timeout-stop` {stop}: the closes are never spread",
                    format_ms(s.value.ms())
                ),
                "use a duration shorter than `timeout-stop`, or a percentage such as `50%`".to_string(),
            ),
            (_, None) => continue,
        };
        let finding = sink.report(span, message);
        if let Some(key) = deadline.source.key_span() {
            finding.label(key, "the hard stop");
        }
        if let Some(note) = c.assumed_default_note(&deadline.source) {
            finding.note(note);
        }
        finding.help(help);
    }
}
