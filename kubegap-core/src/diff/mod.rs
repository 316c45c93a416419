//! `kubegap diff`: what a change from BASE to HEAD does, and which findings it adds.
//!
//! Both sides are loaded by the ordinary engine ([`crate::engine::load`]). Objects are matched
//! by (kind, namespace, name); an object left unmatched on both sides with the same kind,
//! namespace and Helm origin (`# Source:`), alone of its kind there on each side, is matched
//! too (a release renamed). Configs (haproxy.cfg, nginx) are matched by their name relative to
//! BASE/HEAD.
//!
//! The report has one [`SourceMap`]: HEAD's files, then BASE's. Diff rules (the `diff-*`
//! rules in `crate::rules`) report in that merged id space through [`Side::span`].

use compact_str::CompactString;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

use crate::config::Settings;
use crate::engine::{check_keeping, Report, Workspace};
use crate::finding::{Finding, Severity};
use crate::fingerprint::fingerprint;
use crate::k8s::{At, ObjId};
use crate::rule::{Rule, Sink};
use crate::source::{FileId, FileKind, Span};
use crate::yaml::{Document, NodeKind, NodeRef};

/// One side of the comparison.
pub struct Side<'a> {
    /// The loaded workspace.
    pub ws: &'a Workspace,
    /// File names relative to the side's root, by file id.
    pub names: Vec<String>,
    /// Added to this side's file ids in the merged report (0 for HEAD).
    pub offset: u32,
}

impl<'a> Side<'a> {
    /// A span of this side, in the merged report's id space.
    pub fn span(&self, span: Span) -> Span {
        Span {
            file: FileId(span.file.0 + self.offset),
            ..span
        }
    }

    /// The merged span of a graph position.
    pub fn at(&self, at: At) -> Span {
        self.span(self.ws.documents[at.doc].span(at.node))
    }

    /// A node of this side.
    pub fn node(&self, at: At) -> NodeRef<'a> {
        self.ws.documents[at.doc].node(at.node)
    }

    /// An object's node.
    pub fn obj_node(&self, id: ObjId) -> NodeRef<'a> {
        self.node(self.ws.graph.objects[id].at)
    }

    /// The merged span of the key (else value) at `path` in an object, else of the object's
    /// `metadata.name`, else of the object.
    pub fn key_span(&self, id: ObjId, path: &[&str]) -> Span {
        let node = self.obj_node(id);
        if let Some((last, parents)) = path.split_last() {
            if let Some((k, _)) = node.path(parents).and_then(|p| p.get_entry(last)) {
                return self.span(k.span());
            }
        }
        self.name_span(id)
    }

    /// The merged span of an object's `metadata.name` value (else the object).
    pub fn name_span(&self, id: ObjId) -> Span {
        let node = self.obj_node(id);
        self.span(
            node.path(&["metadata", "name"])
                .map_or(node.span(), |n| n.span()),
        )
    }

    /// `file:line` of a merged span, the file named relative to its side's root.
    pub fn cite(&self, merged: Span) -> String {
        let id = FileId(merged.file.0 - self.offset);
        let file = self.ws.files.get(id);
        format!("{}:{}", file.base_name(), file.line_col(merged.start).line)
    }
}

/// What the diff rules see.
pub struct DiffContext<'a> {
    /// BASE.
    pub base: Side<'a>,
    /// HEAD.
    pub head: Side<'a>,
    /// Settings.
    pub settings: &'a Settings,
    /// Matched objects: (BASE id, HEAD id), in HEAD order.
    pub matched: Vec<(ObjId, ObjId)>,
    /// BASE objects with no HEAD counterpart.
    pub removed: Vec<ObjId>,
    /// HEAD objects with no BASE counterpart.
    pub added: Vec<ObjId>,
}

