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
//!   that matches nothing is an `nginx-include-missing` finding (as `nginx -t` reports it), and
//!   so is an include cycle;
//! - **confinement**: an included file is read only when it is a regular file inside the lint
//!   roots or the `--nginx-prefix` ([`crate::reads`]); anything else is an
//!   `nginx-include-missing` finding that names the path ("outside the lint root, not read"),
//!   never its content. A fragment's search of parent directories stays inside the roots too;
//! - nginx reads bytes, not characters: bytes that are not UTF-8 are not an error (they are
//!   read as U+FFFD).

use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::config::Settings;
use crate::finding::{excerpt, ParseError};
use crate::reads::{Refusal, Roots};
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
    trees: BTreeMap<FileId, std::sync::Arc<FileTree>>,
    /// The inputs, parsed in parallel before loading; moved to `trees` (their errors to
    /// `errors`) when first used, so the errors keep the order of a sequential load.
    preparsed: BTreeMap<FileId, (FileTree, Vec<ParseError>)>,
    /// Canonical path → file id, for every file with a path (borrowed from the caller's
    /// canonical paths where it has them).
    by_path: HashMap<Cow<'a, Path>, FileId>,
    /// Syntax errors, once per file.
    errors: Vec<ParseError>,
    /// Include problems of the configuration being built (they depend on the main file): the
    /// `nginx-include-missing` findings, and limits met while splicing (parse errors).
    include_errors: Vec<ParseError>,
    /// Limits met while splicing the configuration being built (parse errors).
    limit_errors: Vec<ParseError>,
    /// Directories relative includes are looked up in, for the configuration being built.
    bases: Vec<PathBuf>,
    /// Whether the configuration being built is a fragment (no main context).
    fragment: bool,
    /// Files spliced into the configuration being built.
    expansions: usize,
    /// Resolved include patterns (candidate path → files), so repeated includes touch the disk
    /// once.
    resolved: BTreeMap<PathBuf, Expansion>,
    /// Whether a directory may be searched, per directory: the fragments of one tree share
    /// their ancestors (587 configs asked about 1,761 directories, each canonicalised).
    searchable: std::collections::HashMap<PathBuf, bool>,
    /// What may be read.
    roots: Roots,
    /// Paths already mapped to a file id, before canonicalisation.
    by_raw_path: BTreeMap<PathBuf, FileId>,
    read_count: usize,
    /// Bytes read through includes so far: together bounded by `--max-file-size` too.
    included_bytes: u64,
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What one include candidate expands to: files that may be read, and matches that may not.
#[derive(Clone, Debug, Default)]
struct Expansion {
    files: Vec<PathBuf>,
    /// (the path as shown: the pattern, or a glob match's file name; why it was not read).
    refused: Vec<(Option<String>, String)>,
}

/// What `nginx -t` and kubegap agree an nginx load produced: configurations, syntax errors (once
/// per file) and include problems (`nginx-include-missing`, only for reported configurations).
#[derive(Debug, Default)]
pub struct Loaded {
    /// One configuration per main file.
    pub configs: Vec<NginxConfig>,
    /// Syntax errors and limits met (`parse-error`).
    pub parse_errors: Vec<ParseError>,
    /// Missing, cyclic or refused includes (`nginx-include-missing`).
    pub include_errors: Vec<ParseError>,
}

/// Parses every nginx main file, adding included files to `files`. Never fails.
///
/// Runs sequentially, in the order of `mains`, so file ids stay deterministic. Returns one
/// configuration per main file that no other input includes (see the module documentation of
/// [`crate::nginx`]), and every parse and include error once.
pub fn load_all(mains: &[FileId], files: &mut SourceMap, settings: &Settings) -> Loaded {
    load_all_canonical(mains, files, settings, &Canonical::default())
}

/// What the caller already canonicalised, by file id (`paths[i]` for file id `i`; `None` for
/// stdin, or not known).
#[derive(Debug, Default)]
pub struct Canonical {
    /// The canonical path of each file.
    pub paths: Vec<Option<PathBuf>>,
    /// The canonical path of each file's directory (the loader's roots).
    pub dirs: Vec<Option<PathBuf>>,
}

