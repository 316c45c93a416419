//! Loading nginx configurations: parsing each file once, following `include`s, and deciding
//! which inputs are main configurations.
//!
//! Include resolution (as nginx does it, with two kubegap choices):
//! - a relative pattern is resolved against the directory of the *main* configuration file (nginx's
//!   conf prefix), not the including file's directory;
//! - an absolute pattern is looked for under `Settings::nginx_prefix` when set (first the whole
//!   path below the prefix, then shorter and shorter tails of it: `/etc/nginx/conf.d/*.conf` finds
//!   `<prefix>/conf.d/*.conf`, `/etc/nginx/mime.types` finds `<prefix>/mime.types`); without a
//!   prefix, kubegap does not read the machine's own `/etc` (the report would depend on where it
//!   runs) and records the include as unresolved;
//! - a pattern with glob characters that matches nothing is fine (nginx accepts it); a plain path
//!   that matches nothing is a parse error, as `nginx -t` reports it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::config::Settings;
use crate::finding::ParseError;
use crate::source::{FileId, FileKind, SourceFile, SourceMap, Span};

use super::parse::{parse_file, FileTree};
use super::{Directive, DirectiveId, NginxConfig};

/// Include nesting deeper than this is reported (and not followed).
const MAX_INCLUDE_DEPTH: usize = 32;
/// At most this many directives per configuration (guards against include fan-out bombs).
const MAX_DIRECTIVES: usize = 1_000_000;
/// At most this many file expansions per configuration (every file including every file
/// without a cycle is factorial).
const MAX_EXPANSIONS: usize = 20_000;
/// At most this many files read through includes in one run.
const MAX_INCLUDED_FILES: usize = 10_000;

struct Loader<'a> {
    files: &'a mut SourceMap,
    settings: &'a Settings,
    /// Parsed files, by id.
    trees: BTreeMap<FileId, FileTree>,
    /// Canonical path → file id, for every file with a path.
    by_path: BTreeMap<PathBuf, FileId>,
    /// Syntax errors, once per file.
    errors: Vec<ParseError>,
    /// Include errors of the configuration being built (they depend on the main file).
    include_errors: Vec<ParseError>,
    /// Directories relative includes are looked up in, for the configuration being built.
    bases: Vec<PathBuf>,
    /// Whether the configuration being built is a fragment (no main context).
    fragment: bool,
    /// Files spliced into the configuration being built.
    expansions: usize,
    /// Resolved include patterns (candidate path → files), so repeated includes touch the disk
    /// once.
    resolved: BTreeMap<PathBuf, Vec<PathBuf>>,
    /// Paths already mapped to a file id, before canonicalisation.
    by_raw_path: BTreeMap<PathBuf, FileId>,
    read_count: usize,
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Parses every nginx main file, adding included files to `files`. Never fails.
///
/// Runs sequentially, in the order of `mains`, so file ids stay deterministic. Returns one
/// configuration per main file that no other input includes (see the module documentation of
/// [`crate::nginx`]), and every parse and include error once.
pub fn load_all(
    mains: &[FileId],
    files: &mut SourceMap,
    settings: &Settings,
) -> (Vec<NginxConfig>, Vec<ParseError>) {
    let mut by_path = BTreeMap::new();
    for (id, f) in files.iter() {
        if let Some(p) = &f.path {
            by_path.entry(canonical(p)).or_insert(id);
        }
    }
    let mut loader = Loader {
        files,
        settings,
        trees: BTreeMap::new(),
        by_path,
        errors: Vec::new(),
        include_errors: Vec::new(),
        bases: Vec::new(),
        fragment: false,
        expansions: 0,
        resolved: BTreeMap::new(),
        by_raw_path: BTreeMap::new(),
        read_count: 0,
    };
    let mut configs = Vec::new();
    let mut config_errors = Vec::new();
    for main in mains {
        configs.push(loader.config(*main));
        config_errors.push(std::mem::take(&mut loader.include_errors));
    }

    // Drop inputs that another input includes (unless they include each other: then the one
    // with the smaller id stays).
    let included: Vec<BTreeSet<FileId>> = configs
        .iter()
        .map(|c| c.files.iter().skip(1).copied().collect())
        .collect();
    let keep: Vec<bool> = configs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            !configs.iter().enumerate().any(|(j, other)| {
                j != i
                    && included[j].contains(&c.file)
                    && (!included[i].contains(&other.file) || other.file < c.file)
            })
        })
        .collect();
    let mut errors = loader.errors;
    for (kept, include_errors) in keep.iter().zip(config_errors) {
        if *kept {
            errors.extend(include_errors);
        }
    }
    let mut k = keep.into_iter();
    configs.retain(|_| k.next().unwrap_or(true));

    errors.sort_by(|a, b| (a.span, &a.message).cmp(&(b.span, &b.message)));
    errors.dedup();
    (configs, errors)
}

