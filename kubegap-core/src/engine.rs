//! The engine: decode → parse (in parallel) → model → rules (in parallel) → one sort.
//!
//! Invariant: the report depends only on the set of inputs and the settings, never on the
//! thread count or the order the inputs were given in.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::config::Settings;
use crate::finding::{Finding, Label, ParseError};
use crate::haproxy::{self, HaproxyConfig};
use crate::k8s::Graph;
use crate::model::Model;
use crate::nginx::{self, NginxConfig};
use crate::rule::{finding, Context, Rule, Sink};
use crate::rules::{NGINX_INCLUDE_MISSING, PARSE_ERROR, RULES};
use crate::source::{FileId, FileKind, SourceFile, SourceMap, Span};
use crate::yaml::{self, Document};

/// One input: a file read from disk or stdin.
#[derive(Clone, Debug)]
pub struct Input {
    /// The name as the user gave it (`<stdin>` for standard input).
    pub name: String,
    /// The path on disk, if any.
    pub path: Option<PathBuf>,
    /// The raw bytes.
    pub bytes: Vec<u8>,
    /// The kind of configuration.
    pub kind: FileKind,
    /// The canonical form of `path` when the caller knows it (a directory walk that met no
    /// symbolic link on the way from a canonical root: the root's canonical path joined with
    /// the rest); `None` to have the engine look it up, as it does for every other path.
    /// The engine trusts it: it names the file, and `path`'s directory is its parent.
    pub canonical: Option<PathBuf>,
    /// The input decoded and parsed for the rules as soon as it was read ([`prepare`]); its
    /// `bytes` are then empty.
    pub prepared: Option<Box<Prepared>>,
}

/// An input decoded and parsed for the rules ahead of [`lint`] ([`prepare`]), with the lines
/// no rule reads already cut out of its text.
#[derive(Clone, Debug)]
pub struct Prepared {
    file: SourceFile,
    decode_error: Option<ParseError>,
    documents: Vec<Document>,
    errors: Vec<ParseError>,
}

/// The file id a prepared input is parsed under, until [`load_for_rules`] gives it its own.
const UNPLACED: FileId = FileId(u32::MAX);

/// Decodes and parses a manifest for the rules as soon as it is read, and cuts the lines no
/// rule reads out of its text ([`yaml::cut_unread`]): a caller reading many files (a directory
/// walk) calls it on each as it reads it, so that the text of every CustomResourceDefinition's
/// `spec` (82 % of the bytes of the corpus's manifests) is never held all at once. For
/// [`lint`], [`lint_keeping`] and [`chains`] only, without [`Settings::keep_whole_texts`]: the
/// other loads read a prepared input's text as kept. Anything but a manifest, and a manifest
/// not [`worth_preparing`], is left as it is: [`lint`] parses those in its own parallel pass,
/// as it would have (and cuts there what this missed).
pub fn prepare(input: &mut Input) {
    if input.kind != FileKind::Yaml || input.prepared.is_some() || !worth_preparing(&input.bytes) {
        return;
    }
    let bytes = std::mem::take(&mut input.bytes);
    let (text, decode_error) = decode(UNPLACED, bytes, input.kind);
    let mut file = SourceFile::new(input.name.clone(), input.path.clone(), text, input.kind);
    let text = std::sync::Arc::clone(&file.text);
    let (mut documents, mut errors) =
        yaml::parse_stream_without(UNPLACED, &text, &crate::k8s::UNREAD_BY_RULES);
    if let Some((kept, holes)) = yaml::cut_unread(UNPLACED, &text, &mut documents, &mut errors) {
        drop(text);
        file.set_holes(kept, holes);
    }
    input.prepared = Some(Box::new(Prepared {
        file,
        decode_error,
        documents,
        errors,
    }));
}

/// Whether a file's bytes name the kind whose values [`prepare`] cuts
/// (`CustomResourceDefinition`): one search of the bytes, which for most files spares both
/// the parse ahead of [`lint`] and what it would hold.
pub fn worth_preparing(bytes: &[u8]) -> bool {
    static KIND: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| {
            memchr::memmem::Finder::new(crate::k8s::UNREAD_BY_RULES.kind.as_bytes())
        });
    KIND.find(bytes).is_some()
}

/// Counts for the summary line and the JSON `summary`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Files read (including included nginx files).
    pub files: usize,
    /// YAML documents parsed.
    pub documents: usize,
    /// Kubernetes objects found (List items count one each).
    pub objects: usize,
    /// Findings reported.
    pub findings: usize,
    /// Findings of severity error.
    pub errors: usize,
    /// Findings of severity warning.
    pub warnings: usize,
    /// Findings of severity info.
    pub infos: usize,
    /// Findings suppressed by `# kubegap-ignore:` comments and `kubegap.io/ignore` annotations.
    pub suppressed: usize,
}

/// The result of a run.
#[derive(Debug)]
pub struct Report {
    /// Every file, for rendering.
    pub files: SourceMap,
    /// Findings in output order.
    pub findings: Vec<Finding>,
    /// Counts.
    pub summary: Summary,
}

/// Everything parsed, before rules run. Also used by `kubegap chains`.
pub struct Workspace {
    /// All files.
    pub files: SourceMap,
    /// All YAML documents.
    pub documents: Vec<Document>,
    /// The object graph.
    pub graph: Graph,
    /// Controllers, routes and load balancers.
    pub controllers: crate::controllers::Model,
    /// haproxy.cfg files.
    pub haproxy: Vec<HaproxyConfig>,
    /// nginx configs.
    pub nginx: Vec<NginxConfig>,
    /// Parse errors (as findings).
    pub parse_findings: Vec<Finding>,
}

impl Workspace {
    /// The read-only model over this workspace (see [`crate::model`]).
    pub fn model<'a>(&'a self, settings: &'a Settings) -> Model<'a> {
        Model {
            files: &self.files,
            documents: &self.documents,
            k8s: &self.graph,
            haproxy: &self.haproxy,
            nginx: &self.nginx,
            settings,
        }
    }

    /// Every timeout chain of the workspace, as rules see them (what `kubegap chains` prints).
    pub fn chains(&self, settings: &Settings) -> crate::chain::Chains {
        let model = self.model(settings);
        crate::chain::build(&crate::chain::Stage {
            model: &model,
            controllers: &self.controllers,
        })
    }
}

fn parse_finding(error: ParseError) -> Finding {
    let mut f = finding(&PARSE_ERROR, error.span, error.message);
    f.labels = error.labels;
    f
}

/// The encoding a byte order mark announces, if it is not UTF-8's.
fn foreign_bom(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0xFF, 0xFE, 0, 0]) {
        Some("UTF-32 LE")
    } else if bytes.starts_with(&[0, 0, 0xFE, 0xFF]) {
        Some("UTF-32 BE")
    } else if bytes.starts_with(&[0xFF, 0xFE]) {
        Some("UTF-16 LE")
    } else if bytes.starts_with(&[0xFE, 0xFF]) {
        Some("UTF-16 BE")
    } else {
        None
    }
}