/// Where a diff finding about a field goes: HEAD's key when HEAD has it (label at BASE's key,
/// else BASE's object name); BASE's key when HEAD dropped it (label at HEAD's object name).
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    /// The finding's span (merged id space).
    pub primary: Span,
    /// The other side's span.
    pub other: Span,
    /// Whether the finding is in BASE (the field is gone from HEAD).
    pub in_base: bool,
}

impl Placed {
    /// The side the label (`other`) is in: `"HEAD"` when the finding is in BASE, else `"BASE"`.
    pub fn other_side(&self) -> &'static str {
        if self.in_base {
            "HEAD"
        } else {
            "BASE"
        }
    }
}

impl DiffContext<'_> {
    /// Places a finding about `path` of the matched pair (`base`, `head`).
    pub fn place(&self, base: ObjId, head: ObjId, path: &[&str]) -> Placed {
        let has = |side: &Side<'_>, id: ObjId| {
            path.split_last().is_some_and(|(last, parents)| {
                side.obj_node(id)
                    .path(parents)
                    .and_then(|p| p.get_entry(last))
                    .is_some()
            })
        };
        if has(&self.head, head) || !has(&self.base, base) {
            Placed {
                primary: self.head.key_span(head, path),
                other: self.base.key_span(base, path),
                in_base: false,
            }
        } else {
            Placed {
                primary: self.base.key_span(base, path),
                other: self.head.name_span(head),
                in_base: true,
            }
        }
    }

    /// `file:line` of a merged span, whichever side it is in.
    pub fn cite(&self, span: Span) -> String {
        if span.file.0 >= self.base.offset {
            self.base.cite(span)
        } else {
            self.head.cite(span)
        }
    }

    /// `Kind ns/name` of a HEAD object.
    pub fn describe(&self, head: ObjId) -> String {
        let o = &self.head.ws.graph.objects[head];
        format!("{} `{}/{}`", o.kind, o.namespace, o.name)
    }
}

/// A diff rule's check.
pub type DiffFn = fn(&DiffContext<'_>, &mut Sink);

/// A canonical text of a YAML value: comments, styles, key order and positions ignored.
pub fn canon(node: NodeRef<'_>) -> String {
    let mut out = String::new();
    canon_into(node, &mut out, 0);
    out
}

fn canon_into(node: NodeRef<'_>, out: &mut String, depth: usize) {
    if depth > 64 {
        out.push('…');
        return;
    }
    let node = node.resolve();
    match node.kind() {
        NodeKind::Scalar(s, _) => {
            out.push_str(&serde_json::to_string(s).unwrap_or_default());
        }
        NodeKind::Seq(_) => {
            out.push('[');
            for item in node.items() {
                canon_into(item, out, depth + 1);
                out.push(',');
            }
            out.push(']');
        }
        NodeKind::Map(_) => {
            let mut entries: Vec<(String, String)> = node
                .entries()
                .into_iter()
                .map(|(k, v)| {
                    let mut value = String::new();
                    canon_into(v, &mut value, depth + 1);
                    (k.as_str().unwrap_or("?").to_string(), value)
                })
                .collect();
            entries.sort();
            out.push('{');
            for (k, v) in entries {
                out.push_str(&serde_json::to_string(&k).unwrap_or_default());
                out.push(':');
                out.push_str(&v);
                out.push(',');
            }
            out.push('}');
        }
        NodeKind::Alias(None) => out.push('*'),
        NodeKind::Alias(Some(_)) => out.push('*'),
    }
}

/// Whether two objects read the same ([`canon`]). Most objects of a change are untouched: the
/// same text (without aliases, which could read something outside it) is the same content,
/// without building either canonical text (a quarter of a diff of two 51 MB streams).
fn same_content(base: &Workspace, b: ObjId, head: &Workspace, h: ObjId) -> bool {
    fn node(ws: &Workspace, id: ObjId) -> NodeRef<'_> {
        let at = ws.graph.objects[id].at;
        ws.documents[at.doc].node(at.node)
    }
    let (b, h) = (node(base, b), node(head, h));
    match (b.self_contained_source(), h.self_contained_source()) {
        (Some(x), Some(y)) if x == y => true,
        _ => canon(b) == canon(h),
    }
}

