//! Property tests: the nginx parser and every rule survive arbitrary input, and every span they
//! produce lies inside its file on character boundaries.

use kubegap_core::{lint, FileKind, Input, Settings};
use proptest::prelude::*;

fn check(bytes: Vec<u8>) {
    let input = Input {
        name: "fuzz.conf".into(),
        path: None,
        bytes,
        kind: FileKind::Nginx,
        canonical: None,
        prepared: None,
    };
    let report = lint(vec![input], &Settings::default());
    for finding in &report.findings {
        let spans = std::iter::once(finding.span).chain(finding.labels.iter().map(|l| l.span));
        for span in spans {
            let file = report.files.get(span.file);
            assert!(span.start <= span.end && span.end as usize <= file.text.len());
            assert!(file.text.is_char_boundary(span.start as usize));
            assert!(file.text.is_char_boundary(span.end as usize));
        }
    }
}

/// Strings made of nginx's syntax characters and a few words, so that the parser's interesting
/// states (quotes, escapes, braces, Lua blocks, comments) are reached often.
fn nginx_like() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "{",
        "}",
        ";",
        " ",
        "\n",
        "\t",
        "#",
        "'",
        "\"",
        "\\",
        "$",
        "${",
        "(",
        ")",
        "é",
        "[[",
        "]]",
        "--",
        "http",
        "server",
        "location",
        "/ws",
        "proxy_pass",
        "http://u",
        "upstream",
        "u",
        "keepalive",
        "2",
        "proxy_read_timeout",
        "1h",
        "include",
        "*.conf",
        "content_by_lua_block",
        "map",
        "if",
        "worker_shutdown_timeout",
        "proxy_set_header",
        "Upgrade",
        "$http_upgrade",
        "proxy_next_upstream",
        "non_idempotent",
        "# kubegap: long-lived",
        "# generated",
        "server 10.0.0.1:80;",
        "events",
        "proxy_http_version",
    ]);
    prop::collection::vec(atoms, 0..120).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check(bytes);
    }

    #[test]
    fn nginx_like_text_never_panics(text in nginx_like()) {
        check(text.into_bytes());
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 200_000;
    let text = format!("{}{}", "location / {".repeat(depth), "}".repeat(depth));
    check(text.into_bytes());
    check("{".repeat(depth).into_bytes());
}