/// Decodes an input: UTF-8, invalid bytes read as U+FFFD and reported at the first one (nginx
/// configs excepted: nginx is byte-transparent); a UTF-16 or UTF-32 byte order mark is reported
/// by name and the file is not parsed.
fn decode(id: FileId, bytes: Vec<u8>, kind: FileKind) -> (String, Option<ParseError>) {
    if let Some(encoding) = foreign_bom(&bytes) {
        return (
            String::new(),
            Some(ParseError::new(
                Span::new(id, 0, 0),
                format!(
                    "the file is {encoding} (byte order mark at byte 0); kubegap reads UTF-8: \
                     convert it, e.g. `iconv -f {} -t UTF-8`",
                    encoding.replace(' ', "")
                ),
            )),
        );
    }
    match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(error) => {
            let at = error.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
            if kind == FileKind::Nginx {
                return (text, None);
            }
            let len = text[at..].chars().next().map_or(0, char::len_utf8);
            let error = ParseError::new(
                Span::new(id, at, at + len),
                format!("invalid UTF-8 at byte {at}; the invalid bytes are read as U+FFFD"),
            );
            (text, Some(error))
        }
    }
}

/// Decodes and parses every input. Inputs are sorted by name first (and duplicates dropped), so
/// file ids do not depend on argument order.
pub fn load(inputs: Vec<Input>, settings: &Settings) -> Workspace {
    load_with(inputs, settings, false)
}

/// [`load`] for the rules alone: the spec of a CustomResourceDefinition is not kept (see
/// [`crate::k8s::UNREAD_BY_RULES`]), which no rule reads. [`lint`] and [`chains`] load this
/// way; `kubegap diff`, which compares whole objects, loads with [`load`].
pub fn load_for_rules(inputs: Vec<Input>, settings: &Settings) -> Workspace {
    load_with(inputs, settings, true)
}

/// What parsing one file gives: its documents or its haproxy.cfg, its errors, and the text
/// as kept when lines were cut out of it ([`yaml::cut_unread`]).
type Parsed = (
    Vec<Document>,
    Option<HaproxyConfig>,
    Vec<ParseError>,
    Option<(std::sync::Arc<String>, Vec<crate::source::Hole>)>,
);

