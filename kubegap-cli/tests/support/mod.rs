//! What the CLI tests share: running the `kubegap` binary and reading what it printed.
//!
//! Each test binary includes this module with `mod support;` and uses only part of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The workspace root: fixtures are named relative to it.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs kubegap in `dir` with `stdin` (closed when `None`) and extra environment variables.
/// `NO_COLOR` and `COLUMNS` of the calling environment are removed, so output does not depend
/// on the terminal the tests run in.
pub fn run_with(dir: &Path, args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubegap"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn kubegap");
    if let Some(bytes) = stdin {
        child
            .stdin
            .take()
            .expect("piped stdin")
            .write_all(bytes)
            .expect("write stdin");
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().expect("wait for kubegap")
}

/// Runs kubegap in `dir`.
pub fn run_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_with(dir, args, stdin, &[])
}

/// Runs kubegap from the workspace root.
pub fn kubegap(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_in(&root(), args, stdin)
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Standard output as JSON; on failure the panic shows both streams.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\nstderr: {}", stdout(out), stderr(out)))
}

/// (rule, file, line) of every finding of a JSON report.
pub fn findings(v: &serde_json::Value) -> Vec<(String, String, u64)> {
    v["findings"]
        .as_array()
        .expect("findings array")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                f["file"].as_str().unwrap_or_default().to_string(),
                f["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}
