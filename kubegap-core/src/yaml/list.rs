//! A `kubectl get -o yaml` dump is one document, a `List` whose `items` are every object of
//! the cluster: 41 MB for 16,000 objects, which one thread parsed while the other waited. Its
//! items are parsed in parallel here, in parts, and joined into the document a parse of the
//! whole text gives, node for node.
//!
//! Only the layout kubectl prints is read this way, with nothing in it that a part cannot see
//! alone: the text is one document whose root mapping has an `items:` key at column 0, its
//! items unindented (`- ` at column 0, one per object), then more keys at column 0 (`kind:
//! List`, `metadata:`). A part starts at an item's `- ` line. A `- ` at column 0 is either
//! such an item or inside a quoted or flow scalar that spans lines, which then leaves the
//! part before it unterminated: an error. Anything else is declined (`None`) and the text is
//! parsed whole, which gives the same result: an error in any part, a part that is not
//! exactly one document holding one sequence, an alias (its anchor may be in another part),
//! an anchor (granit-parser starts an anchored collection at its anchor in the whole text and
//! after it in a part), a tag or duplicate key (their ids would move), a comment, tab,
//! directive or marker at column 0 among the items, a key repeated between the text above the
//! items and below them, a text that could hold more nodes than a document may, a first item
//! not right after its `- ` (granit-parser then starts the whole text's sequence elsewhere), a
//! part ending in a block scalar with no content (spanned to the part's end in the part, at
//! the next line in the whole text). (A `# Source:`
//! origin can only be above the root, in the text above the items: a part starts at its dash,
//! the text below them at its first key.)
//!
//! Without what the rules do not read, the parts drop the specs of the definitions among
//! their items (and skip them as they read them), as the whole parse does when the root is a
//! `…List`: that is known once the text below the items is read, so where the root is no
//! `…List` (or is a definition itself, whose own spec the whole parse drops) the text is
//! parsed whole. A dump of a cluster with one definition among its 16,000 objects was parsed
//! on one thread before.

use std::sync::Arc;

use super::{
    parse_range, Document, Kind, Node, NodeId, NodeRef, Part, Rare, Reading, Unread, NONE_ARG,
};
use crate::finding::ParseError;
use crate::source::FileId;

/// Items are parsed in parts of about this many bytes (40 parts for a 41 MB dump: enough for
/// the threads to share evenly, each large enough that joining them costs little).
pub(super) const PART_BYTES: usize = 1 << 20;

/// The documents of `text`, its `items` parsed in parts of about `part_bytes` in parallel, or
/// `None` when the text is not a `List` laid out as kubectl prints it (see the module docs).
pub(super) fn parse(
    file: FileId,
    text: &Arc<String>,
    unread: Option<&'static Unread>,
    part_bytes: usize,
) -> Option<(Vec<Document>, Vec<ParseError>)> {
    use rayon::prelude::*;
    let bytes = text.as_bytes();
    // Ids must fit with room to spare without counting them: a node takes a byte of text at
    // the least.
    if bytes.len().saturating_mul(2) >= super::max_nodes() {
        return None;
    }
    let first = first_item(bytes)?;
    // Where the items end: the first line at column 0 after them that is not an item, found
    // in parallel over the parts they would be cut into (a scan of every line, 11 ms for a 41
    // MB dump on one thread).
    let mut cuts = part_starts(bytes, first, part_bytes.max(1));
    let end = super::between(&cuts, bytes.len())
        .par_iter()
        .map(|&(lo, hi)| not_an_item(bytes, lo, hi))
        .collect::<Vec<Option<usize>>>()
        .into_iter()
        .flatten()
        .next()?;
    // It must be the next key of the root mapping, not a comment, tab, marker or directive.
    if !bytes[end].is_ascii_alphabetic() && !matches!(bytes[end], b'"' | b'\'') {
        return None;
    }
    cuts.retain(|c| *c < end);
    let around = Reading {
        unread,
        part: Part::Around,
    };
    let in_items = Reading {
        unread,
        part: Part::Items,
    };
    let mut ranges = vec![(0, first, around)];
    ranges.extend(
        super::between(&cuts, end)
            .into_iter()
            .map(|(a, b)| (a, b, in_items)),
    );
    ranges.push((end, bytes.len(), around));
    let docs: Vec<Document> = ranges
        .par_iter()
        .map(|&(lo, hi, reading)| one_document(file, text, lo, hi, reading))
        .collect::<Option<Vec<Document>>>()?;
    Some((vec![join(docs, unread)?], Vec::new()))
}