fn load_with(mut inputs: Vec<Input>, settings: &Settings, for_rules: bool) -> Workspace {
    inputs.sort_by(|a, b| (&a.name, &a.path).cmp(&(&b.name, &b.path)));
    // The same file named twice (`k8s/a.yaml` and `./k8s/a.yaml`, or a directory and a file in
    // it) is linted once, under the smallest of its names, whatever the argument order. Files
    // are told apart by their path, never by their displayed name: two names that display
    // alike (not UTF-8) or a file named `<stdin>` next to `-` are different inputs.
    #[derive(PartialEq, Eq, Hash)]
    enum Key {
        Path(PathBuf),
        Name(String),
    }
    // Each path and its directory (a root of the nginx loader, which reuses both) are
    // canonicalised once, together (the directories are on the way to the files), unless the
    // caller knew the canonical path (a walk: one `lstat` per file and directory less, 4–8 %
    // of a one-thread run over the corpus's manifests). The paths to resolve are copied out
    // (the inputs are decoded meanwhile); a known one is not copied, and its directory is
    // taken from it below, in parallel (copying every path, then the directory of every
    // known one, on one thread, made this step 9.9 ms of a two-thread run over 20,000 small
    // files; 7.6 ms now, medians of 9).
    enum Named {
        Known(PathBuf),
        Path(PathBuf),
        Name(String),
    }
    let named: Vec<Named> = inputs
        .par_iter_mut()
        .map(|input| match (input.canonical.take(), &input.path) {
            (Some(canonical), Some(_)) => Named::Known(canonical),
            (_, Some(path)) => Named::Path(path.clone()),
            (_, None) => Named::Name(input.name.clone()),
        })
        .collect();
    let paths: Vec<&Path> = named
        .iter()
        .filter_map(|named| match named {
            Named::Path(path) => Some(path.as_path()),
            Named::Known(_) | Named::Name(_) => None,
        })
        .collect();
    let with_dirs: Vec<&Path> = paths
        .iter()
        .copied()
        .chain(paths.iter().map(|p| crate::reads::parent_dir(p)))
        .collect();
    // Decoding (UTF-8 validation, line starts) in parallel, beside the canonicalisation, whose
    // system calls leave a thread waiting: every input, under its position as a provisional
    // id, before the duplicates (rare) are known; the ids are set once they are dropped.
    let (mut resolved, mut decoded) = rayon::join(
        || crate::reads::canonicalize_all(&with_dirs),
        || {
            inputs
                .into_par_iter()
                .enumerate()
                .map(|(i, input)| {
                    let id = FileId(u32::try_from(i).unwrap_or(u32::MAX));
                    if let Some(prepared) = input.prepared {
                        // A prepared text is cut: only the rules' load may read it.
                        debug_assert!(
                            for_rules && !settings.keep_whole_texts,
                            "a prepared input loaded whole"
                        );
                        let Prepared {
                            mut file,
                            mut decode_error,
                            documents,
                            errors,
                        } = *prepared;
                        // The kind found by the layout (a `Chart.yaml`) wins; the documents
                        // are the rules' only for a manifest they load.
                        file.kind = input.kind;
                        if let Some(error) = &mut decode_error {
                            error.span.file = id;
                        }
                        let parsed = (for_rules && input.kind == FileKind::Yaml)
                            .then_some((documents, errors));
                        return Some((file, decode_error, parsed));
                    }
                    let (text, error) = decode(id, input.bytes, input.kind);
                    Some((
                        SourceFile::new(input.name, input.path, text, input.kind),
                        error,
                        None,
                    ))
                })
                .collect::<Vec<_>>()
        },
    );
    let mut dirs = resolved.split_off(paths.len()).into_iter();
    let mut resolved = resolved.into_iter();
    let known: Vec<bool> = named
        .iter()
        .map(|named| matches!(named, Named::Known(_)))
        .collect();
    let (keys, mut dirs): (Vec<Key>, Vec<Option<PathBuf>>) = named
        .into_iter()
        .map(|named| match named {
            // The directory of a known path is taken from it below.
            Named::Known(canonical) => (Key::Path(canonical), None),
            Named::Path(p) => (
                Key::Path(resolved.next().flatten().unwrap_or(p)),
                dirs.next().flatten(),
            ),
            Named::Name(name) => (Key::Name(name), None),
        })
        .unzip();
    dirs.par_iter_mut()
        .zip(&keys)
        .zip(&known)
        .filter(|(_, known)| **known)
        .for_each(|((dir, key), _)| {
            if let Key::Path(path) = key {
                *dir = path.parent().map(Path::to_path_buf);
            }
        });
    drop(known);
    // The first of each key is kept: the keys met so far in a set (a path hashes as it
    // compares, component by component). Sorting the positions by key to find the runs of
    // equal keys compared paths component by component 13 times a file (1.4 ms of a one-thread
    // run over the corpus's k8s and helm parts, 1.2 ms on two threads). The keys are hashed in
    // parallel, then their hashes looked up in order (hashing them there was 1.5 ms of a
    // two-thread run over 20,000 small files, on one thread); keys are compared when their
    // hashes are equal.
    let hasher = std::collections::hash_map::RandomState::new();
    let hashes: Vec<u64> = keys
        .par_iter()
        .map(|key| std::hash::BuildHasher::hash_one(&hasher, key))
        .collect();
    let keep = first_of_each(&keys, &hashes);
    drop(hashes);
    let mut canonical = Vec::new();
    let mut canonical_dirs = Vec::new();
    let mut files = SourceMap::with_capacity(keep.iter().filter(|k| **k).count());
    let mut parse_findings = Vec::new();
    // The prepared manifests' documents and errors, under their ids.
    let mut ready: Vec<(FileId, Parsed)> = Vec::new();
    for ((slot, (key, dir)), keep) in decoded.iter_mut().zip(keys.into_iter().zip(dirs)).zip(keep) {
        let Some((file, error, parsed)) = slot.take().filter(|_| keep) else {
            continue;
        };
        canonical.push(match key {
            Key::Path(p) => Some(p),
            Key::Name(_) => None,
        });
        canonical_dirs.push(dir);
        // Ids are the positions among the inputs kept.
        let id = FileId(u32::try_from(files.len()).unwrap_or(u32::MAX));
        parse_findings.extend(error.map(|mut error| {
            error.span.file = id;
            for label in &mut error.labels {
                label.span.file = id;
            }
            parse_finding(error)
        }));
        if let Some((mut docs, mut errors)) = parsed {
            for doc in &mut docs {
                doc.set_file(id);
            }
            for error in &mut errors {
                for span in std::iter::once(&mut error.span)
                    .chain(error.labels.iter_mut().map(|l| &mut l.span))
                {
                    if span.file == UNPLACED {
                        span.file = id;
                    }
                }
            }
            ready.push((id, (docs, None, errors, None)));
        }
        files.add(file);
    }
    drop(decoded);
    crate::phases::mark("decode");
    let ids: Vec<(FileId, FileKind)> = files.iter().map(|(id, f)| (id, f.kind)).collect();

    // nginx sequentially: includes add files, and ids must stay deterministic. Meanwhile the
    // manifests and haproxy.cfg files, which need nothing from it, are parsed beside it (their
    // texts are shared, the loader adds files to the map).
    let nginx_mains: Vec<FileId> = ids
        .iter()
        .filter(|(_, k)| *k == FileKind::Nginx)
        .map(|(id, _)| *id)
        .collect();
    let to_parse: Vec<(FileId, FileKind, std::sync::Arc<String>)> = ids
        .iter()
        .filter(|(_, kind)| matches!(kind, FileKind::Yaml | FileKind::Haproxy))
        .filter(|(id, _)| ready.binary_search_by_key(id, |(r, _)| *r).is_err())
        .map(|(id, kind)| (*id, *kind, std::sync::Arc::clone(&files.get(*id).text)))
        .collect();
    let known = nginx::Canonical {
        paths: canonical,
        dirs: canonical_dirs,
    };
    let (loaded, parsed) = rayon::join(
        || {
            let loaded = nginx::load_all_canonical(&nginx_mains, &mut files, settings, &known);
            // The canonical paths served the loader only: freed here, beside the parse (a
            // run of many small files peaks in the graph: 40,000 paths for 20,000 files).
            drop(known);
            // What the places of the files take from their names alone (every file is known
            // once the loader has added the included ones), beside the parse.
            let names =
                crate::k8s::scope::Names::new(files.iter().map(|(id, f)| (id, f.name.as_str())));
            (loaded, names)
        },
        || {
            // Largest first, one file a task: a large file parsed last keeps one thread busy
            // alone (two 3.5 MB files at the end of a corpus run were 18 ms of it), and rayon
            // runs a leaf of several items on one thread. Results in file order.
            let mut order: Vec<usize> = (0..to_parse.len()).collect();
            order.sort_by_key(|i| std::cmp::Reverse(to_parse[*i].2.len()));
            let mut parsed: Vec<(usize, _)> = order
                .par_iter()
                .with_max_len(1)
                .map(|i| (*i, &to_parse[*i]))
                .map(|(i, (id, kind, text))| {
                    (
                        i,
                        match kind {
                            FileKind::Haproxy => {
                                let (config, errors) =
                                    haproxy::parse_shared(*id, std::sync::Arc::clone(text));
                                (Vec::new(), Some(config), errors, None)
                            }
                            _ => {
                                let (mut docs, mut errors) = if for_rules {
                                    yaml::parse_stream_without(
                                        *id,
                                        text,
                                        &crate::k8s::UNREAD_BY_RULES,
                                    )
                                } else {
                                    yaml::parse_stream(*id, text)
                                };
                                let cut = (for_rules && !settings.keep_whole_texts)
                                    .then(|| yaml::cut_unread(*id, text, &mut docs, &mut errors))
                                    .flatten();
                                (docs, None, errors, cut)
                            }
                        },
                    )
                })
                .collect::<Vec<(usize, Parsed)>>();
            parsed.sort_unstable_by_key(|(i, _)| *i);
            parsed
        },
    );
    // In file order, with the prepared ones.
    let mut parsed: Vec<(FileId, Parsed)> = parsed
        .into_iter()
        .map(|(i, p)| (to_parse[i].0, p))
        .chain(ready)
        .collect();
    parsed.sort_unstable_by_key(|(id, _)| *id);
    drop(to_parse);
    let (loaded, names) = loaded;
    let nginx = loaded.configs;
    parse_findings.extend(loaded.parse_errors.into_iter().map(parse_finding));
    parse_findings.extend(loaded.include_errors.into_iter().map(|error| {
        let mut f = finding(&NGINX_INCLUDE_MISSING, error.span, error.message);
        f.labels = error.labels;
        f
    }));
    // Exact size: the documents live to the end of the run. The first file's vector grows to
    // the total (in place for a large one), so one big stream is never copied.
    let total = parsed.iter().map(|(_, (d, ..))| d.len()).sum::<usize>();
    let mut documents: Vec<Document> = Vec::new();
    let mut haproxy = Vec::new();
    for (id, (docs, config, errors, cut)) in parsed {
        if let Some((text, holes)) = cut {
            files.get_mut(id).set_holes(text, holes);
        }
        if documents.is_empty() {
            documents = docs;
            documents.reserve_exact(total - documents.len());
        } else {
            documents.extend(docs);
        }
        haproxy.extend(config);
        parse_findings.extend(errors.into_iter().map(parse_finding));
    }
    documents.shrink_to_fit();
    crate::phases::mark("parse");
    let places = names.finish(&documents);
    let graph = Graph::build_in(&documents, places);
    crate::phases::mark("graph");
    let controllers = crate::controllers::Model::build(&graph, &documents);
    crate::phases::mark("controllers");
    Workspace {
        files,
        documents,
        graph,
        controllers,
        haproxy,
        nginx,
        parse_findings,
    }
}