/// The canonical text at a path, `None` when absent.
pub fn canon_at(node: NodeRef<'_>, path: &[&str]) -> Option<String> {
    node.path(path).map(canon)
}

fn origin_of(ws: &Workspace, id: ObjId) -> Option<&str> {
    ws.documents[ws.graph.objects[id].at.doc].origin()
}

fn match_objects(
    base: &Workspace,
    head: &Workspace,
) -> (Vec<(ObjId, ObjId)>, Vec<ObjId>, Vec<ObjId>) {
    let key = |ws: &Workspace, id: ObjId| {
        let o = &ws.graph.objects[id];
        (o.kind.clone(), o.namespace.clone(), o.name.clone())
    };
    let mut base_by: BTreeMap<(CompactString, CompactString, CompactString), Vec<ObjId>> =
        BTreeMap::new();
    for id in 0..base.graph.objects.len() {
        base_by.entry(key(base, id)).or_default().push(id);
    }
    let mut matched = Vec::new();
    let mut used = BTreeSet::new();
    let mut added = Vec::new();
    for h in 0..head.graph.objects.len() {
        match base_by
            .get(&key(head, h))
            .and_then(|ids| ids.iter().find(|id| !used.contains(*id)))
        {
            Some(b) => {
                used.insert(*b);
                matched.push((*b, h));
            }
            None => added.push(h),
        }
    }
    let mut removed: Vec<ObjId> = (0..base.graph.objects.len())
        .filter(|id| !used.contains(id))
        .collect();
    // Helm origin: one unmatched object of a kind from one template on each side is the same
    // object under a release-dependent name.
    type OriginKey = (CompactString, CompactString, String);
    let by_origin = |ws: &Workspace, ids: &[ObjId]| {
        let mut m: BTreeMap<OriginKey, Vec<ObjId>> = BTreeMap::new();
        for id in ids {
            if let Some(origin) = origin_of(ws, *id) {
                let o = &ws.graph.objects[*id];
                m.entry((o.kind.clone(), o.namespace.clone(), origin.to_string()))
                    .or_default()
                    .push(*id);
            }
        }
        m
    };
    let base_origin = by_origin(base, &removed);
    let head_origin = by_origin(head, &added);
    let mut pairs = Vec::new();
    for (k, hs) in &head_origin {
        if let (Some(bs), [h]) = (base_origin.get(k), hs.as_slice()) {
            if let [b] = bs.as_slice() {
                pairs.push((*b, *h));
            }
        }
    }
    for (b, h) in &pairs {
        removed.retain(|x| x != b);
        added.retain(|x| x != h);
        matched.push((*b, *h));
    }
    matched.sort_by_key(|(_, h)| *h);
    (matched, removed, added)
}

/// What changed, for the one-line summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Objects only in HEAD.
    pub added: usize,
    /// Objects only in BASE.
    pub removed: usize,
    /// Matched objects whose content differs.
    pub modified: usize,
    /// Configs (haproxy.cfg, nginx) added, removed or changed.
    pub configs_changed: usize,
}

/// The result of `diff`.
pub struct DiffReport {
    /// Findings (diff rules and new lint findings) over HEAD's files followed by BASE's.
    pub report: Report,
    /// For each finding of `report`, whether it is new in HEAD (diff findings always are).
    pub new: Vec<bool>,
    /// The change summary.
    pub changes: Changes,
}

fn config_texts(ws: &Workspace, names: &[String]) -> BTreeMap<String, String> {
    ws.files
        .iter()
        .filter(|(_, f)| f.kind != FileKind::Yaml)
        .map(|(id, f)| (names[id.0 as usize].clone(), f.text.to_string()))
        .collect()
}

