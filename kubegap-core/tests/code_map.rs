//! The code map of `docs/ARCHITECTURE.md` matches the code.
//!
//! Every `mod` declared in a crate's `lib.rs` and every top-level directory of the repository
//! has a `### `path`` paragraph under `## Code map`; every paragraph names a path that exists,
//! and a file or directory right under a crate's `src/` must be a module its `lib.rs`
//! declares. To cover another crate, add it to [`CRATES`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The crates whose `lib.rs` modules the code map describes.
const CRATES: &[&str] = &["kubegap-core", "kubegap-cli"];

/// Top-level entries that are not part of the source tree.
const NOT_SOURCE: &[&str] = &[".git", "target"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The paths of the `### `…`` headings of the `## Code map` section, with whether each is
/// followed by some text before the next heading.
fn code_map(architecture: &str) -> Vec<(String, bool)> {
    let section = architecture
        .split_once("\n## Code map\n")
        .map(|(_, rest)| rest)
        .expect("docs/ARCHITECTURE.md has a `## Code map` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut out: Vec<(String, bool)> = Vec::new();
    for line in section.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            let path = heading
                .trim()
                .strip_prefix('`')
                .and_then(|h| h.strip_suffix('`'))
                .unwrap_or_else(|| panic!("code map heading is not one `path`: {line}"));
            out.push((path.to_string(), false));
        } else if !line.trim().is_empty() {
            if let Some(last) = out.last_mut() {
                last.1 = true;
            }
        }
    }
    out
}

/// The modules a `lib.rs` declares (`mod x;`, `pub mod x;`, with attributes before them).
fn modules(lib_rs: &str) -> Vec<String> {
    lib_rs
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("mod "))
                .or_else(|| line.strip_prefix("pub(crate) mod "))?;
            rest.strip_suffix(';').map(|name| name.trim().to_string())
        })
        .collect()
}

#[test]
fn code_map_matches_the_code() {
    let root = repo();
    let text = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let map = code_map(&text);
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for (path, has_text) in &map {
        if !seen.insert(path.clone()) {
            problems.push(format!("`{path}` has two paragraphs"));
        }
        if !has_text {
            problems.push(format!("`{path}` has a heading but no paragraph"));
        }
        if !root.join(path).exists() {
            problems.push(format!("`{path}` does not exist"));
        }
    }
    let documented: BTreeSet<&str> = map.iter().map(|(p, _)| p.as_str()).collect();

    for krate in CRATES {
        let lib_rs = std::fs::read_to_string(root.join(krate).join("src/lib.rs")).unwrap();
        let declared = modules(&lib_rs);
        assert!(
            !declared.is_empty(),
            "{krate}/src/lib.rs declares no module"
        );
        let dir = |m: &str| format!("{krate}/src/{m}/");
        let file = |m: &str| format!("{krate}/src/{m}.rs");
        for m in &declared {
            let path = if root.join(dir(m)).is_dir() {
                dir(m)
            } else {
                file(m)
            };
            if !documented.contains(path.as_str()) {
                problems.push(format!(
                    "module `{m}` of {krate} has no paragraph: add `### `{path}`` to the code map"
                ));
            }
        }
        // A paragraph about something right under `src/` names a module of `lib.rs`.
        let prefix = format!("{krate}/src/");
        for (path, _) in &map {
            let Some(rest) = path.strip_prefix(&prefix) else {
                continue;
            };
            let trimmed = rest.trim_end_matches('/');
            let name = trimmed.trim_end_matches(".rs");
            let right_under_src = !trimmed.contains('/') && !matches!(name, "lib" | "main");
            if right_under_src && !declared.iter().any(|m| m == name) {
                problems.push(format!(
                    "`{path}` has a paragraph but {krate}/src/lib.rs declares no `mod {name}`"
                ));
            }
        }
    }

    let mut top: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !NOT_SOURCE.contains(&n.as_str()))
        .collect();
    top.sort();
    for dir in top {
        let path = format!("{dir}/");
        if !documented.contains(path.as_str()) {
            problems.push(format!(
                "top-level directory `{dir}` has no paragraph: add `### `{path}`` to the code map"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md, code map:\n{}",
        problems.join("\n")
    );
}

/// The checks above can fail: a made-up module and a stale paragraph are both reported.
#[test]
fn code_map_parsing() {
    let text =
        "# A\n\n## Code map\n\nIntro.\n\n### `a/`\n\nText.\n\n### `b.rs`\n\n## Next\n\n### `c/`\n";
    assert_eq!(
        code_map(text),
        vec![("a/".to_string(), true), ("b.rs".to_string(), false)]
    );
    assert_eq!(
        modules("//! x\npub mod a;\n#[doc(hidden)]\npub mod b;\nmod c;\nuse d;\npub mod e {\n"),
        vec!["a", "b", "c"]
    );
}