/// Loads the inputs and builds every timeout chain, as rules see them (`kubegap chains`): the
/// files (to print spans) and the chains.
pub fn chains(inputs: Vec<Input>, settings: &Settings) -> (SourceMap, crate::chain::Chains) {
    let workspace = load_for_rules(inputs, settings);
    let chains = workspace.chains(settings);
    (workspace.files, chains)
}

/// Runs every enabled rule over a workspace and returns the sorted report.
pub fn check(workspace: Workspace, settings: &Settings) -> Report {
    let (report, spent) = check_keeping(workspace, settings);
    drop(spent);
    report
}

/// What a run no longer needs once its report exists: the YAML documents, the object graph,
/// the controllers model, the nginx configs and the chains. Dropping it frees millions of
/// small allocations (about a tenth of a run on a 51 MB stream).
pub struct Spent {
    documents: Vec<Document>,
    _graph: Graph,
    _controllers: crate::controllers::Model,
    _nginx: Vec<NginxConfig>,
    _chains: crate::chain::Chains,
}

impl Spent {
    /// The run's YAML documents, in file order (the files of its [`Report`]).
    pub fn documents(&self) -> &[Document] {
        &self.documents
    }
}

/// [`check`], handing back what the run no longer needs instead of freeing it, so that a
/// process that exits right after printing the report can skip freeing it (the CLI passes it
/// to [`std::mem::forget`]; the operating system takes the memory back at exit at once).
pub fn check_keeping(workspace: Workspace, settings: &Settings) -> (Report, Spent) {
    check_in_blocks(workspace, settings, WORKLOAD_BLOCK)
}

/// [`check_keeping`], the rules' workload checks run over blocks of `block` workloads.
fn check_in_blocks(mut workspace: Workspace, settings: &Settings, block: usize) -> (Report, Spent) {
    // The layers, in typed stages: model → chains (from model + controllers) → context.
    let model = workspace.model(settings);
    let chains = workspace.chains(settings);
    let haproxy_views: Vec<crate::haproxy::View<'_>> = workspace
        .haproxy
        .iter()
        .map(|config| config.view(settings.haproxy_version.as_ref()))
        .collect();
    crate::phases::mark("chains");
    let cx = Context {
        model: &model,
        controllers: &workspace.controllers,
        haproxy_views: &haproxy_views,
        chains: &chains,
    };
    // The suppression comments and annotations are read while the rules run.
    let (rule_findings, directives) = rayon::join(
        || run_rules(&cx, settings, block),
        || {
            crate::suppress::directives(
                &workspace.files,
                &workspace.documents,
                &workspace.graph,
                &workspace.nginx,
            )
        },
    );
    crate::phases::mark("rules and suppressions");
    // The haproxy.cfg models are read by the rules alone, and each is a few large arrays (its
    // words, its lines, its sections): freed before the findings are merged, which copies
    // them, rather than kept with what the process skips freeing. On a 300k-line haproxy.cfg
    // (75,000 findings) they were 28 MB of the run's peak, set by that copy.
    drop(haproxy_views);
    drop(std::mem::take(&mut workspace.haproxy));
    let mut parse_findings: Vec<Finding> = workspace.parse_findings.clone();
    parse_findings.retain(|f| settings.rule_enabled(f.rule));
    let mut findings = merge_largest_first(parse_findings, rule_findings);
    let suppressed = crate::suppress::apply_directives(directives, settings, &mut findings);
    let documents = &workspace.documents;
    findings.par_iter_mut().for_each(|f| {
        if let Some(sev) = settings.severity.get(f.rule) {
            f.severity = *sev;
        }
        if f.origin.is_none() {
            f.origin = origin_of(documents, f.span);
        }
    });
    crate::phases::mark("findings merged");
    let files = &workspace.files;
    sort_findings(files, &mut findings);
    // One finding per cause: the same rule, place and message reached through several routes
    // (two Ingresses behind one load balancer) is reported once.
    findings.dedup_by(|a, b| a.rule == b.rule && a.span == b.span && a.message == b.message);
    let summary = Summary {
        suppressed,
        files: workspace.files.len(),
        documents: workspace.documents.len(),
        objects: workspace.graph.object_count(),
        findings: findings.len(),
        errors: findings
            .iter()
            .filter(|f| f.severity == crate::finding::Severity::Error)
            .count(),
        warnings: findings
            .iter()
            .filter(|f| f.severity == crate::finding::Severity::Warning)
            .count(),
        infos: findings
            .iter()
            .filter(|f| f.severity == crate::finding::Severity::Info)
            .count(),
    };
    crate::phases::mark("findings sorted");
    index_lines_of(&workspace.files, &findings);
    crate::phases::mark("lines indexed");
    let Workspace {
        files,
        documents,
        graph,
        controllers,
        haproxy: _,
        nginx,
        parse_findings: _,
    } = workspace;
    let report = Report {
        files,
        findings,
        summary,
    };
    let spent = Spent {
        documents,
        _graph: graph,
        _controllers: controllers,
        _nginx: nginx,
        _chains: chains,
    };
    (report, spent)
}

/// Sorts findings by [`order`], stably (findings equal in every key keep their order), in
/// parallel: their positions are sorted (4 bytes each), then the findings are moved
/// into place along the permutation's cycles. Sorting the findings themselves in parallel
/// (rayon's stable sort) needed a buffer as large as all of them: the peak of a 1M-line
/// haproxy.cfg (250,000 findings) rose from 300 to 326 MB.
fn sort_findings(files: &SourceMap, findings: &mut [Finding]) {
    let Ok(n) = u32::try_from(findings.len()) else {
        findings.sort_by(|a, b| order(files, a, b));
        return;
    };
    let mut at: Vec<u32> = (0..n).collect();
    {
        let findings = &*findings;
        at.par_sort_by(|a, b| order(files, &findings[*a as usize], &findings[*b as usize]));
    }
    // `at[k]` is the position of the finding that goes to `k`.
    crate::order::permute(findings, &mut at);
}

/// Workloads a block of [`Rule::workloads`] checks. The documents of 256 workloads of a `helm
/// template` stream, text and trees, are about 0.7 MB: they stay in a core's 2 MB L2 cache
/// while every rule reads them. On the 51 MB stream, one thread, blocks of 16 to 512 workloads
/// ran the whole process in 0.73–0.75 s, one block of every workload in 0.80 s
/// (docs/PERFORMANCE.md).
const WORKLOAD_BLOCK: usize = 256;

