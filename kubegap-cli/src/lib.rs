//! kubegap-cli: arguments, discovery, output formats and exit codes around `kubegap-core`.
//!
//! Only this crate knows about terminals, colours, wire formats and process exit codes.

pub mod args;
pub mod output;
pub mod walk;

use std::io::{IsTerminal, Write};

use args::{Cli, Color, Command, FailOn, Format, KindArg, LintArgs};
use kubegap_core::config::Version;
use kubegap_core::rules::{find, RULES};
use kubegap_core::{FileKind, Report, Settings, Severity};

/// Exit code: nothing at or above `--fail-on`.
pub const EXIT_OK: i32 = 0;
/// Exit code: findings at or above `--fail-on`.
pub const EXIT_FINDINGS: i32 = 1;
/// Exit code: usage, configuration or I/O error of the command itself.
pub const EXIT_ERROR: i32 = 2;

/// Set when a write to stderr failed: the run then exits 2 (nothing else can be reported).
static STDERR_FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes one line to stderr. A failure (a full disk, a closed descriptor) never panics, as
/// `eprintln!` would: it makes the exit code 2.
pub fn eprint_line(line: &str) {
    let mut stderr = std::io::stderr().lock();
    if writeln!(stderr, "{line}")
        .and_then(|()| stderr.flush())
        .is_err()
    {
        STDERR_FAILED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Runs the CLI and returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let code = run_command(cli);
    if STDERR_FAILED.load(std::sync::atomic::Ordering::Relaxed) {
        EXIT_ERROR
    } else {
        code
    }
}

fn run_command(cli: Cli) -> i32 {
    match cli.command {
        Command::Lint(args) => with_threads(&args, lint),
        Command::Chains(args) => with_threads(&args, chains),
        Command::Rules => {
            let mut out = String::new();
            let width = RULES.iter().map(|r| r.id.len()).max().unwrap_or(0);
            for rule in RULES {
                out.push_str(&format!(
                    "{:width$}  {:7}  {}\n",
                    rule.id,
                    rule.default_severity.name(),
                    rule.summary
                ));
            }
            write_stdout(&out)
        }
        Command::Explain { rule } => match find(&rule) {
            Some(rule) => {
                let mut out = format!(
                    "# {} ({})\n\n{}",
                    rule.id,
                    rule.default_severity.name(),
                    rule.markdown()
                );
                if !rule.evidence.is_empty() {
                    out.push_str("\n## Evidence\n");
                    for link in rule.evidence {
                        out.push_str(&format!("- {link}\n"));
                    }
                }
                write_stdout(&out)
            }
            None => {
                let close: Vec<&str> = RULES
                    .iter()
                    .map(|r| r.id)
                    .filter(|id| id.contains(rule.as_str()) || rule.contains(id))
                    .collect();
                eprint_line(&format!("error: unknown rule `{rule}`"));
                if !close.is_empty() {
                    eprint_line(&format!("did you mean: {}", close.join(", ")));
                }
                eprint_line("`kubegap rules` lists every rule");
                EXIT_ERROR
            }
        },
    }
}

fn write_stdout(text: &str) -> i32 {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => EXIT_OK,
        // A closed pipe (`kubegap … | head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprint_line(&format!("error: writing output: {e}"));
            EXIT_ERROR
        }
    }
}

