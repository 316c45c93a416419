//! The nginx parser against the real-world corpus (`../shared/corpus/nginx`, 602 files) and its
//! oracle (`nginx -t` of nginx 1.22.1):
//!
//! - every config nginx accepted **as-is** parses without a parse error (configs accepted only
//!   inside an `http {}`/`server {}` wrapper are fragments; they are only required not to panic);
//! - crossplane's deliberately broken configs give parse errors at the lines crossplane reports;
//! - no file panics, with every rule enabled.

use std::path::Path;

use kubegap_core::{lint, FileKind, Input, Settings};

mod support;
use support::corpus;

fn input(path: &Path) -> Input {
    Input {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        bytes: std::fs::read(path).unwrap(),
        kind: FileKind::Nginx,
        canonical: None,
        prepared: None,
    }
}

fn parse_errors(path: &Path) -> Vec<(u32, String)> {
    findings_of(path, "parse-error")
}

fn findings_of(path: &Path, rule: &str) -> Vec<(u32, String)> {
    let settings = Settings {
        select: Some(vec![rule.to_string()]),
        ..Settings::default()
    };
    let report = lint(vec![input(path)], &settings);
    report
        .findings
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| {
            let file = report.files.get(f.span.file);
            (
                file.line_col(f.span.start).line,
                format!(
                    "{}:{}: {}",
                    file.name,
                    file.line_col(f.span.start).line,
                    f.message
                ),
            )
        })
        .collect()
}

/// (path under nginx/, status, checked_as) rows of the oracle.
fn oracle() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(corpus().join("oracles/nginx_oracle.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (
                cols[0].to_string(),
                cols.get(1).copied().unwrap_or("").to_string(),
                cols.get(3).copied().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn configs_nginx_accepts_as_is_parse_cleanly() {
    if !support::present(
        &corpus().join("nginx"),
        "configs_nginx_accepts_as_is_parse_cleanly",
    ) {
        return;
    }
    let rows = oracle();
    let mut checked = 0;
    let mut failures = Vec::new();
    for (file, status, checked_as) in &rows {
        if status != "valid" || checked_as != "as-is" {
            continue;
        }
        let path = corpus().join("nginx").join(file);
        let errors = parse_errors(&path);
        if !errors.is_empty() {
            failures.extend(errors.into_iter().map(|(_, e)| e));
        }
        checked += 1;
    }
    assert!(checked >= 280, "only {checked} as-is configs in the oracle");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn crossplane_broken_configs_fail_at_the_right_lines() {
    if !support::present(
        &corpus().join("nginx"),
        "crossplane_broken_configs_fail_at_the_right_lines",
    ) {
        return;
    }
    let base = corpus().join("nginx/nginxinc__crossplane/tests/configs");
    for (file, line, needle) in [
        (
            "bad-args/nginx.conf",
            1,
            "invalid number of arguments in \"user\"",
        ),
        (
            "missing-semicolon/broken-above.conf",
            4,
            "\"proxy_pass\" is not terminated by \";\"",
        ),
        (
            "missing-semicolon/broken-below.conf",
            7,
            "\"proxy_pass\" is not terminated by \";\"",
        ),
        (
            "spelling-mistake/nginx.conf",
            7,
            "unknown directive \"proxy_passs\"",
        ),
        ("quote-behavior/nginx.conf", 1, "unexpected \"-\""),
    ] {
        let errors = parse_errors(&base.join(file));
        assert!(
            errors.iter().any(|(l, m)| *l == line && m.contains(needle)),
            "{file}: expected `{needle}` at line {line}, got {errors:?}"
        );
    }
    // The include crossplane marks "should never be included" is not: includes are relative
    // to the main config's directory, so `bar.conf` is missing (as nginx reports it). It is
    // not a syntax error but `nginx-include-missing`, at the including file and line.
    let path = base.join("includes-regular/nginx.conf");
    assert!(parse_errors(&path).is_empty());
    let errors = findings_of(&path, "nginx-include-missing");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].1.contains(
            "conf.d/server.conf:5: `server.conf:5` includes `bar.conf`, not found relative to \
             the directory of `nginx.conf` (the main configuration)"
        ),
        "{errors:?}"
    );
}

#[test]
fn crossplane_tricky_configs_parse() {
    if !support::present(&corpus().join("nginx"), "crossplane_tricky_configs_parse") {
        return;
    }
    let base = corpus().join("nginx/nginxinc__crossplane/tests/configs");
    for file in [
        "lua-block-simple/nginx.conf",
        "lua-block-larger/nginx.conf",
        "lua-block-tricky/nginx.conf",
        "quoted-right-brace/nginx.conf",
        "comments-between-args/nginx.conf",
        "directive-with-space/nginx.conf",
        "empty-value-map/nginx.conf",
        "russian-text/nginx.conf",
        "messy/nginx.conf",
        "includes-globbed/nginx.conf",
        "with-comments/nginx.conf",
        // nginx is byte-transparent: bytes that are not UTF-8 are valid.
        "non-unicode/nginx.conf",
    ] {
        let errors = parse_errors(&base.join(file));
        assert!(errors.is_empty(), "{file}: {errors:?}");
    }
}

#[test]
fn no_corpus_file_panics_with_every_rule() {
    if !support::present(
        &corpus().join("nginx"),
        "no_corpus_file_panics_with_every_rule",
    ) {
        return;
    }
    let mut stack = vec![corpus().join("nginx")];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 600, "{} files", files.len());
    let mut panics = Vec::new();
    for path in &files {
        let result = std::panic::catch_unwind(|| {
            lint(vec![input(path)], &Settings::default());
        });
        if result.is_err() {
            panics.push(path.display().to_string());
        }
    }
    // All of them at once too: cross-file includes and deduplication of included inputs.
    let all: Vec<Input> = files.iter().map(|p| input(p)).collect();
    let report = lint(all, &Settings::default());
    assert!(report.summary.files >= files.len());
    assert!(panics.is_empty(), "panicked on {panics:?}");
}