impl Loader<'_> {
    /// Parses a file once; later calls reuse the tree.
    fn tree(&mut self, file: FileId) -> &FileTree {
        if !self.trees.contains_key(&file) {
            let (tree, errors) = parse_file(file, &self.files.get(file).text);
            self.errors.extend(errors);
            self.trees.insert(file, tree);
        }
        &self.trees[&file]
    }

    fn config(&mut self, main: FileId) -> NginxConfig {
        let mut config = NginxConfig {
            file: main,
            files: vec![main],
            directives: Vec::new(),
            roots: Vec::new(),
            comments: Vec::new(),
            unresolved_includes: Vec::new(),
        };
        let main_dir = self
            .files
            .get(main)
            .path
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        // A fragment (a `conf.d/*.conf` server file given alone) does not know nginx's conf
        // prefix: its relative includes are looked up in its directory, then up to three
        // ancestors (`/etc/nginx/conf.d/x.conf` → `/etc/nginx`), then `--nginx-prefix`, and one
        // found nowhere is recorded as unresolved rather than reported.
        let tree = self.tree(main);
        self.fragment = !tree.roots.iter().any(|&r| {
            matches!(
                tree.directives[r].name.value.as_str(),
                "http" | "events" | "stream"
            )
        });
        self.bases = main_dir.iter().cloned().collect();
        if self.fragment {
            if let Some(dir) = &main_dir {
                self.bases
                    .extend(dir.ancestors().skip(1).take(3).map(Path::to_path_buf));
            }
            self.bases
                .extend(self.settings.nginx_prefix.iter().cloned());
        }
        self.expansions = 0;
        let mut chain = vec![main];
        self.splice(&mut config, main, None, None, &mut chain);
        config.comments.sort_by_key(|c| (c.span.file, c.span.start));
        config
    }

    /// Copies the directives of `file` under `parent` (`None`: the main context), following its
    /// includes. Recursion depth is the include depth, bounded by `MAX_INCLUDE_DEPTH`.
    fn splice(
        &mut self,
        config: &mut NginxConfig,
        file: FileId,
        parent: Option<DirectiveId>,
        via: Option<DirectiveId>,
        chain: &mut Vec<FileId>,
    ) {
        if config.directives.len() >= MAX_DIRECTIVES || self.expansions >= MAX_EXPANSIONS {
            return;
        }
        self.expansions += 1;
        if self.expansions == MAX_EXPANSIONS {
            if let Some(span) = via.map(|v| config.get(v).span) {
                self.include_errors.push(ParseError::new(
                    span,
                    "too many includes: more than 20,000 files spliced into one configuration; \
                     the rest are not read",
                ));
            }
            return;
        }
        let tree = self.tree(file).clone();
        if !config.files.contains(&file) {
            config.files.push(file);
        }
        if !config.comments.iter().any(|c| c.span.file == file) {
            config.comments.extend(tree.comments.iter().cloned());
        }
        // Explicit stack of (local index, parent in the config), in reverse order.
        let mut stack: Vec<(usize, Option<DirectiveId>)> =
            tree.roots.iter().rev().map(|&r| (r, parent)).collect();
        while let Some((local, cfg_parent)) = stack.pop() {
            if config.directives.len() >= MAX_DIRECTIVES {
                let span = tree.directives[local].span;
                if self
                    .include_errors
                    .iter()
                    .any(|e| e.message.starts_with("configuration too large"))
                {
                    return;
                }
                self.include_errors.push(ParseError::new(
                    span,
                    "configuration too large: more than 1,000,000 directives after includes",
                ));
                return;
            }
            let raw = &tree.directives[local];
            let id = DirectiveId(u32::try_from(config.directives.len()).unwrap_or(u32::MAX));
            config.directives.push(Directive {
                name: raw.name.value.clone(),
                name_span: raw.name.span,
                args: raw.args.clone(),
                span: raw.span,
                parent: cfg_parent,
                children: raw.block.as_ref().map(|_| Vec::new()),
                close: raw.block.as_ref().and_then(|b| b.close),
                raw_body: raw.block.as_ref().and_then(|b| b.raw),
                included_by: via,
                included_files: Vec::new(),
            });
            match cfg_parent {
                Some(p) => {
                    if let Some(children) = config.directives[p.0 as usize].children.as_mut() {
                        children.push(id);
                    }
                }
                None => config.roots.push(id),
            }
            if let Some(block) = &raw.block {
                stack.extend(block.children.iter().rev().map(|&c| (c, Some(id))));
            }
            if raw.name.value == "include" && raw.block.is_none() && raw.args.len() == 1 {
                let pattern = raw.args[0].clone();
                let span = raw.span;
                let targets = self.resolve(config, id, &pattern.value, pattern.span);
                for target in targets {
                    if let Some(start) = chain.iter().position(|f| *f == target) {
                        // One report per include directive, naming only the cycle itself.
                        if self
                            .include_errors
                            .iter()
                            .any(|e| e.span == span && e.message.starts_with("include cycle"))
                        {
                            continue;
                        }
                        let names: Vec<&str> = chain[start..]
                            .iter()
                            .chain(std::iter::once(&target))
                            .map(|f| {
                                let file = self.files.get(*f);
                                file.path
                                    .as_deref()
                                    .and_then(Path::file_name)
                                    .and_then(|n| n.to_str())
                                    .unwrap_or(&file.name)
                            })
                            .collect();
                        self.include_errors.push(ParseError::new(
                            span,
                            format!("include cycle: {}", names.join(" → ")),
                        ));
                        continue;
                    }
                    if chain.len() > MAX_INCLUDE_DEPTH {
                        self.include_errors.push(ParseError::new(
                            span,
                            format!("includes nested deeper than {MAX_INCLUDE_DEPTH} levels"),
                        ));
                        continue;
                    }
                    config.directives[id.0 as usize].included_files.push(target);
                    chain.push(target);
                    self.splice(config, target, cfg_parent, Some(id), chain);
                    chain.pop();
                }
            }
        }
    }

    /// Files an include pattern names, sorted as nginx's glob does. Reports missing files.
    fn resolve(
        &mut self,
        config: &mut NginxConfig,
        include: DirectiveId,
        pattern: &str,
        span: Span,
    ) -> Vec<FileId> {
        let has_glob = pattern.contains(['*', '?', '[']);
        let pattern_path = Path::new(pattern);
        let mut candidates: Vec<PathBuf> = Vec::new();
        if pattern_path.is_absolute() {
            let Some(prefix) = self.settings.nginx_prefix.clone() else {
                config.unresolved_includes.push(include);
                return Vec::new();
            };
            let parts: Vec<_> = pattern_path
                .components()
                .filter(|c| matches!(c, std::path::Component::Normal(_)))
                .collect();
            // The whole path below the prefix, then shorter tails, down to the file name for a
            // plain path (`/etc/nginx/mime.types` → `<prefix>/mime.types`) and to a directory
            // and a pattern for a glob (a bare `*.conf` would match unrelated files).
            let min_tail = if has_glob { parts.len().min(2) } else { 1 };
            for skip in 0..=parts.len().saturating_sub(min_tail) {
                let tail: PathBuf = parts[skip..].iter().collect();
                candidates.push(prefix.join(tail));
            }
        } else {
            if self.bases.is_empty() {
                // Standard input: relative includes cannot be resolved.
                config.unresolved_includes.push(include);
                return Vec::new();
            }
            candidates.extend(self.bases.iter().map(|b| b.join(pattern_path)));
        }
        for candidate in &candidates {
            let found = match self.resolved.get(candidate) {
                Some(found) => found.clone(),
                None => {
                    let found = self.expand(candidate, has_glob);
                    self.resolved.insert(candidate.clone(), found.clone());
                    found
                }
            };
            if !found.is_empty() {
                let mut ids = Vec::new();
                for path in found {
                    if let Some(id) = self.file_id(&path, span) {
                        ids.push(id);
                    }
                }
                return ids;
            }
        }
        if self.fragment && !pattern_path.is_absolute() {
            config.unresolved_includes.push(include);
            return Vec::new();
        }
        if !has_glob {
            // Messages name no absolute path, so they read the same on every machine.
            let where_ = if pattern_path.is_absolute() {
                "under --nginx-prefix".to_string()
            } else {
                let main = self.files.get(config.file);
                let main_name = main
                    .path
                    .as_deref()
                    .and_then(Path::file_name)
                    .and_then(|n| n.to_str())
                    .unwrap_or(&main.name);
                format!("relative to the directory of `{main_name}`, as nginx resolves it")
            };
            let error = ParseError::new(
                span,
                format!("included file `{pattern}` not found {where_}"),
            );
            self.include_errors.push(error);
        }
        Vec::new()
    }

    /// Matching regular files, sorted (nginx sorts glob results).
    fn expand(&self, candidate: &Path, has_glob: bool) -> Vec<PathBuf> {
        if !has_glob {
            return if candidate.is_file() {
                vec![candidate.to_path_buf()]
            } else {
                Vec::new()
            };
        }
        let Some(text) = candidate.to_str() else {
            return Vec::new();
        };
        let Ok(paths) = glob::glob(text) else {
            return Vec::new();
        };
        let mut found: Vec<PathBuf> = paths.flatten().filter(|p| p.is_file()).collect();
        found.sort();
        found
    }

    /// The id of a file on disk, reading and adding it when it is not in the map yet.
    fn file_id(&mut self, path: &Path, span: Span) -> Option<FileId> {
        if let Some(id) = self.by_raw_path.get(path) {
            return Some(*id);
        }
        let key = canonical(path);
        if let Some(id) = self.by_path.get(&key) {
            self.by_raw_path.insert(path.to_path_buf(), *id);
            return Some(*id);
        }
        if self.read_count >= MAX_INCLUDED_FILES {
            self.errors.push(ParseError::new(
                span,
                "too many included files (more than 10,000); the rest are not read",
            ));
            return None;
        }
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) => {
                self.errors.push(ParseError::new(
                    span,
                    format!("cannot read included file `{}`: {error}", path.display()),
                ));
                return None;
            }
        };
        self.read_count += 1;
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => {
                let at = error.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
                let len = text[at..].chars().next().map_or(0, char::len_utf8);
                self.errors.push(ParseError::new(
                    Span::new(id, at, at + len),
                    format!("invalid UTF-8 at byte {at}; the invalid bytes are read as U+FFFD"),
                ));
                text
            }
        };
        let id = self.files.add(SourceFile::new(
            path.display().to_string(),
            Some(path.to_path_buf()),
            text,
            FileKind::Nginx,
        ));
        self.by_path.insert(key, id);
        self.by_raw_path.insert(path.to_path_buf(), id);
        Some(id)
    }
}