/// Loads a configuration file and the presets it `extends` (paths relative to the file).
fn load_config(
    path: &std::path::Path,
    settings: &mut Settings,
    depth: usize,
) -> Result<(), String> {
    if depth > 8 {
        return Err(format!(
            "{}: `extends` nests more than 8 levels",
            path.display()
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // Presets first, so the file's own keys win.
    let mut own = Settings::default();
    let known = |id: &str| find(id).is_some();
    let extends = own.apply_yaml(&text, &known).map_err(|errors| {
        errors
            .iter()
            .map(|e| format!("{}:{}: {}", path.display(), e.line, e.message))
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    if let Some(parent) = extends {
        let base = path.parent().unwrap_or(std::path::Path::new("."));
        load_config(&base.join(parent), settings, depth + 1)?;
    }
    // Apply again on top of the presets (cheap; keeps one code path for every key).
    settings
        .apply_yaml(&text, &known)
        .map_err(|_| format!("{}: invalid configuration", path.display()))?;
    Ok(())
}

/// Builds settings: `.kubegap.yaml` (or `--config`), then flags.
pub fn settings(args: &LintArgs) -> Result<Settings, String> {
    let mut settings = Settings::default();
    match &args.config {
        Some(path) => load_config(path, &mut settings, 0)?,
        None => {
            let default = std::path::Path::new(".kubegap.yaml");
            if default.is_file() {
                load_config(default, &mut settings, 0)?;
            }
        }
    }
    for id in args.select.iter().chain(&args.ignore) {
        if find(id).is_none() {
            return Err(format!("unknown rule `{id}` (see `kubegap rules`)"));
        }
    }
    if !args.select.is_empty() {
        settings.select = Some(args.select.clone());
    }
    settings.ignore.extend(args.ignore.iter().cloned());
    let version = |flag: &str, v: &Option<String>| -> Result<Option<Version>, String> {
        match v {
            None => Ok(None),
            Some(text) => Version::parse(text)
                .map(Some)
                .ok_or_else(|| format!("{flag}: not a version: `{text}`")),
        }
    };
    if let Some(v) = version("--haproxy-version", &args.haproxy_version)? {
        settings.haproxy_version = Some(v);
    }
    if let Some(v) = version("--nginx-version", &args.nginx_version)? {
        settings.nginx_version = Some(v);
    }
    if args.nginx_prefix.is_some() {
        settings.nginx_prefix.clone_from(&args.nginx_prefix);
    }
    if args.nodes.is_some() {
        settings.nodes = args.nodes;
    }
    settings.complete |= args.complete;
    settings.l7_in_front |= args.l7_in_front;
    settings.reads = read_policy(args);
    Ok(settings)
}

/// The lint roots and read bounds of a run: the directories given, the git work tree the
/// command runs in (the directory of each file given is added by the engine).
fn read_policy(args: &LintArgs) -> kubegap_core::reads::ReadPolicy {
    let mut roots: Vec<std::path::PathBuf> = args
        .paths
        .iter()
        .filter(|p| p.as_os_str() != "-" && p.is_dir())
        .cloned()
        .collect();
    if args.paths.is_empty() {
        roots.push(".".into());
    }
    roots.extend(git_work_tree());
    kubegap_core::reads::ReadPolicy {
        roots,
        allow_outside_roots: args.allow_read_outside_root,
        max_file_size: args.max_file_size,
    }
}

/// The root of the git work tree containing the current directory, if any (a directory
/// holding `.git`, a directory or a file for worktrees and submodules).
fn git_work_tree() -> Option<std::path::PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(std::path::Path::to_path_buf)
}

/// The memory budget: `--max-memory`, or half of the machine's memory (or of the cgroup's
/// limit, when lower). Unknown memory means no budget beyond the size limit.
fn memory_budget(args: &LintArgs) -> u64 {
    if let Some(max) = args.max_memory {
        return max;
    }
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .map(|kb| kb.saturating_mul(1024))
        });
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok());
    match (total, cgroup) {
        (Some(t), Some(c)) => t.min(c) / 2,
        (Some(t), None) => t / 2,
        (None, Some(c)) => c / 2,
        (None, None) => u64::MAX,
    }
}

fn forced_kind(args: &LintArgs) -> Option<FileKind> {
    args.kind.map(|k| match k {
        KindArg::Yaml => FileKind::Yaml,
        KindArg::Haproxy => FileKind::Haproxy,
        KindArg::Nginx => FileKind::Nginx,
    })
}

/// Runs `f` in a thread pool of `--threads` threads (default: one per core). When the threads
/// cannot be created (a low `RLIMIT_NPROC`), kubegap says so and runs on the current thread
/// alone; only when even that fails is it an error (exit 2). Never a panic.
fn with_threads(args: &LintArgs, f: impl FnOnce(&LintArgs) -> i32 + Send) -> i32 {
    let n = args.threads.map_or(0, |n| n.max(1));
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
        Ok(pool) => pool,
        Err(error) => {
            eprint_line(&format!(
                "warning: cannot start worker threads ({error}); running on one thread"
            ));
            match rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .use_current_thread()
                .build()
            {
                Ok(pool) => pool,
                Err(error) => {
                    eprint_line(&format!("error: cannot set up even one thread: {error}"));
                    return EXIT_ERROR;
                }
            }
        }
    };
    pool.install(|| f(args))
}

fn use_color(choice: Color) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

/// The exit code for a report under `--fail-on`.
pub fn exit_code(report: &Report, fail_on: FailOn) -> i32 {
    let threshold = match fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
        FailOn::Info => Severity::Info,
        FailOn::Never => return EXIT_OK,
    };
    if report.findings.iter().any(|f| f.severity >= threshold) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// What `lint` and `chains` share: settings, the thread pool, discovery (its errors printed).
fn prepare(args: &LintArgs) -> Result<(kubegap_core::Settings, walk::Discovered), i32> {
    let settings = settings(args).map_err(|e| {
        eprint_line(&format!("error: {e}"));
        EXIT_ERROR
    })?;
    let limits = walk::Limits {
        max_file_size: args.max_file_size,
        max_memory: memory_budget(args),
        roots: settings
            .reads
            .roots
            .iter()
            .filter_map(|r| std::fs::canonicalize(r).ok())
            .collect(),
    };
    let discovered = walk::discover_with(&args.paths, forced_kind(args), &limits);
    for w in &discovered.warnings {
        eprint_line(&format!("warning: {w}"));
    }
    for e in &discovered.errors {
        eprint_line(&format!("error: {e}"));
    }
    Ok((settings, discovered))
}

fn lint(args: &LintArgs) -> i32 {
    let (settings, discovered) = match prepare(args) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    let report = kubegap_core::lint(discovered.inputs, &settings);
    let text = match args.format {
        Format::Human => output::human::render(&report, use_color(args.color)),
        Format::Json => output::json::render(&report),
        Format::Sarif => output::sarif::render(&report),
        Format::Github => output::github::render(&report),
    };
    let written = write_stdout(&text);
    if !discovered.errors.is_empty() || written != EXIT_OK {
        return EXIT_ERROR;
    }
    exit_code(&report, args.fail_on)
}

/// `kubegap chains`: every timeout chain, one route per block, one line of hops each.
fn chains(args: &LintArgs) -> i32 {
    let (settings, discovered) = match prepare(args) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    let workspace = kubegap_core::engine::load(discovered.inputs, &settings);
    let links = workspace.links();
    let cx = workspace.context(&settings, &links);
    let chains = kubegap_core::chain::build(&cx);
    let text = match args.format {
        Format::Json => output::chains::json(&workspace.files, &chains),
        _ => output::chains::text(&workspace.files, &chains),
    };
    let written = write_stdout(&text);
    if !discovered.errors.is_empty() || written != EXIT_OK {
        EXIT_ERROR
    } else {
        EXIT_OK
    }
}