/// Every enabled rule's findings, one vector a rule in [`RULES`] order: its workload check's,
/// block after block (`block` workloads each), then its object check's, block after block,
/// then its check's.
fn run_rules(cx: &Context<'_>, settings: &Settings, block: usize) -> Vec<Vec<Finding>> {
    let enabled: Vec<&'static Rule> = RULES
        .iter()
        .copied()
        .filter(|rule| settings.rule_enabled(rule.id))
        .collect();
    // The checks run block by block: every rule's workload check, then every object check.
    let by_block: Vec<(&'static Rule, Blocked)> = enabled
        .iter()
        .filter_map(|rule| {
            rule.workloads
                .map(|check| (*rule, Blocked::Workloads(check)))
        })
        .chain(
            enabled
                .iter()
                .filter_map(|rule| rule.objects.map(|check| (*rule, Blocked::Objects(check)))),
        )
        .collect();
    let blocks = blocks(cx.k8s, block);
    // The checks of everything else run beside the blocks: one rule a task (rayon runs a leaf
    // of several items on one thread).
    let (found_by_block, rest) = rayon::join(
        || {
            let mut found: Vec<Vec<Finding>> = vec![Vec::new(); by_block.len()];
            for (workloads, objects) in &blocks {
                let block_found: Vec<Vec<Finding>> = by_block
                    .par_iter()
                    .with_max_len(1)
                    .map(|(rule, check)| {
                        let mut sink = Sink::new(rule);
                        match check {
                            Blocked::Workloads(check) => check(cx, workloads, &mut sink),
                            Blocked::Objects(check) => check(cx, objects.clone(), &mut sink),
                        }
                        sink.into_findings()
                    })
                    .collect();
                for (all, mut more) in found.iter_mut().zip(block_found) {
                    if all.is_empty() {
                        *all = more;
                    } else {
                        all.append(&mut more);
                    }
                }
            }
            found
        },
        || {
            enabled
                .par_iter()
                .with_max_len(1)
                .map(|rule| {
                    let mut sink = Sink::new(rule);
                    (rule.check)(cx, &mut sink);
                    sink.into_findings()
                })
                .collect::<Vec<Vec<Finding>>>()
        },
    );
    // `by_block` lists the workload checks, then the object checks, each in rule order.
    let workloads = by_block
        .iter()
        .filter(|(_, check)| matches!(check, Blocked::Workloads(_)))
        .count();
    let mut workloads_found = found_by_block;
    let objects_found = workloads_found.split_off(workloads);
    let ids = |from: usize| by_block[from..].iter().map(|(rule, _)| rule.id);
    let mut workloads_found = ids(0).zip(workloads_found).peekable();
    let mut objects_found = ids(workloads).zip(objects_found).peekable();
    enabled
        .iter()
        .zip(rest)
        .map(|(rule, rest)| {
            let mut all: Vec<Finding> = Vec::new();
            for found in [
                workloads_found
                    .next_if(|(id, _)| *id == rule.id)
                    .map(|(_, f)| f),
                objects_found
                    .next_if(|(id, _)| *id == rule.id)
                    .map(|(_, f)| f),
                Some(rest),
            ]
            .into_iter()
            .flatten()
            {
                if all.is_empty() {
                    all = found;
                } else {
                    all.extend(found);
                }
            }
            all
        })
        .collect()
}

/// A rule's check that runs block by block.
enum Blocked {
    Workloads(crate::rule::WorkloadsFn),
    Objects(crate::rule::ObjectsFn),
}

/// The blocks of `block` workloads each, with the objects of each: from the block's first
/// workload up to the next block's (the first block from the first object, the last to the
/// last). Without workloads, one block of every object.
fn blocks(
    graph: &crate::k8s::Graph,
    block: usize,
) -> Vec<(&[crate::k8s::Workload], std::ops::Range<crate::k8s::ObjId>)> {
    let chunks: Vec<&[crate::k8s::Workload]> = graph.workloads.chunks(block.max(1)).collect();
    let starts = |i: usize| match i {
        0 => 0,
        i => chunks.get(i).map_or(graph.objects.len(), |c| c[0].obj),
    };
    if chunks.is_empty() {
        return vec![(&[], 0..graph.objects.len())];
    }
    (0..chunks.len())
        .map(|i| (chunks[i], starts(i)..starts(i + 1)))
        .collect()
}

/// Makes the line index of every file a finding points at (its span or a label's), a task a
/// file: every output gives findings their lines and columns, rendering them in parallel, and a
/// large file's index made on first use there was made by both threads at once, each rendering
/// task that met the file first making its own (10 ms twice for a 41 MB dump).
fn index_lines_of(files: &SourceMap, findings: &[Finding]) {
    let mut pointed: Vec<FileId> = findings
        .iter()
        .flat_map(|f| std::iter::once(f.span.file).chain(f.labels.iter().map(|l| l.span.file)))
        .collect();
    pointed.sort_unstable();
    pointed.dedup();
    pointed
        .par_iter()
        .for_each(|id| files.get(*id).index_lines());
}

/// Whether each key is the first of its value, given each key's hash: the hashes are looked up,
/// and the keys compared only when their hashes are equal (a key whose hash an earlier,
/// different key had first goes to a set of such keys).
fn first_of_each<K: Eq + std::hash::Hash>(keys: &[K], hashes: &[u64]) -> Vec<bool> {
    use std::collections::hash_map::Entry;
    let mut first: std::collections::HashMap<u64, usize, Prehashed> =
        std::collections::HashMap::with_capacity_and_hasher(keys.len(), Prehashed::default());
    let mut shared: std::collections::HashSet<&K> = std::collections::HashSet::new();
    keys.iter()
        .zip(hashes)
        .enumerate()
        .map(|(i, (key, hash))| match first.entry(*hash) {
            Entry::Vacant(entry) => {
                entry.insert(i);
                true
            }
            Entry::Occupied(entry) => {
                // The first key of this hash is caught here, every other one by the set.
                keys[*entry.get()] != *key && shared.insert(key)
            }
        })
        .collect()
}

/// The hasher of a map whose keys are hashes already: a key is its own hash (hashing it again
/// was most of the lookups' time).
#[derive(Clone, Copy, Default)]
struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl std::hash::BuildHasher for Prehashed {
    type Hasher = Prehashed;

    fn build_hasher(&self) -> Prehashed {
        Prehashed(0)
    }
}

/// All findings in one vector, grown from the largest: the others are appended and freed one by
/// one, so the findings are held about once rather than twice (a 1M-line haproxy.cfg has
/// 250,000 findings, 42 MB of `Finding`s before their strings). The order before the sort only
/// matters among findings of one rule ([`order`] compares the rule before anything else that
/// can tie), and each rule's findings come from one vector: a rule reports through its sinks
/// (its workload check's, block after block, then its check's: [`run_rules`]), and the
/// parse-time rules (`parse-error`, `nginx-include-missing`) have no check of their own.
fn merge_largest_first(
    parse_findings: Vec<Finding>,
    rule_findings: Vec<Vec<Finding>>,
) -> Vec<Finding> {
    let total = parse_findings.len() + rule_findings.iter().map(Vec::len).sum::<usize>();
    let mut rest: Vec<Vec<Finding>> = rule_findings;
    rest.push(parse_findings);
    let largest = (0..rest.len()).max_by_key(|&i| (rest[i].len(), std::cmp::Reverse(i)));
    let mut findings = largest.map(|i| rest.swap_remove(i)).unwrap_or_default();
    // Exact size: doubling left up to half of the largest vector spare.
    findings.reserve_exact(total - findings.len());
    for mut v in rest {
        findings.append(&mut v);
    }
    findings
}

fn label_key<'a>(files: &'a SourceMap, labels: &'a [Label]) -> Vec<(&'a str, u32, u32, &'a str)> {
    labels
        .iter()
        .map(|l| {
            (
                files.get(l.span.file).name.as_str(),
                l.span.start,
                l.span.end,
                &*l.message,
            )
        })
        .collect()
}

