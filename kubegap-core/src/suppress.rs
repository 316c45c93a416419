//! Suppressions: `# kubegap-ignore: RULE[, RULE…] [reason]` comments and
//! `kubegap.io/ignore: "rule-a,rule-b"` annotations.
//!
//! A comment counts only where the format has a comment: in YAML a `#` at the start of a line
//! or after whitespace and outside every quoted or block scalar; in haproxy.cfg an unquoted,
//! unescaped `#`; in nginx a comment the parser recorded. `# kubegap-ignore: all` inside a
//! quoted value suppresses nothing. A comment suppresses its rules on its own line and on the
//! next one; an annotation suppresses its rules anywhere in its object. Unknown rule ids are
//! `unknown-suppression` findings; suppressions that suppressed nothing are
//! `unused-suppression` findings when asked for.

use crate::config::Settings;
use crate::finding::Finding;
use crate::k8s::Graph;
use crate::nginx::NginxConfig;
use crate::rule::finding;
use crate::rules::{PARSE_ERROR, UNKNOWN_SUPPRESSION, UNUSED_SUPPRESSION};
use crate::source::{FileId, FileKind, SourceMap, Span};
use crate::yaml::{Document, ScalarStyle};

/// What starts a suppression comment.
pub(crate) const MARK: &str = "kubegap-ignore:";
/// The annotation that exempts an object from rules.
pub const ANNOTATION: &str = crate::value::declarations::IGNORE;
/// The optional annotation that says why.
pub const REASON_ANNOTATION: &str = crate::value::declarations::IGNORE_REASON;

/// One suppression: where it is and what it covers.
pub struct Directive {
    /// Rule ids (or `all`) with their spans.
    ids: Vec<(String, Span)>,
    /// Whole span of the comment or annotation value.
    span: Span,
    /// What it covers: a file and a byte range (comment: its line and the next; annotation:
    /// its object).
    file: FileId,
    cover: (u32, u32),
    /// Whether each id suppressed something.
    used: Vec<bool>,
    /// `comment` or `annotation`, for messages.
    what: &'static str,
}

/// The rule ids at the start of `rest` (up to the first word that is not one: the reason),
/// with their byte offsets in `rest`.
fn ids_of(rest: &str) -> Vec<(&str, usize)> {
    let mut ids = Vec::new();
    let base = rest.as_ptr() as usize;
    for word in rest
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        let looks_like_id = word == "all"
            || (word
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && word.contains('-'));
        if !looks_like_id {
            break;
        }
        ids.push((word, word.as_ptr() as usize - base));
    }
    ids
}

/// Whether the byte at `at` (on the line starting at `line_start`) is inside a comment of the
/// file's format.
fn in_comment(
    kind: FileKind,
    text: &str,
    line_start: usize,
    at: usize,
    scalars: &[(u32, u32)],
    nginx_comments: &[Span],
) -> bool {
    let line = &text.as_bytes()[line_start..at];
    match kind {
        // `Chart.yaml` is YAML that is never parsed into documents: no scalars are known.
        FileKind::Yaml | FileKind::HelmChart => {
            for (i, b) in line.iter().enumerate() {
                if *b != b'#' || (i > 0 && !line[i - 1].is_ascii_whitespace()) {
                    continue;
                }
                let pos = (line_start + i) as u32;
                // Inside a quoted or block scalar (a value, not a comment)?
                // Scalars do not nest: only the last one starting before `pos` can hold it.
                let k = scalars.partition_point(|(s, _)| *s <= pos);
                let inside = k > 0 && pos < scalars[k - 1].1;
                if !inside {
                    return true;
                }
            }
            false
        }
        FileKind::Haproxy => {
            let (mut single, mut double, mut i) = (false, false, 0);
            while i < line.len() {
                match line[i] {
                    b'\'' if !double => single = !single,
                    b'"' if !single => double = !double,
                    b'\\' if !single => i += 1,
                    b'#' if !single && !double => return true,
                    _ => {}
                }
                i += 1;
            }
            false
        }
        FileKind::Nginx => {
            let at = at as u32;
            let k = nginx_comments.partition_point(|s| s.start <= at);
            k > 0 && nginx_comments[k - 1].end > at
        }
    }
}

