//! Parse-only and end-to-end timings of one YAML stream, for docs/PERFORMANCE.md.
//!
//! `cargo run --release -p kubegap-core --example parse_bench -- FILE [ROUNDS]`
//! prints the median of ROUNDS (default 5) for: YAML parse into the arena tree (one thread),
//! graph build, and the whole lint (parse + graph + all rules + sort) on the current pool.

use std::time::Instant;

use kubegap_core::{lint, FileId, FileKind, Input, Settings};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: parse_bench FILE [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let mb = bytes.len() as f64 / 1e6;
    let (mut parse, mut graph, mut all) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        let (docs, _) = kubegap_core::yaml::parse(FileId(0), &text);
        parse.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let g = kubegap_core::k8s::Graph::build(&docs);
        graph.push(t.elapsed().as_secs_f64());
        drop((docs, g));
        let t = Instant::now();
        let input = Input {
            name: path.clone(),
            path: None,
            bytes: bytes.clone(),
            kind: FileKind::Yaml,
        };
        let report = lint(vec![input], &Settings::default());
        all.push(t.elapsed().as_secs_f64());
        drop(report);
    }
    let (p, g, a) = (median(parse), median(graph), median(all));
    println!(
        "input: {mb:.1} MB, {rounds} rounds, {} rayon threads",
        rayon::current_num_threads()
    );
    println!("yaml parse (1 thread): {p:.3} s = {:.1} MB/s", mb / p);
    println!("graph build:           {g:.3} s");
    println!("whole lint:            {a:.3} s = {:.1} MB/s", mb / a);
}
