//! Cutting out of a file's text the lines that only values no rule reads were written on.
//!
//! A CustomResourceDefinition's `spec` is 82 % of the bytes of the corpus's manifests. The
//! parser for the rules already leaves its nodes out ([`super::parse_stream_without`]); its
//! text stayed, because every span is an offset into the file's text. [`cut_unread`] cuts the
//! inside of each such value out of the text once the file is parsed, whole lines only, and
//! moves every offset after a cut down: the documents, their nodes and the parse errors then
//! refer to the text as kept, and the file's [`Hole`]s give back the line numbers of the file
//! as written ([`crate::SourceFile::set_holes`]). What is reported does not change: no node
//! and no error is inside a cut, and the first and last [`MARGIN`] lines of each value stay,
//! so that the lines shown around a finding (one before and one after) are never cut.
//! A text is cut only where what is cut is worth the copy of the rest ([`CUT_SHARE`]): a
//! 41 MB dump of a cluster with one definition among its 16,000 objects was copied whole to
//! cut that definition's spec out, its peak 99 MiB instead of the 84 of the same dump
//! without the definition.

use std::sync::Arc;

use super::Document;
use crate::finding::ParseError;
use crate::source::{count_newlines, line_ends_in, nth_newline_end, FileId, Hole};

/// Lines kept at each end of a value whose inside is cut.
const MARGIN: usize = 3;

/// A value's inside is cut only when it spans more lines than this: the cut must be worth
/// the copy of the rest of the text.
const MIN_LINES: usize = 64;

/// The text is cut only when the cuts are at least this fraction of it (1 / `CUT_SHARE`): the
/// rest is copied, and the copy is beside the text until the text is freed.
const CUT_SHARE: usize = 8;

/// Cuts the lines inside the values the documents of `file` left out (see
/// [`Document::spec_dropped`]) out of `text`, the file's text, which `docs` share; `errors`
/// are the file's parse errors. Returns the text as kept and its holes, or `None` (and
/// changes nothing) when there is nothing worth cutting. The documents then share the new
/// text, and their offsets and the errors' are those of it.
pub fn cut_unread(
    file: FileId,
    text: &Arc<String>,
    docs: &mut [Document],
    errors: &mut [ParseError],
) -> Option<(Arc<String>, Vec<Hole>)> {
    if !docs
        .iter()
        .any(|d| d.rare.as_ref().is_some_and(|r| !r.dropped.is_empty()))
    {
        return None;
    }
    let bytes = text.as_bytes();
    // Offsets that must stay readable: every error's (and label's), every `# Source:`
    // comment's and every suppression marker's (`kubegap-ignore:`, found in the text, as
    // [`crate::suppress`] finds it). A value with one inside keeps its text.
    let marks = memchr::memmem::find_iter(bytes, crate::suppress::MARK.as_bytes())
        .map(|at| u32::try_from(at).unwrap_or(u32::MAX));
    let mut pinned: Vec<u32> = errors
        .iter()
        .flat_map(|e| {
            std::iter::once(e.span)
                .chain(e.labels.iter().map(|l| l.span))
                .filter(|s| s.file == file)
                .flat_map(|s| [s.start, s.end])
        })
        .chain(
            docs.iter()
                .filter_map(Document::origin_span)
                .flat_map(|s| [s.start, s.end]),
        )
        .chain(marks)
        .collect();
    pinned.sort_unstable();
    // The cuts, as ranges of the text as written, in order: from the start of the line
    // `MARGIN` lines below the value's first, to the start of its `MARGIN`-th line from the
    // end.
    let mut cuts: Vec<(usize, usize, usize)> = Vec::new();
    for doc in docs.iter() {
        let Some(rare) = &doc.rare else { continue };
        for &(start, end) in rare.dropped.iter() {
            let (start, end) = (start as usize, (end as usize).min(bytes.len()));
            if start >= end {
                continue;
            }
            let Some((count, from, to)) = inner_lines(bytes, start, end) else {
                continue;
            };
            let lines = count + 1 - 2 * MARGIN;
            let first_pinned = pinned.partition_point(|p| (*p as usize) < from);
            if pinned.get(first_pinned).is_some_and(|p| (*p as usize) < to) {
                continue;
            }
            if cuts.last().is_some_and(|c| c.1 > from) {
                continue;
            }
            cuts.push((from, to, lines));
        }
    }
    let cut_bytes: usize = cuts.iter().map(|(from, to, _)| to - from).sum();
    if cuts.is_empty() || cut_bytes < text.len() / CUT_SHARE {
        return None;
    }
    let mut kept = String::with_capacity(text.len() - cut_bytes);
    let mut at = 0;
    let mut holes = Vec::with_capacity(cuts.len());
    for &(from, to, lines) in &cuts {
        kept.push_str(&text[at..from]);
        holes.push(Hole {
            at: u32::try_from(kept.len()).unwrap_or(u32::MAX),
            lines: u32::try_from(lines).unwrap_or(u32::MAX),
            line: 0,
            before: 0,
        });
        at = to;
    }
    kept.push_str(&text[at..]);
    // Bytes cut before each cut's end, for moving offsets.
    let mut before = Vec::with_capacity(cuts.len());
    let mut total = 0usize;
    for (from, to, _) in &cuts {
        total += to - from;
        before.push(total);
    }
    // An offset of the text as written in that as kept (one inside a cut, which nothing has,
    // would go to where the cut was).
    let moved = |offset: u32| -> u32 {
        let o = offset as usize;
        let i = cuts.partition_point(|c| c.1 <= o);
        let cut = i.checked_sub(1).map_or(0, |i| before[i]);
        let o = match cuts.get(i) {
            Some(c) if c.0 <= o => c.0,
            _ => o,
        };
        u32::try_from(o - cut).unwrap_or(u32::MAX)
    };
    let first = cuts[0].0;
    let kept = Arc::new(kept);
    for doc in docs.iter_mut() {
        doc.text = Arc::clone(&kept);
        if let Some(rare) = &mut doc.rare {
            rare.dropped = Box::default();
        }
        if doc
            .rare
            .as_ref()
            .is_some_and(|r| r.duplicates.is_empty() && r.tags.is_empty())
        {
            doc.rare = None;
        }
        if (doc.end as usize) < first {
            continue;
        }
        for node in doc.nodes.iter_mut() {
            node.start = moved(node.start);
            node.end = moved(node.end);
        }
        doc.start = moved(doc.start);
        doc.end = moved(doc.end);
        if let Some(origin) = &mut doc.origin {
            origin.start = moved(origin.start);
            origin.end = moved(origin.end);
        }
    }
    for error in errors.iter_mut() {
        for span in
            std::iter::once(&mut error.span).chain(error.labels.iter_mut().map(|l| &mut l.span))
        {
            if span.file == file {
                span.start = moved(span.start);
                span.end = moved(span.end);
            }
        }
    }
    Some((kept, holes))
}

