//! The `kubegap` binary.

use clap::Parser;

fn main() {
    let cli = kubegap_cli::args::Cli::parse();
    std::process::exit(kubegap_cli::run(cli));
}
