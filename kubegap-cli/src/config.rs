//! The configuration file: discovery (`.kubegap.yaml` in the current directory or the nearest
//! parent up to the repository root), `extends:` (a built-in preset, or a file confined to
//! the repository), and the flags that override it.
//!
//! `.kubegap.yaml` comes from the repository being linted, which may be a pull request from a
//! fork: `extends:` never opens a path outside the repository root or the configuration
//! file's directory tree, nor anything that is not a regular file (`/proc`, `/dev`, FIFOs),
//! and an error names the path, never the content.

use std::path::{Path, PathBuf};

use kubegap_core::config::{preset, Version, PRESETS};
use kubegap_core::rules::find;
use kubegap_core::suggest;
use kubegap_core::Settings;

use crate::args::LintArgs;

/// The name of the configuration file kubegap looks for.
pub const FILE_NAME: &str = ".kubegap.yaml";

/// Configuration files larger than this are refused (a preset is a few hundred bytes).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The nearest `.kubegap.yaml`: in `start` or a parent, stopping at the repository root (the
/// first directory holding `.git`). Outside a repository only `start` is searched.
pub fn discover(start: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let in_repo = repo_root(&start).is_some();
    for dir in start.ancestors() {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if !in_repo || dir.join(".git").exists() {
            break;
        }
    }
    None
}

/// The repository root above `dir` (the nearest directory holding `.git`), if any.
pub(crate) fn repo_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Where `extends:` of `config` may point: the repository root of the file, or else the file's
/// own directory tree.
fn extends_root(config: &Path) -> PathBuf {
    let dir = config.parent().unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    repo_root(&dir).unwrap_or(dir)
}

