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

/// Runs the CLI and returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Lint {
            input,
            output,
            review,
        } => lint(&input, &output, &review),
        Command::Diff(args) => diff::run(&args),
        Command::Chains { input, format } => chains(&input, format),
        Command::Rules { format, preset } => commands::rules(format, preset.as_deref()),
        Command::Explain { rule } => commands::explain(&rule),
        Command::Completions { shell } => commands::completions(shell),
        Command::Man => commands::man(),
    }
}

/// Writes to stdout; a closed pipe is quiet success, any other failure is exit 2.
pub fn write_stdout(text: &str) -> i32 {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => EXIT_OK,
        // A closed pipe (`kubegap … | head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("error: writing output: {e}");
            EXIT_ERROR
        }
    }
}

pub(crate) fn forced_kind(args: &LintArgs) -> Option<FileKind> {
    args.kind.map(|k| match k {
        KindArg::Yaml => FileKind::Yaml,
        KindArg::Haproxy => FileKind::Haproxy,
        KindArg::Nginx => FileKind::Nginx,
    })
}

pub(crate) fn setup_threads(args: &LintArgs) {
    if let Some(n) = args.threads {
        // Fails only if a pool exists already (tests calling run twice); the old one is fine.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global();
    }
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
fn prepare(args: &LintArgs) -> Result<(kubegap_core::Settings, walk::Discovered), i32> {
    let settings = config::settings(args).map_err(|e| {
        eprintln!("error: {e}");
        EXIT_ERROR
    })?;
    setup_threads(args);
    let mut discovered = walk::discover(&args.paths, forced_kind(args));
    charts::render(
        &mut discovered,
        charts::Render {
            charts: args.render_charts,
            kustomize: args.render_kustomize,
        },
    );
    for e in &discovered.errors {
        eprintln!("error: {e}");
    }
    Ok((settings, discovered))
}

fn lint(args: &LintArgs, out: &OutputArgs, review: &ReviewArgs) -> i32 {
    let (mut settings, discovered) = match prepare(args) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    settings.report_unused_suppressions = out.report_unused_suppressions;
    let blank_stdin = empty::blank_stdin(&discovered.inputs);
    let mut report = kubegap_core::lint(discovered.inputs, &settings);
    // A path that could not be read is already an error (exit 2 below), not "nothing to lint".
    if !args.allow_empty && discovered.errors.is_empty() {
        if let Some(problem) = empty::nothing_to_lint(&report, blank_stdin) {
            eprintln!("error: {problem}");
            return EXIT_ERROR;
        }
    }
    let applied = match lint_baseline(review, &mut report) {
        Ok(applied) => applied,
        Err(code) => return code,
    };
    helm_place::apply(&mut report, review.chart.as_deref());
    let mut text = render(&report, out, &settings);
    if let Some(applied) = &applied {
        match out.format {
            Format::Human if !out.quiet => text.push_str(&baseline::human_line(applied)),
            Format::Json if !out.statistics => {
                text = baseline::add_json_member(&text, "baseline", &baseline::json_value(applied))
            }
            _ => eprint!("{}", baseline::human_line(applied)),
        }
    }
    let written = write_stdout(&text);
    if !discovered.errors.is_empty() || written != EXIT_OK {
        return EXIT_ERROR;
    }
    exit_code(&report, out.fail_on)
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
fn lint_baseline(args: &ReviewArgs, report: &mut Report) -> Result<Option<baseline::Applied>, i32> {
    if let Some(path) = &args.write_baseline {
        let entries = baseline::fingerprints(report, &|n| n.to_string())
            .into_iter()
            .map(baseline::Entry::from)
            .collect::<Vec<_>>();
        let n = entries.len();
        return Err(match std::fs::write(path, baseline::render(entries)) {
            Ok(()) => {
                eprintln!("wrote {n} baseline entries to {}", path.display());
                EXIT_OK
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
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
            eprintln!("error: {}: {e}", path.display());
            EXIT_ERROR
        })?;
    Ok(Some(baseline::apply(
        report,
        entries,
        path.display().to_string(),
    )))
}

/// `kubegap chains`: every timeout chain, one route per block, one line of hops each.
fn chains(args: &LintArgs, format: ChainsFormat) -> i32 {
    let (settings, discovered) = match prepare(args) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    if !args.allow_empty {
        if let Some(problem) = empty::blank_stdin(&discovered.inputs) {
            eprintln!("error: {problem}");
            return EXIT_ERROR;
        }
    }
    let workspace = kubegap_core::engine::load(discovered.inputs, &settings);
    let links = workspace.links();
    let cx = workspace.context(&settings, &links);
    let chains = kubegap_core::chain::build(&cx);
    let text = match format {
        ChainsFormat::Json => output::chains::json(&workspace.files, &chains),
        ChainsFormat::Human => output::chains::text(&workspace.files, &chains),
    };
    let written = write_stdout(&text);
    if !discovered.errors.is_empty() || written != EXIT_OK {
        EXIT_ERROR
    } else {
        EXIT_OK
    }
}
