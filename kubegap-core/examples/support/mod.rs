//! What the examples share (a directory, not an example of its own: it has no `main.rs`).

use std::path::{Path, PathBuf};

/// The files under `path` whose extension is one of `extensions`, in sorted order; `path`
/// itself when it is a file given first (a stream such as a generated `helm template`).
pub fn collect(path: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for entry in entries {
            collect(&entry, extensions, out);
        }
    } else if path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.contains(&e))
        || out.is_empty()
    {
        out.push(path.to_path_buf());
    }
}
