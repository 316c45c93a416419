//! Replays the fuzz seeds through the fuzz targets' own entry points (`kubegap_core::fuzz`), so
//! a crash once found stays fixed even where cargo-fuzz cannot run: every file of
//! `fuzz/corpus/<target>/` (seeds and minimised crash reproductions) and every file of
//! `testdata/` that the target reads (the fuzzer's seeds too).

use std::path::{Path, PathBuf};

use kubegap_core::fuzz;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn testdata_with(extensions: &[&str]) -> Vec<PathBuf> {
    files_under(&repo().join("testdata"))
        .into_iter()
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        })
        .collect()
}

fn replay(target: &str, entry: fn(&[u8]), seeds: Vec<PathBuf>) -> usize {
    let mut all = files_under(&repo().join("fuzz/corpus").join(target));
    all.extend(seeds);
    for path in &all {
        let bytes = std::fs::read(path).unwrap();
        let result = std::panic::catch_unwind(|| entry(&bytes));
        assert!(
            result.is_ok(),
            "fuzz target {target} panics on {}",
            path.display()
        );
    }
    all.len()
}

#[test]
fn yaml_seeds() {
    assert!(replay("yaml", fuzz::yaml, testdata_with(&["yaml", "yml", "json"])) >= 50);
}

#[test]
fn yaml_scanner_seeds() {
    // The crash reproductions are inputs where the scanner once disagreed with granit-parser.
    assert!(
        replay(
            "yaml_scanner",
            fuzz::yaml_scanner,
            testdata_with(&["yaml", "yml", "json"])
        ) >= 50
    );
}

#[test]
fn haproxy_seeds() {
    assert!(replay("haproxy", fuzz::haproxy, testdata_with(&["cfg"])) >= 20);
}

#[test]
fn nginx_seeds() {
    assert!(replay("nginx", fuzz::nginx, testdata_with(&["conf"])) >= 20);
}

#[test]
fn nginx_includes_seeds() {
    // Two hand-made multi-file seeds (NUL-separated) plus every nginx file as a main file.
    assert!(
        replay(
            "nginx_includes",
            fuzz::nginx_includes,
            testdata_with(&["conf"])
        ) >= 20
    );
}

#[test]
fn lint_one_seeds() {
    assert!(replay("lint_one", fuzz::lint_one, Vec::new()) >= 3);
}

#[test]
fn config_seeds() {
    let mut seeds = files_under(&repo().join("rulesets"));
    seeds.extend(testdata_with(&["yaml"]).into_iter().take(20));
    assert!(replay("config", fuzz::config, seeds) >= 3);
}
