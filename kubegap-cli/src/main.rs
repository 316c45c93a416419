//! The `kubegap` binary.

use clap::Parser;

fn main() {
    // Where a run's time and memory go, printed to stderr at the end (docs/PERFORMANCE.md).
    if std::env::var_os("KUBEGAP_PHASES").is_some_and(|v| !v.is_empty()) {
        kubegap_core::phases::enable();
    }
    let cli = kubegap_cli::args::Cli::parse();
    kubegap_core::phases::mark("arguments");
    std::process::exit(kubegap_cli::run(cli));
}
