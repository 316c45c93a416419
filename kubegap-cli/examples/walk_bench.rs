//! How `ignore`'s parallel walk scales on a tree, walked as kubegap walks it (docs/PERFORMANCE.md,
//! "The twelfth round"): one walk per directory given, one after the other, or one walk for all.
//!
//! ```text
//! cargo build --release --example walk_bench
//! cd ../shared/corpus
//! for t in 1 2; do ../../main/target/release/examples/walk_bench $t each k8s helm haproxy nginx; done
//! for t in 1 2; do ../../main/target/release/examples/walk_bench $t one k8s helm haproxy nginx; done
//! ```
//!
//! Arguments: threads, `each` or `one` (with `+read` to read every file as the walk meets it,
//! as kubegap reads its small files), directories. Prints the median of 7 walks.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

fn walk(threads: usize, read: bool, groups: &[Vec<PathBuf>]) -> (usize, f64) {
    let start = std::time::Instant::now();
    let files = AtomicUsize::new(0);
    for roots in groups {
        let Some((first, rest)) = roots.split_first() else {
            continue;
        };
        let mut builder = ignore::WalkBuilder::new(first);
        for root in rest {
            builder.add(root);
        }
        builder
            .hidden(false)
            .require_git(false)
            .follow_links(true)
            .add_custom_ignore_filename(".kubegapignore")
            .threads(threads)
            .build_parallel()
            .run(|| {
                let files = &files;
                Box::new(move |entry| {
                    if let Ok(entry) = entry {
                        if entry.file_type().is_some_and(|t| t.is_file()) {
                            if read {
                                let _ = std::fs::metadata(entry.path());
                                let _ = std::fs::read(entry.path());
                            }
                            files.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    ignore::WalkState::Continue
                })
            });
    }
    (
        files.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64() * 1000.0,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(threads), Some(mode)) = (args.first(), args.get(1)) else {
        eprintln!("usage: walk_bench THREADS each|one[+read] DIR...");
        std::process::exit(2);
    };
    let threads: usize = threads.parse().unwrap_or(1);
    let dirs: Vec<PathBuf> = args[2..].iter().map(PathBuf::from).collect();
    let read = mode.ends_with("+read");
    let groups: Vec<Vec<PathBuf>> = if mode.starts_with("one") {
        vec![dirs]
    } else {
        dirs.into_iter().map(|d| vec![d]).collect()
    };
    let mut times: Vec<f64> = Vec::new();
    let mut files = 0;
    for _ in 0..7 {
        let (n, ms) = walk(threads, read, &groups);
        files = n;
        times.push(ms);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{mode} on {threads} thread(s): {files} files, median {:.2} ms",
        times[3]
    );
}