/// The start of the line after the first `items:` line at column 0, when it is an item's
/// `- ` line.
fn first_item(bytes: &[u8]) -> Option<usize> {
    let mut from = 0;
    loop {
        let at = if from == 0 && bytes.starts_with(b"items:") {
            0
        } else {
            memchr::memmem::find(&bytes[from..], b"\nitems:").map(|i| from + i + 1)?
        };
        let line_end = memchr::memchr(b'\n', &bytes[at..]).map(|i| at + i + 1)?;
        if bytes[at + 6..line_end]
            .iter()
            .all(|b| matches!(b, b' ' | b'\r' | b'\n'))
        {
            return bytes[line_end..].starts_with(b"- ").then_some(line_end);
        }
        from = line_end - 1;
    }
}

/// Where parts of the items from `first` on start: `first`, then an item's `- ` line every
/// `size` bytes or so (the last ones may be past the items' end).
fn part_starts(bytes: &[u8], first: usize, size: usize) -> Vec<usize> {
    let mut starts = vec![first];
    let mut next = first + size;
    while next < bytes.len() {
        let Some(line) = memchr::memmem::find(&bytes[next..], b"\n- ") else {
            break;
        };
        let start = next + line + 1;
        starts.push(start);
        next = start + size;
    }
    starts
}

/// The first line starting in `bytes[lo..hi]` (`lo` a line start) that is neither an item's
/// `- ` line nor indented or blank: the end of the items.
fn not_an_item(bytes: &[u8], lo: usize, hi: usize) -> Option<usize> {
    let mut at = lo;
    while at < hi {
        match bytes[at] {
            b' ' | b'\n' | b'\r' => {}
            b'-' if matches!(bytes.get(at + 1), Some(b' ' | b'\n' | b'\r')) => {}
            _ => return Some(at),
        }
        at = memchr::memchr(b'\n', &bytes[at..]).map_or(hi, |i| at + i + 1);
    }
    None
}

/// The one document of `text[lo..hi]`, when it parses without error into one document with
/// no tag, duplicate key or anchor (an alias is found as the nodes are joined); the specs of
/// definitions among the items may have been dropped.
fn one_document(
    file: FileId,
    text: &Arc<String>,
    lo: usize,
    hi: usize,
    reading: Reading,
) -> Option<Document> {
    let (mut docs, errors) = parse_range(file, text, lo, hi, reading);
    if !errors.is_empty() || docs.len() != 1 {
        return None;
    }
    let doc = docs.pop()?;
    // Its first node is its root: one collection holding every other node.
    let plain = doc
        .rare
        .as_ref()
        .is_none_or(|r| r.duplicates.is_empty() && r.tags.is_empty() && !r.anchored)
        && doc.nodes.first()?.arg() as usize == doc.nodes.len();
    // A block scalar with no content ending a part of the items (`- a: |` then the next
    // item): granit-parser spans it from its indicator to the end of the part, and in the
    // whole text as empty at the start of the next item's line.
    let last = NodeRef {
        doc: &doc,
        id: NodeId::try_from(doc.nodes.len().checked_sub(1)?).ok()?,
    };
    let empty_block = reading.part == Part::Items
        && matches!(doc.nodes.last()?.kind(), Kind::Literal | Kind::Folded)
        && last.as_str().is_none_or(|v| v.trim_ascii().is_empty());
    (plain && !empty_block).then_some(doc)
}