/// [`load_all`] with the canonical paths of the first files of `files`, and of their
/// directories, already known: the engine canonicalises every input once, and the loader does
/// not do it again.
pub fn load_all_canonical(
    mains: &[FileId],
    files: &mut SourceMap,
    settings: &Settings,
    known: &Canonical,
) -> Loaded {
    let canonical_paths = &known.paths;
    // No nginx config, nothing to load.
    if mains.is_empty() {
        return Loaded::default();
    }
    // Every input by canonical path, the first id of a path kept (hashed: sorting thousands
    // of paths compared component by component took longer).
    let mut by_path: HashMap<Cow<'_, Path>, FileId> = HashMap::with_capacity(files.len());
    for (id, f) in files.iter() {
        let Some(p) = f.path.as_ref() else {
            continue;
        };
        let known = usize::try_from(id.0)
            .ok()
            .and_then(|i| canonical_paths.get(i))
            .and_then(Option::as_ref);
        let key = match known {
            Some(known) => Cow::Borrowed(known.as_path()),
            None => Cow::Owned(canonical(p)),
        };
        by_path.entry(key).or_insert(id);
    }
    // The directory of every input is a root, and so is the prefix the user gave (each
    // directory once; `Roots` deduplicates what they resolve to).
    let mut dirs: Vec<(&Path, Option<&PathBuf>)> = files
        .iter()
        .filter_map(|(id, f)| {
            let known = usize::try_from(id.0)
                .ok()
                .and_then(|i| known.dirs.get(i))
                .and_then(Option::as_ref);
            // The directory an input's relative paths start from is a lint root.
            Some((crate::reads::parent_dir(f.path.as_deref()?), known))
        })
        .chain(settings.nginx_prefix.as_deref().map(|p| (p, None)))
        .collect();
    dirs.par_sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    dirs.dedup_by(|a, b| a.0.as_os_str() == b.0.as_os_str() && a.1 == b.1);
    let roots = Roots::resolved(&settings.reads, dirs);
    let preparsed: BTreeMap<FileId, (FileTree, Vec<ParseError>)> = mains
        .par_iter()
        .map(|id| (*id, parse_file(*id, &files.get(*id).text)))
        .collect();
    let mut loader = Loader {
        files,
        settings,
        trees: BTreeMap::new(),
        preparsed,
        by_path,
        errors: Vec::new(),
        include_errors: Vec::new(),
        limit_errors: Vec::new(),
        bases: Vec::new(),
        fragment: false,
        expansions: 0,
        resolved: BTreeMap::new(),
        searchable: std::collections::HashMap::new(),
        roots,
        by_raw_path: BTreeMap::new(),
        read_count: 0,
        included_bytes: 0,
    };
    let mut configs = Vec::new();
    let mut config_errors = Vec::new();
    for main in mains {
        configs.push(loader.config(*main));
        config_errors.push((
            std::mem::take(&mut loader.include_errors),
            std::mem::take(&mut loader.limit_errors),
        ));
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
    let mut includes = Vec::new();
    for (kept, (include_errors, limit_errors)) in keep.iter().zip(config_errors) {
        if *kept {
            includes.extend(include_errors);
            errors.extend(limit_errors);
        }
    }
    let mut k = keep.into_iter();
    configs.retain(|_| k.next().unwrap_or(true));

    for list in [&mut errors, &mut includes] {
        list.sort_by(|a, b| (a.span, &a.message).cmp(&(b.span, &b.message)));
        list.dedup();
    }
    Loaded {
        configs,
        parse_errors: errors,
        include_errors: includes,
    }
}

impl Loader<'_> {
    /// Parses a file once; later calls reuse the tree.
    /// Shared: splicing a file holds its tree while the loader changes (a clone of the tree
    /// per splice was a third of loading a corpus of configs).
    fn tree(&mut self, file: FileId) -> std::sync::Arc<FileTree> {
        if let Some(tree) = self.trees.get(&file) {
            return std::sync::Arc::clone(tree);
        }
        let (tree, errors) = match self.preparsed.remove(&file) {
            Some(parsed) => parsed,
            None => parse_file(file, &self.files.get(file).text),
        };
        self.errors.extend(errors);
        let tree = std::sync::Arc::new(tree);
        self.trees.insert(file, std::sync::Arc::clone(&tree));
        tree
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
                // Only ancestors inside the roots are searched: a fragment's includes must not
                // find files beside the repository.
                for d in dir.ancestors().skip(1).take(3) {
                    let roots = &self.roots;
                    let searchable = *self
                        .searchable
                        .entry(d.to_path_buf())
                        .or_insert_with(|| roots.may_search(d));
                    if searchable {
                        self.bases.push(d.to_path_buf());
                    }
                }
            }
            self.bases
                .extend(self.settings.nginx_prefix.iter().cloned());
        }
        self.expansions = 0;
        let mut chain = vec![main];
        self.splice(&mut config, main, None, None, &mut chain);
        config.comments.sort_by_key(|c| (c.span.file, c.span.start));
        // Every configuration is kept to the end of the run: without the room its vectors grew
        // (a quarter of the directives' bytes on average).
        config.directives.shrink_to_fit();
        config.roots.shrink_to_fit();
        config.comments.shrink_to_fit();
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
                self.limit_errors.push(ParseError::new(
                    span,
                    "too many includes: more than 20,000 files spliced into one configuration; \
                     the rest are not read",
                ));
            }
            return;
        }
        let tree = self.tree(file);
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
                    .limit_errors
                    .iter()
                    .any(|e| e.message.starts_with("configuration too large"))
                {
                    return;
                }
                self.limit_errors.push(ParseError::new(
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
                // Every include problem points at the pattern, as a missing file does.
                let span = pattern.span;
                let targets = self.resolve(config, id, &pattern.value, pattern.span);
                for target in targets {
                    if let Some(start) = chain.iter().position(|f| *f == target) {
                        // One report per include directive, naming only the cycle itself.
                        if self
                            .include_errors
                            .iter()
                            .any(|e| e.span == span && e.message.contains("an include cycle"))
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
                        let message = format!(
                            "{}, an include cycle: {}",
                            self.includes(span, &pattern.value),
                            names.join(" → ")
                        );
                        self.include_errors.push(ParseError::new(span, message));
                        continue;
                    }
                    if chain.len() > MAX_INCLUDE_DEPTH {
                        self.limit_errors.push(ParseError::new(
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

    /// `` `geo.conf:75` includes `geo-ranges.conf` ``: the start of every include message, naming
    /// the including file and line (the main configuration may be another file).
    fn includes(&self, span: Span, pattern: &str) -> String {
        let file = self.files.get(span.file);
        let line = file.line_col(span.start).line;
        format!(
            "`{}:{line}` includes `{}`",
            excerpt(file.base_name()),
            excerpt(pattern)
        )
    }

    /// Files an include pattern names, sorted as nginx's glob does. Reports missing, cyclic and
    /// refused files.
    fn resolve(
        &mut self,
        config: &mut NginxConfig,
        include: DirectiveId,
        pattern: &str,
        span: Span,
    ) -> Vec<FileId> {
        // A template placeholder (`%%TESTDIR%%/inc.conf`, `${CONF_DIR}/x.conf`) is
        // an unknown path, not a missing file: the config is incomplete, nothing is reported.
        if pattern.contains("%%") || pattern.contains("${") {
            config.unresolved_includes.push(include);
            return Vec::new();
        }
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
        let mut refused: Vec<(Option<String>, String)> = Vec::new();
        for candidate in &candidates {
            let found = match self.resolved.get(candidate) {
                Some(found) => found.clone(),
                None => {
                    let found = self.expand(candidate, has_glob);
                    self.resolved.insert(candidate.clone(), found.clone());
                    found
                }
            };
            if refused.is_empty() {
                refused = found.refused;
            }
            if !found.files.is_empty() {
                let mut ids = Vec::new();
                for path in found.files {
                    if let Some(id) = self.file_id(&path, span, pattern) {
                        ids.push(id);
                    }
                }
                self.report_refused(span, pattern, refused);
                return ids;
            }
        }
        if !refused.is_empty() {
            self.report_refused(span, pattern, refused);
            return Vec::new();
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
                let whose = if config.file == span.file {
                    String::new()
                } else {
                    " (the main configuration)".to_string()
                };
                format!(
                    "relative to the directory of `{}`{whose}, as nginx resolves it",
                    excerpt(main_name)
                )
            };
            let message = format!("{}, not found {where_}", self.includes(span, pattern));
            self.include_errors.push(ParseError::new(span, message));
        }
        Vec::new()
    }

    fn report_refused(
        &mut self,
        span: Span,
        pattern: &str,
        refused: Vec<(Option<String>, String)>,
    ) {
        for (shown, why) in refused {
            let message = match shown {
                None => format!("{}, {why}", self.includes(span, pattern)),
                Some(name) => format!(
                    "{}: `{}` is {why}",
                    self.includes(span, pattern),
                    excerpt(&name)
                ),
            };
            self.include_errors.push(ParseError::new(span, message));
        }
    }

    /// Matching regular files that may be read, sorted (nginx sorts glob results), and the
    /// matches that may not. Nothing outside the roots is listed or read.
    fn expand(&self, candidate: &Path, has_glob: bool) -> Expansion {
        let mut out = Expansion::default();
        if !has_glob {
            match self.roots.check(candidate) {
                Ok(_) => out.files.push(candidate.to_path_buf()),
                Err(Refusal::NotFound) => {}
                Err(refusal) => out.refused.push((None, refusal.to_string())),
            }
            return out;
        }
        // The directory the glob starts in: its components before the first glob character.
        let fixed: PathBuf = candidate
            .components()
            .take_while(|c| !c.as_os_str().to_string_lossy().contains(['*', '?', '[']))
            .collect();
        if !self.roots.may_search(&fixed) {
            let why = if crate::reads::is_pseudo(&crate::reads::best_canonical(&fixed)) {
                Refusal::Pseudo
            } else {
                Refusal::OutsideRoots
            };
            out.refused.push((None, why.to_string()));
            return out;
        }
        let Some(text) = candidate.to_str() else {
            return out;
        };
        let Ok(paths) = glob::glob(text) else {
            return out;
        };
        let mut found: Vec<PathBuf> = paths.flatten().collect();
        found.sort();
        for path in found {
            match self.roots.check(&path) {
                Ok(_) => out.files.push(path),
                // Directories match globs too; nginx skips them.
                Err(Refusal::NotFound | Refusal::NotRegular) => {}
                Err(refusal) => {
                    let name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    out.refused.push((Some(name), refusal.to_string()));
                }
            }
        }
        out
    }

    /// The id of a file on disk, reading and adding it when it is not in the map yet.
    fn file_id(&mut self, path: &Path, span: Span, pattern: &str) -> Option<FileId> {
        if let Some(id) = self.by_raw_path.get(path) {
            return Some(*id);
        }
        let key = canonical(path);
        if let Some(id) = self.by_path.get(key.as_path()) {
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
        let limit = self.settings.reads.max_file_size;
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        if self.included_bytes.saturating_add(size) > limit {
            let message = format!(
                "{}, not read: the included files together would exceed --max-file-size ({})",
                self.includes(span, pattern),
                crate::reads::format_size(limit)
            );
            self.include_errors.push(ParseError::new(span, message));
            return None;
        }
        let bytes = match self.roots.read(path) {
            Ok(bytes) => bytes,
            Err(refusal) => {
                let message = format!("{}, {refusal}", self.includes(span, pattern));
                self.include_errors.push(ParseError::new(span, message));
                return None;
            }
        };
        self.read_count += 1;
        self.included_bytes = self.included_bytes.saturating_add(bytes.len() as u64);
        // nginx is byte-transparent: bytes that are not UTF-8 are valid (read as U+FFFD).
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
        };
        let id = self.files.add(SourceFile::new(
            path.display().to_string(),
            Some(path.to_path_buf()),
            text,
            FileKind::Nginx,
        ));
        self.by_path.insert(Cow::Owned(key), id);
        self.by_raw_path.insert(path.to_path_buf(), id);
        Some(id)
    }
}