/// Spans of quoted and block scalars of the files in `wanted`, per file, sorted by start.
fn value_spans(
    documents: &[Document],
    wanted: &std::collections::BTreeSet<FileId>,
) -> std::collections::BTreeMap<FileId, Vec<(u32, u32)>> {
    let mut out: std::collections::BTreeMap<FileId, Vec<(u32, u32)>> = Default::default();
    for doc in documents.iter().filter(|d| wanted.contains(&d.file)) {
        let spans = out.entry(doc.file).or_default();
        for (id, node) in (0..).zip(doc.nodes.iter()) {
            if let Some(style) = doc.style(id) {
                if style != ScalarStyle::Plain {
                    spans.push((node.start, node.end));
                }
            }
        }
    }
    for spans in out.values_mut() {
        spans.sort_unstable();
    }
    out
}

/// Every `# kubegap-ignore:` comment of every file.
fn comments(files: &SourceMap, documents: &[Document], nginx: &[NginxConfig]) -> Vec<Directive> {
    use rayon::prelude::*;
    // Which files mention the marker at all: every byte of every file is searched, so in
    // parallel over files, with a vectorised search.
    let all: Vec<(FileId, &crate::SourceFile)> = files.iter().collect();
    let marked: std::collections::BTreeSet<FileId> = all
        .par_iter()
        .filter(|(_, f)| memchr::memmem::find(f.text.as_bytes(), MARK.as_bytes()).is_some())
        .map(|(id, _)| *id)
        .collect();
    if marked.is_empty() {
        return Vec::new();
    }
    let values = value_spans(documents, &marked);
    let mut nginx_comments: std::collections::BTreeMap<FileId, Vec<Span>> = Default::default();
    for config in nginx {
        for c in &config.comments {
            nginx_comments.entry(c.span.file).or_default().push(c.span);
        }
    }
    for spans in nginx_comments.values_mut() {
        spans.sort_by_key(|s| s.start);
        spans.dedup();
    }
    let mut out = Vec::new();
    for (id, file) in files.iter() {
        if !marked.contains(&id) {
            continue;
        }
        let scalars = values.get(&id).map_or(&[][..], Vec::as_slice);
        let ncomments = nginx_comments.get(&id).map_or(&[][..], Vec::as_slice);
        for (at, _) in file.text.match_indices(MARK) {
            let line = file.line_index(at as u32);
            let std::ops::Range {
                start: line_start,
                end: line_end,
            } = file.line_range(line);
            if !in_comment(file.kind, &file.text, line_start, at, scalars, ncomments) {
                continue;
            }
            let rest_start = at + MARK.len();
            let rest = &file.text[rest_start..line_end];
            let ids: Vec<(String, Span)> = ids_of(rest)
                .into_iter()
                .map(|(word, off)| {
                    let s = rest_start + off;
                    (word.to_string(), Span::new(id, s, s + word.len()))
                })
                .collect();
            let cover_end = file
                .line_start(line + 2)
                .map_or(file.text.len(), |e| e as usize);
            out.push(Directive {
                used: vec![false; ids.len()],
                ids,
                span: Span::new(id, at, line_end.max(at)),
                file: id,
                cover: (line_start as u32, cover_end as u32),
                what: "comment",
            });
        }
    }
    out
}

/// Every `kubegap.io/ignore` annotation of every object.
fn annotations(files: &SourceMap, graph: &Graph, documents: &[Document]) -> Vec<Directive> {
    use rayon::prelude::*;
    // The objects that have the annotation (known from the graph), in object order.
    graph
        .objects
        .par_iter()
        .filter(|object| object.ignore_annotation)
        .filter_map(|object| {
            let node = documents[object.at.doc].node(object.at.node);
            let value = node.path(&["metadata", "annotations", ANNOTATION])?;
            let text = value.as_str()?;
            let vspan = value.span();
            // Each id's own span where it appears literally in the source (plain and quoted values
            // without escapes); the whole value otherwise.
            let raw = files
                .get(vspan.file)
                .text
                .get(vspan.start as usize..vspan.end as usize)
                .unwrap_or("");
            let mut from = 0;
            let ids: Vec<(String, Span)> = text
                .split(',')
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(|w| {
                    let span = match raw[from..].find(w) {
                        Some(at) => {
                            let start = vspan.start as usize + from + at;
                            from += at + w.len();
                            Span::new(vspan.file, start, start + w.len())
                        }
                        None => vspan,
                    };
                    (w.to_string(), span)
                })
                .collect();
            let ospan = documents[object.at.doc].span(object.at.node);
            Some(Directive {
                used: vec![false; ids.len()],
                ids,
                span: vspan,
                file: ospan.file,
                cover: (ospan.start, ospan.end.max(ospan.start + 1)),
                what: "annotation",
            })
        })
        .collect()
}