/// The document the whole text gives, from the documents of the text above the items (the
/// head, whose last value is the empty one of `items:`), of the items' parts (each a
/// sequence) and of the text below them (the tail), read without what `unread` names.
fn join(mut docs: Vec<Document>, unread: Option<&Unread>) -> Option<Document> {
    use rayon::prelude::*;
    let (head, tail) = (docs.first()?, docs.last()?);
    let (root, tail_root) = (*head.nodes.first()?, *tail.nodes.first()?);
    let head_keys = keys(head)?;
    let tail_keys = keys(tail)?;
    // The parts dropped the specs of the definitions among the items: so does the whole
    // parse, where the root is a `…List` ([`super::Builder::droppable`]). Where the root is a
    // definition itself, the whole parse drops its spec and the parts dropped none.
    let dropped: Vec<(u32, u32)> = docs
        .iter()
        .filter_map(|d| d.rare.as_ref())
        .flat_map(|r| r.dropped.iter().copied())
        .collect();
    if let Some(unread) = unread {
        let kind = [head, tail]
            .iter()
            .find_map(|d| d.root()?.get("kind")?.as_str());
        let list = kind.is_some_and(|k| k.ends_with("List"));
        if (!dropped.is_empty() && !list) || kind == Some(unread.kind) {
            return None;
        }
    }
    // `items` is the head's last key, its value empty.
    let (items_key, head_keys) = head_keys.split_last()?;
    // (Both are so whenever the head parses into a mapping, as `items:` ends its last line;
    // checked anyway, as a join that went wrong would give a wrong tree, silently.)
    let empty = *head.nodes.last()?;
    if *items_key != "items"
        || empty.kind() != Kind::Plain
        || empty.start != empty.end
        || root.kind() != Kind::Map
        || tail_root.kind() != Kind::Map
    {
        return None;
    }
    // A key in both, or `items` again: the whole text's mapping has a duplicate.
    let mut all: Vec<&str> = head_keys
        .iter()
        .chain(tail_keys.iter())
        .copied()
        .chain(std::iter::once("items"))
        .collect();
    all.sort_unstable();
    if all.windows(2).any(|w| w[0] == w[1]) || all.contains(&"<<") {
        return None;
    }
    // Where each document's nodes and stored values land: the head's nodes but its empty
    // value (and that value, `~`, its last stored one, if stored), then the items' sequence,
    // then every other document's nodes but its root.
    let mut places = Vec::with_capacity(docs.len());
    let (mut node_at, mut value_at, mut byte_at) = (0usize, 0usize, 0usize);
    for (i, doc) in docs.iter().enumerate() {
        let (nodes, values) = if i == 0 {
            let stored = usize::from(empty.arg() != NONE_ARG);
            (0..doc.nodes.len() - 1, doc.value_ends.len() - stored)
        } else {
            (1..doc.nodes.len(), doc.value_ends.len())
        };
        let bytes = values
            .checked_sub(1)
            .map_or(0, |v| doc.value_ends[v] as usize);
        places.push(Place {
            nodes: nodes.clone(),
            node_at,
            values,
            value_at,
            bytes,
            byte_at,
        });
        node_at += nodes.len() + usize::from(i == 0);
        value_at += values;
        byte_at += bytes;
    }
    if node_at >= NONE_ARG as usize {
        return None;
    }
    docs.par_iter_mut()
        .zip(&places)
        .map(|(doc, place)| moved(doc, place))
        .collect::<Option<Vec<()>>>()?;
    let mut nodes: Vec<Node> = Vec::with_capacity(node_at);
    let mut values = String::with_capacity(byte_at);
    let mut value_ends: Vec<u32> = Vec::with_capacity(value_at);
    for (i, (doc, place)) in docs.iter().zip(&places).enumerate() {
        nodes.extend_from_slice(doc.nodes.get(place.nodes.clone())?);
        values.push_str(doc.values.get(..place.bytes)?);
        value_ends.extend_from_slice(doc.value_ends.get(..place.values)?);
        if i == 0 {
            // The whole text's `items` sequence is indentless: it starts at its first item,
            // where a part's starts at its dash. Only where the item is right after its
            // `- `, as kubectl prints it: after a comment (`- # c` then the item below),
            // granit-parser starts the whole text's sequence at the comment's line break.
            let first = docs.get(1)?;
            let mut items = *first.nodes.first()?;
            let item = first.nodes.get(1)?.start;
            if item != items.start + 2 {
                return None;
            }
            items.start = item;
            nodes.push(items);
        }
    }
    let (seq, past_items) = (places[0].nodes.len(), places.last()?.node_at);
    nodes[seq].end = docs.get(docs.len() - 2)?.nodes.first()?.end;
    nodes[seq].set_arg(u32::try_from(past_items).ok()?);
    let past_all = u32::try_from(nodes.len()).ok()?;
    nodes[0].end = tail_root.end;
    nodes[0].set_arg(past_all);
    let (head, tail) = (docs.first()?, docs.last()?);
    Some(Document {
        file: head.file,
        index: head.index,
        text: Arc::clone(&head.text),
        nodes: nodes.into_boxed_slice(),
        values: values.into_boxed_str(),
        value_ends: value_ends.into_boxed_slice(),
        root: Some(0),
        start: head.start,
        end: tail.end,
        // A `# Source:` comment is the origin of the document it is above: only the head can
        // have one (a part starts at its dash, the tail at its first key).
        origin: head.origin,
        rare: (!dropped.is_empty()).then(|| {
            Box::new(Rare {
                duplicates: Box::default(),
                tags: Box::default(),
                dropped: dropped.into_boxed_slice(),
                anchored: false,
            })
        }),
        spec_dropped: docs.iter().any(|d| d.spec_dropped),
    })
}