/// Compares BASE and HEAD. `base_name`/`head_name` map a file's name to its name relative to
/// its side's root. With `all`, every HEAD finding is reported, else only new ones.
pub fn compare(
    base: Workspace,
    head: Workspace,
    settings: &Settings,
    base_name: &dyn Fn(&str) -> String,
    head_name: &dyn Fn(&str) -> String,
    all: bool,
) -> DiffReport {
    let names = |ws: &Workspace, f: &dyn Fn(&str) -> String| -> Vec<String> {
        ws.files.iter().map(|(_, file)| f(&file.name)).collect()
    };
    let head_names = names(&head, head_name);
    let base_names = names(&base, base_name);
    let offset = u32::try_from(head.files.len()).unwrap_or(u32::MAX);
    let (matched, removed, added) = match_objects(&base, &head);
    let mut changes = Changes {
        added: added.len(),
        removed: removed.len(),
        ..Changes::default()
    };
    changes.modified = matched
        .par_iter()
        .filter(|(b, h)| !same_content(&base, *b, &head, *h))
        .count();
    let base_configs = config_texts(&base, &base_names);
    let head_configs = config_texts(&head, &head_names);
    let config_names: BTreeSet<&String> = base_configs.keys().chain(head_configs.keys()).collect();
    changes.configs_changed = config_names
        .into_iter()
        .filter(|n| base_configs.get(*n) != head_configs.get(*n))
        .count();

    let mut diff_findings = {
        let cx = DiffContext {
            base: Side {
                ws: &base,
                names: base_names.clone(),
                offset,
            },
            head: Side {
                ws: &head,
                names: head_names.clone(),
                offset: 0,
            },
            settings,
            matched,
            removed,
            added,
        };
        let mut out = Vec::new();
        for (rule, check) in crate::rules::DIFF_CHECKS {
            if !settings.rule_enabled(rule.id) {
                continue;
            }
            let mut sink = Sink::new(rule);
            check(&cx, &mut sink);
            out.extend(sink.into_findings());
        }
        for f in &mut out {
            if let Some(sev) = settings.severity.get(f.rule) {
                f.severity = *sev;
            }
        }
        out
    };

    // `# kubegap-ignore: diff-…` on or above the line, as for every rule (BASE findings
    // read BASE's comments: their ids are moved into the merged space only after this).
    let mut suppressed = 0;
    {
        // Only the suppressing part: `unknown-suppression` and `unused-suppression` findings
        // come from the lint of HEAD and BASE below, once.
        let mut quiet = settings.clone();
        quiet
            .ignore
            .push(crate::rules::UNKNOWN_SUPPRESSION.id.to_string());
        quiet
            .ignore
            .push(crate::rules::UNUSED_SUPPRESSION.id.to_string());
        quiet.report_unused_suppressions = false;
        let (mut in_head, mut in_base): (Vec<Finding>, Vec<Finding>) = diff_findings
            .drain(..)
            .partition(|f| f.span.file.0 < offset);
        suppressed += crate::suppress::apply(
            &head.files,
            &head.documents,
            &head.graph,
            &head.nginx,
            &quiet,
            &mut in_head,
        );
        let mut local: Vec<Finding> = in_base
            .drain(..)
            .map(|mut f| {
                f.span.file = FileId(f.span.file.0 - offset);
                f
            })
            .collect();
        suppressed += crate::suppress::apply(
            &base.files,
            &base.documents,
            &base.graph,
            &base.nginx,
            &quiet,
            &mut local,
        );
        diff_findings = in_head;
        diff_findings.extend(local.into_iter().map(|mut f| {
            f.span.file = FileId(f.span.file.0 + offset);
            f
        }));
    }
    // Each side's findings and their fingerprints, the two sides side by side; the
    // fingerprints read the documents the check kept instead of parsing the files again.
    let lint = |ws: Workspace, names: &[String]| {
        let (report, spent) = check_keeping(ws, settings);
        let fps = report_fingerprints(&report, spent.documents(), names);
        (report, fps)
    };
    let ((base_report, base_fps), (head_report, head_fps)) =
        rayon::join(|| lint(base, &base_names), || lint(head, &head_names));
    let mut in_base: BTreeMap<&str, usize> = BTreeMap::new();
    for fp in &base_fps {
        *in_base.entry(fp.as_str()).or_default() += 1;
    }
    let mut files = head_report.files;
    for (_, f) in base_report.files.iter() {
        // The text is shared, not copied.
        files.add(f.clone());
    }
    let mut findings: Vec<(Finding, bool)> = Vec::new();
    for (f, fp) in head_report.findings.into_iter().zip(&head_fps) {
        let new = match in_base.get_mut(fp.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        };
        if new || all {
            let mut f = f;
            if all && new {
                f.notes
                    .push("new: BASE does not have this finding".to_string());
            }
            findings.push((f, new));
        }
    }
    for f in diff_findings.drain(..) {
        findings.push((f, true));
    }
    findings.sort_by(|(a, _), (b, _)| crate::engine::order(&files, a, b));
    findings.dedup_by(|a, b| {
        a.0.rule == b.0.rule && a.0.span == b.0.span && a.0.message == b.0.message
    });
    let (findings, new): (Vec<Finding>, Vec<bool>) = findings.into_iter().unzip();
    let mut summary = head_report.summary;
    summary.suppressed += suppressed;
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    summary.errors = count(Severity::Error);
    summary.warnings = count(Severity::Warning);
    summary.infos = count(Severity::Info);
    summary.findings = findings.len();
    DiffReport {
        report: Report {
            files,
            findings,
            summary,
        },
        new,
        changes,
    }
}

