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
    Lint(LintArgs),
    /// Print every timeout chain found in the input, one hop per line.
    Chains(LintArgs),
    /// List every rule: id, default severity, summary.
    Rules,
    /// Print a rule's full documentation.
    Explain {
        /// The rule id, e.g. `k8s-service-target-port-missing`.
        rule: String,
    },
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// miette's graphical report with the source line.
    Human,
    /// A versioned JSON document (see README).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// GitHub Actions workflow commands (inline annotations).
    Github,
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

/// Arguments of `kubegap lint`.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Files and directories to lint; `-` reads stdin. Default: `.`.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Exit 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// Colour output (`NO_COLOR` is honoured in `auto`).
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Worker threads (default: all cores). Output is identical for any value.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Kind of stdin (and of explicitly named files whose kind cannot be detected).
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Run only these rules (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Do not run these rules (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Configuration file (default: `.kubegap.yaml` in the current directory, if present).
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

fn parse_size_arg(text: &str) -> Result<u64, String> {
    kubegap_core::reads::parse_size(text)
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("not a size: `{text}` (e.g. `256MiB`, `1G`, `4096`)"))
}