/// The one total order of findings: file name, position, rule, message, then labels. Output
/// sorted by it does not depend on thread count or argument order.
pub fn order(files: &SourceMap, a: &Finding, b: &Finding) -> std::cmp::Ordering {
    let key = |f: &Finding| {
        (
            files.get(f.span.file).name.as_str(),
            f.span.start,
            f.span.end,
            f.rule,
        )
    };
    key(a)
        .cmp(&key(b))
        .then_with(|| a.message.cmp(&b.message))
        .then_with(|| label_key(files, &a.labels).cmp(&label_key(files, &b.labels)))
}

/// The Helm template a span's document came from.
fn origin_of(documents: &[Document], span: Span) -> Option<String> {
    // Documents are grouped by file and ordered by start offset: binary search both.
    let first = documents.partition_point(|d| d.file < span.file);
    let in_file = &documents[first..];
    let in_file = &in_file[..in_file.partition_point(|d| d.file == span.file)];
    let after = in_file.partition_point(|d| d.start <= span.start);
    let doc = in_file[..after].last()?;
    if span.start <= doc.end {
        doc.origin().map(str::to_string)
    } else {
        None
    }
}

/// Loads and checks in one call.
pub fn lint(inputs: Vec<Input>, settings: &Settings) -> Report {
    let workspace = load_for_rules(inputs, settings);
    check(workspace, settings)
}

/// [`lint`] for a process about to exit: see [`check_keeping`].
pub fn lint_keeping(inputs: Vec<Input>, settings: &Settings) -> (Report, Spent) {
    let workspace = load_for_rules(inputs, settings);
    check_keeping(workspace, settings)
}

/// A YAML input named `name`, with no path (for tests).
#[cfg(test)]
pub(crate) fn yaml_input(name: &str, text: impl AsRef<[u8]>) -> Input {
    Input {
        name: name.to_string(),
        path: None,
        bytes: text.as_ref().to_vec(),
        kind: FileKind::Yaml,
        canonical: None,
        prepared: None,
    }
}

/// Every rule's `invalid.yaml` fixture (`testdata/rules/*/`), in path order, the `n`th behind
/// `prefix(n)`.
#[cfg(test)]
fn rule_fixtures<'p>(prefix: &dyn Fn(usize) -> &'p str) -> Vec<Input> {
    rule_fixtures_as(&|n, text| {
        let mut bytes = prefix(n).as_bytes().to_vec();
        bytes.extend(text);
        bytes
    })
}

/// Every rule's `invalid.yaml` fixture, in path order, as `written` writes the `n`th of them.
#[cfg(test)]
fn rule_fixtures_as(written: &dyn Fn(usize, &[u8]) -> Vec<u8>) -> Vec<Input> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/rules");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/rules")
        .filter_map(|e| e.ok().map(|e| e.path().join("invalid.yaml")))
        .filter(|path| path.is_file())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .enumerate()
        .filter_map(|(n, path)| {
            let bytes = written(n, &std::fs::read(&path).ok()?);
            Some(Input {
                name: path.display().to_string(),
                path: Some(path),
                bytes,
                kind: FileKind::Yaml,
                canonical: None,
                prepared: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod block_tests {
    use super::*;

    /// An Ingress naming a missing Service before the first workload, an HPA after the last
    /// (both with a finding of an object check), and workloads between.
    const EDGES: &str = "apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: first}
spec:
  rules:
    - http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: missing, port: {number: 80}}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: a}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: a, image: nginx:1.25}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: between}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: b}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: b}}
    spec: {containers: [{name: b, image: nginx:1.25}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: b}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: b}
  minReplicas: 2
  maxReplicas: 10
";

    fn edges() -> Workspace {
        load(vec![yaml_input("edges.yaml", EDGES)], &Settings::default())
    }

    /// The blocks' object ranges follow one another from the first object to the last, and
    /// each holds its own workloads.
    #[test]
    fn the_blocks_cover_every_object_once() {
        let workspace = edges();
        let graph = &workspace.graph;
        assert_eq!(graph.workloads.len(), 2);
        for block in [1, 2, 7] {
            let blocks = blocks(graph, block);
            assert_eq!(
                blocks.first().map(|b| b.1.start),
                Some(0),
                "blocks of {block}"
            );
            assert_eq!(
                blocks.last().map(|b| b.1.end),
                Some(graph.objects.len()),
                "blocks of {block}"
            );
            for pair in blocks.windows(2) {
                assert_eq!(pair[0].1.end, pair[1].1.start, "blocks of {block}");
            }
            for (workloads, objects) in &blocks {
                assert!(workloads.iter().all(|w| objects.contains(&w.obj)));
            }
        }
        let empty = Graph::default();
        let none = blocks(&empty, 4);
        assert_eq!(none.len(), 1);
        assert!(none[0].0.is_empty() && none[0].1 == (0..0));
    }

    /// The object checks find the objects before the first workload and after the last, one
    /// workload a block as in one block.
    #[test]
    fn object_checks_see_the_objects_around_the_workloads() {
        let rules = |block: usize| -> Vec<(&str, u32)> {
            let report = check_in_blocks(edges(), &Settings::default(), block).0;
            report
                .findings
                .iter()
                .filter(|f| RULES.iter().any(|r| r.id == f.rule && r.objects.is_some()))
                .map(|f| (f.rule, f.span.start))
                .collect()
        };
        let whole = rules(usize::MAX);
        let ids: Vec<&str> = whole.iter().map(|(rule, _)| *rule).collect();
        assert_eq!(
            ids,
            [
                "k8s-ingress-backend-missing",
                "k8s-hpa-with-static-replicas"
            ]
        );
        assert_eq!(rules(1), whole);
    }

    /// Every rule's `invalid.yaml` fixture in one run (each with findings, most with
    /// workloads), checked with the workload checks run one workload a block, a few a block
    /// and all in one: the same report. A workload check that looked at another workload of
    /// its block, or findings put back together out of order, would differ.
    #[test]
    fn the_report_does_not_depend_on_the_workload_blocks() {
        let inputs = || rule_fixtures(&|_| "");
        let settings = Settings::default();
        let report = |block: usize| {
            let workspace = load(inputs(), &settings);
            let workloads = workspace.graph.workloads.len();
            (check_in_blocks(workspace, &settings, block).0, workloads)
        };
        let (whole, workloads) = report(usize::MAX);
        assert!(workloads > 40, "{workloads} workloads");
        for block in [1, 2, 7] {
            let (blocked, _) = report(block);
            assert_eq!(blocked.findings, whole.findings, "blocks of {block}");
            assert_eq!(blocked.summary, whole.summary, "blocks of {block}");
        }
        // Most rules with a workload check report something here.
        let with_workloads: std::collections::BTreeSet<&str> = whole
            .findings
            .iter()
            .filter(|f| {
                RULES
                    .iter()
                    .any(|r| r.id == f.rule && r.workloads.is_some())
            })
            .map(|f| f.rule)
            .collect();
        assert!(with_workloads.len() >= 10, "{with_workloads:?}");
        // Every rule with an object check reports something here.
        for rule in RULES.iter().filter(|r| r.objects.is_some()) {
            assert!(
                whole.findings.iter().any(|f| f.rule == rule.id),
                "{} reports nothing",
                rule.id
            );
        }
    }

    /// The findings come out in the order of a stable `sort_by`, whatever their order in
    /// (permutations of cycles of every length, ties kept in input order).
    #[test]
    fn findings_sort_like_a_stable_sort() {
        let mut files = SourceMap::default();
        let id = files.add(SourceFile::new(
            "a.yaml",
            None,
            "x".repeat(64),
            FileKind::Yaml,
        ));
        let findings: Vec<Finding> = (0..200u32)
            .map(|i| {
                // Many ties: 7 positions, 3 messages; `help` tells equal findings apart.
                let at = (i * 37 % 7) as usize;
                let mut f = crate::rule::finding(
                    &crate::rules::PARSE_ERROR,
                    Span::new(id, at, at + 1),
                    format!("m{}", i % 3),
                );
                f.help = Some(format!("{i}").into());
                f
            })
            .collect();
        for rotate in [0, 1, 50, 199] {
            let mut input = findings.clone();
            input.rotate_left(rotate);
            let mut expected = input.clone();
            expected.sort_by(|a, b| order(&files, a, b));
            let mut sorted = input;
            sort_findings(&files, &mut sorted);
            assert_eq!(sorted, expected, "rotated by {rotate}");
        }
    }
}

