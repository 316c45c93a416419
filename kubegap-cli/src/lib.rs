//! kubegap-cli: arguments, discovery, output formats and exit codes around `kubegap-core`.
//!
//! Only this crate knows about terminals, colours, wire formats and process exit codes.

pub mod args;
pub mod baseline;
pub mod charts;
pub mod commands;
pub mod config;
pub mod diff;
pub mod empty;
pub mod helm_place;
pub mod output;
pub mod walk;

use std::io::{IsTerminal, Write};

use args::{
    ChainsFormat, Cli, Color, Command, FailOn, Format, KindArg, LintArgs, OutputArgs, ReviewArgs,
};
use kubegap_core::{FileKind, Report, Severity};

pub use config::settings;

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
    if kubegap_core::phases::enabled() {
        kubegap_core::phases::mark("output");
        let table = kubegap_core::phases::table(&kubegap_core::phases::take());
        eprint_line(&format!(
            "kubegap phases (KUBEGAP_PHASES):\n{}",
            table.trim_end()
        ));
    }
    if STDERR_FAILED.load(std::sync::atomic::Ordering::Relaxed) {
        EXIT_ERROR
    } else {
        code
    }
}

fn run_command(cli: Cli) -> i32 {
    match cli.command {
        Command::Lint {
            input,
            output,
            review,
        } => with_threads(&input, |args| lint(args, &output, &review)),
        Command::Diff(args) => with_threads(&args.common, |_| diff::run(&args)),
        Command::Chains { input, format } => with_threads(&input, |args| chains(args, format)),
        Command::Rules { format, preset } => commands::rules(format, preset.as_deref()),
        Command::Explain { rule } => commands::explain(&rule),
        Command::Completions { shell } => commands::completions(shell),
        Command::Man => commands::man(),
    }
}

/// Writes to stdout; a closed pipe is quiet success, any other failure is exit 2.
pub fn write_stdout(text: &str) -> i32 {
    write_stdout_with(|w| w.write_all(text.as_bytes()))
}

/// Runs `write` on a buffered stdout and flushes it, with [`write_stdout`]'s handling of
/// errors.
pub fn write_stdout_with(
    write: impl FnOnce(&mut std::io::BufWriter<std::io::StdoutLock<'static>>) -> std::io::Result<()>,
) -> i32 {
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match write(&mut stdout).and_then(|()| stdout.flush()) {
        Ok(()) => EXIT_OK,
        // A closed pipe (`kubegap … | head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprint_line(&format!("error: writing output: {e}"));
            EXIT_ERROR
        }
    }
}

