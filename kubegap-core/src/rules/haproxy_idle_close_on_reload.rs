//! `haproxy-idle-close-on-reload`: since HAProxy 2.4, idle client connections are closed at
//! once on reload, and a load balancer in front answers 502 on them.

use crate::rule::prelude::*;

declare_rule! {
    /// An HTTP frontend without `option idle-close-on-response`: HAProxy ≥ 2.4 closes its idle
    /// client connections at once on every reload.
    ///
    /// ## What it does
    /// When the configuration says an L7 load balancer sits in front (`--l7-in-front`,
    /// `topology.l7_in_front`), flags each `frontend` or `listen` in `mode http` (explicit or
    /// inherited) that has no effective `option idle-close-on-response`. Without that
    /// declaration nothing is reported: clients that connect directly reconnect, and a config
    /// file does not show what sits in front of it. Nothing is reported either when the
    /// configured HAProxy version is older than 2.4.
    ///
    /// ## Why is this bad?
    /// Since HAProxy 2.4 a soft-stopping process closes idle frontend connections immediately
    /// instead of waiting for one last request to answer with `Connection: close`. A load
    /// balancer that pools connections to HAProxy (AWS ALB, GCP, another proxy) may already
    /// be writing a request on such a connection: it gets a reset and answers 502, on every
    /// reload (haproxy/haproxy#1506). OpenShift hit the same with Apache HttpClient < 5 after
    /// upgrading its router from HAProxy 2.2 to 2.6 and added the option, then a knob for it
    /// (openshift/api#2102, OCPBUGS-32044 and OCPBUGS-43745). HAProxy's documentation: "this
    /// behavior was seen in AWS using the ALB in front of a haproxy. The end result was ALB
    /// sending 502 during haproxy reloads".
    ///
    /// `option idle-close-on-response` was added in HAProxy 2.6 (it restores the behaviour of
    /// 2.3 and older, bounded by `hard-stop-after`).
    ///
    /// ## Example
    /// With an L7 load balancer declared in front, in `.kubegap.yaml`:
    /// ```yaml,settings
    /// topology:
    ///   l7_in_front: true
    /// ```
    ///
    /// ```haproxy,invalid
    /// defaults
    ///     mode http
    ///     timeout connect 5s
    ///     timeout client 50s
    ///     timeout server 50s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    ///
    /// Use instead: the option (HAProxy ≥ 2.6):
    /// ```haproxy,valid
    /// defaults
    ///     mode http
    ///     option idle-close-on-response
    ///     timeout connect 5s
    ///     timeout client 50s
    ///     timeout server 50s
    ///
    /// frontend fe
    ///     bind :80
    ///     default_backend app
    ///
    /// backend app
    ///     server app1 10.0.0.1:8080
    /// ```
    pub static HAPROXY_IDLE_CLOSE_ON_RELOAD = {
        id: "haproxy-idle-close-on-reload",
        severity: Warning,
        domain: Haproxy,
        summary: "an HTTP frontend without `option idle-close-on-response`: a load balancer in front answers 502 on reloads",
        evidence: &[
            "https://github.com/haproxy/haproxy/issues/1506",
            "https://github.com/openshift/api/pull/2102",
            "https://docs.haproxy.org/2.8/configuration.html#4.2-option%20idle-close-on-response",
        ],
        check: check,
        also_reports: [Warning],
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    let version = cx.settings.haproxy_version.as_ref();
    if version.is_some_and(|v| !v.at_least(&[2, 4])) {
        return;
    }
    // Only a load balancer in front turns the closed idle connections into 502s: without one
    // declared (`--l7-in-front`, `topology.l7_in_front`), clients simply reconnect.
    if !cx.settings.l7_in_front {
        return;
    }
    let option_exists = version.is_none_or(|v| v.at_least(&[2, 6]));
    for view in cx.haproxy_views {
        for (index, section) in view.proxies() {
            if !section.kind.has_frontend() {
                continue;
            }
            let mode = view.mode(index);
            if mode.value != "http" {
                continue;
            }
            let option = view.option(index, "idle-close-on-response");
            if option.value {
                continue;
            }
            let why = match option.line {
                Some(line) => format!(
                    "`option idle-close-on-response` is disabled ({})",
                    crate::haproxy::cite(cx.files, line)
                ),
                None => "it has no `option idle-close-on-response`".to_string(),
            };
            let finding = sink.report(
                section.header_span(),
                format!(
                    "{} ({}) closes idle client connections at once on every reload (HAProxy 2.4+): {why}, so a load balancer in front can send a request on a closed connection and answer 502",
                    section.describe(),
                    mode.cite_as(cx.files, "mode http")
                ),
            );
            finding.note("the configuration says an L7 load balancer sits in front");
            if let Some(line) = option.line {
                finding.label(line.span, "disabled here");
            }
            if option_exists {
                finding.help("add `option idle-close-on-response` to the frontend or its defaults section (HAProxy 2.6+)");
            } else {
                finding.help(format!(
                    "`option idle-close-on-response` needs HAProxy 2.6; on {} let the load balancer retry idempotent requests or keep its idle timeout below HAProxy's",
                    version.map(ToString::to_string).unwrap_or_default()
                ));
            }
        }
    }
}
