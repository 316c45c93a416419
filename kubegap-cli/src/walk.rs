//! File discovery: explicit paths, directories (recursive, honouring `.gitignore` and
//! `.kubegapignore`, skipping VCS directories), and stdin.

use std::io::Read;
use std::path::Path;

use kubegap_core::{kind, FileKind, Input};

/// What discovery produced: inputs, and errors of the command itself (exit code 2).
#[derive(Default)]
pub struct Discovered {
    /// Files to lint.
    pub inputs: Vec<Input>,
    /// Problems reading paths.
    pub errors: Vec<String>,
    /// Helm charts and kustomizations found (`crate::charts`).
    pub layout: kubegap_core::layout::Layout,
}

const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".jj"];

/// Reads every input named by `paths`. `stdin_kind` is the kind of `-`.
pub fn discover(paths: &[std::path::PathBuf], forced_kind: Option<FileKind>) -> Discovered {
    let mut out = Discovered::default();
    let default = [std::path::PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    for path in paths {
        if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            match std::io::stdin().lock().read_to_end(&mut bytes) {
                Ok(_) => out.inputs.push(Input {
                    name: "<stdin>".to_string(),
                    path: None,
                    // Detected from the content like `.cfg`/`.conf` files; `--kind` overrides.
                    kind: forced_kind
                        .unwrap_or_else(|| kind::detect_content(&bytes[..bytes.len().min(4096)])),
                    bytes,
                }),
                Err(e) => out.errors.push(format!("reading stdin: {e}")),
            }
        } else if path.is_dir() {
            walk_dir(path, forced_kind, &mut out);
        } else {
            match std::fs::read(path) {
                Ok(bytes) => {
                    let detected = kind::detect(path, Some(&bytes[..bytes.len().min(4096)]));
                    match detected.or(forced_kind) {
                        Some(kind) => out.inputs.push(input(path, bytes, kind)),
                        None => out.errors.push(format!(
                            "{}: cannot tell whether this is a manifest, an haproxy.cfg or an nginx config; pass --kind",
                            path.display()
                        )),
                    }
                }
                Err(e) => out.errors.push(format!("{}: {e}", path.display())),
            }
        }
    }
    // Helm chart sources and kustomizations decide which files are manifests.
    crate::charts::arrange(&mut out);
    out
}

fn input(path: &Path, bytes: Vec<u8>, kind: FileKind) -> Input {
    Input {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        bytes,
        kind,
    }
}

fn walk_dir(root: &Path, forced_kind: Option<FileKind>, out: &mut Discovered) {
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .add_custom_ignore_filename(".kubegapignore")
        .filter_entry(|entry| {
            !entry
                .file_name()
                .to_str()
                .is_some_and(|name| VCS_DIRS.contains(&name))
        })
        .sort_by_file_path(Ord::cmp)
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                out.errors.push(e.to_string());
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        // Cheap path-only decision first; read the head only for ambiguous extensions.
        let by_name = kind::detect(path, None);
        let needs_head = by_name.is_none()
            && matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("cfg" | "conf")
            );
        if by_name.is_none() && !needs_head {
            continue;
        }
        match std::fs::read(path) {
            Ok(bytes) => {
                let kind =
                    by_name.or_else(|| kind::detect(path, Some(&bytes[..bytes.len().min(4096)])));
                if let Some(kind) = kind {
                    let _ = forced_kind;
                    out.inputs.push(input(path, bytes, kind));
                }
            }
            Err(e) => out.errors.push(format!("{}: {e}", path.display())),
        }
    }
}
