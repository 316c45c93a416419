//! Untrusted repositories (docs/RELIABILITY.md): confined reads, bounded input, no secrets
//! echoed, no lost files, no panics. Each test is the proof of one guarantee of the threat
//! model; most reproduce a case of issue #16.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const FORMATS: &[&str] = &["human", "json", "sarif", "github"];

/// A manifest with one warning (`k8s-service-selects-nothing`).
fn service() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/cli/kubectl-list.yaml"),
    )
    .unwrap()
}

/// A scratch directory outside any git work tree (the system temp directory), removed when
/// the test ends (each CI run left 23 of them behind before).
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("kubegap-rel-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn command(cwd: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubegap"));
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn run(cwd: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = command(cwd, args);
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd.spawn().unwrap();
    if let Some(bytes) = stdin {
        // The process may stop reading early (a size limit): a broken pipe is fine.
        let _ = child.stdin.take().unwrap().write_all(bytes);
    }
    child.wait_with_output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// `out` exited with `code` and says `needle` (on stdout or stderr).
fn assert_says(out: &Output, code: i32, needle: &str) {
    assert_eq!(out.status.code(), Some(code), "{}", text(out));
    assert!(text(out).contains(needle), "{}", text(out));
}

/// Issue #16's reproduction: `include ../secret.env;` must not print the secret, in any format.
#[test]
fn an_include_leaving_the_root_is_not_read() {
    let dir = scratch("escape");
    write(&dir.join("secret.env"), "TOKEN=abc\n");
    write(
        &dir.join("repo/nginx.conf"),
        "events {} http { include ../secret.env; }\n",
    );
    let repo = dir.join("repo");
    for format in FORMATS {
        let out = run(&repo, &["lint", "nginx.conf", "--format", format], None);
        let all = text(&out);
        assert!(!all.contains("TOKEN"), "{format}: {all}");
        assert!(
            all.contains(
                "`nginx.conf:1` includes `../secret.env`, outside the lint root, not read"
            ),
            "{format}: {all}"
        );
        // A warning: the exit code does not change under the default --fail-on error.
        assert_eq!(out.status.code(), Some(0), "{format}: {all}");
    }
    // The same through a directory argument, and a glob.
    write(
        &repo.join("conf/nginx.conf"),
        "events {} http { include ../../*.env; }\n",
    );
    let out = run(&repo, &["lint", "conf", "--format", "json"], None);
    assert!(!text(&out).contains("TOKEN"), "{}", text(&out));
    // Opting in reads it (and then it is linted as nginx, which it is not).
    let out = run(
        &repo,
        &[
            "lint",
            "nginx.conf",
            "--format",
            "json",
            "--allow-read-outside-root",
        ],
        None,
    );
    assert!(text(&out).contains("TOKEN"), "{}", text(&out));
}

/// `--nginx-prefix /` makes the machine a root, but /proc never is: the environment (CI
/// tokens) is not read.
#[test]
fn proc_self_environ_is_never_read() {
    let dir = scratch("environ");
    write(
        &dir.join("nginx.conf"),
        "events {} http { include /proc/self/environ; include /proc/*/environ; }\n",
    );
    for format in FORMATS {
        let out = command(
            &dir,
            &[
                "lint",
                "nginx.conf",
                "--nginx-prefix",
                "/",
                "--format",
                format,
            ],
        )
        .env("KUBEGAP_TEST_SECRET", "s3cr3t-value")
        .output()
        .unwrap();
        let all = text(&out);
        assert!(!all.contains("s3cr3t"), "{format}: {all}");
        assert!(
            all.contains("includes `/proc/self/environ`, in a pseudo file system"),
            "{format}: {all}"
        );
        assert!(
            all.contains("includes `/proc/*/environ`, in a pseudo file system"),
            "{format}: {all}"
        );
    }
}

/// Directories are read by as many walkers as threads, but what they find comes in path
/// order, as a sequential walk sorted by path gives it: here the refusals of 60 files over the
/// size limit in 12 directories, for 1 and 8 threads.
#[test]
fn the_parallel_walk_reports_in_path_order() {
    let dir = scratch("walk-order");
    let mut want = Vec::new();
    for d in 0..12 {
        for f in 0..5 {
            let rel = format!("d{d:02}/sub/f{f}.yaml");
            let path = dir.join(&rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            write(&path, "a: 1\n".repeat(400));
            want.push(rel);
        }
    }
    want.sort();
    for threads in ["1", "8"] {
        let out = run(
            &dir,
            &["lint", ".", "--max-file-size", "1KiB", "--threads", threads],
            None,
        );
        let all = text(&out);
        let refused: Vec<&str> = all
            .lines()
            .filter(|l| l.contains("is larger than --max-file-size"))
            .collect();
        assert_eq!(refused.len(), want.len(), "{threads} threads: {all}");
        for (line, rel) in refused.iter().zip(&want) {
            assert!(
                line.contains(rel.as_str()),
                "{threads} threads: {line} is not {rel}\n{all}"
            );
        }
    }
}

/// Files over `--max-file-size` are refused before they are read (exit 2), stdin too.
#[test]
fn files_over_the_size_limit_are_refused() {
    let dir = scratch("size");
    write(&dir.join("big.yaml"), "a: 1\n".repeat(1000));
    let out = run(&dir, &["lint", "big.yaml", "--max-file-size", "1KiB"], None);
    assert_says(
        &out,
        2,
        "big.yaml: 4.8 KiB is larger than --max-file-size (1 KiB), not read",
    );
    let out = run(
        &dir,
        &["lint", "-", "--max-file-size", "1KiB"],
        Some("a: 1\n".repeat(1000).as_bytes()),
    );
    assert_says(
        &out,
        2,
        "<stdin>: larger than --max-file-size (1 KiB), not read",
    );
    // Under the limit: linted.
    let out = run(&dir, &["lint", "big.yaml", "--max-file-size", "1M"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // The memory budget refuses what the size limit lets through.
    let out = run(&dir, &["lint", "big.yaml", "--max-memory", "1M"], None);
    assert_says(&out, 2, "above --max-memory 1 MiB");
}

/// Directories are walked together but reported in argument order: each argument's problems
/// come in the order of the arguments, whatever the thread count.
#[test]
fn problems_come_in_argument_order() {
    let dir = scratch("arg-order");
    write(&dir.join("a/big.yaml"), "a: 1\n".repeat(1000));
    write(&dir.join("b/big.yaml"), "a: 1\n".repeat(1000));
    write(&dir.join("b/ok.yaml"), service());
    // Directories are walked by one walk when none is inside another: each keeps its own
    // entries however it is spelled.
    for (threads, b, a) in [("1", "b", "a"), ("3", "b", "a"), ("2", "./b/", "a/")] {
        let out = run(
            &dir,
            &[
                "lint",
                b,
                "missing.yaml",
                a,
                "--max-file-size",
                "1KiB",
                "--threads",
                threads,
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 3, "{stderr}");
        assert!(errors[0].contains("b/big.yaml"), "{stderr}");
        assert!(errors[1].contains("missing.yaml"), "{stderr}");
        assert!(errors[2].contains("a/big.yaml"), "{stderr}");
        // The readable file of `b` is linted.
        assert!(
            text(&out).contains("k8s-service-selects-nothing"),
            "{}",
            text(&out)
        );
    }
}

/// The memory budget admits a walked directory's files in path order, whatever the threads
/// and however far the walk read ahead of it: the first files are linted, the budget stops at
/// the same file, and nothing after it is linted.
#[test]
fn the_budget_stops_a_walk_at_the_same_file() {
    let dir = scratch("budget-walk");
    // 24 files of 1,000 bytes in nested directories, each with a parse error of its own.
    let mut names = Vec::new();
    for i in 0..24 {
        let name = format!("d{}/e{}/f{i:02}.yaml", i % 3, i % 2);
        let mut text = format!("name: f{i:02}\nbroken: [\n");
        text.push_str(&"#".repeat(999 - text.len()));
        text.push('\n');
        write(&dir.join("tree").join(&name), text);
        names.push(format!("tree/{name}"));
    }
    names.sort();
    // Room for 9 of them: 50 MiB (kubegap's base) + 8 x 9,500 bytes of input.
    let limit = (50u64 << 20) + 8 * 9_500;
    let mut reports = std::collections::BTreeSet::new();
    for threads in ["1", "2", "3", "1", "2", "3"] {
        let out = run(
            &dir,
            &[
                "lint",
                "tree",
                "--format",
                "json",
                "--max-memory",
                &limit.to_string(),
                "--threads",
                threads,
            ],
            None,
        );
        assert_says(&out, 2, "above --max-memory");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let linted: std::collections::BTreeSet<String> = support::findings(&json(&out))
            .into_iter()
            .map(|(_, file, _)| file)
            .collect();
        let expected: std::collections::BTreeSet<String> = names[..9].iter().cloned().collect();
        assert_eq!(linted, expected, "threads {threads}");
        reports.insert((out.stdout, stderr.into_owned()));
    }
    assert_eq!(reports.len(), 1, "one report whatever the threads");
}

/// Files are decoded before duplicates are dropped, under provisional ids: an error found while
/// decoding (invalid UTF-8) names its own file after a duplicate before it was dropped.
#[test]
fn a_decoding_error_after_a_dropped_duplicate_names_its_file() {
    let dir = scratch("decode-ids");
    write(&dir.join("a.yaml"), "a: 1\n");
    write(&dir.join("b.yaml"), b"b: \"\xff\"\n");
    for args in [
        ["lint", "a.yaml", "./a.yaml", "b.yaml"],
        ["lint", "b.yaml", "./a.yaml", "a.yaml"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--format", "json"]);
        let out = run(&dir, &args, None);
        let v = json(&out);
        assert_eq!(
            support::findings(&v),
            [("parse-error".to_string(), "b.yaml".to_string(), 1)],
            "{args:?}"
        );
        assert_eq!(v["summary"]["files"], 2, "{args:?}");
    }
}

/// Stdin redirected from a file is read like the file (in parallel blocks when large, from the
/// position the shell left it at): the report is the one a pipe of the same bytes gives, and
/// the size limit refuses it the same way.
#[test]
fn stdin_from_a_file_reads_like_a_pipe() {
    let dir = scratch("stdin-file");
    // Over the 8 MiB from which a file is read in blocks; mostly comments, cheap to lint.
    let mut bytes = "# padding padding padding padding padding padding padding padding\n"
        .repeat(140_000)
        .into_bytes();
    bytes.extend_from_slice(service().as_bytes());
    write(&dir.join("stream.yaml"), &bytes);
    let from_file = |args: &[&str]| {
        let mut cmd = command(&dir, args);
        cmd.stdin(std::fs::File::open(dir.join("stream.yaml")).unwrap());
        cmd.output().unwrap()
    };
    let args = ["lint", "-", "--format", "json"];
    let piped = run(&dir, &args, Some(&bytes));
    let redirected = from_file(&args);
    assert_eq!(piped.status.code(), Some(0), "{}", text(&piped));
    assert_eq!(redirected.status.code(), Some(0), "{}", text(&redirected));
    assert_eq!(json(&redirected)["summary"]["findings"], 1);
    assert_eq!(redirected.stdout, piped.stdout);
    let args = ["lint", "-", "--max-file-size", "8MiB"];
    let out = from_file(&args);
    assert_says(
        &out,
        2,
        "<stdin>: larger than --max-file-size (8 MiB), not read",
    );
}

/// `/dev/zero` stops at the size limit instead of eating memory (and the test is fast).
#[cfg(target_os = "linux")]
#[test]
fn dev_zero_is_bounded() {
    let dir = scratch("zero");
    for kind in [None, Some("yaml")] {
        let mut args = vec!["lint", "/dev/zero", "--max-file-size", "4M"];
        if let Some(kind) = kind {
            args.extend(["--kind", kind]);
        }
        let started = std::time::Instant::now();
        let out = run(&dir, &args, None);
        assert_says(
            &out,
            2,
            "/dev/zero: larger than --max-file-size (4 MiB), not read",
        );
        assert!(started.elapsed().as_secs() < 20);
    }
}

/// File names that are not UTF-8 are linted (found by a walk, kind from the extension's
/// bytes), shown escaped, and two that display alike both keep their findings.
#[cfg(target_os = "linux")]
#[test]
fn names_that_are_not_utf8_are_linted() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("names");
    let service = service();
    for name in [&b"caf\xe9.yaml"[..], &b"caf\xe8.yaml"[..]] {
        write(&dir.join(std::ffi::OsStr::from_bytes(name)), &service);
    }
    let out = run(
        &dir,
        &["lint", ".", "--format", "json", "--fail-on", "never"],
        None,
    );
    let v = json(&out);
    assert_eq!(v["summary"]["files"].as_u64(), Some(2), "{}", text(&out));
    let files: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "k8s-service-selects-nothing")
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        ["./caf\\xe8.yaml", "./caf\\xe9.yaml"],
        "{}",
        text(&out)
    );
    // Named explicitly, too.
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.yaml");
    let out = command(&dir, &["lint", "--format", "json", "--fail-on", "never"])
        .arg(name)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(json(&out)["summary"]["files"].as_u64(), Some(1));
}

/// A file literally named `<stdin>` and `-` are two inputs.
#[test]
fn a_file_named_stdin_is_not_standard_input() {
    let dir = scratch("stdin-name");
    let service = service();
    write(&dir.join("<stdin>"), &service);
    let out = run(
        &dir,
        &[
            "lint",
            "<stdin>",
            "-",
            "--kind",
            "yaml",
            "--format",
            "json",
            "--fail-on",
            "never",
        ],
        Some(service.as_bytes()),
    );
    let v = json(&out);
    assert_eq!(v["summary"]["files"].as_u64(), Some(2), "{}", text(&out));
    let mut files: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    files.dedup();
    assert_eq!(files, ["./<stdin>", "<stdin>"]);
}

/// Symbolic links inside the walked directory are followed (once: loops are cut), links that
/// leave it are reported and not read.
#[cfg(unix)]
#[test]
fn symlinks_are_followed_inside_the_roots_only() {
    use std::os::unix::fs::symlink;
    let dir = scratch("links");
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n";
    write(&dir.join("outside/secret.yaml"), "TOKEN: abc\n");
    write(&dir.join("repo/real/svc.yaml"), service);
    symlink("real", dir.join("repo/linked-dir")).unwrap();
    symlink("real/svc.yaml", dir.join("repo/linked.yaml")).unwrap();
    symlink(".", dir.join("repo/real/loop")).unwrap();
    symlink("../outside", dir.join("repo/out")).unwrap();
    symlink("../outside/secret.yaml", dir.join("repo/secret.yaml")).unwrap();
    // A tree made only of links is linted, not "0 files".
    std::fs::create_dir_all(dir.join("links-only")).unwrap();
    symlink("../repo/real/svc.yaml", dir.join("links-only/a.yaml")).unwrap();
    let repo = dir.join("repo");
    let out = run(
        &repo,
        &["lint", ".", "--format", "json", "--fail-on", "never"],
        None,
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(!all.contains("TOKEN"), "{all}");
    // The Service is linted once, whatever the number of links to it.
    assert_eq!(json(&out)["summary"]["files"].as_u64(), Some(1), "{all}");
    assert!(
        all.contains("./out: symbolic link leaves the lint root, not read"),
        "{all}"
    );
    assert!(
        all.contains("./secret.yaml: symbolic link leaves the lint root, not read"),
        "{all}"
    );
    // links-only/ lints the file its link names (inside the directory it is linted with).
    let out = run(
        &dir,
        &[
            "lint",
            "links-only",
            "--format",
            "json",
            "--fail-on",
            "never",
            // Nothing is left to lint: without this the run is exit 2 ("nothing to lint").
            "--allow-empty",
        ],
        None,
    );
    assert_eq!(
        json(&out)["summary"]["files"].as_u64(),
        Some(0),
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("links-only/a.yaml: symbolic link leaves the lint root, not read"),
        "{}",
        text(&out)
    );
    let out = run(
        &dir,
        &[
            "lint",
            "links-only",
            "repo",
            "--format",
            "json",
            "--fail-on",
            "never",
        ],
        None,
    );
    assert_eq!(
        json(&out)["summary"]["files"].as_u64(),
        Some(1),
        "{}",
        text(&out)
    );
    // Walked together with `repo` (one walk), the link of `links-only` leads into a lint
    // root: followed, and its file linted once.
    assert!(
        !text(&out).contains("links-only/a.yaml: symbolic link"),
        "{}",
        text(&out)
    );
}

/// A walked file is one input whatever the spelling of the directory walked (a link to it, a
/// path through `..`, a link below it) and of the same file named beside it: the walk's canonical
/// paths (the root's, joined with the names it read) agree with the engine's own lookups.
#[cfg(unix)]
#[test]
fn a_file_walked_and_named_is_one_input_whatever_the_spelling() {
    use std::os::unix::fs::symlink;
    let dir = scratch("spellings");
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n";
    write(&dir.join("repo/real/deep/svc.yaml"), service);
    write(&dir.join("other/keep"), "");
    symlink("repo", dir.join("via-link")).unwrap();
    symlink("deep", dir.join("repo/real/deep-link")).unwrap();
    // Sorted before `deep`, which must still be known after the link is left behind.
    symlink("deep", dir.join("repo/real/a-link")).unwrap();
    let cases: [&[&str]; 7] = [
        &["via-link", "repo/real/deep/svc.yaml"],
        &["repo", "via-link/real/deep/svc.yaml"],
        &["other/../repo", "repo/real/deep/svc.yaml"],
        &["./repo/", "via-link"],
        &["repo/real/deep-link/svc.yaml", "via-link/real"],
        &["repo/real", "repo/real/deep-link"],
        &[
            "repo/real/a-link/svc.yaml",
            "repo/real",
            "via-link/real/deep/svc.yaml",
        ],
    ];
    for args in cases {
        let mut all = vec!["lint", "--format", "json", "--fail-on", "never"];
        all.extend_from_slice(args);
        let out = run(&dir, &all, None);
        assert_eq!(
            json(&out)["summary"]["files"].as_u64(),
            Some(1),
            "{args:?}: {}",
            text(&out)
        );
    }
}

/// A full stderr is an error (exit 2), never a panic (101).
#[cfg(target_os = "linux")]
#[test]
fn a_full_stderr_exits_2() {
    let dir = scratch("full");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = command(&dir, &["lint", "nope.yaml"])
        .stderr(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = command(&dir, &["explain", "nope"])
        .stderr(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A full stdout too (the report cannot be written), with stderr saying so.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = command(&dir, &["rules"]).stdout(full).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: writing output"));
}

/// A thread pool that cannot be built falls back to one thread with a notice: same findings,
/// no panic. Needs `setpriv` and `prlimit` (util-linux) to lower RLIMIT_NPROC for an
/// unprivileged user; skipped loudly without them.
#[cfg(target_os = "linux")]
#[test]
fn thread_pool_failure_falls_back_to_one_thread() {
    let have = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !have("setpriv") || !have("prlimit") {
        eprintln!("SKIPPED: setpriv/prlimit not found; thread-pool fallback not tested");
        return;
    }
    let dir = scratch("threads");
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n";
    write(&dir.join("svc.yaml"), service);
    let file = dir.join("svc.yaml");
    let file = file.to_str().unwrap();
    // Readable by the unprivileged user.
    let _ = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(&*dir)
        .status();
    let expected = run(
        &dir,
        &["lint", file, "--format", "json", "--fail-on", "never"],
        None,
    );
    for threads in [&["--threads", "4"][..], &[]] {
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .args(["prlimit", "--nproc=1"])
            .arg(env!("CARGO_BIN_EXE_kubegap"))
            .args(["lint", file, "--format", "json", "--fail-on", "never"])
            .args(threads)
            .current_dir("/")
            .output()
            .unwrap();
        if String::from_utf8_lossy(&out.stderr).contains("setpriv:")
            || String::from_utf8_lossy(&out.stderr).contains("prlimit:")
        {
            eprintln!("SKIPPED: cannot switch user here: {}", text(&out));
            return;
        }
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("cannot start worker threads")
                || String::from_utf8_lossy(&out.stderr).is_empty(),
            "{}",
            text(&out)
        );
        assert_eq!(out.stdout, expected.stdout);
    }
}

/// CR-only line ends give the same lines and columns as LF and CRLF.
#[test]
fn cr_only_line_ends_give_the_right_lines() {
    let dir = scratch("cr");
    let lf = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/cli/helm-stream.yaml"),
    )
    .unwrap();
    let mut seen = Vec::new();
    for eol in ["\n", "\r\n", "\r"] {
        let out = run(
            &dir,
            &["lint", "-", "--format", "json", "--fail-on", "never"],
            Some(lf.replace('\n', eol).as_bytes()),
        );
        let v = json(&out);
        let places: Vec<(u64, u64, String)> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["line"].as_u64().unwrap(),
                    f["column"].as_u64().unwrap(),
                    f["rule"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert!(places
            .iter()
            .any(|p| p == &(37, 19, "k8s-service-target-port-missing".to_string())));
        seen.push(places);
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[0], seen[2]);
    // The human report shows the same snippets (miette splits lines at LF only).
    let human = |eol: &str| {
        run(
            &dir,
            &["lint", "-", "--color", "never"],
            Some(lf.replace('\n', eol).as_bytes()),
        )
        .stdout
    };
    assert_eq!(
        String::from_utf8_lossy(&human("\n")),
        String::from_utf8_lossy(&human("\r"))
    );
}

/// A 1M-digit haproxy time value gives a short message, not a 1 MB one.
#[test]
fn a_huge_token_gives_a_short_message() {
    let dir = scratch("long");
    let cfg = format!(
        "defaults\n  timeout connect 5s\n  timeout client {}x\n  timeout server 5s\n",
        "9".repeat(1_000_000)
    );
    write(&dir.join("haproxy.cfg"), &cfg);
    for format in FORMATS {
        let out = run(&dir, &["lint", "haproxy.cfg", "--format", format], None);
        assert!(
            out.stdout.len() < 20_000,
            "{format}: {} bytes of output",
            out.stdout.len()
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("invalid time `999"));
    }
    let out = run(&dir, &["lint", "haproxy.cfg", "--format", "json"], None);
    for f in json(&out)["findings"].as_array().unwrap() {
        assert!(f["message"].as_str().unwrap().len() < 400, "{f}");
    }
}

/// UTF-16 and UTF-32 input is named as such (by its byte order mark).
#[test]
fn utf16_input_is_named() {
    let dir = scratch("utf16");
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "apiVersion: v1\nkind: Service\n".encode_utf16() {
        bytes.extend(unit.to_le_bytes());
    }
    write(&dir.join("svc.yaml"), &bytes);
    let out = run(&dir, &["lint", "svc.yaml", "--format", "json"], None);
    let v = json(&out);
    assert_eq!(v["findings"].as_array().unwrap().len(), 1, "{}", text(&out));
    assert_eq!(
        v["findings"][0]["message"],
        "the file is UTF-16 LE (byte order mark at byte 0); kubegap reads UTF-8: convert it, e.g. `iconv -f UTF-16LE -t UTF-8`"
    );
    let mut utf32 = vec![0, 0, 0xFE, 0xFF];
    utf32.extend([0, 0, 0, b'a']);
    let out = run(&dir, &["lint", "-", "--format", "json"], Some(&utf32));
    assert!(text(&out).contains("UTF-32 BE"), "{}", text(&out));
}

/// A FIFO in a walked directory is skipped (never opened, so the walk does not block).
#[cfg(unix)]
#[test]
fn a_fifo_in_a_walked_directory_is_skipped() {
    let dir = scratch("fifo");
    let status = Command::new("mkfifo").arg(dir.join("pipe.yaml")).status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: mkfifo not available");
        return;
    }
    write(&dir.join("ok.yaml"), "a: 1\n");
    // `a: 1` is no Kubernetes object: --allow-empty keeps "nothing to lint" from failing the run.
    let out = run(
        &dir,
        &["lint", ".", "--format", "json", "--allow-empty"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(json(&out)["summary"]["files"].as_u64(), Some(1));
}

/// A closed stdout (`kubegap lint … | head -1`) ends the run quietly: no panic, no message,
/// the exit code of the findings.
#[test]
fn a_closed_stdout_is_quiet() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/examples");
    let mut child = command(&scratch("pipe"), &["lint", "--color", "never"])
        .arg(&examples)
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(out.stderr.is_empty(), "{}", text(&out));
}

/// The files a walk leaves to read after it (1 MiB or more) are read largest first, in
/// parallel, and each goes back to its place among the others: every file is linted with its
/// own bytes, in path order, a refused one stays an error at its place, whatever the threads.
#[test]
fn files_read_after_the_walk_keep_their_place() {
    let dir = scratch("read-after-walk");
    // (name, bytes of padding): below and above the 1 MiB from which the walk leaves a file.
    let files = [
        ("a.yaml", 0usize),
        ("b.yaml", 1_500_000),
        ("c.yaml", 10),
        ("d.yaml", 2_200_000),
        ("e.yaml", 1_100_000),
        ("f.yaml", 4_500_000),
        ("g.yaml", 0),
    ];
    for (name, pad) in files {
        let namespace = format!("ns-{}", &name[..1]);
        let mut text = service().replace("orders", &namespace);
        text.push_str(&"# padding to make the file large\n".repeat(pad / 33));
        write(&dir.join("k8s").join(name), text);
    }
    let mut reports = Vec::new();
    for threads in ["1", "2", "8"] {
        let out = run(
            &dir,
            &[
                "lint",
                "k8s",
                "--format",
                "json",
                "--max-file-size",
                "4MiB",
                "--threads",
                threads,
            ],
            None,
        );
        // f.yaml is over the limit: an error of the command, the others linted.
        assert_says(&out, 2, "f.yaml");
        let report = json(&out);
        let found: Vec<(String, String)> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "k8s-service-selects-nothing")
            .map(|f| {
                (
                    f["file"].as_str().unwrap().to_string(),
                    f["message"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let names: Vec<&str> = found.iter().map(|(file, _)| file.as_str()).collect();
        assert_eq!(
            names,
            [
                "k8s/a.yaml",
                "k8s/b.yaml",
                "k8s/c.yaml",
                "k8s/d.yaml",
                "k8s/e.yaml",
                "k8s/g.yaml"
            ],
            "{threads} threads"
        );
        for (file, message) in &found {
            let letter = &file["k8s/".len().."k8s/".len() + 1];
            assert!(
                message.contains(&format!("ns-{letter}")),
                "{threads} threads: {file} was linted with other bytes: {message}"
            );
        }
        reports.push(out.stdout);
    }
    assert!(reports.windows(2).all(|w| w[0] == w[1]));
}

/// A definition with a schema of `entries` versions, with `eol` line breaks.
fn definition(name: &str, entries: usize) -> String {
    let mut s = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {name}\nspec:\n  group: example.com\n  versions:\n"
    );
    for i in 0..entries {
        s.push_str(&format!(
            "    - name: v{i}\n      served: true\n      schema: {{openAPIV3Schema: {{type: object, description: ünread}}}}\n"
        ));
    }
    s
}

/// The lines inside large definitions' schemas are cut out of the texts as a walk reads them
/// (docs/PERFORMANCE.md "The seventeenth round"), in a small file read by the walk and in one
/// over 1 MiB read after it: every finding after them is at the line, column and snippet of
/// the files as written, in every format and whatever the line breaks, as when every text is
/// kept whole (a baseline's run, which reads the texts again).
#[test]
fn definitions_cut_as_read_keep_every_line() {
    for eol in ["\n", "\r\n", "\r"] {
        let dir = scratch(&format!("cut{}", eol.len() + usize::from(eol == "\r")));
        // A control character before the cut (a parse error of its own document), which the
        // human report shows escaped.
        let small = format!(
            "bell: \u{7}\n---\n{}---\n{}",
            definition("a.example.com", 200),
            service()
        );
        let large = format!(
            "{}---\n{}---\n{}",
            definition("b.example.com", 10_000),
            service().replace("name: api", "name: other"),
            definition("c.example.com", 100)
        );
        assert!(large.len() > 1 << 20);
        write(&dir.join("small.yaml"), small.replace('\n', eol));
        write(&dir.join("sub/large.yaml"), large.replace('\n', eol));
        let empty = dir.join("empty.baseline");
        write(&empty, "{\"kubegap_baseline\": 1, \"entries\": [\n]}\n");
        for format in FORMATS {
            let cut = run(&dir, &["lint", ".", "--format", format], None);
            let whole = run(
                &dir,
                &[
                    "lint",
                    ".",
                    "--format",
                    format,
                    "--baseline",
                    "empty.baseline",
                ],
                None,
            );
            assert_eq!(cut.status.code(), Some(1), "{}", text(&cut));
            assert_eq!(whole.status.code(), Some(1), "{}", text(&whole));
            // What the baseline's run adds: a last line of the human report, a part of the
            // JSON and SARIF ones.
            let shown = |out: &Output| match *format {
                "json" => json(out)["findings"].to_string(),
                "sarif" => json(out)["runs"][0]["results"].to_string(),
                _ => String::from_utf8_lossy(&out.stdout).replace(
                    "baseline empty.baseline: 0 findings hidden, 0 entries no longer found\n",
                    "",
                ),
            };
            assert!(shown(&cut).contains("30042"), "{}", text(&cut));
            assert_eq!(shown(&cut), shown(&whole), "{format}, eol {eol:?}");
        }
        let places = support::findings(&json(&run(&dir, &["lint", ".", "--format", "json"], None)));
        // Each Service's selector (after its Deployment's), on its line as written.
        let selector = |text: &str| {
            let lines: Vec<&str> = text.lines().collect();
            1 + lines.iter().rposition(|l| *l == "    selector:").unwrap() as u64
        };
        assert_eq!(
            places,
            [
                ("parse-error", "./small.yaml", 1),
                (
                    "k8s-service-selects-nothing",
                    "./small.yaml",
                    selector(&small)
                ),
                (
                    "k8s-service-selects-nothing",
                    "./sub/large.yaml",
                    selector(&large)
                ),
            ]
            .map(|(rule, file, line)| (rule.to_string(), file.to_string(), line))
        );
        assert!(selector(&large) > 30_000);
    }
}