/// The line starts inside `bytes[start..end]` (the first is that of its second line): how
/// many, the `MARGIN`-th and the `MARGIN`-th from the end; `None` under the lines worth a cut.
fn inner_lines(bytes: &[u8], start: usize, end: usize) -> Option<(usize, usize, usize)> {
    let value = &bytes[start..end];
    if memchr::memchr(b'\r', value).is_some() {
        return inner_lines_searched(bytes, start, end);
    }
    // Every line end is a `\n` (nearly every file): the line starts inside follow the `\n`s
    // before the last byte, counted 64 bytes at a time (a definition's spec is most of the
    // corpus's bytes: one search per line was 1 % of a run over it).
    let inside = &value[..value.len().saturating_sub(1)];
    let count = count_newlines(inside);
    if count < MIN_LINES + 2 * MARGIN {
        return None;
    }
    let from = start + nth_newline_end(inside, MARGIN)?;
    let to = start + memchr::memrchr_iter(b'\n', inside).nth(MARGIN - 1)? + 1;
    Some((count, from, to))
}

/// [`inner_lines`] for any line ends (`\n`, `\r\n`, `\r`), each line end searched.
fn inner_lines_searched(bytes: &[u8], start: usize, end: usize) -> Option<(usize, usize, usize)> {
    // How many, the `MARGIN`-th and the last `MARGIN` (a ring), without collecting them.
    let (mut count, mut from, mut last) = (0usize, 0usize, [0usize; MARGIN]);
    for s in line_ends_in(bytes, start, end).filter(|s| *s < end) {
        if count == MARGIN - 1 {
            from = s;
        }
        last[count % MARGIN] = s;
        count += 1;
    }
    if count < MIN_LINES + 2 * MARGIN {
        return None;
    }
    // The `MARGIN`-th line start from the end.
    Some((count, from, last[(count - MARGIN) % MARGIN]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileKind, SourceFile};
    use crate::yaml::NodeId;

    /// A CustomResourceDefinition whose spec has `lines` lines of schema, with `extra` written
    /// among them.
    fn crd(name: &str, lines: usize, extra: &str) -> String {
        let mut s = format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {name}\nspec:\n  group: example.com\n  versions:\n"
        );
        for i in 0..lines {
            s.push_str(&format!("    - name: v{i}\n      served: true # é\n"));
            if i == lines / 2 {
                s.push_str(extra);
            }
        }
        s
    }

    /// A stream with two large CRDs (one in a `List`), a small one, Services between them and
    /// a `# Source:` comment, with `\n` or `\r\n` line breaks.
    fn stream(crlf: bool) -> String {
        let text = [
            "# Source: chart/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  ports:\n  - port: 80\n".to_string(),
            crd("big.example.com", 60, ""),
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n".to_string()
                + &crd("listed.example.com", 50, "").lines().map(|l| format!("  {l}\n")).collect::<String>().replacen("  apiVersion", "- apiVersion", 1),
            crd("small.example.com", 5, ""),
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: last # kubegap-ignore: all\nspec:\n  ports: [{port: 8080, name: web}]\n".to_string(),
        ]
        .join("---\n");
        if crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        }
    }

    /// Every node of every document is on the same line and column, with the same value, in
    /// the file whose unread lines were cut as in the file as written; so is every line kept,
    /// and the file counts the lines it was written with.
    #[test]
    fn cutting_keeps_every_line_and_column() {
        for crlf in [false, true] {
            let text = Arc::new(stream(crlf));
            let whole = SourceFile::new("s.yaml", None, (*text).clone(), FileKind::Yaml);
            let (before, before_errors) =
                super::super::parse_stream_without(FileId(0), &text, &crate::k8s::UNREAD_BY_RULES);
            let (mut after, mut errors) = (before.clone(), before_errors.clone());
            let (kept, holes) = cut_unread(FileId(0), &text, &mut after, &mut errors)
                .expect("the two large specs are cut");
            assert_eq!(holes.len(), 2, "crlf {crlf}: the small CRD stays whole");
            assert!(
                kept.len() < text.len() / 2,
                "crlf {crlf}: {} of {}",
                kept.len(),
                text.len()
            );
            let mut cut = SourceFile::new("s.yaml", None, String::new(), FileKind::Yaml);
            let lines_cut: usize = holes.iter().map(|h| h.lines as usize).sum();
            cut.set_holes(Arc::clone(&kept), holes);
            assert_eq!(cut.line_count(), whole.line_count());
            assert_eq!(errors, before_errors);
            assert_eq!(after.len(), before.len());
            let mut nodes = 0;
            for (a, b) in after.iter().zip(&before) {
                assert!(Arc::ptr_eq(a.text(), &kept));
                assert_eq!(a.nodes.len(), b.nodes.len());
                assert_eq!(a.origin(), b.origin());
                assert_eq!(cut.line_col(a.start), whole.line_col(b.start));
                for id in 0..a.nodes.len() {
                    let id = id as NodeId;
                    let (x, y) = (a.span(id), b.span(id));
                    assert_eq!(
                        cut.line_col(x.start),
                        whole.line_col(y.start),
                        "crlf {crlf}"
                    );
                    assert_eq!(cut.line_col(x.end), whole.line_col(y.end), "crlf {crlf}");
                    assert_eq!(a.node(id).as_str(), b.node(id).as_str());
                    nodes += 1;
                }
            }
            assert!(nodes > 50);
            // Every line of the file: as written where kept, empty where cut.
            let mut cut_lines = 0;
            for line in 0..whole.line_count() {
                let (w, c) = (whole.line_range(line), cut.line_range(line));
                if c.is_empty() && !w.is_empty() {
                    cut_lines += 1;
                    continue;
                }
                assert_eq!(&kept[c], &text[w], "line {line}, crlf {crlf}");
                let start = cut.line_start(line).expect("a line of the file");
                assert_eq!(cut.line_index(start), line, "crlf {crlf}");
            }
            // Two lines a schema entry, less the margins.
            assert_eq!(cut_lines, lines_cut);
            assert!(lines_cut > 2 * (60 + 50) - 4 * MARGIN - 4, "{lines_cut}");
        }
    }

    proptest::proptest! {
        /// Counted `\n`s give the lines inside a value that a search of every line end gives.
        #[test]
        fn lines_inside_a_value_counted_as_searched(
            text in "[a\n]{0,400}",
            start in 0usize..400,
            len in 0usize..400,
        ) {
            let bytes = text.as_bytes();
            let start = start.min(bytes.len());
            let end = (start + len).min(bytes.len()).max(start + 1).min(bytes.len());
            if start < end {
                proptest::prop_assert_eq!(
                    inner_lines(bytes, start, end),
                    inner_lines_searched(bytes, start, end)
                );
            }
        }
    }

    #[test]
    fn lines_inside_a_value_at_the_bounds() {
        // 76 line starts inside (`MIN_LINES + 2 * MARGIN`, the fewest worth a cut), the value
        // ending at a line end or not, with `\r\n` or `\n`.
        for eol in ["\n", "\r\n"] {
            for tail in ["", "x", "x\n"] {
                for lines in [MIN_LINES + 2 * MARGIN - 1, MIN_LINES + 2 * MARGIN] {
                    let text = format!("k:{}{tail}", format!("{eol}v").repeat(lines));
                    let (bytes, end) = (text.as_bytes(), text.len());
                    let got = inner_lines(bytes, 1, end);
                    assert_eq!(got, inner_lines_searched(bytes, 1, end), "{text:?}");
                    // A line break that is the value's last byte starts no line inside it.
                    let worth = lines >= MIN_LINES + 2 * MARGIN;
                    assert_eq!(got.map(|g| g.0), worth.then_some(lines), "{text:?}");
                }
            }
        }
    }

    /// A text whose cuts would be under an eighth of it is kept whole: a dump of a cluster
    /// with one definition among thousands of objects is not copied for its spec.
    #[test]
    fn a_large_text_with_little_to_cut_is_kept() {
        let definition = crd("d.example.com", 100, "");
        let service =
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports: [{port: 80}]\n";
        let cut_with = |services: usize| {
            let text = Arc::new(
                std::iter::once(definition.as_str())
                    .chain(std::iter::repeat_n(service, services))
                    .collect::<Vec<_>>()
                    .join("---\n"),
            );
            let (mut docs, mut errors) =
                super::super::parse_stream_without(FileId(0), &text, &crate::k8s::UNREAD_BY_RULES);
            assert!(docs[0].spec_dropped());
            let cut = cut_unread(FileId(0), &text, &mut docs, &mut errors);
            cut.map(|(kept, _)| text.len() - kept.len())
        };
        // The spec's lines but the margins are cut (3,911 bytes): the text is cut with six
        // times as many bytes of services beside the definition, not with eight.
        let cut = cut_with(10).expect("a spec worth cutting");
        let each = service.len() + 4;
        let beside = |bytes: usize| bytes.div_ceil(each);
        assert!(cut > 3_000, "{cut}");
        assert!(cut_with(beside(6 * cut)).is_some());
        assert!(cut_with(beside(8 * cut)).is_none());
    }

    /// A value with a suppression comment inside keeps its text (the comment is found in the
    /// text and reported at its line); a value under the size worth cutting too.
    #[test]
    fn pinned_values_keep_their_text() {
        let marked = crd("m.example.com", 80, "    # kubegap-ignore: not-a-rule\n");
        let text = Arc::new(marked);
        let (mut docs, mut errors) =
            super::super::parse_stream_without(FileId(0), &text, &crate::k8s::UNREAD_BY_RULES);
        assert!(docs[0].spec_dropped());
        assert!(cut_unread(FileId(0), &text, &mut docs, &mut errors).is_none());
        let text = Arc::new(crd("n.example.com", 80, ""));
        let (mut docs, mut errors) =
            super::super::parse_stream_without(FileId(0), &text, &crate::k8s::UNREAD_BY_RULES);
        assert!(cut_unread(FileId(0), &text, &mut docs, &mut errors).is_some());
        // Nothing to cut under the size that is worth it.
        let text = Arc::new(crd("o.example.com", MIN_LINES / 2 - MARGIN, ""));
        let (mut docs, mut errors) =
            super::super::parse_stream_without(FileId(0), &text, &crate::k8s::UNREAD_BY_RULES);
        assert!(docs[0].spec_dropped());
        assert!(cut_unread(FileId(0), &text, &mut docs, &mut errors).is_none());
    }
}
