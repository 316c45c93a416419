//! Parse-only and end-to-end timings of YAML input, for docs/PERFORMANCE.md.
//!
//! `cargo run --release -p kubegap-core --example parse_bench -- PATH... [ROUNDS]`
//! prints the median of ROUNDS (default 5) for: YAML parse into the arena tree (one thread),
//! graph build, and the whole lint (parse + graph + all rules + sort) on the current pool.
//! Each PATH is a YAML stream, or a directory whose `*.yaml`/`*.yml` files are all parsed (the
//! k8s + helm corpus); files are read once, before any timing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

mod support;

use kubegap_core::{lint, FileId, FileKind, Input, Settings};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// CPU time of this thread in seconds (`/proc/thread-self/schedstat`, nanoseconds; Linux),
/// which a busy machine disturbs far less than wall time. 0 where unavailable.
fn thread_cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: parse_bench PATH... [ROUNDS]");
        std::process::exit(2);
    }
    // For profiling the parser alone (`perf record`): skip the graph and the whole lint.
    let parse_only = std::env::var_os("PARSE_ONLY").is_some();
    let mut rounds = 5;
    let mut paths = Vec::new();
    for arg in &args {
        match arg.parse::<usize>() {
            Ok(n) => rounds = n,
            Err(_) => support::collect(Path::new(arg), &["yaml", "yml"], &mut paths),
        }
    }
    let files: Vec<(PathBuf, Vec<u8>)> = paths
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect();
    let texts: Vec<Arc<String>> = files
        .iter()
        .map(|(_, b)| Arc::new(String::from_utf8_lossy(b).into_owned()))
        .collect();
    let mb = files.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1e6;
    let (mut parse, mut graph, mut all) = (Vec::new(), Vec::new(), Vec::new());
    let mut parse_cpu = Vec::new();
    let mut reference_cpu = Vec::new();
    let (mut events_cpu, mut events_nc_cpu) = (Vec::new(), Vec::new());
    let mut tree: (usize, usize, usize) = (0, 0, 0);
    let mut scanner = (0usize, 0usize);
    for _ in 0..rounds {
        let t = Instant::now();
        let cpu = thread_cpu();
        let mut docs = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let id = FileId(u32::try_from(i).unwrap_or(u32::MAX));
            docs.extend(kubegap_core::yaml::parse(id, text.clone()).0);
        }
        parse.push(t.elapsed().as_secs_f64());
        parse_cpu.push(thread_cpu() - cpu);
        // Outside the timed region: counting coverage parses everything a second time.
        let coverage: (usize, usize) = texts.iter().fold((0, 0), |acc, t| {
            let c = kubegap_core::yaml::scanner_coverage(t);
            (acc.0 + c.fast, acc.1 + c.fallback + usize::from(c.whole))
        });
        scanner = coverage;
        tree = (
            docs.len(),
            docs.iter().map(|d| d.nodes.len()).sum(),
            docs.iter()
                .map(|d| d.heap_size() + std::mem::size_of::<kubegap_core::yaml::Document>())
                .sum(),
        );
        // The same tree built from granit-parser's events alone (the reference the scanner is
        // compared with).
        let cpu = thread_cpu();
        let mut count = 0usize;
        for (i, text) in texts.iter().enumerate() {
            let id = FileId(u32::try_from(i).unwrap_or(u32::MAX));
            count += kubegap_core::yaml::parse_reference(id, text.clone())
                .0
                .len();
        }
        std::hint::black_box(count);
        reference_cpu.push(thread_cpu() - cpu);
        // granit-parser alone (events, no tree), with and without comment events.
        for (comments, out) in [(true, &mut events_cpu), (false, &mut events_nc_cpu)] {
            let cpu = thread_cpu();
            let mut count = 0usize;
            for text in &texts {
                let options = granit_parser::options! {
                    flow_nesting_limit: 512,
                    block_nesting_limit: 512,
                    emit_comments: comments,
                };
                let mut parser = granit_parser::Parser::new_from_str_with_options(text, options);
                while let Some(Ok(_)) = parser.next_event() {
                    count += 1;
                }
            }
            std::hint::black_box(count);
            out.push(thread_cpu() - cpu);
        }
        if parse_only {
            continue;
        }
        let t = Instant::now();
        let g = kubegap_core::k8s::Graph::build(&docs);
        graph.push(t.elapsed().as_secs_f64());
        drop((docs, g));
        let t = Instant::now();
        let inputs = files
            .iter()
            .map(|(p, b)| Input {
                name: p.display().to_string(),
                path: None,
                bytes: b.clone(),
                kind: FileKind::Yaml,
                canonical: None,
                prepared: None,
            })
            .collect();
        let report = lint(inputs, &Settings::default());
        all.push(t.elapsed().as_secs_f64());
        drop(report);
    }
    if parse_only {
        graph.push(0.0);
        all.push(0.0);
    }
    let (p, g, a) = (median(parse), median(graph), median(all));
    let pc = median(parse_cpu);
    println!(
        "input: {mb:.1} MB in {} files, {rounds} rounds, {} rayon threads",
        files.len(),
        rayon::current_num_threads()
    );
    println!("yaml parse (1 thread): {p:.3} s = {:.1} MB/s wall", mb / p);
    println!(
        "  documents read by kubegap's scanner: {}; documents or files left to granit-parser: {}",
        scanner.0, scanner.1
    );
    println!(
        "yaml parse CPU time:   {pc:.3} s = {:.1} MB/s per core",
        mb / pc
    );
    let rc = median(reference_cpu);
    println!(
        "granit-parser into the same tree (reference), CPU: {rc:.3} s = {:.1} MB/s",
        mb / rc
    );
    let (ec, enc) = (median(events_cpu), median(events_nc_cpu));
    println!(
        "granit-parser events only, CPU: {ec:.3} s = {:.1} MB/s; without comment events {enc:.3} s = {:.1} MB/s",
        mb / ec,
        mb / enc
    );
    println!(
        "tree: {} documents, {} nodes, {:.1} MB besides the text ({:.2} bytes per input byte)",
        tree.0,
        tree.1,
        tree.2 as f64 / 1e6,
        tree.2 as f64 / 1e6 / mb
    );
    println!("graph build:           {g:.3} s");
    println!("whole lint:            {a:.3} s = {:.1} MB/s", mb / a);
}
