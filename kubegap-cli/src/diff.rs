//! `kubegap diff BASE HEAD` and `kubegap diff --git REV [PATHS…]`.

use std::path::{Path, PathBuf};
use std::process::Command;

use kubegap_core::diff::{compare, DiffReport};
use kubegap_core::Input;

use crate::args::{DiffArgs, Format};
use crate::{baseline, output, walk, EXIT_ERROR, EXIT_OK};

/// The name of a file relative to the root it was found under (`base/k8s/a.yaml` under
/// `base` → `k8s/a.yaml`); a file named directly, or stdin, is the root itself (`""`), so
/// that `diff old.yaml new.yaml` and `diff - new.yaml` compare the two as one file.
fn relative(root: &Path, name: &str) -> String {
    let root_name = root.display().to_string();
    if name == root_name || root.as_os_str() == "-" {
        return String::new();
    }
    let trimmed = root_name.trim_end_matches('/');
    name.strip_prefix(trimmed)
        .map(|rest| rest.trim_start_matches('/'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(name)
        .trim_start_matches("./")
        .to_string()
}

struct Sides {
    base: Vec<Input>,
    head: Vec<Input>,
    base_names: Vec<(String, String)>,
    head_names: Vec<(String, String)>,
    errors: Vec<String>,
    _temp: Option<TempDir>,
}

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn discover_side(root: &Path, args: &DiffArgs) -> (Vec<Input>, Vec<(String, String)>, Vec<String>) {
    let found = walk::discover(&[root.to_path_buf()], crate::forced_kind(&args.common));
    let names = found
        .inputs
        .iter()
        .map(|i| (i.name.clone(), relative(root, &i.name)))
        .collect();
    (found.inputs, names, found.errors)
}

fn paths_sides(args: &DiffArgs) -> Result<Sides, String> {
    let [base, head] = args.common.paths.as_slice() else {
        return Err(format!(
            "diff takes BASE and HEAD (files, directories or `-`), got {} path(s); or use --git REV [PATHS…]",
            args.common.paths.len()
        ));
    };
    if base.as_os_str() == "-" && head.as_os_str() == "-" {
        return Err("at most one of BASE and HEAD can be `-` (stdin)".to_string());
    }
    let (base_in, base_names, mut errors) = discover_side(base, args);
    let (head_in, head_names, head_errors) = discover_side(head, args);
    errors.extend(head_errors);
    Ok(Sides {
        base: base_in,
        head: head_in,
        base_names,
        head_names,
        errors,
        _temp: None,
    })
}

fn git(args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .args(args)
        .output()
        .map_err(|e| format!("running git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// BASE from `git show REV:path` of every file `git ls-tree` lists under PATHS, written to a
/// temporary directory; HEAD from the working tree. Read-only for the repository.
fn git_sides(rev: &str, args: &DiffArgs) -> Result<Sides, String> {
    let paths: Vec<PathBuf> = if args.common.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.common.paths.clone()
    };
    if paths.iter().any(|p| p.as_os_str() == "-") {
        return Err(
            "--git reads BASE from git and HEAD from the working tree: `-` is not allowed".into(),
        );
    }
    let temp = std::env::temp_dir().join(format!(
        "kubegap-git-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&temp).map_err(|e| format!("{}: {e}", temp.display()))?;
    let temp = TempDir(temp);
    let mut ls = vec!["ls-tree", "-r", "--name-only", "-z", rev, "--"];
    let path_strs: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    ls.extend(path_strs.iter().map(String::as_str));
    let listed = git(&ls)?;
    let mut base = Vec::new();
    let mut base_names = Vec::new();
    for name in listed.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let rel = String::from_utf8_lossy(name).into_owned();
        let bytes = git(&["show", &format!("{rev}:./{rel}")])?;
        let on_disk = temp.0.join(&rel);
        if let Some(parent) = on_disk.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&on_disk, &bytes).map_err(|e| format!("{}: {e}", on_disk.display()))?;
        let detected = kubegap_core::kind::detect(&on_disk, Some(&bytes[..bytes.len().min(4096)]));
        // Only what discovery would lint: files of a kind kubegap knows.
        let Some(kind) = detected else { continue };
        let shown = format!("{rev}:{rel}");
        base_names.push((shown.clone(), rel.trim_start_matches("./").to_string()));
        base.push(Input {
            name: shown,
            path: Some(on_disk),
            bytes,
            kind,
            canonical: None,
            prepared: None,
        });
    }
    let found = walk::discover(&paths, crate::forced_kind(&args.common));
    let head_names = found
        .inputs
        .iter()
        .map(|i| (i.name.clone(), i.name.trim_start_matches("./").to_string()))
        .collect();
    Ok(Sides {
        base,
        head: found.inputs,
        base_names,
        head_names,
        errors: found.errors,
        _temp: Some(temp),
    })
}

/// Runs `kubegap diff`.
pub fn run(args: &DiffArgs) -> i32 {
    let settings = match crate::settings(&args.common) {
        Ok(s) => s,
        Err(e) => {
            crate::eprint_line(&format!("error: {e}"));
            return EXIT_ERROR;
        }
    };
    let sides = match &args.git {
        Some(rev) => git_sides(rev, args),
        None => paths_sides(args),
    };
    let sides = match sides {
        Ok(s) => s,
        Err(e) => {
            crate::eprint_line(&format!("error: {e}"));
            return EXIT_ERROR;
        }
    };
    for e in &sides.errors {
        crate::eprint_line(&format!("error: {e}"));
    }
    let lookup = |names: &[(String, String)], name: &str| {
        names
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| name.to_string(), |(_, r)| r.clone())
    };
    // The two sides side by side: each load has serial steps (the graph's, the controllers')
    // that leave a thread idle.
    let (base_ws, head_ws) = rayon::join(
        || kubegap_core::engine::load(sides.base, &settings),
        || kubegap_core::engine::load(sides.head, &settings),
    );
    let result = compare(
        base_ws,
        head_ws,
        &settings,
        &|n| lookup(&sides.base_names, n),
        &|n| lookup(&sides.head_names, n),
        args.all,
    );
    let text = render(&result, args, &settings);
    let written = crate::write_stdout(&text);
    let code = if !sides.errors.is_empty() || written != EXIT_OK {
        EXIT_ERROR
    } else {
        crate::exit_code(&result.report, args.output.fail_on)
    };
    // As `lint` does: the process exits next, and the system takes the memory back at once
    // (freeing two sides' files and findings one by one would only delay the exit).
    std::mem::forget((result, text));
    code
}

/// The one-line summary of what changed.
pub fn summary_line(result: &DiffReport) -> String {
    let c = &result.changes;
    let new = result.new.iter().filter(|n| **n).count();
    let plural =
        |n: usize, word: &str, many: &str| format!("{n} {}", if n == 1 { word } else { many });
    format!(
        "changed: {} added, {} removed, {} modified, {}; {}",
        plural(c.added, "object", "objects"),
        c.removed,
        c.modified,
        plural(c.configs_changed, "config changed", "configs changed"),
        plural(new, "new finding", "new findings"),
    )
}

fn render(result: &DiffReport, args: &DiffArgs, settings: &kubegap_core::Settings) -> String {
    let report = &result.report;
    if args.output.statistics {
        return output::concise::statistics(report, args.output.format == Format::Json);
    }
    match args.output.format {
        Format::Human => {
            let mut out = summary_line(result);
            out.push('\n');
            out.push_str(&output::human::render(
                report,
                crate::use_color(args.output.color),
            ));
            out
        }
        Format::Json => {
            let c = &result.changes;
            let mut value = serde_json::json!({
                "added": c.added,
                "removed": c.removed,
                "modified": c.modified,
                "configs_changed": c.configs_changed,
                "new_findings": result.new.iter().filter(|n| **n).count(),
            });
            if args.all {
                value["new"] = serde_json::json!(result.new);
            }
            baseline::add_json_member(&output::json::render(report), "diff", &value)
        }
        Format::Sarif => output::sarif::render(report),
        Format::Github => output::github::render(report),
        Format::Concise => {
            let mut out = summary_line(result);
            out.push('\n');
            out.push_str(&output::concise::render(report));
            out
        }
        Format::Junit => output::junit::render_with(report, &|id| settings.rule_enabled(id)),
    }
}
