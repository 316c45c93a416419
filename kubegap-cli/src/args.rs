//! Command-line arguments (clap derive).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// kubegap: an offline linter for the gaps between Kubernetes manifests, haproxy.cfg and nginx
/// configs that cause outages (reload cuts, keep-alive races, broken port links).
#[derive(Debug, Parser)]
#[command(name = "kubegap", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint files, directories (recursively) or `-` (stdin).
    Lint {
        /// What to read and how.
        #[command(flatten)]
        input: LintArgs,
        /// How to report.
        #[command(flatten)]
        output: OutputArgs,
        /// Baselines and Helm template placement.
        #[command(flatten)]
        review: ReviewArgs,
    },
    /// Print every timeout chain found in the input (LB → proxy → Service → app), one hop per
    /// line, each value with its source.
    Chains {
        /// What to read and how.
        #[command(flatten)]
        input: LintArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ChainsFormat::Human)]
        format: ChainsFormat,
    },
    /// Compare BASE and HEAD (files, directories or `-`; or `--git REV [PATHS…]`): report what
    /// the change does (`diff-*` rules) and the lint findings HEAD adds.
    Diff(DiffArgs),
    /// List every rule: id, default severity, the severities it reports at, summary.
    Rules {
        /// Output format.
        #[arg(long, value_enum, default_value_t = RulesFormat::Human)]
        format: RulesFormat,
        /// Show what a built-in preset does (e.g. `partial-input`) instead of every rule.
        #[arg(long, value_name = "NAME")]
        preset: Option<String>,
    },
    /// Print a rule's full documentation.
    Explain {
        /// The rule id, e.g. `k8s-service-target-port-missing`.
        rule: String,
    },
    /// Print a shell completion script (e.g. `kubegap completions bash > /etc/bash_completion.d/kubegap`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) of kubegap (e.g. `kubegap man | man -l -`).
    Man,
}

/// Output formats of `kubegap lint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// miette's graphical report with the source line.
    Human,
    /// One finding a line: `path:line:col: severity rule message` (like ruff and compilers).
    Concise,
    /// A versioned JSON document (see README).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// GitHub Actions workflow commands (inline annotations).
    Github,
    /// JUnit XML (GitLab CI, Jenkins, Azure DevOps): one testcase per rule and file.
    Junit,
}

/// Output formats of `kubegap chains`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ChainsFormat {
    /// One chain per block, one hop per line.
    Human,
    /// A JSON document.
    Json,
}

/// Output formats of `kubegap rules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    /// A table: id, severities, summary.
    Human,
    /// A JSON document: id, family, default severity, reported severities, summary, sources.
    Json,
}

/// Reporting options of `kubegap lint`.
#[derive(Debug, clap::Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Exit 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// Colour output (`NO_COLOR` is honoured in `auto`).
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Findings only: no summary line (human and concise formats).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the number of findings per rule instead of the findings (like ruff `--statistics`).
    #[arg(long)]
    pub statistics: bool,
    /// Report `# kubegap-ignore:` comments and `kubegap.io/ignore` annotations that suppressed
    /// nothing (rule `unused-suppression`).
    #[arg(long)]
    pub report_unused_suppressions: bool,
}

/// When to colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// When stdout is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The lowest severity that makes the exit code 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Errors only.
    Error,
    /// Warnings and errors.
    Warning,
    /// Any finding.
    Info,
    /// Never fail on findings.
    Never,
}

/// Kinds for `--kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// Kubernetes YAML or JSON.
    Yaml,
    /// haproxy.cfg.
    Haproxy,
    /// nginx config.
    Nginx,
}