#[cfg(test)]
mod for_rules_tests {
    use super::*;

    /// A definition with a schema, as charts and operators ship them.
    const DEFINITION: &str = include_str!("../../testdata/definitions/widgets-crd.yaml");

    /// Every rule's `invalid.yaml` fixture with a definition (or a `List` of two) before its
    /// documents: loaded for the rules (the definitions' specs dropped) and whole, the same
    /// report, to the byte of every span after a dropped spec.
    #[test]
    fn dropping_the_definitions_specs_changes_no_finding() {
        // Every other fixture behind a `List` of two definitions (`kubectl get crd -o yaml`).
        let definition = DEFINITION.trim_end_matches("---\n");
        let item = |text: &str| -> String {
            text.lines()
                .enumerate()
                .map(|(i, l)| format!("{}{l}\n", if i == 0 { "- " } else { "  " }))
                .collect()
        };
        let list = format!(
            "apiVersion: v1\nkind: List\nitems:\n{}{}---\n",
            item(definition),
            item(&definition.replace("widgets", "gadgets"))
        );
        let inputs = || {
            rule_fixtures(&|i| {
                if i % 2 == 0 {
                    DEFINITION
                } else {
                    list.as_str()
                }
            })
        };
        let settings = Settings::default();
        let files = inputs().len();
        assert!(files > 30, "{files} fixtures");
        let whole = load(inputs(), &settings);
        let for_rules = load_for_rules(inputs(), &settings);
        let dropped = |ws: &Workspace| ws.documents.iter().filter(|d| d.spec_dropped()).count();
        assert_eq!(dropped(&whole), 0);
        assert_eq!(dropped(&for_rules), files);
        let nodes = |ws: &Workspace| ws.documents.iter().map(|d| d.nodes.len()).sum::<usize>();
        assert!(nodes(&for_rules) < nodes(&whole));
        let (whole, for_rules) = (check(whole, &settings), check(for_rules, &settings));
        assert!(whole.findings.len() > 100, "{}", whole.findings.len());
        assert_eq!(for_rules.findings, whole.findings);
        assert_eq!(for_rules.summary, whole.summary);
    }

    /// What the API server adds to every object it returns (`kubectl get -o yaml`), written
    /// into a manifest: `metadata.managedFields` at the top of every column-0 `metadata:`
    /// block (at its own indentation), and a `status` at the end of every document with a
    /// `kind:`. Both hold values stored apart from their source (escapes), so that the values
    /// after them are numbered again when they are dropped.
    fn as_the_api_server_returns_it(text: &str) -> String {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let status = "status:\n  message: \"ReplicaSet \\\"web\\\" progressed\"\n  conditions:\n  - type: Ready\n    status: \"True\"\n";
        let mut out = String::new();
        let mut has_kind = false;
        let end_document = |out: &mut String, has_kind: &mut bool| {
            if std::mem::take(has_kind) {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(status);
            }
        };
        for (i, line) in lines.iter().enumerate() {
            if line.starts_with("---") {
                end_document(&mut out, &mut has_kind);
            }
            has_kind |= line.starts_with("kind:");
            out.push_str(line);
            if line.trim_end() == "metadata:" {
                let next = lines.get(i + 1).copied().unwrap_or("");
                let indent = next.len() - next.trim_start_matches(' ').len();
                if indent > 0 {
                    let pad = " ".repeat(indent);
                    for field in [
                        "managedFields:",
                        "- apiVersion: v1",
                        "  fieldsType: FieldsV1",
                        "  fieldsV1:",
                        "    f:metadata:",
                        "      f:labels: {}",
                        "  manager: \"kubectl\\tclient\"",
                        "  operation: Update",
                    ] {
                        out.push_str(&format!("{pad}{field}\n"));
                    }
                }
            }
        }
        end_document(&mut out, &mut has_kind);
        out
    }