/// Removes suppressed findings, adds `unknown-suppression` (and, when asked, `unused-suppression`)
/// findings, and returns how many findings were suppressed: one per cause, as they would have
/// been reported (the same rule, place and message reached through several routes is one).
pub fn apply(
    files: &SourceMap,
    documents: &[Document],
    graph: &Graph,
    nginx: &[NginxConfig],
    settings: &Settings,
    findings: &mut Vec<Finding>,
) -> usize {
    apply_directives(
        directives(files, documents, graph, nginx),
        settings,
        findings,
    )
}

/// Every suppression comment and annotation of the input: they depend on the input alone,
/// so the engine reads them while the rules run.
pub fn directives(
    files: &SourceMap,
    documents: &[Document],
    graph: &Graph,
    nginx: &[NginxConfig],
) -> Vec<Directive> {
    let (mut directives, from_annotations) = rayon::join(
        || comments(files, documents, nginx),
        || annotations(files, graph, documents),
    );
    directives.extend(from_annotations);
    directives
}

/// [`apply`] with the input's [`directives`] already read.
pub fn apply_directives(
    mut directives: Vec<Directive>,
    settings: &Settings,
    findings: &mut Vec<Finding>,
) -> usize {
    if directives.is_empty() {
        return 0;
    }
    directives.sort_by_key(|d| (d.file, d.cover.0, d.span.start));
    let mut causes: Vec<(&'static str, Span, String)> = Vec::new();
    findings.retain(|f| {
        if f.rule == PARSE_ERROR.id {
            return true;
        }
        let at = f.span.start;
        let mut suppressed = false;
        // Directives are sorted by (file, cover start): only those of the finding's file that
        // start at or before it can cover it.
        let lo = directives.partition_point(|d| d.file < f.span.file);
        let hi = directives.partition_point(|d| (d.file, d.cover.0) <= (f.span.file, at));
        for d in directives[lo..hi.max(lo)].iter_mut() {
            if at >= d.cover.1 {
                continue;
            }
            for (i, (id, _)) in d.ids.iter().enumerate() {
                if id == f.rule || id == "all" {
                    d.used[i] = true;
                    suppressed = true;
                }
            }
        }
        if suppressed {
            causes.push((f.rule, f.span, f.message.clone()));
        }
        !suppressed
    });
    causes.sort();
    causes.dedup();
    let suppressed = causes.len();
    let report_unused = settings.report_unused_suppressions
        || settings
            .select
            .as_ref()
            .is_some_and(|s| s.iter().any(|r| r == UNUSED_SUPPRESSION.id));
    for d in &directives {
        for ((id, span), used) in d.ids.iter().zip(&d.used) {
            let known = id == "all" || crate::rules::find(id).is_some();
            if !known {
                if settings.rule_enabled(UNKNOWN_SUPPRESSION.id) {
                    let f = findings.push_and_get(finding(
                        &UNKNOWN_SUPPRESSION,
                        *span,
                        format!(
                            "unknown rule `{id}` in a kubegap-ignore {}; it suppresses nothing",
                            d.what
                        ),
                    ));
                    let hint =
                        crate::suggest::did_you_mean(id, crate::rules::RULES.iter().map(|r| r.id));
                    f.help = Some(match hint {
                        Some(c) => format!("did you mean `{c}`?").into(),
                        None => "`kubegap rules` lists every rule id".into(),
                    });
                }
                continue;
            }
            let rule_runs = id == "all" || settings.rule_enabled(id);
            if report_unused && !used && rule_runs && settings.rule_enabled(UNUSED_SUPPRESSION.id) {
                let f = findings.push_and_get(finding(
                    &UNUSED_SUPPRESSION,
                    *span,
                    format!(
                        "this kubegap-ignore {} for `{id}` suppressed nothing",
                        d.what
                    ),
                ));
                f.help = Some(format!("remove `{id}` from the {}", d.what).into());
            }
        }
    }
    suppressed
}

trait PushAndGet<T> {
    fn push_and_get(&mut self, item: T) -> &mut T;
}

impl<T> PushAndGet<T> for Vec<T> {
    fn push_and_get(&mut self, item: T) -> &mut T {
        self.push(item);
        let last = self.len() - 1;
        &mut self[last]
    }
}
