//! The haproxy.cfg parser against the real-world corpus (`../shared/corpus/haproxy`).
//!
//! - every file HAProxy 2.6 accepted (`oracles/haproxy_oracle.tsv`, `valid` and
//!   `valid-no-listener`) parses without a parse error;
//! - no file of the corpus makes the parser or the haproxy rules panic;
//! - arbitrary input never panics (proptest).

use std::path::PathBuf;

use kubegap_core::source::{FileId, FileKind};
use kubegap_core::{haproxy, lint, Input, Settings};
use proptest::prelude::*;

mod support;
use support::corpus;

/// (path relative to the corpus, oracle status) for every row of the oracle.
fn oracle() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(corpus().join("oracles/haproxy_oracle.tsv"))
        .expect("the corpus oracle is readable");
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let mut cols = l.split('\t');
            Some((cols.next()?.to_string(), cols.next()?.to_string()))
        })
        .collect()
}

fn read(rel: &str) -> String {
    let bytes = std::fs::read(corpus().join(rel)).expect("corpus file is readable");
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn oracle_valid_configs_parse_cleanly() {
    if !support::present(
        &corpus().join("haproxy"),
        "oracle_valid_configs_parse_cleanly",
    ) {
        return;
    }
    let rows = oracle();
    let valid: Vec<&(String, String)> = rows
        .iter()
        .filter(|(_, status)| status == "valid" || status == "valid-no-listener")
        .collect();
    assert!(valid.len() >= 200, "oracle has {} valid rows", valid.len());
    let mut failures = Vec::new();
    for (rel, _) in &valid {
        let text = read(rel);
        let (_, errors) = haproxy::parse(FileId(0), &text);
        for e in errors {
            let line = text[..(e.span.start as usize).min(text.len())]
                .matches('\n')
                .count()
                + 1;
            failures.push(format!("{rel}:{line}: {}", e.message));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} oracle-valid configs have parse errors:\n{}",
        failures.len(),
        valid.len(),
        failures.join("\n")
    );
}

/// Every file of the corpus folder, sorted.
fn all_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![corpus().join("haproxy")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("corpus folder is readable") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n != "INDEX.tsv") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_corpus_file_panics() {
    if !support::present(&corpus().join("haproxy"), "no_corpus_file_panics") {
        return;
    }
    let files = all_files();
    assert!(files.len() >= 400, "only {} corpus files", files.len());
    let inputs: Vec<Input> = files
        .iter()
        .map(|p| Input {
            name: p.display().to_string(),
            path: Some(p.clone()),
            bytes: std::fs::read(p).expect("corpus file is readable"),
            kind: FileKind::Haproxy,
            canonical: None,
            prepared: None,
        })
        .collect();
    // Parsing and every rule, with and without a known version.
    let report = lint(inputs.clone(), &Settings::default());
    assert_eq!(report.summary.files, files.len());
    let settings = Settings {
        haproxy_version: kubegap_core::config::Version::parse("2.4"),
        l7_in_front: true,
        ..Settings::default()
    };
    let _ = lint(inputs, &settings);
}

/// Lines that exercise the rules: sections, timeouts, servers, routes, conditionals.
const VOCABULARY: &[&str] = &[
    "global",
    "defaults",
    "defaults base",
    "defaults child from base",
    "frontend fe",
    "frontend fe2 from base",
    "backend ws",
    "backend app from child",
    "listen db",
    "  hard-stop-after {t}",
    "  close-spread-time {t}",
    "  master-worker",
    "  stats socket /run/s expose-fd listeners",
    "  mode http",
    "  mode tcp",
    "  timeout client {t}",
    "  timeout server {t}",
    "  timeout connect {t}",
    "  timeout tunnel {t}",
    "  timeout client-fin {t}",
    "  timeout http-keep-alive {t}",
    "  retries {n}",
    "  option redispatch",
    "  no option redispatch",
    "  option idle-close-on-response",
    "  balance roundrobin",
    "  balance random(2)",
    "  default-server check",
    "  server s{n} 10.0.0.{n}:80 check",
    "  server-template s {n}-{n} app.svc:80",
    "  acl is_ws hdr(upgrade) -i websocket",
    "  use_backend ws if is_ws",
    "  use_backend app if {{ hdr(upgrade) -i websocket }}",
    "  default_backend app",
    ".if version_atleast({n}.{n})",
    ".elif {n}",
    ".else",
    ".endif",
];

fn render(template: &str, number: u64, time: &str) -> String {
    template
        .replace("{{", "\u{1}")
        .replace("}}", "\u{2}")
        .replace("{t}", time)
        .replace("{n}", &number.to_string())
        .replace('\u{1}', "{")
        .replace('\u{2}', "}")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_configs_never_panic(
        lines in proptest::collection::vec(
            (
                0..VOCABULARY.len(),
                proptest::num::u64::ANY,
                proptest::sample::select(vec!["0", "1", "500", "3600", "5s", "30m", "1h", "25d", "infinite", "${T}", "1min", "x"]),
            ),
            0..60,
        ),
        version in proptest::option::of(proptest::sample::select(vec!["2.2", "2.4", "2.6", "3.0"])),
    ) {
        let text: String = lines
            .iter()
            .map(|(i, n, t)| render(VOCABULARY[*i], *n % 300, t) + "\n")
            .collect();
        let settings = Settings {
            haproxy_version: version.and_then(kubegap_core::config::Version::parse),
            ..Settings::default()
        };
        let input = Input {
            name: "g.cfg".into(),
            path: None,
            bytes: text.into_bytes(),
            kind: FileKind::Haproxy,
            canonical: None,
            prepared: None,
        };
        let _ = lint(vec![input], &settings);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC*") {
        let _ = haproxy::parse(FileId(0), &text);
    }

    #[test]
    fn config_like_text_never_panics(
        lines in proptest::collection::vec(
            proptest::string::string_regex(
                "(global|defaults|frontend|backend|listen|\\.if|\\.elif|\\.else|\\.endif|timeout|server|acl|use_backend|option|no|balance|retries|hard-stop-after|close-spread-time| |\"|'|\\\\|#|\\$\\{X\\}|[a-z0-9:@\\[\\]{}()!.-]){0,12}"
            ).expect("valid regex"),
            0..40,
        )
    ) {
        let text = lines.join("\n");
        let _ = haproxy::parse(FileId(0), &text);
        let input = Input {
            name: "p.cfg".into(),
            path: None,
            bytes: text.into_bytes(),
            kind: FileKind::Haproxy,
            canonical: None,
            prepared: None,
        };
        let _ = lint(vec![input], &Settings::default());
    }
}
