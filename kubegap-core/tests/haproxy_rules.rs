//! haproxy rules: behaviour that fixtures cannot show (versions, severities, message origins,
//! grouping). Fixtures cover where findings start.

use kubegap_core::config::Version;
use kubegap_core::{lint, FileKind, Finding, Input, Settings, Severity};

fn run(rule: &str, text: &str, version: Option<&str>, l7_in_front: bool) -> Vec<Finding> {
    let settings = Settings {
        select: Some(vec![rule.to_string(), "parse-error".to_string()]),
        haproxy_version: version.and_then(Version::parse),
        l7_in_front,
        ..Settings::default()
    };
    let input = Input {
        name: "haproxy.cfg".into(),
        path: None,
        bytes: text.as_bytes().to_vec(),
        kind: FileKind::Haproxy,
        canonical: None,
        prepared: None,
    };
    let report = lint(vec![input], &settings);
    let errors: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.rule == "parse-error")
        .collect();
    assert!(errors.is_empty(), "parse errors: {errors:?}");
    report.findings
}

const HTTP: &str = "defaults
    mode http
    timeout connect 5s
    timeout client 50s
    timeout server 50s

frontend fe
    bind :80
    default_backend app

backend app
    server app1 10.0.0.1:8080
";

#[test]
fn idle_close_depends_on_version_and_topology() {
    let rule = "haproxy-idle-close-on-reload";
    assert!(run(rule, HTTP, Some("2.2"), true).is_empty());
    // Without an L7 load balancer declared in front, nothing is evidence of 502s.
    assert!(run(rule, HTTP, Some("2.4.22"), false).is_empty());
    assert!(run(rule, HTTP, None, false).is_empty());
    let on_24 = run(rule, HTTP, Some("2.4.22"), true);
    assert_eq!(on_24.len(), 1);
    assert!(on_24[0]
        .help
        .as_deref()
        .is_some_and(|h| h.contains("needs HAProxy 2.6")));
    let unknown = run(rule, HTTP, None, true);
    assert_eq!(unknown[0].severity, Severity::Warning);
    assert!(
        unknown[0].message.contains("`mode http` at haproxy.cfg:2"),
        "{}",
        unknown[0].message
    );
    let behind_alb = run(rule, HTTP, Some("2.8"), true);
    assert_eq!(behind_alb[0].severity, Severity::Warning);
}

const SPREAD_IF: &str = "global
    hard-stop-after 30m
.if version_atleast(2.6)
    close-spread-time 20m
.endif

defaults
    mode tcp
    timeout connect 5s
    timeout client 1h
    timeout server 1h

listen db
    bind :5432
    server db1 10.0.0.1:5432
";

#[test]
fn conditional_blocks_follow_the_configured_version() {
    let rule = "haproxy-hard-stop-without-close-spread";
    assert!(run(rule, SPREAD_IF, Some("2.8"), false).is_empty());
    // Unknown version: the block may apply, so nothing is reported.
    assert!(run(rule, SPREAD_IF, None, false).is_empty());
    let old = run(rule, SPREAD_IF, Some("2.4"), false);
    assert_eq!(old.len(), 1);
    assert!(
        old[0].message.contains("added in 2.6"),
        "{}",
        old[0].message
    );
}

#[test]
fn one_finding_per_shared_cause() {
    let text = "global
    hard-stop-after 30m

defaults
    mode http
    timeout connect 5s
    timeout client 50s
    timeout server 50s
    timeout tunnel 1h

frontend fe
    bind :80
    use_backend b if { path_beg /b }
    use_backend c if { path_beg /c }
    default_backend a

backend a
    server a1 10.0.0.1:8080

backend b
    server b1 10.0.0.2:8080

backend c
    timeout tunnel 2h
    server c1 10.0.0.3:8080
";
    let findings = run("haproxy-hard-stop-cuts-long-lived", text, None, false);
    assert_eq!(findings.len(), 2, "{findings:?}");
    let shared = findings
        .iter()
        .find(|f| f.message.contains("backend `a` and backend `b`"))
        .expect("a and b share the defaults tunnel line");
    assert!(
        shared
            .message
            .contains("`timeout tunnel 1h` at haproxy.cfg:9"),
        "{}",
        shared.message
    );
    assert!(
        shared
            .message
            .contains("`hard-stop-after 30m` at haproxy.cfg:2"),
        "{}",
        shared.message
    );
}