/// The lint roots and read bounds of a run: the directories given, the git work tree the
/// command runs in (the directory of each file given is added by the engine).
pub(crate) fn read_policy(args: &LintArgs) -> kubegap_core::reads::ReadPolicy {
    let mut roots: Vec<std::path::PathBuf> = args
        .paths
        .iter()
        .filter(|p| p.as_os_str() != "-" && p.is_dir())
        .cloned()
        .collect();
    if args.paths.is_empty() {
        roots.push(".".into());
    }
    // The git work tree the command runs in (`.git` a directory, or a file for worktrees).
    roots.extend(
        std::env::current_dir()
            .ok()
            .and_then(|cwd| config::repo_root(&cwd)),
    );
    kubegap_core::reads::ReadPolicy {
        roots,
        allow_outside_roots: args.allow_read_outside_root,
        max_file_size: args.max_file_size,
    }
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

pub(crate) fn forced_kind(args: &LintArgs) -> Option<FileKind> {
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

pub(crate) fn use_color(choice: Color) -> bool {
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
/// `whole`: the texts of the manifests are read again after the rules (a baseline's
/// fingerprints), so they are kept whole ([`kubegap_core::Settings::keep_whole_texts`]) and
/// none is parsed and cut as it is read ([`walk::Limits::prepare`]).
fn prepare(
    args: &LintArgs,
    whole: bool,
) -> Result<(kubegap_core::Settings, walk::Discovered), i32> {
    let mut settings = config::settings(args).map_err(|e| {
        eprint_line(&format!("error: {e}"));
        EXIT_ERROR
    })?;
    settings.keep_whole_texts = whole;
    kubegap_core::phases::mark("settings");
    let limits = walk::Limits {
        max_file_size: args.max_file_size,
        max_memory: memory_budget(args),
        roots: settings
            .reads
            .roots
            .iter()
            .filter_map(|r| std::fs::canonicalize(r).ok())
            .collect(),
        prepare: !settings.keep_whole_texts,
    };
    let mut discovered = walk::discover_with(&args.paths, forced_kind(args), &limits);
    kubegap_core::phases::mark("walk and read");
    if args.render_charts || args.render_kustomize {
        charts::render(
            &mut discovered,
            charts::Render {
                charts: args.render_charts,
                kustomize: args.render_kustomize,
            },
        );
        kubegap_core::phases::mark("charts rendered");
    }
    for w in &discovered.warnings {
        eprint_line(&format!("warning: {w}"));
    }
    for e in &discovered.errors {
        eprint_line(&format!("error: {e}"));
    }
    Ok((settings, discovered))
}

fn lint(args: &LintArgs, out: &OutputArgs, review: &ReviewArgs) -> i32 {
    // A baseline fingerprints findings from the files parsed again whole.
    let whole = review.baseline.is_some() || review.write_baseline.is_some();
    let (mut settings, discovered) = match prepare(args, whole) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    settings.report_unused_suppressions = out.report_unused_suppressions;
    let blank_stdin = empty::blank_stdin(&discovered.inputs);
    let (mut report, spent) = kubegap_core::engine::lint_keeping(discovered.inputs, &settings);
    // A path that could not be read is already an error (exit 2 below), not "nothing to lint".
    if !args.allow_empty && discovered.errors.is_empty() {
        if let Some(problem) = empty::nothing_to_lint(&report, blank_stdin) {
            crate::eprint_line(&format!("error: {problem}"));
            return EXIT_ERROR;
        }
    }
    let applied = match lint_baseline(review, &mut report, spent.documents()) {
        Ok(applied) => applied,
        Err(code) => return code,
    };
    helm_place::apply(&mut report, spent.documents(), review.chart.as_deref());
    kubegap_core::phases::mark("baseline and helm places");
    // JSON, SARIF, JUnit and human output are streamed: a large report is not held twice
    // (findings and their rendered text).
    let streamed = !out.statistics
        && match out.format {
            Format::Json => applied.is_none(),
            Format::Human | Format::Sarif | Format::Junit => true,
            Format::Concise | Format::Github => false,
        };
    if streamed {
        let color = use_color(out.color);
        let written = write_stdout_with(|w| match out.format {
            Format::Json => output::json::write(&report, w),
            Format::Sarif => output::sarif::write(&report, w),
            Format::Junit => output::junit::write_with(&report, &|id| settings.rule_enabled(id), w),
            _ => {
                output::human::write(&report, color, !out.quiet, w)?;
                match &applied {
                    Some(applied) if !out.quiet => {
                        w.write_all(baseline::human_line(applied).as_bytes())
                    }
                    _ => Ok(()),
                }
            }
        });
        // The human output ends with the baseline's line; the others leave it to stderr.
        if let Some(applied) = applied
            .as_ref()
            .filter(|_| out.quiet || out.format != Format::Human)
        {
            eprint_line(baseline::human_line(applied).trim_end());
        }
        let code = if !discovered.errors.is_empty() || written != EXIT_OK {
            EXIT_ERROR
        } else {
            exit_code(&report, out.fail_on)
        };
        // As below: the process exits next, the system takes the memory back at once.
        std::mem::forget((spent, report));
        return code;
    }
    let mut text = render(&report, out, &settings);
    if let Some(applied) = &applied {
        match out.format {
            Format::Human if !out.quiet => text.push_str(&baseline::human_line(applied)),
            Format::Json if !out.statistics => {
                text = baseline::add_json_member(&text, "baseline", &baseline::json_value(applied))
            }
            _ => eprint_line(baseline::human_line(applied).trim_end()),
        }
    }
    let written = write_stdout(&text);
    let code = if !discovered.errors.is_empty() || written != EXIT_OK {
        EXIT_ERROR
    } else {
        exit_code(&report, out.fail_on)
    };
    // The output is flushed and the process exits with `code` right after this function:
    // freeing the model (documents, graph, chains: millions of small allocations), the report
    // and the output would cost about a tenth of a run on a large stream, for memory the
    // operating system takes back at exit anyway.
    std::mem::forget((spent, report, text));
    code
}

/// The text of a report in the chosen format, with `--quiet` and `--statistics` applied.
fn render(report: &Report, out: &OutputArgs, settings: &kubegap_core::Settings) -> String {
    if out.statistics {
        let mut text = output::concise::statistics(report, out.format == Format::Json);
        if out.quiet && out.format != Format::Json {
            let summary = format!("{}\n", output::summary_line(report));
            if let Some(stripped) = text.strip_suffix(&summary) {
                text.truncate(stripped.len());
            }
        }
        return text;
    }
    let mut text = match out.format {
        Format::Human => output::human::render(report, use_color(out.color)),
        Format::Concise => output::concise::render(report),
        Format::Json => return output::json::render(report),
        Format::Sarif => return output::sarif::render(report),
        Format::Github => return output::github::render(report),
        Format::Junit => {
            return output::junit::render_with(report, &|id| settings.rule_enabled(id))
        }
    };
    if out.quiet {
        // The summary is the last line of both text formats.
        let summary = output::summary_line(report);
        if let Some(stripped) = text.strip_suffix(&format!("{summary}\n")) {
            text.truncate(stripped.len());
        }
    } else if out.format == Format::Concise {
        text.push_str(&output::summary_line(report));
        text.push('\n');
    }
    text
}

/// `--write-baseline` (writes, then `Err(exit code)`) and `--baseline` (filters the report).
fn lint_baseline(
    args: &ReviewArgs,
    report: &mut Report,
    kept: &[kubegap_core::yaml::Document],
) -> Result<Option<baseline::Applied>, i32> {
    if let Some(path) = &args.write_baseline {
        let entries = baseline::fingerprints(report, kept, &|n| n.to_string())
            .into_iter()
            .map(baseline::Entry::from)
            .collect::<Vec<_>>();
        let n = entries.len();
        return Err(match std::fs::write(path, baseline::render(entries)) {
            Ok(()) => {
                crate::eprint_line(&format!("wrote {n} baseline entries to {}", path.display()));
                EXIT_OK
            }
            Err(e) => {
                crate::eprint_line(&format!("error: {}: {e}", path.display()));
                EXIT_ERROR
            }
        });
    }
    let Some(path) = &args.baseline else {
        return Ok(None);
    };
    let entries = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| baseline::parse(&text))
        .map_err(|e| {
            crate::eprint_line(&format!("error: {}: {e}", path.display()));
            EXIT_ERROR
        })?;
    Ok(Some(baseline::apply(
        report,
        kept,
        entries,
        path.display().to_string(),
    )))
}

/// `kubegap chains`: every timeout chain, one route per block, one line of hops each.
fn chains(args: &LintArgs, format: ChainsFormat) -> i32 {
    let (settings, discovered) = match prepare(args, false) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    if !args.allow_empty {
        if let Some(problem) = empty::blank_stdin(&discovered.inputs) {
            crate::eprint_line(&format!("error: {problem}"));
            return EXIT_ERROR;
        }
    }
    let (files, chains) = kubegap_core::engine::chains(discovered.inputs, &settings);
    let text = match format {
        ChainsFormat::Json => output::chains::json(&files, &chains),
        ChainsFormat::Human => output::chains::text(&files, &chains),
    };
    let written = write_stdout(&text);
    // As in `lint`: the process exits next; the system takes the memory back at once.
    std::mem::forget((files, chains, text));
    if !discovered.errors.is_empty() || written != EXIT_OK {
        EXIT_ERROR
    } else {
        EXIT_OK
    }
}
