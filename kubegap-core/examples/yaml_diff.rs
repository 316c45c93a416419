//! Compares kubegap's YAML scanner with granit-parser (the reference) on files, and counts the
//! documents each path read: `cargo run --release -p kubegap-core --example yaml_diff -- PATH...`
//! (directories are walked for `*.yaml`, `*.yml` and `*.json`). Exits 1 on any difference.

use std::path::Path;

mod support;

use kubegap_core::yaml::{parse, parse_reference, scanner_coverage};
use kubegap_core::FileId;

fn main() {
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        support::collect(Path::new(&arg), &["yaml", "yml", "json"], &mut files);
    }
    let (mut fast, mut fallback, mut whole, mut differ) = (0, 0, 0, 0);
    let mut reasons = std::collections::BTreeMap::<u32, usize>::new();
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let a = parse(FileId(0), text.as_str());
        let b = parse_reference(FileId(0), text.as_str());
        let coverage = scanner_coverage(&text);
        fast += coverage.fast;
        fallback += coverage.fallback;
        whole += usize::from(coverage.whole);
        for (line, n) in &coverage.reasons {
            *reasons.entry(*line).or_default() += n;
        }
        let errors_same = format!("{:?}", a.1) == format!("{:?}", b.1);
        if a.0 != b.0 || !errors_same {
            differ += 1;
            println!("DIFFER {}", path.display());
            if std::env::var_os("VERBOSE").is_some() {
                for (x, y) in a.0.iter().zip(b.0.iter()) {
                    if x != y {
                        println!(
                            "  doc {} start {} end {} / {} {}",
                            x.index, x.start, x.end, y.start, y.end
                        );
                        for (i, (n, m)) in x.nodes.iter().zip(y.nodes.iter()).enumerate() {
                            if std::env::var_os("ALL").is_some() {
                                println!(
                                    "  {i}: {n:?} {:?} / {m:?} {:?}",
                                    x.kind(i as u32),
                                    y.kind(i as u32)
                                );
                                continue;
                            }
                            if n != m
                                || format!("{:?}", x.kind(i as u32))
                                    != format!("{:?}", y.kind(i as u32))
                            {
                                println!(
                                    "  node {i}: fast {n:?} {:?} / granit {m:?} {:?}",
                                    x.kind(i as u32),
                                    y.kind(i as u32)
                                );
                                break;
                            }
                        }
                        println!(
                            "  origin {:?} {:?} dup {:?} {:?} root {:?} {:?} nodes {} {}",
                            x.origin_span(),
                            y.origin_span(),
                            x.duplicates(),
                            y.duplicates(),
                            x.root,
                            y.root,
                            x.nodes.len(),
                            y.nodes.len()
                        );
                        break;
                    }
                }
                if a.0.len() != b.0.len() {
                    println!("  docs {} vs {}", a.0.len(), b.0.len());
                }
                if !errors_same {
                    println!("  errors {:?}\n   vs {:?}", a.1, b.1);
                }
            }
        } else if std::env::var_os("SHOW_FALLBACK").is_some()
            && (coverage.fallback > 0 || coverage.whole)
        {
            println!("fallback {} {:?}", path.display(), coverage);
        }
    }
    println!(
        "{} files: {fast} documents by the scanner, {fallback} by granit-parser in segments, {whole} files whole by granit-parser, {differ} differ",
        files.len()
    );
    println!("documents given up, by line of kubegap-core/src/yaml/fast.rs: {reasons:?}");
    if differ > 0 {
        std::process::exit(1);
    }
}