    /// Every rule's `invalid.yaml` fixture as the API server would return its objects (with
    /// `status` and `metadata.managedFields`, which the rules' load drops as it parses them,
    /// [`crate::k8s::UNREAD_BY_RULES`]), and a `kubectl get -o yaml` dump of a `List`: loaded
    /// for the rules and whole, the same report at the same lines and columns, and fewer nodes.
    #[test]
    fn dropping_status_and_managed_fields_changes_no_finding() {
        let dump = include_bytes!("../../testdata/cli/kubectl-dump.yaml");
        let inputs = || {
            let mut inputs = rule_fixtures_as(&|_, text| {
                as_the_api_server_returns_it(&String::from_utf8_lossy(text)).into_bytes()
            });
            inputs.push(yaml_input("kubectl-dump.yaml", dump));
            inputs
        };
        let settings = Settings::default();
        let files = inputs().len();
        let whole = load(inputs(), &settings);
        let for_rules = load_for_rules(inputs(), &settings);
        let dropped = |ws: &Workspace| ws.documents.iter().filter(|d| d.spec_dropped()).count();
        assert_eq!(dropped(&whole), 0);
        assert!(
            dropped(&for_rules) > files,
            "{} of {files}",
            dropped(&for_rules)
        );
        let nodes = |ws: &Workspace| ws.documents.iter().map(|d| d.nodes.len()).sum::<usize>();
        assert!(
            nodes(&for_rules) * 10 < nodes(&whole) * 9,
            "{} of {}",
            nodes(&for_rules),
            nodes(&whole)
        );
        let (whole, for_rules) = (check(whole, &settings), check(for_rules, &settings));
        assert!(whole.findings.len() > 100, "{}", whole.findings.len());
        assert!(whole
            .findings
            .iter()
            .any(|f| f.rule == "k8s-service-selects-nothing"
                && whole.files.get(f.span.file).name == "kubectl-dump.yaml"));
        assert_eq!(located(&for_rules), located(&whole));
        assert_eq!(for_rules.summary, whole.summary);
    }

    /// Each finding with its file and the line and column of each of its spans, which are all
    /// that a reader sees of them (byte offsets move where lines were cut).
    fn located(report: &Report) -> Vec<String> {
        let at = |span: Span| {
            let file = report.files.get(span.file);
            let (a, b) = (file.line_col(span.start), file.line_col(span.end));
            format!(
                "{}:{}:{}-{}:{}",
                file.name, a.line, a.column, b.line, b.column
            )
        };
        report
            .findings
            .iter()
            .map(|f| {
                let labels: Vec<String> = f
                    .labels
                    .iter()
                    .map(|l| format!("{} {}", at(l.span), l.message))
                    .collect();
                format!(
                    "{} {:?} {} {} {:?} {:?} {:?} {:?}",
                    at(f.span),
                    f.severity,
                    f.rule,
                    f.message,
                    labels,
                    f.help,
                    f.notes,
                    f.origin
                )
            })
            .collect()
    }

    /// Every rule's `invalid.yaml` fixture behind a definition with a large schema, whose lines
    /// the rules' load cuts out of the text ([`yaml::cut_unread`]), in a file of its own or
    /// prepared as it is read ([`prepare`]): every finding at the same line and column as when
    /// loaded whole, with the same message, and the same counts. A suppression comment inside
    /// a large schema keeps its value whole and is still reported.
    #[test]
    fn cutting_the_definitions_specs_moves_no_finding() {
        let mut schema = String::new();
        for i in 0..120 {
            schema.push_str(&format!(
                "    - name: v{i}\r\n      served: true # ünread\r\n"
            ));
        }
        let definition = format!(
            "apiVersion: apiextensions.k8s.io/v1\r\nkind: CustomResourceDefinition\r\nmetadata: {{name: widgets.example.com}}\r\nspec:\r\n  group: example.com\r\n  versions:\r\n{schema}---\r\n"
        );
        let marked = definition.replacen(
            "    - name: v60\r\n",
            "    # kubegap-ignore: no-such-rule\r\n    - name: v60\r\n",
            1,
        );
        let inputs = || {
            rule_fixtures(&|i| match i % 3 {
                0 => definition.as_str(),
                1 => marked.as_str(),
                _ => "",
            })
        };
        let settings = Settings::default();
        let whole = check(load(inputs(), &settings), &settings);
        let for_rules = lint(inputs(), &settings);
        let prepared: Vec<Input> = inputs()
            .into_iter()
            .map(|mut input| {
                prepare(&mut input);
                input
            })
            .collect();
        // Those behind a definition, marked or not, and only those.
        let ready = prepared.iter().filter(|i| i.prepared.is_some()).count();
        assert_eq!(ready, prepared.len() - prepared.len() / 3);
        let prepared = lint(prepared, &settings);
        let cut = |r: &Report| {
            r.files
                .iter()
                .filter(|(_, f)| !f.holes().is_empty())
                .count()
        };
        assert_eq!(cut(&whole), 0);
        let files = whole.files.iter().count();
        assert_eq!(cut(&for_rules), files.div_ceil(3));
        assert_eq!(cut(&prepared), files.div_ceil(3));
        assert!(whole.findings.len() > 100, "{}", whole.findings.len());
        assert!(whole
            .findings
            .iter()
            .any(|f| f.rule == crate::rules::UNKNOWN_SUPPRESSION.id));
        assert_eq!(located(&for_rules), located(&whole));
        assert_eq!(located(&prepared), located(&whole));
        assert_eq!(for_rules.summary, whole.summary);
        assert_eq!(prepared.summary, whole.summary);
    }
}

#[cfg(test)]
mod helper_tests {
    use super::*;

    /// The first of each key is kept whatever the hashes say, as a set of the keys met would
    /// keep it: with every hash its own, every hash equal, and some keys sharing a hash.
    #[test]
    fn the_first_of_each_key_is_kept_when_hashes_collide() {
        let keys = ["a", "b", "a", "c", "b", "d", "c", "a", "e", "d"];
        let mut seen = std::collections::HashSet::new();
        let expected: Vec<bool> = keys.iter().map(|k| seen.insert(k)).collect();
        let own: Vec<u64> = keys.iter().map(|k| u64::from(k.as_bytes()[0])).collect();
        let shared_by_all = vec![7; keys.len()];
        let some_shared: Vec<u64> = keys.iter().map(|k| u64::from(*k > "b")).collect();
        for hashes in [own, shared_by_all, some_shared] {
            assert_eq!(first_of_each(&keys, &hashes), expected, "{hashes:?}");
        }
    }

    /// The files that findings point at (their spans and labels' spans) come out of the check
    /// with their line index made, and no other file.
    #[test]
    fn the_lines_of_the_files_findings_point_at_are_indexed() {
        let service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports:\n    - {port: 80, targetPort: http}\n";
        let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n        - {name: web, image: web:1, ports: [{containerPort: 8080}]}\n";
        let clean = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n";
        let inputs = [
            ("service.yaml", service),
            ("deployment.yaml", deployment),
            ("clean.yaml", clean),
        ]
        .into_iter()
        .map(|(name, text)| yaml_input(name, text))
        .collect();
        let settings = Settings::default();
        let report = check(load_for_rules(inputs, &settings), &settings);
        let pointed: std::collections::BTreeSet<&str> = report
            .findings
            .iter()
            .flat_map(|f| std::iter::once(f.span.file).chain(f.labels.iter().map(|l| l.span.file)))
            .map(|id| report.files.get(id).name.as_str())
            .collect();
        assert!(pointed.contains("service.yaml"), "{:?}", report.findings);
        assert!(!pointed.contains("clean.yaml"));
        for (_, file) in report.files.iter() {
            assert_eq!(
                file.lines_indexed(),
                pointed.contains(file.name.as_str()),
                "{}",
                file.name
            );
        }
    }
}