/// Where the nodes `nodes` of a document land in the joined one (at `node_at`), and its
/// first `values` stored values (`bytes` bytes, at `value_at` and `byte_at`).
struct Place {
    nodes: std::ops::Range<usize>,
    node_at: usize,
    values: usize,
    value_at: usize,
    bytes: usize,
    byte_at: usize,
}

/// The root mapping's keys, when every one is a scalar.
fn keys(doc: &Document) -> Option<Vec<&str>> {
    doc.root()?
        .own_entries()
        .map(|(k, _)| k.as_str())
        .collect::<Option<Vec<&str>>>()
}

/// Moves the ids, subtree ends and stored values of `doc`'s nodes (in place) to where `place`
/// says they land; `None` for an alias (its anchor may be in another part).
fn moved(doc: &mut Document, place: &Place) -> Option<()> {
    let shift = u32::try_from(place.node_at.checked_sub(place.nodes.start)?).ok()?;
    let value_shift = u32::try_from(place.value_at).ok()?;
    let byte_shift = u32::try_from(place.byte_at).ok()?;
    for node in doc.nodes.get_mut(place.nodes.clone())? {
        match node.kind() {
            Kind::Seq | Kind::Map => node.set_arg(node.arg().checked_add(shift)?),
            Kind::Alias => return None,
            _ if node.arg() != NONE_ARG => node.set_arg(node.arg().checked_add(value_shift)?),
            _ => {}
        }
    }
    for end in doc.value_ends.get_mut(..place.values)? {
        *end = end.checked_add(byte_shift)?;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNREAD: &Unread = &crate::k8s::UNREAD_BY_RULES;

    /// Parses `text` in parts of `part_bytes` and whole, with and without what the rules do
    /// not read: where the parts are taken, they give exactly the whole parse (nodes, spans,
    /// values, bounds, origin). Returns whether they were taken (the same either way).
    fn parts_or_whole(text: &str, part_bytes: usize) -> bool {
        let taken = taken_by_prune(text, part_bytes);
        assert_eq!(taken[0], taken[1], "{text:?}");
        taken[0]
    }

    /// [`parts_or_whole`] without and with what the rules do not read.
    fn taken_by_prune(text: &str, part_bytes: usize) -> Vec<bool> {
        let shared = Arc::new(text.to_string());
        let mut taken = Vec::new();
        for unread in [None, Some(UNREAD)] {
            let whole = parse_range(FileId(3), &shared, 0, text.len(), Reading::whole(unread));
            let parts = parse(FileId(3), &shared, unread, part_bytes);
            if let Some(parts) = &parts {
                assert_eq!(parts.0.len(), 1);
                assert_same(&parts.0[0], &whole.0[0], text);
                assert_eq!(format!("{:?}", parts.1), format!("{:?}", whole.1));
            }
            taken.push(parts.is_some());
        }
        taken
    }

    fn assert_same(parts: &Document, whole: &Document, text: &str) {
        if let Some(i) = (0..parts.nodes.len().max(whole.nodes.len()))
            .find(|i| parts.nodes.get(*i) != whole.nodes.get(*i))
        {
            let at = whole.nodes.get(i).map_or(0, |n| n.start as usize);
            panic!(
                "node {i}: parts {:?}, whole {:?}, at {:?}",
                parts.nodes.get(i),
                whole.nodes.get(i),
                text.get(at..(at + 40).min(text.len()))
            );
        }
        assert_eq!(parts.values, whole.values);
        assert_eq!(parts.value_ends, whole.value_ends);
        assert_eq!(parts, whole, "{text:?}");
    }

    fn fixture(name: &str) -> String {
        let path = format!("{}/../testdata/cli/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn a_dump_parsed_in_parts_is_the_dump_parsed_whole() {
        for name in ["kubectl-dump.yaml", "kubectl-list.yaml"] {
            let text = fixture(name);
            // Every part size from one item per part to one part for all.
            for part in [1, 100, 700, 3000, 1 << 20] {
                assert!(parts_or_whole(&text, part), "{name} {part}");
                assert!(
                    parts_or_whole(&text.replace('\n', "\r\n"), part),
                    "{name} {part}"
                );
            }
        }
    }

    /// A list as kubectl prints it, its items between `head` and `tail`.
    fn list(head: &str, items: &[&str], tail: &str) -> String {
        format!("{head}items:\n{}{tail}", items.concat())
    }

    const HEAD: &str = "apiVersion: v1\n";
    const TAIL: &str = "kind: List\nmetadata:\n  resourceVersion: \"\"\n";

    /// Items that read differently in each way a part could go wrong if it were cut alone.
    const ITEMS: &[&str] = &[
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: \"a\\tb\"\n  data:\n    script: |\n      #!/bin/sh\n\n      - not an item\n      echo 'x'\n    folded: >\n      one\n      two\n",
        "- kind: Service\n  # an indented comment\n  # Source: not/an/origin.yaml\n  spec: {ports: [{port: 80, name: 'h''t'}], selector: {app: x}}\n",
        "- plain\n  scalar over\n  lines\n",
        "- \n",
        "- - nested\n  - sequence\n",
        "- status:\n    phase: Running\n  metadata:\n    managedFields:\n    - manager: \"k\\u0075bectl\"\n    name: x\n\n\n",
        "- {}\n",
        "- key: 'single\n    quoted over lines'\n  other: \"double\n    quoted\"\n",
    ];

    #[test]
    fn every_part_of_every_list_is_read_as_in_the_whole() {
        let heads = [
            HEAD.to_string(),
            "# a comment\n# Source: chart/templates/all.yaml\n---\napiVersion: v1\n".to_string(),
            "\"apiVersion\": v1\nnote: {text: \"a\\u00e9\"}\n".to_string(),
            String::new(),
        ];
        let tails = [
            TAIL.to_string(),
            "kind: List\nstatus:\n  x: 1\n  # trailing\n\n".to_string(),
            "kind: List\nmetadata: {}".to_string(),
            // A sequence at column 0 below the items too.
            "kind: List\nextra:\n- x\n- y\n".to_string(),
            "kind: List\nmetadata:\n  resourceVersion: \"\"\n# a comment\n\n".to_string(),
        ];
        for head in &heads {
            for tail in &tails {
                // Every item first, and every item after every other.
                for first in ITEMS {
                    let mut items = vec![*first];
                    items.extend(ITEMS.iter().copied());
                    let text = list(head, &items, tail);
                    for part in [1, 30, 200, 10_000] {
                        assert!(parts_or_whole(&text, part), "{part} {text:?}");
                        let crlf = text.replace('\n', "\r\n");
                        assert!(parts_or_whole(&crlf, part), "{part} {crlf:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_list_a_part_cannot_read_alone_is_read_whole() {
        let declined = [
            // An alias whose anchor is in another part, a tag, a duplicate key.
            list(HEAD, &["- &a {x: 1}\n", "- *a\n"], TAIL),
            // An anchor without an alias: granit-parser starts an anchored collection at its
            // anchor in the whole text and after it in a part, and a whole parse keeps every
            // definition's spec in a document with an anchor (in an item, above or below
            // the items).
            list(HEAD, &["- &a {x: 1}\n", "- b\n"], TAIL),
            list(HEAD, &["- &a {x: 1}\n", DEFINITIONS[0]], TAIL),
            list(HEAD, &[DEFINITIONS[0], "- x: &a [1]\n"], TAIL),
            list("apiVersion: &v v1\n", &[DEFINITIONS[0]], TAIL),
            list(HEAD, &[DEFINITIONS[0]], "kind: List\nmetadata: &m {}\n"),
            list(HEAD, &["- a: !!str 1\n"], TAIL),
            list(HEAD, &["- a: 1\n  b: 2\n  a: 3\n"], TAIL),
            // A key above the items and below them, or `items` again.
            list(HEAD, &["- a\n"], "kind: List\napiVersion: v2\n"),
            list(HEAD, &["- a\n"], "kind: List\nitems: []\n"),
            list(HEAD, &["- a\n"], "kind: List\n<<: {a: b}\n"),
            // A marker, an end of document, a comment or a tab at column 0 among the items.
            list(HEAD, &["- a\n", "---\n", "- b\n"], TAIL),
            list(HEAD, &["- a\n", "...\n", "- b\n"], TAIL),
            list(HEAD, &["- a\n", "# c\n", "- b\n"], TAIL),
            list(HEAD, &["- a\n", "\t\n", "- b\n"], TAIL),
            // Or right above the keys below the items, which then are another document.
            list(HEAD, &["- a\n", "...\n"], TAIL),
            list(HEAD, &["- a\n", "---\n"], TAIL),
            list(HEAD, &["- a\n", "%YAML 1.2\n---\n"], TAIL),
            // Items not as kubectl prints them: indented, after a blank line, or last; the
            // first below its dash (after a comment, a blank or more spaces).
            list(HEAD, &["- # c\n  a: 1\n", "- b\n"], TAIL),
            list(HEAD, &["- \n  a: 1\n", "- b\n"], TAIL),
            list(HEAD, &["-   a: 1\n", "- b\n"], TAIL),
            "apiVersion: v1\nitems:\n  - a\n  - b\nkind: List\n".to_string(),
            "apiVersion: v1\nitems:\n\n- a\nkind: List\n".to_string(),
            "apiVersion: v1\nkind: List\nitems:\n- a\n- b\n".to_string(),
            // Another document before or after.
            format!("a: 1\n---\n{}", list(HEAD, &["- a\n"], TAIL)),
            format!("{}---\nb: 2\n", list(HEAD, &["- a\n"], TAIL)),
            format!("{}---\nb: [\n", list(HEAD, &["- a\n"], TAIL)),
            // A syntax error in an item, above the items, or below them.
            list(HEAD, &["- a: [1\n", "- b\n"], TAIL),
            list("apiVersion: [\n", &["- a\n"], TAIL),
            list(HEAD, &["- a\n"], "kind: List\nmetadata: {\n"),
            // The root not a mapping.
            "- x\nitems:\n- a\nkind: List\n".to_string(),
        ];
        for text in &declined {
            for part in [1, 1 << 20] {
                assert!(!parts_or_whole(text, part), "{part} {text:?}");
            }
            let crlf = text.replace('\n', "\r\n");
            assert!(!parts_or_whole(&crlf, 1), "{crlf:?}");
        }
        // A quoted scalar over a line that looks like an item: a part cut there is
        // unterminated, so the list is read whole; in one part it reads as in the whole.
        let quoted = list(HEAD, &["- a: \"x\n- b\n  y\"\n", "- c\n"], TAIL);
        assert!(!parts_or_whole(&quoted, 1));
        parts_or_whole(&quoted, 1 << 20);
    }

    #[test]
    fn an_empty_block_scalar_ending_a_part_is_read_whole() {
        // In one part each (the first ones alone among the items too): read whole.
        let empty = [
            list(HEAD, &["- a: >+\n", "- b\n"], TAIL),
            list(HEAD, &["- a: |\n", "- b\n"], TAIL),
            list(HEAD, &["- a: |-\n\n", "- b\n"], TAIL),
            list(HEAD, &["- a: |2+\n\n", "- b\n"], TAIL),
            list(HEAD, &["- a: >\n\n  \n", "- b\n"], TAIL),
            list(HEAD, &["- b\n", "- a:\n  - >+\n"], TAIL),
            list(HEAD, &["- b\n", "- |\n"], TAIL),
            // (Before a comment its span would be the same; read whole all the same.)
            list(HEAD, &["- a: |\n  # c\n", "- b\n"], TAIL),
        ];
        for text in &empty {
            assert!(!parts_or_whole(text, 1), "{text:?}");
            assert!(!parts_or_whole(&text.replace('\n', "\r\n"), 1), "{text:?}");
            // Followed by an item in its part, it reads as in the whole text.
            parts_or_whole(text, 1 << 20);
        }
        // With content, or not a block scalar: read in parts.
        let kept = [
            list(HEAD, &["- a: |\n    x\n", "- b\n"], TAIL),
            list(HEAD, &["- a: |+\n    x\n\n", "- b\n"], TAIL),
            list(HEAD, &["- a: \"\"\n", "- b\n"], TAIL),
        ];
        for text in &kept {
            assert!(parts_or_whole(text, 1), "{text:?}");
        }
    }

    #[test]
    fn block_scalars_with_an_indentation_indicator_are_read_in_parts_as_whole() {
        // The scanner reads `|2-` itself (Istio's definitions write their descriptions so):
        // the indentation it sets is the item's mapping's column plus the digit, the same in
        // a part as in the whole text.
        let text = list(
            HEAD,
            &[
                "- a:\n    description: |2-\n        more\n      x\n    b: 1\n",
                "- c: >1\n   y\n  d: 2\n",
                "- e: |-2\n    z\n",
            ],
            TAIL,
        );
        assert!(parts_or_whole(&text, 1), "{text:?}");
        assert!(parts_or_whole(&text.replace('\n', "\r\n"), 1), "{text:?}");
    }

    /// Definitions as kubectl prints them (`kind` before `spec`, whose inside the scanner
    /// skips), and as other tools may (`kind` after it: built, then dropped).
    const DEFINITIONS: &[&str] = &[
        "- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata:\n    name: a.x\n  spec:\n    group: x\n    versions:\n    - name: v1\n      schema: {openAPIV3Schema: {type: object}}\n  status:\n    accepted: true\n",
        "- apiVersion: apiextensions.k8s.io/v1\n  spec:\n    group: y\n    names:\n      kind: Y\n\n  kind: CustomResourceDefinition\n",
        "- apiVersion: apiextensions.k8s.io/v1beta1\n  kind: CustomResourceDefinition\n  spec: {group: z}\n",
    ];

    #[test]
    fn definitions_among_the_items_lose_their_spec_in_parts_as_in_the_whole() {
        // `kubectl get crd -o yaml`, or a dump of a cluster with definitions among its
        // objects: the whole parse drops their specs, and so do the parts.
        let mut items: Vec<&str> = DEFINITIONS.to_vec();
        items.extend(ITEMS.iter().copied());
        items.extend(DEFINITIONS.iter().copied());
        for tail in [TAIL, "kind: CustomResourceDefinitionList\nmetadata: {}\n"] {
            let text = list(HEAD, &items, tail);
            for part in [1, 60, 400, 1 << 20] {
                assert_eq!(taken_by_prune(&text, part), [true, true], "{part} {text:?}");
                let crlf = text.replace('\n', "\r\n");
                assert_eq!(taken_by_prune(&crlf, part), [true, true], "{part} {crlf:?}");
            }
        }
        // Each spec is dropped, and skipped as it is read where `kind` comes first (a file id
        // of this test's own: tests run in parallel).
        let file = FileId(0x11_57);
        let text = Arc::new(list(HEAD, &items, TAIL));
        let (docs, _) = parse(file, &text, Some(UNREAD), 1).unwrap();
        let specs = docs[0].rare.as_ref().map_or(0, |r| r.dropped.len());
        assert_eq!(specs, 2 * DEFINITIONS.len());
        // The first and the last of each three (the second says its `kind` after its spec).
        assert_eq!(super::super::tests::skips_in(file), 4);
    }

    #[test]
    fn definitions_the_whole_parse_keeps_are_read_whole() {
        // Where the whole parse keeps a definition's spec, or drops one that no part can see,
        // the parts are not joined: with what the rules do not read, the text is read whole.
        let crd = DEFINITIONS[0];
        let declined = [
            // The root is no `…List`: the items' specs stay.
            list(HEAD, &[crd], "kind: Bag\n"),
            list(HEAD, &[crd], "metadata: {}\n"),
            // The root is a definition: its own spec goes, the items' stay.
            list(
                "apiVersion: apiextensions.k8s.io/v1\nspec:\n  group: r\n",
                &["- a\n"],
                "kind: CustomResourceDefinition\n",
            ),
        ];
        for text in &declined {
            for part in [1, 1 << 20] {
                assert_eq!(taken_by_prune(text, part), [true, false], "{part} {text:?}");
            }
        }
    }

    #[test]
    fn a_list_that_could_be_too_large_is_read_whole() {
        // The parts are parsed on other threads, which count only their own nodes: a text
        // that could hold more nodes than a document may is read whole, which reports it.
        let text = list(HEAD, &["- a\n"; 40], TAIL);
        assert!(parts_or_whole(&text, 1));
        super::super::TEST_MAX_NODES.with(|m| m.set(text.len() * 2 + 1));
        assert!(parts_or_whole(&text, 1));
        super::super::TEST_MAX_NODES.with(|m| m.set(text.len() * 2));
        assert!(!parts_or_whole(&text, 1));
        super::super::TEST_MAX_NODES.with(|m| m.set(30));
        let (docs, errors) = parse_range(
            FileId(0),
            &Arc::new(text.clone()),
            0,
            text.len(),
            Reading::WHOLE,
        );
        assert!(!parts_or_whole(&text, 1));
        assert_eq!((docs.len(), errors.len()), (0, 1));
        super::super::TEST_MAX_NODES.with(|m| m.set(super::super::MAX_NODES));
    }

    #[test]
    fn a_large_dump_is_parsed_in_parts_by_the_stream_parser() {
        // Past the stream's one-document size, every item of the fixture again and again.
        let dump = fixture("kubectl-dump.yaml");
        let (head, rest) = dump.split_at(dump.find("\n- ").unwrap() + 1);
        let (items, tail) = rest.split_at(rest.find("\nkind: List").unwrap() + 1);
        let mut text = head.to_string();
        while text.len() <= super::super::CHUNK_BYTES {
            text.push_str(items);
        }
        text.push_str(tail);
        let shared = Arc::new(text);
        assert!(parse(FileId(1), &shared, Some(UNREAD), PART_BYTES).is_some());
        let (whole, _) = parse_range(
            FileId(1),
            &shared,
            0,
            shared.len(),
            Reading::whole(Some(UNREAD)),
        );
        let (docs, errors) = super::super::parse_stream_without(FileId(1), &shared, UNREAD);
        assert!(errors.is_empty());
        assert_same(&docs[0], &whole[0], "");
        assert!(docs[0].spec_dropped());
        let objects = docs[0]
            .root()
            .unwrap()
            .get("items")
            .unwrap()
            .items()
            .count();
        assert!(objects > 1000, "{objects}");
    }
}