/// The fingerprint of each finding of a report; `documents` are those of its run (in file
/// order, see [`crate::engine::Spent::documents`]).
fn report_fingerprints(report: &Report, documents: &[Document], names: &[String]) -> Vec<String> {
    report
        .findings
        .par_iter()
        .map(|f| fingerprint(f, &report.files, documents, &names[f.span.file.0 as usize]).hash)
        .collect()
}

/// A rule that only `kubegap diff` runs: `kubegap lint` has no BASE to compare with.
pub fn lint_check(_: &crate::rule::Context<'_>, _: &mut Sink) {}

/// Registered diff rules with their checks.
pub type DiffRule = (&'static Rule, DiffFn);

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(text: &str) -> Workspace {
        crate::engine::load(
            vec![crate::engine::yaml_input("a.yaml", text)],
            &Settings::default(),
        )
    }

    fn modified(base: &str, head: &str) -> usize {
        let same = |n: &str| n.to_string();
        compare(
            workspace(base),
            workspace(head),
            &Settings::default(),
            &same,
            &same,
            false,
        )
        .changes
        .modified
    }

    const LIST: &str = "apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: first, labels: &labels {app: web}}
  - apiVersion: v1
    kind: ConfigMap
    # the labels of the first
    metadata: {name: second, labels: *labels}
";

    #[test]
    fn objects_written_alike_are_the_same_unless_an_alias_reads_outside_them() {
        assert_eq!(modified(LIST, LIST), 0);
        // Written differently, the same content: comments, styles and key order.
        let reformatted = LIST
            .replace("# the labels of the first", "# another comment")
            .replace(
                "metadata: {name: first, labels: &labels {app: web}}",
                "metadata:\n      labels: &labels\n        app: 'web'\n      name: first",
            );
        assert_eq!(modified(LIST, &reformatted), 0);
        // The second object's text is unchanged, but its alias reads the first one's labels.
        let relabelled = LIST.replace("{app: web}", "{app: api}");
        assert_eq!(modified(LIST, &relabelled), 2);
    }
}