/// What `extends:` names.
enum Extends {
    Preset(&'static kubegap_core::config::Preset),
    File(PathBuf),
}

/// Resolves an `extends:` value of the file `from`, or says why it is refused (naming the
/// path, never its content).
fn resolve_extends(from: &Path, value: &str) -> Result<Extends, String> {
    if let Some(p) = preset(value) {
        return Ok(Extends::Preset(p));
    }
    let relative = Path::new(value);
    let looks_like_path = value.contains('/') || value.contains('.');
    if !looks_like_path {
        return Err(format!(
            "{}: `extends: {value}`: no such preset{} (presets: {})",
            from.display(),
            suggest::hint(value, PRESETS.iter().map(|p| p.name)),
            PRESETS
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if relative.is_absolute() {
        return Err(format!(
            "{}: `extends: {value}`: an absolute path is not read; use a preset name or a path relative to the configuration file",
            from.display()
        ));
    }
    let base = from.parent().unwrap_or(Path::new("."));
    let joined = base.join(relative);
    let canonical = match std::fs::canonicalize(&joined) {
        Ok(c) => c,
        Err(e) => {
            // Configurations written for kubegap 0.1 name the preset files of kubegap's own
            // checkout (`rulesets/partial-input.yaml`): they are built in now.
            if let Some(p) = value
                .strip_prefix("rulesets/")
                .and_then(|n| n.strip_suffix(".yaml"))
                .and_then(preset)
            {
                return Ok(Extends::Preset(p));
            }
            return Err(format!(
                "{}: `extends: {value}`: {} ({e})",
                from.display(),
                joined.display()
            ));
        }
    };
    let root = extends_root(from);
    if !canonical.starts_with(&root) {
        return Err(format!(
            "{}: `extends: {value}`: {} is outside the repository root {}; it is not read",
            from.display(),
            canonical.display(),
            root.display()
        ));
    }
    match std::fs::metadata(&canonical) {
        Ok(m) if m.is_file() && m.len() <= MAX_CONFIG_BYTES => Ok(Extends::File(canonical)),
        Ok(m) if m.is_file() => Err(format!(
            "{}: `extends: {value}`: {} is larger than {} bytes; it is not read",
            from.display(),
            canonical.display(),
            MAX_CONFIG_BYTES
        )),
        Ok(_) => Err(format!(
            "{}: `extends: {value}`: {} is not a regular file; it is not read",
            from.display(),
            canonical.display()
        )),
        Err(e) => Err(format!(
            "{}: `extends: {value}`: {} ({e})",
            from.display(),
            canonical.display()
        )),
    }
}

/// Applies one configuration text (named `name` in errors), after the presets it extends.
fn apply(
    name: &str,
    text: &str,
    from: Option<&Path>,
    settings: &mut Settings,
    depth: usize,
) -> Result<(), String> {
    if depth > 8 {
        return Err(format!("{name}: `extends` nests more than 8 levels"));
    }
    let known = |id: &str| find(id).is_some();
    // Presets first, so the file's own keys win.
    let mut own = Settings::default();
    let extends = own.apply_yaml(text, &known).map_err(|errors| {
        errors
            .iter()
            .map(|e| format!("{name}:{}: {}", e.line, e.message))
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    if let Some(value) = extends {
        let from = from.unwrap_or(Path::new(name));
        match resolve_extends(from, &value)? {
            Extends::Preset(p) => {
                apply(
                    &format!("preset `{}`", p.name),
                    p.yaml,
                    None,
                    settings,
                    depth + 1,
                )?;
            }
            Extends::File(path) => load_file(&path, settings, depth + 1)?,
        }
    }
    // Apply again on top of the presets (cheap; keeps one code path for every key).
    settings
        .apply_yaml(text, &known)
        .map_err(|_| format!("{name}: invalid configuration"))?;
    Ok(())
}

/// Loads a configuration file and the presets it `extends`.
pub fn load_file(path: &Path, settings: &mut Settings, depth: usize) -> Result<(), String> {
    if let Ok(m) = std::fs::metadata(path) {
        if m.is_file() && m.len() > MAX_CONFIG_BYTES {
            return Err(format!(
                "{}: larger than {MAX_CONFIG_BYTES} bytes; not a kubegap configuration",
                path.display()
            ));
        }
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    apply(
        &path.display().to_string(),
        &text,
        Some(path),
        settings,
        depth,
    )
}

/// Lists unknown rule ids of a flag, all at once, each with a did-you-mean.
fn check_rule_ids(flag: &str, ids: &[String]) -> Result<(), String> {
    let unknown: Vec<String> = ids
        .iter()
        .filter(|id| find(id).is_none())
        .map(|id| format!("`{id}`{}", suggest::rule_hint(id)))
        .collect();
    match unknown.len() {
        0 => Ok(()),
        1 => Err(format!(
            "{flag}: unknown rule {} (`kubegap rules` lists every rule)",
            unknown[0]
        )),
        _ => Err(format!(
            "{flag}: unknown rules {} (`kubegap rules` lists every rule)",
            unknown.join(", ")
        )),
    }
}

/// Builds settings: `.kubegap.yaml` (or `--config`), then flags.
pub fn settings(args: &LintArgs) -> Result<Settings, String> {
    let mut settings = Settings::default();
    let path = match &args.config {
        Some(path) => Some(path.clone()),
        None => discover(Path::new(".")),
    };
    if let Some(path) = path {
        load_file(&path, &mut settings, 0)?;
    }
    let select = check_rule_ids("--select", &args.select);
    let ignore = check_rule_ids("--ignore", &args.ignore);
    match (select, ignore) {
        (Err(a), Err(b)) => return Err(format!("{a}\nerror: {b}")),
        (Err(e), _) | (_, Err(e)) => return Err(e),
        _ => {}
    }
    if !args.select.is_empty() {
        settings.select = Some(args.select.clone());
    }
    settings.ignore.extend(args.ignore.iter().cloned());
    let version = |flag: &str, v: &Option<String>| -> Result<Option<Version>, String> {
        match v {
            None => Ok(None),
            Some(text) => Version::parse(text)
                .map(Some)
                .ok_or_else(|| format!("{flag}: not a version: `{text}`")),
        }
    };
    if let Some(v) = version("--haproxy-version", &args.haproxy_version)? {
        settings.haproxy_version = Some(v);
    }
    if let Some(v) = version("--nginx-version", &args.nginx_version)? {
        settings.nginx_version = Some(v);
    }
    if args.nginx_prefix.is_some() {
        settings.nginx_prefix.clone_from(&args.nginx_prefix);
    }
    if args.nodes.is_some() {
        settings.nodes = args.nodes;
    }
    settings.complete |= args.complete;
    settings.l7_in_front |= args.l7_in_front;
    settings.reads = crate::read_policy(args);
    Ok(settings)
}