#[test]
fn retries_message_gives_the_stall_and_its_sources() {
    let findings = run(
        "haproxy-retries-without-redispatch",
        HTTP.replace(
            "    server app1 10.0.0.1:8080\n",
            "    server app1 10.0.0.1:8080\n    server app2 10.0.0.2:8080\n",
        )
        .as_str(),
        None,
        false,
    );
    assert_eq!(findings.len(), 1);
    let message = &findings[0].message;
    assert!(
        message.contains("`retries 3` (default of HAProxy)"),
        "{message}"
    );
    assert!(
        message.contains("`timeout connect 5s` at haproxy.cfg:3"),
        "{message}"
    );
    assert!(message.contains("up to 20s"), "{message}");
}

#[test]
fn unit_rule_reads_milliseconds() {
    let text = HTTP.replace("timeout client 50s", "timeout client 3600");
    let findings = run("haproxy-timeout-without-unit", &text, None, false);
    assert_eq!(findings.len(), 1);
    assert!(
        findings[0].message.contains("3.6s"),
        "{}",
        findings[0].message
    );
    assert!(findings[0]
        .help
        .as_deref()
        .is_some_and(|h| h.contains("`1h`")));
}

#[test]
fn large_generated_configs_lint_quickly() {
    // The shape of a controller-generated file: thousands of backends and routes, and one
    // backend with a very long server list. Every rule must stay near-linear.
    let mut text = String::from(
        "global\n    hard-stop-after 30m\ndefaults\n    mode http\n    default-server check\n    timeout connect 5s\n    timeout client 50s\n    timeout server 50s\n    timeout tunnel 1h\nfrontend fe\n    bind :80\n    acl is_ws hdr(upgrade) -i websocket\n",
    );
    for i in 0..5_000 {
        text.push_str(&format!(
            "    use_backend be{i} if is_ws {{ path_beg /{i} }}\n"
        ));
    }
    for i in 0..5_000 {
        text.push_str(&format!(
            "backend be{i}\n    server s{i} 10.0.{}.{}:80\n",
            i / 250,
            i % 250
        ));
    }
    text.push_str("backend big\n");
    for i in 0..20_000 {
        text.push_str(&format!(
            "    server s{i} 10.1.{}.{}:80\n",
            i / 250,
            i % 250
        ));
    }
    let start = std::time::Instant::now();
    let input = Input {
        name: "haproxy.cfg".into(),
        path: None,
        bytes: text.into_bytes(),
        kind: FileKind::Haproxy,
        canonical: None,
        prepared: None,
    };
    let report = lint(vec![input], &Settings::default());
    assert!(!report.findings.is_empty());
    // Generous for debug builds on a shared 2-core machine; quadratic behaviour takes minutes.
    assert!(
        start.elapsed() < std::time::Duration::from_secs(30),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn huge_numbers_do_not_overflow() {
    let text = "global
    hard-stop-after 24d
defaults
    mode http
    default-server check
    retries 18446744073709551615
    timeout connect 24d
    timeout client 24d
    timeout server 24d
    timeout tunnel 24d
backend big
    server-template a 0-18446744073709551615 app.svc:80
    server-template b 0-18446744073709551615 app.svc:80
";
    let input = Input {
        name: "haproxy.cfg".into(),
        path: None,
        bytes: text.as_bytes().to_vec(),
        kind: FileKind::Haproxy,
        canonical: None,
        prepared: None,
    };
    let report = lint(vec![input], &Settings::default());
    assert!(report.findings.iter().all(|f| f.rule != "parse-error"));
}