/// What `kubegap lint` and `kubegap chains` read, and the settings they share.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Files and directories to read (directories recursively); `-` reads stdin. Default: `.`.
    pub paths: Vec<PathBuf>,
    /// Succeed on an empty input (empty stdin, or no manifest, haproxy or nginx content at
    /// all) instead of exiting 2.
    #[arg(long)]
    pub allow_empty: bool,
    /// Worker threads (default: all cores). Output is identical for any value.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Kind of stdin (detected from its content otherwise) and of explicitly named files whose
    /// kind cannot be detected.
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Run only these rules (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Do not run these rules (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Configuration file (default: `.kubegap.yaml` in the current directory or the nearest
    /// parent, up to the repository root).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// HAProxy version the haproxy.cfg files run on, e.g. `2.8`.
    #[arg(long)]
    pub haproxy_version: Option<String>,
    /// nginx version the nginx configs run on, e.g. `1.25.3`.
    #[arg(long)]
    pub nginx_version: Option<String>,
    /// nginx prefix for absolute `include` paths.
    #[arg(long)]
    pub nginx_prefix: Option<PathBuf>,
    /// Number of schedulable nodes in the cluster.
    #[arg(long)]
    pub nodes: Option<u32>,
    /// The input is the whole application: missing objects (e.g. no PDB) are meaningful.
    #[arg(long)]
    pub complete: bool,
    /// An L7 load balancer sits in front of the proxies.
    #[arg(long)]
    pub l7_in_front: bool,
    /// Render each Helm chart found (a directory with `Chart.yaml`) with `helm template` and
    /// lint the output instead of reporting `helm-chart-not-rendered`. Needs `helm` on PATH.
    #[arg(long)]
    pub render_charts: bool,
    /// Render each kustomization found with `kubectl kustomize` and lint the output instead of
    /// the files it lists. Needs `kubectl` on PATH.
    #[arg(long)]
    pub render_kustomize: bool,
    /// Read files that the input names (nginx `include`s) even outside the lint roots (the
    /// directories given, the directory of each file given, the git work tree). Risky on
    /// untrusted input: a pull request could make kubegap read, and quote in its output,
    /// files of the machine it runs on. /proc, /sys, /dev and non-regular files are never read.
    #[arg(long)]
    pub allow_read_outside_root: bool,
    /// Refuse files (stdin included) larger than this, before reading them: `256MiB`, `1G`,
    /// `4096` (bytes).
    #[arg(long, value_parser = parse_size_arg, default_value = "256MiB")]
    pub max_file_size: u64,
    /// Refuse inputs whose estimated peak memory exceeds this (`4G`, `512MiB`). Default: half
    /// of the machine's memory (or of the cgroup's limit).
    #[arg(long, value_parser = parse_size_arg)]
    pub max_memory: Option<u64>,
}

/// Options of `kubegap lint` only: baselines and where Helm findings are placed.
#[derive(Debug, Default, clap::Args)]
pub struct ReviewArgs {
    /// Report only findings that this baseline file (see `--write-baseline`) does not list.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record every current finding in FILE (a versioned, sorted baseline) instead of reporting.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// The Helm chart directory whose templates a `helm template` stream came from: findings
    /// are placed on the template lines (found without it when the `# Source:` paths resolve).
    #[arg(long, value_name = "DIR")]
    pub chart: Option<PathBuf>,
}

/// Arguments of `kubegap diff`: the lint options, BASE and HEAD as the two paths.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// Take BASE from this git revision (the same PATHS as of REV) and HEAD from the working
    /// tree; the paths are then the PATHS to compare (default `.`).
    #[arg(long, value_name = "REV")]
    pub git: Option<String>,
    /// Report every HEAD finding, the new ones marked, not only the new ones.
    #[arg(long)]
    pub all: bool,
    /// BASE HEAD (or PATHS with `--git`) and every `lint` input option.
    #[command(flatten)]
    pub common: LintArgs,
    /// How to report.
    #[command(flatten)]
    pub output: OutputArgs,
}

fn parse_size_arg(text: &str) -> Result<u64, String> {
    kubegap_core::reads::parse_size(text)
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("not a size: `{text}` (e.g. `256MiB`, `1G`, `4096`)"))
}
