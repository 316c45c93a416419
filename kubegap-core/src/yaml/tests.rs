//! Tests of the YAML layer: spans, recovery, limits.

use super::*;

fn parse_str(text: &str) -> (Vec<Document>, Vec<ParseError>) {
    parse(FileId(0), text)
}

fn slice(text: &str, span: Span) -> &str {
    &text[span.start as usize..span.end as usize]
}

#[test]
fn spans_of_keys_and_values_are_exact() {
    for text in [
        "a: café\nimage: nginx:1.25\n",
        "a: café\r\nimage: nginx:1.25\r\n",
        "\u{feff}a: café\nimage: nginx:1.25\n",
        "x: 1\n---\na: |\n  日本語のテキスト\nimage: nginx:1.25\n",
    ] {
        let (docs, errors) = parse_str(text);
        assert!(errors.is_empty(), "{errors:?}");
        let doc = docs.last().unwrap();
        let (k, v) = doc.root().unwrap().get_entry("image").unwrap();
        assert_eq!(slice(text, k.span()), "image");
        assert_eq!(slice(text, v.span()), "nginx:1.25");
    }
}

#[test]
fn flow_collections_and_quotes() {
    let text = "ports: [80, 443]\nm: {memory: \"1Gi\"}\n";
    let (docs, _) = parse_str(text);
    let root = docs[0].root().unwrap();
    assert_eq!(slice(text, root.get("ports").unwrap().span()), "[80, 443]");
    let mem = root.path(&["m", "memory"]).unwrap();
    assert_eq!(slice(text, mem.span()), "\"1Gi\"");
    assert_eq!(mem.style(), Some(ScalarStyle::DoubleQuoted));
    assert_eq!(
        root.get("ports")
            .unwrap()
            .items()
            .filter_map(|i| i.as_i64())
            .collect::<Vec<_>>(),
        vec![80, 443]
    );
}

#[test]
fn tab_after_colon_is_valid() {
    let (docs, errors) = parse_str("key:\tvalue\n");
    assert!(errors.is_empty());
    assert_eq!(
        docs[0].root().unwrap().get("key").unwrap().as_str(),
        Some("value")
    );
}

#[test]
fn collections_closing_together_or_apart_end_at_their_own_last_token() {
    // Three block collections close at `after`, each trimmed to the end of `x` (the comment
    // lines between belong to what follows); a flow mapping closes after the sequence it
    // ends with, and ends at its own `}`.
    let text = "outer: {a: [1, 2]   }\nblock:\n  inner:\n    - x\n    # c1\n  # c2\nafter: 1\n";
    let (docs, errors) = parse_str(text);
    assert!(errors.is_empty(), "{errors:?}");
    let root = docs[0].root().unwrap();
    let outer = root.get("outer").unwrap();
    assert_eq!(slice(text, outer.span()), "{a: [1, 2]   }");
    assert_eq!(slice(text, outer.get("a").unwrap().span()), "[1, 2]");
    let block = root.get("block").unwrap();
    assert_eq!(slice(text, block.span()), "inner:\n    - x");
    assert_eq!(slice(text, block.get("inner").unwrap().span()), "- x");
    assert_eq!(slice(text, root.span()), &text[..text.len() - 1]);
}

#[test]
fn duplicates_are_recorded_with_both_positions() {
    let text = "a: 1\nb: 2\na: 3\n";
    let (docs, _) = parse_str(text);
    let (first, dup) = docs[0].duplicates()[0];
    assert_eq!(docs[0].span(first).start, 0);
    assert_eq!(docs[0].span(dup).start, 10);
}

#[test]
fn merge_keys_and_aliases() {
    let text = "base: &b {x: 1, y: 2}\nchild:\n  <<: *b\n  y: 3\n";
    let (docs, errors) = parse_str(text);
    assert!(errors.is_empty());
    let child = docs[0].root().unwrap().get("child").unwrap();
    assert_eq!(child.get("x").unwrap().as_i64(), Some(1));
    assert_eq!(child.get("y").unwrap().as_i64(), Some(3));
    assert_eq!(child.entries().len(), 2);
    assert!(docs[0].duplicates().is_empty());
}

#[test]
fn a_lookup_steps_over_keys_and_values_that_are_collections() {
    // `get` walks a mapping's pairs by hand: every key and value written as a collection
    // (block or flow, as key or value, or an alias to one) must be skipped whole, so that
    // what follows is still read as a key.
    let text = "\
m:
  ? [a, b]
  : {c: 1}
  ? {d: {e: 2}}
  : - f
    - g: [h]
  list: [1, [2, 3]]
  alias: &x {a: 1, b: [1]}
  back: *x
  ? *x
  : key-alias
  'quoted': 4
  \"esc\\x61ped\": 5
  <<: {merged: 6}
  last: 7
";
    let (docs, errors) = parse_str(text);
    assert!(errors.is_empty(), "{errors:?}");
    let m = docs[0].root().unwrap().get("m").unwrap();
    for (key, value) in [
        ("list", "[1, [2, 3]]"),
        ("alias", "{a: 1, b: [1]}"),
        ("back", "*x"),
        ("quoted", "4"),
        ("escaped", "5"),
        ("merged", "6"),
        ("last", "7"),
    ] {
        let found = m.get(key).unwrap_or_else(|| panic!("{key} not found"));
        assert_eq!(slice(text, found.span()), value, "{key}");
    }
    for absent in ["a", "b", "c", "d", "e", "f", "g", "h", "1", "key-alias"] {
        assert!(m.get(absent).is_none(), "{absent} found");
    }
    // `entries` agrees with `get`: the keys read as text, the merged ones last.
    let keys: Vec<String> = m
        .entries()
        .iter()
        .filter_map(|(k, _)| k.as_str().map(str::to_string))
        .collect();
    assert_eq!(
        keys,
        ["list", "alias", "back", "quoted", "escaped", "last", "merged"]
    );
}

#[test]
fn helm_source_comments_become_origins() {
    let text = "---\n# Source: chart/templates/a.yaml\na: 1\n---\n# Source: chart/templates/b.yaml\nb: 2\n";
    let (docs, _) = parse_str(text);
    assert_eq!(docs[0].origin(), Some("chart/templates/a.yaml"));
    assert_eq!(docs[1].origin(), Some("chart/templates/b.yaml"));
    // The origin is a span of the comment's path, not a copy.
    let span = docs[0].origin_span().unwrap();
    assert_eq!(
        &text[span.start as usize..span.end as usize],
        "chart/templates/a.yaml"
    );
    // Trailing blanks and CRLF line ends are not part of the path.
    let (docs, _) = parse_str("---\r\n#  Source:  c/t/x.yaml \t\r\nx: 1\r\n");
    assert_eq!(docs[0].origin(), Some("c/t/x.yaml"));
}

#[test]
fn recovers_after_a_broken_document() {
    let text = "a: 1\n---\nb: [1, 2\n---\nc: 3\n";
    let (docs, errors) = parse_str(text);
    assert_eq!(errors.len(), 1);
    assert!(docs
        .iter()
        .any(|d| d.root().and_then(|r| r.get("c")).is_some()));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let flow = "[".repeat(200_000);
    let (_, errors) = parse_str(&flow);
    assert!(!errors.is_empty());
    let mut block = String::new();
    for i in 0..100_000 {
        block.push_str(&" ".repeat(i.min(10)));
        block.push_str("- ");
    }
    block.push_str("x\n");
    let one_line = "- ".repeat(100_000) + "x\n";
    for text in [block, one_line] {
        let (_, errors) = parse_str(&text);
        assert!(!errors.is_empty());
    }
}

#[test]
fn alias_bomb_is_cheap() {
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let mut prev = 'a';
    for c in 'b'..='j' {
        text.push_str(&format!(
            "{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
        ));
        prev = c;
    }
    let (docs, errors) = parse_str(&text);
    assert!(errors.is_empty());
    assert!(docs[0].nodes.len() < 200);
    // Walking merged entries of an alias-heavy node stays bounded.
    let j = docs[0].root().unwrap().get("j").unwrap();
    assert_eq!(j.items().count(), 9);
}

#[test]
fn parallel_chunks_equal_sequential_parse() {
    // A stream with comments above markers, a directive, a broken document and a block scalar
    // whose content mentions `---` (indented, so not a marker).
    let mut text = String::from("\u{feff}");
    for i in 0..400 {
        text.push_str(&format!("# Source: c/t{i}.yaml\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: n{i}}}\ndata:\n  x: |\n    ---\n    body {i}\n"));
        if i == 200 {
            text.push_str("---\nbroken: [\n");
        }
        if i == 300 {
            text.push_str("%YAML 1.2\n---\ndirective: doc\n");
        }
    }
    let (seq_docs, seq_errors) = parse(FileId(0), &text);
    let cuts = chunk_starts(&text, 512);
    assert!(cuts.len() > 10, "{}", cuts.len());
    let ranges = between(&cuts, text.len());
    let mut par_docs = Vec::new();
    let mut par_errors = Vec::new();
    let shared: Arc<String> = Arc::new(text.clone());
    for (a, b) in ranges {
        let (d, e) = parse_range(FileId(0), &shared, a, b, Reading::WHOLE);
        par_docs.extend(d);
        par_errors.extend(e);
    }
    // The broken flow sequence, and the `%YAML` directive not preceded by `...`.
    assert_eq!(seq_errors.len(), 2, "{seq_errors:?}");
    assert_eq!(
        seq_errors.iter().map(|e| e.span).collect::<Vec<_>>(),
        par_errors.iter().map(|e| e.span).collect::<Vec<_>>()
    );
    let summary = |docs: &[Document]| -> Vec<(u32, u32, Option<String>, usize)> {
        docs.iter()
            .map(|d| {
                (
                    d.start,
                    d.end,
                    d.origin().map(str::to_string),
                    d.nodes.len(),
                )
            })
            .collect()
    };
    let s = summary(&seq_docs);
    let p = summary(&par_docs);
    // Document boundaries may differ only in where an implicit end is reported; content and
    // origins must match exactly.
    assert_eq!(s.len(), p.len());
    for (a, b) in s.iter().zip(&p) {
        assert_eq!((a.2.as_ref(), a.3), (b.2.as_ref(), b.3));
        assert_eq!(a.0, b.0);
    }
    let spans = |docs: &[Document]| -> Vec<(u32, u32)> {
        docs.iter()
            .flat_map(|d| d.nodes.iter().map(|n| (n.start, n.end)))
            .collect()
    };
    let (a, b) = (spans(&seq_docs), spans(&par_docs));
    if let Some(i) = a.iter().zip(&b).position(|(x, y)| x != y) {
        panic!(
            "first difference at node {i}: sequential {:?} chunked {:?}; text {:?}",
            &a[i..i + 3],
            &b[i..i + 3],
            &text[a[i].0 as usize..(a[i].1 as usize + 40).min(text.len())]
        );
    }
    assert_eq!(a.len(), b.len());
    // And parse_stream itself (with its real chunk size) agrees with parse.
    let (stream_docs, _) = parse_stream(FileId(0), &text);
    assert_eq!(spans(&stream_docs), spans(&seq_docs));
}

#[test]
fn node_stays_small() {
    // 2.9 M nodes per 52 MB of Helm output: every byte of Node is ~3 MB of peak memory.
    assert!(
        std::mem::size_of::<Node>() <= 16 && std::mem::size_of::<Kind>() == 1,
        "{}",
        std::mem::size_of::<Node>()
    );
}

#[test]
fn scalars_are_spans_unless_their_value_differs_from_the_source() {
    let text = "a: plain value\nb: 'single'\nc: \"double\"\nd: ''\ne: \"\"\nf:\n";
    let (docs, errors) = parse_str(text);
    assert!(errors.is_empty(), "{errors:?}");
    let root = docs[0].root().unwrap();
    assert_eq!(root.str_at(&["a"]), Some("plain value"));
    assert_eq!(root.str_at(&["b"]), Some("single"));
    assert_eq!(root.str_at(&["c"]), Some("double"));
    assert_eq!(root.str_at(&["d"]), Some(""));
    assert_eq!(root.str_at(&["e"]), Some(""));
    assert!(root.get("f").unwrap().is_null());
    // Nothing was copied but the `~` the parser gives an empty value: every other value is a
    // slice of the text.
    assert_eq!(root.str_at(&["f"]), Some("~"));
    assert_eq!(&*docs[0].values, "~");

    let text = "a: 'it''s'\nb: \"tab\\there\"\nc: folded\n  plain\nd: |\n  line 1\n  line 2\ne: >-\n  x\n  y\n";
    let (docs, errors) = parse_str(text);
    assert!(errors.is_empty(), "{errors:?}");
    let root = docs[0].root().unwrap();
    assert_eq!(root.str_at(&["a"]), Some("it's"));
    assert_eq!(root.str_at(&["b"]), Some("tab\there"));
    assert_eq!(root.str_at(&["c"]), Some("folded plain"));
    assert_eq!(root.str_at(&["d"]), Some("line 1\nline 2\n"));
    assert_eq!(root.str_at(&["e"]), Some("x y"));
    assert_eq!(root.get("d").unwrap().style(), Some(ScalarStyle::Literal));
    // Only the values that differ from their source are stored, once each.
    assert_eq!(
        &*docs[0].values,
        "it'stab\therefolded plainline 1\nline 2\nx y"
    );
}

#[test]
fn documents_share_the_text_and_keep_no_spare_capacity() {
    let text: Arc<String> = Arc::new("a: [1, 2, {b: c}]\n---\nd: e\n".to_string());
    let (docs, _) = parse_stream(FileId(0), &text);
    assert_eq!(docs.len(), 2);
    for doc in &docs {
        assert!(Arc::ptr_eq(doc.text(), &text));
    }
    // One node per key, value and item, in document order; a collection holds the id past
    // its subtree.
    assert_eq!(docs[0].nodes.len(), 8);
    let subtree_ends: Vec<u32> = docs[0]
        .nodes
        .iter()
        .filter(|n| matches!(n.kind(), Kind::Seq | Kind::Map))
        .map(Node::arg)
        .collect();
    assert_eq!(subtree_ends, [8, 8, 8]);
    assert_eq!(std::mem::size_of::<Node>(), 12);
    let a = docs[0].root().unwrap().get("a").unwrap();
    let items: Vec<_> = a.items().collect();
    assert_eq!(items.len(), 3);
    assert_eq!(items[2].str_at(&["b"]), Some("c"));
    assert!(matches!(a.kind(), NodeKind::Seq(ids) if ids.clone().count() == 3));
    assert!(matches!(
        items[0].kind(),
        NodeKind::Scalar("1", ScalarStyle::Plain)
    ));
}

#[test]
fn duplicates_in_large_and_small_mappings() {
    // 20 keys (the hash-map path) with a repeat and merge keys, and a small mapping.
    let mut text = String::from("base: &b {x: 1}\nbig:\n  <<: *b\n");
    for i in 0..20 {
        text.push_str(&format!("  k{i}: {i}\n"));
    }
    text.push_str(
        "  <<: *b\n  k3: again\n  'k4': quoted\nsmall: {a: 1, b: 2, a: 3, c: 4, \"a\": 5}\n",
    );
    // The largest small mapping (16 keys), its last key a repeat; and keys that are not
    // scalars, or merge keys, between repeats.
    text.push_str("sixteen:\n");
    for i in 0..15 {
        text.push_str(&format!("  m{i}: {i}\n"));
    }
    text.push_str("  m14: last\nmixed: {[x]: 1, o: 2, [x]: 3, <<: *b, <<: *b, o: 4}\n");
    let (docs, errors) = parse_str(&text);
    assert!(errors.is_empty(), "{errors:?}");
    let doc = &docs[0];
    let dups: Vec<(&str, u32, u32)> = doc
        .duplicates()
        .iter()
        .map(|(first, dup)| {
            (
                doc.node(*first).as_str().unwrap(),
                doc.span(*first).start,
                doc.span(*dup).start,
            )
        })
        .collect();
    let at = |needle: &str| u32::try_from(text.find(needle).unwrap()).unwrap();
    assert_eq!(
        dups,
        vec![
            ("k3", at("k3:"), at("k3: again")),
            ("k4", at("k4:"), at("'k4'")),
            // A third `a` repeats the first, not the second.
            ("a", at("a: 1"), at("a: 3")),
            ("a", at("a: 1"), at("\"a\": 5")),
            ("m14", at("m14:"), at("m14: last")),
            ("o", at("o: 2"), at("o: 4")),
        ]
    );
}

#[test]
fn same_bytes_finds_a_difference_at_every_position_of_every_short_length() {
    for n in 0..=40usize {
        let a: Vec<u8> = (0..n as u8).map(|i| b'a' + i % 26).collect();
        assert!(super::same_bytes(&a, &a.clone()), "length {n}");
        for at in 0..n {
            let mut b = a.clone();
            b[at] ^= 0x20;
            assert!(!super::same_bytes(&a, &b), "length {n}, byte {at}");
        }
        let mut longer = a.clone();
        longer.push(b'a');
        assert!(
            !super::same_bytes(&a, &longer),
            "length {n} against {}",
            n + 1
        );
    }
}

#[test]
fn a_node_keeps_its_kind_beside_any_argument() {
    let kinds = [
        Kind::Plain,
        Kind::SingleQuoted,
        Kind::DoubleQuoted,
        Kind::Literal,
        Kind::Folded,
        Kind::Seq,
        Kind::Map,
        Kind::Alias,
    ];
    for kind in kinds {
        for arg in [0, 1, 4242, MAX_NODES as u32 - 1, NONE_ARG] {
            let mut n = Node::new(7, 9, kind, arg);
            assert_eq!((n.kind(), n.arg(), n.start, n.end), (kind, arg, 7, 9));
            n.set_arg(arg ^ 1);
            assert_eq!((n.kind(), n.arg()), (kind, arg ^ 1));
        }
    }
    assert_eq!(std::mem::size_of::<Node>(), 12);
}

#[test]
fn a_document_with_more_nodes_than_ids_is_dropped_and_reported_by_its_start() {
    let text = Arc::new("a: [1, 2, 3]\n---\nb: 1\n".to_string());
    let mut builder = Builder::new(FileId(0), &text, Reading::WHOLE);
    builder.max_nodes = 4;
    builder.begin(0, 0, None);
    builder.open_collection(Kind::Map, 0, 0, 0, None);
    builder.scalar("a", Kind::Plain, 0, 1, 0, None);
    builder.open_collection(Kind::Seq, 3, 3, 0, None);
    for (i, v) in ["1", "2", "3"].iter().enumerate() {
        let at = 4 + 3 * i as u32;
        builder.scalar(v, Kind::Plain, at, at + 1, 0, None);
    }
    assert_eq!(builder.finish(13), None);
    assert_eq!(builder.dropped_too_large.take(), Some(0));
    // The next document, within the limit, is built as usual.
    builder.begin(1, 17, None);
    builder.open_collection(Kind::Map, 17, 17, 0, None);
    builder.scalar("b", Kind::Plain, 17, 18, 0, None);
    builder.scalar("1", Kind::Plain, 20, 21, 0, None);
    let doc = builder.finish(22).expect("a document of 3 nodes");
    assert_eq!(builder.dropped_too_large, None);
    assert_eq!(doc.root().and_then(|r| r.str_at(&["b"])), Some("1"));
    let error = too_large(FileId(0), 0);
    assert_eq!((error.span.start, error.span.end), (0, 0));
    assert!(error
        .message
        .starts_with("document too large: more than 536870911 YAML nodes"));
}

#[test]
fn parse_reports_a_document_over_the_node_limit_and_reads_the_others() {
    // 6 nodes in the first document (map, key, sequence, three items), 3 in the second; the
    // builders of this thread take 5 as the limit. The scanner gives the file up, and
    // granit-parser's pass reports the document at its start; an anchor sends the second file
    // to granit-parser directly.
    TEST_MAX_NODES.with(|m| m.set(5));
    for text in ["a: [1, 2, 3]\n---\nb: 1\n", "a: &x [1, 2, 3]\n---\nb: 1\n"] {
        let (docs, errors) = parse(FileId(0), text);
        assert_eq!(docs.len(), 1, "{text:?}");
        assert_eq!(docs[0].root().and_then(|r| r.str_at(&["b"])), Some("1"));
        assert_eq!(errors.len(), 1, "{text:?}: {errors:?}");
        assert_eq!(errors[0].span.start, 0, "{text:?}");
        assert!(
            errors[0].message.starts_with("document too large"),
            "{errors:?}"
        );
    }
    TEST_MAX_NODES.with(|m| m.set(MAX_NODES));
}

#[test]
fn a_builder_hands_its_buffers_to_the_next_one_empty() {
    let text = Arc::new("a: \"b\\tc\"\nd: [e, f\n".to_string());
    {
        // A document left half-built, with an escaped value: as when a scanner gives up.
        let mut builder = Builder::new(FileId(0), &text, Reading::WHOLE);
        builder.begin(0, 0, None);
        builder.open_collection(Kind::Map, 0, 0, 0, None);
        builder.scalar("a", Kind::Plain, 0, 1, 0, None);
        builder.scalar("b\tc", Kind::DoubleQuoted, 3, 9, 0, None);
        builder.scalar("d", Kind::Plain, 10, 11, 0, None);
        builder.open_collection(Kind::Seq, 13, 13, 0, None);
        assert_eq!((builder.nodes.len(), builder.stack.len()), (5, 2));
    }
    let builder = Builder::new(FileId(1), &text, Reading::WHOLE);
    // Reused: the next file does not grow them from nothing...
    assert!(builder.nodes.capacity() >= 5 && builder.pending.capacity() > 0);
    // ...and starts from nothing.
    assert!(builder.nodes.is_empty() && builder.values.is_empty());
    assert!(builder.value_ends.is_empty() && builder.pending.is_empty());
    assert!(builder.stack.is_empty() && builder.duplicates.is_empty());
    assert!(!builder.open && builder.root.is_none());
}

/// Every node of a document in order, with its span and its value or number of children, and
/// an empty collection for the children of each of `skip` (ids of specs in the whole tree).
fn outline(doc: &Document, skip: &[NodeId]) -> Vec<String> {
    let mut out = Vec::new();
    let mut id = 0;
    while (id as usize) < doc.nodes.len() {
        let node = doc.node(id);
        let what = match node.kind() {
            NodeKind::Scalar(value, style) => format!("{style:?} {value:?}"),
            NodeKind::Seq(items) => format!("seq of {}", items.count()),
            NodeKind::Map(entries) => format!("map of {}", entries.count() / 2),
            NodeKind::Alias(target) => format!("alias {target:?}"),
        };
        if skip.contains(&id) {
            let kind = if node.is_map() { "map" } else { "seq" };
            out.push(format!("{:?} {kind} of 0", node.span()));
            id = doc.nodes[id as usize].arg();
        } else {
            out.push(format!("{:?} {what}", node.span()));
            id += 1;
        }
    }
    out
}

/// What the rules leave out of a definition, without what they leave out of every object
/// (its `status`): the tests of the definitions' specs, which keep their `status` whole.
static SPEC_ONLY: Unread = Unread {
    in_every_object: &[],
    ..crate::k8s::UNREAD_BY_RULES
};

/// A CustomResourceDefinition whose spec is not first, with stored values before and after it.
const DEFINITION: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations: {note: \"tab\\there\"}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  versions:
    - name: v1
      schema:
        openAPIV3Schema:
          description: \"line\\none\"
          type: object
status:
  acceptedNames: {kind: \"Wid\\tget\"}
  conditions: [{type: Established}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: after, annotations: {a: \"x\\ty\"}}
spec: {replicas: 2}
";

#[test]
fn the_rules_get_a_definition_without_its_spec_and_everything_else_in_place() {
    let file = FileId(0xdef);
    let (whole, errors) = parse_stream(file, DEFINITION);
    assert!(errors.is_empty(), "{errors:?}");
    let (pruned, errors) = parse_stream_without(file, DEFINITION, &SPEC_ONLY);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(skips_in(file), 1);
    assert_eq!(pruned.len(), 2);
    let (full, part) = (&whole[0], &pruned[0]);
    assert!(part.spec_dropped() && !full.spec_dropped());
    let spec = full.root().unwrap().get("spec").unwrap();
    let kept = part.root().unwrap().get("spec").unwrap();
    assert!(kept.is_map() && kept.own_entries().next().is_none());
    // An empty collection's subtree ends right after it, as a parsed `{}`'s does.
    assert_eq!(part.nodes[kept.id as usize].arg(), kept.id + 1);
    assert_eq!(
        slice(DEFINITION, kept.span()),
        slice(DEFINITION, spec.span())
    );
    assert_eq!(part.nodes.len(), full.nodes.len() - 21);
    // Every node outside the spec, with its span, kind and value (stored ones included).
    assert_eq!(outline(part, &[]), outline(full, &[spec.id]));
    let root = part.root().unwrap();
    assert_eq!(
        root.str_at(&["metadata", "name"]),
        Some("widgets.example.com")
    );
    assert_eq!(
        root.str_at(&["metadata", "annotations", "note"]),
        Some("tab\there")
    );
    assert_eq!(
        root.str_at(&["status", "acceptedNames", "kind"]),
        Some("Wid\tget")
    );
    assert_eq!(part.values.len() + "line\none".len(), full.values.len());
    // The next document is untouched.
    assert_eq!(pruned[1], whole[1]);
}

#[test]
fn a_definition_is_kept_whole_where_its_spec_could_matter() {
    let kept_whole = [
        // Not a definition, or not of apiextensions.k8s.io.
        DEFINITION.replace("kind: CustomResourceDefinition", "kind: Widget"),
        DEFINITION.replace("apiextensions.k8s.io/v1", "example.com/v1"),
        // Node ids that are reported or point elsewhere: duplicate keys, tags, anchors.
        DEFINITION.replace(
            "  group: example.com\n",
            "  group: example.com\n  group: b\n",
        ),
        DEFINITION.replace("type: object", "type: !!str object"),
        DEFINITION.replace("type: object", "type: &t object\n          format: *t"),
        // Items of a mapping that is not a list.
        format!("apiVersion: v1\nkind: Bag\nitems:\n{}", as_item(DEFINITION)),
        // An empty spec.
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {}\n"
            .to_string(),
        // A key repeated deep inside the spec, which the scanner skips as it reads it (the
        // document is read again, whole), and `kind` said again after the spec.
        DEFINITION.replace(
            "          type: object\n",
            "          type: object\n          type: x\n",
        ),
        DEFINITION.replace("status:\n", "kind: CustomResourceDefinition\nstatus:\n"),
    ];
    for text in &kept_whole {
        let (whole, _) = parse_stream(FileId(0), text.as_str());
        let (pruned, _) = parse_stream_without(FileId(0), text.as_str(), &SPEC_ONLY);
        assert!(!whole.is_empty());
        assert_eq!(pruned, whole, "{text}");
    }
}

#[test]
fn a_definition_whose_kind_comes_after_its_spec_loses_its_spec_all_the_same() {
    // The scanner skips the inside of a spec only once `apiVersion` and `kind` were read;
    // after them, the spec is built and dropped at the document's end, to the same tree.
    let first = DEFINITION.split("---").next().unwrap_or_default();
    let moved = first.replacen(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n",
        "",
        1,
    ) + "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n";
    // A spec whose last entry is a collection followed by a comment on its line: the spec
    // ends after the comment, not where that collection closed.
    let commented = first.replace("status:\n", "  extra: {a: [1]}  # trailing\nstatus:\n");
    for text in [first, moved.as_str(), commented.as_str()] {
        pruned_as_whole(FileId(0), text);
    }
}

/// The documents of `text` without their definition's spec, checked against the whole parse:
/// no errors in either, the first document's spec dropped, every node outside it the same.
fn pruned_as_whole(file: FileId, text: &str) -> Vec<Document> {
    let (whole, errors) = parse_stream(file, text);
    assert!(errors.is_empty(), "{text}\n{errors:?}");
    let (pruned, errors) = parse_stream_without(file, text, &SPEC_ONLY);
    assert!(errors.is_empty(), "{text}\n{errors:?}");
    let spec = whole[0].root().unwrap().get("spec").unwrap().id;
    assert!(pruned[0].spec_dropped(), "{text}");
    assert_eq!(
        outline(&pruned[0], &[]),
        outline(&whole[0], &[spec]),
        "{text}"
    );
    pruned
}

#[test]
fn values_on_several_lines_inside_a_skipped_spec_keep_their_errors() {
    // Inside the skipped spec the scanner checks a value's lines but does not build it; the
    // values after the spec are built again.
    let description = "          description: \"line\\none\"\n";
    let after = "status:\n  message: first\n    second\n  note: |\n    kept\n    whole\n";
    let first = DEFINITION.split("---").next().unwrap_or_default();
    let with = |value: &str| {
        first
            .replace(description, value)
            .replace("status:\n", after)
    };
    let valid = [
        "          description: plain one\n            and two\n\n            and three\n",
        "          description: |\n            literal\n              more\n\n            end\n",
        "          description: >-\n            folded\n            lines\n",
        "          description: \"quoted \\\"one\\\"\n            two\\tthree\\\n            four\"\n",
        "          description: 'single ''one''\n\n            two'\n",
        "          enum:\n            - plain item\n              on two lines\n",
    ];
    for (i, value) in valid.iter().enumerate() {
        let text = with(value);
        let file = FileId(0x5c0 + i as u32);
        let pruned = pruned_as_whole(file, &text);
        // Skipped by kubegap's scanner as it read it, not given up to granit-parser.
        assert_eq!(skips_in(file), 1, "{text}");
        let root = pruned[0].root().unwrap();
        assert_eq!(root.str_at(&["status", "message"]), Some("first second"));
        assert_eq!(root.str_at(&["status", "note"]), Some("kept\nwhole\n"));
    }
    // Broken values inside the spec: the errors of the whole parse, where it puts them.
    let broken = [
        "          description: \"never closed\n            still open\n",
        "          description: \"bad \\q escape\n            two\"\n",
        "          description: |\n            text\n           \tafter a tab\n",
        "          description: plain\n            key: inside\n",
    ];
    for value in broken {
        let text = with(value);
        let (_, whole) = parse_stream(FileId(0), &text);
        let (_, pruned) = parse_stream_without(FileId(0), &text, &SPEC_ONLY);
        assert!(!whole.is_empty(), "{text}");
        assert_eq!(pruned, whole, "{text}");
    }
}

/// The files whose builders skipped the inside of a definition's spec, once per spec
/// (`Builder::close_skipped`): tests run in parallel, so each test that reads it parses under
/// a file id of its own.
pub(super) static SKIPS: std::sync::Mutex<Vec<FileId>> = std::sync::Mutex::new(Vec::new());

pub(super) fn skips_in(file: FileId) -> usize {
    SKIPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .filter(|f| **f == file)
        .count()
}

#[test]
fn only_the_items_of_a_list_are_skipped_as_definitions() {
    // A sequence under another key is no list's items: its definitions are read whole.
    let file = FileId(0x0e1);
    let text = format!(
        "apiVersion: v1\nkind: List\nother:\n{}",
        as_item(DEFINITION)
    );
    let (pruned, errors) = parse_stream_without(file, &text, &SPEC_ONLY);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(skips_in(file), 0);
    assert_eq!(pruned, parse_stream(file, &text).0);
}

#[test]
fn the_inside_of_a_definitions_spec_is_skipped_as_it_is_read() {
    let text = Arc::new(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  names: {kind: W}\n  scope: Namespaced\nstatus: {}\n"
            .to_string(),
    );
    let at = |needle: &str| u32::try_from(text.find(needle).unwrap()).unwrap();
    let u32_of = |n: usize| u32::try_from(n).unwrap();
    let mut builder = Builder::new(FileId(0), &text, Reading::whole(Some(&SPEC_ONLY)));
    builder.may_skip = true;
    builder.begin(0, 0, None);
    builder.open_collection(Kind::Map, 0, 0, 0, None);
    for (key, value) in [
        ("apiVersion", "apiextensions.k8s.io/v1"),
        ("kind", "CustomResourceDefinition"),
    ] {
        builder.scalar(
            key,
            Kind::Plain,
            at(key),
            at(key) + u32_of(key.len()),
            0,
            None,
        );
        builder.scalar(
            value,
            Kind::Plain,
            at(value),
            at(value) + u32_of(value.len()),
            0,
            None,
        );
    }
    builder.scalar("spec", Kind::Plain, at("spec"), at("spec") + 4, 0, None);
    builder.open_collection(Kind::Map, at("group"), at("group"), 0, None);
    // Inside the spec: counted, not kept.
    builder.scalar("group", Kind::Plain, at("group"), at("group") + 5, 0, None);
    builder.scalar("g", Kind::Plain, at("g\n"), at("g\n") + 1, 0, None);
    builder.scalar("names", Kind::Plain, at("names"), at("names") + 5, 0, None);
    builder.open_collection(Kind::Map, at("{kind"), at("{kind"), 0, None);
    builder.scalar(
        "kind",
        Kind::Plain,
        at("kind: W"),
        at("kind: W") + 4,
        0,
        None,
    );
    builder.scalar("W", Kind::Plain, at("W}"), at("W}") + 1, 0, None);
    builder.close(at("W}") + 2);
    builder.scalar("scope", Kind::Plain, at("scope"), at("scope") + 5, 0, None);
    let end = at("Namespaced") + 10;
    builder.scalar("Namespaced", Kind::Plain, at("Namespaced"), end, 0, None);
    assert_eq!((builder.nodes.len(), builder.skipped_nodes), (7, 8));
    builder.close(at("status"));
    assert_eq!(builder.skipped, [(6, true)]);
    assert_eq!(builder.nodes[6].end, end);
    builder.scalar(
        "status",
        Kind::Plain,
        at("status"),
        at("status") + 6,
        0,
        None,
    );
    builder.open_collection(Kind::Map, at("{}"), at("{}"), 0, None);
    builder.close(at("{}") + 2);
    let doc = builder.finish(u32_of(text.len())).unwrap();
    assert!(doc.spec_dropped());
    // The same document as the scanner builds without skipping.
    let (pruned, _) = parse_stream_without(FileId(0), &text, &SPEC_ONLY);
    assert_eq!(outline(&doc, &[]), outline(&pruned[0], &[]));
}

#[test]
fn a_skipped_spec_counts_towards_the_node_limit() {
    // 7 nodes outside the spec, 6 inside it: over a limit of 10 whether the inside is
    // skipped or built.
    TEST_MAX_NODES.with(|m| m.set(10));
    let text = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  a: 1\n  b: 2\n  c: 3\n";
    let (docs, errors) = parse_stream_without(FileId(0), text, &SPEC_ONLY);
    TEST_MAX_NODES.with(|m| m.set(MAX_NODES));
    assert!(docs.is_empty(), "{docs:?}");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].message.starts_with("document too large"),
        "{errors:?}"
    );
}

#[test]
fn keys_that_may_repeat_are_found_in_small_and_large_mappings() {
    assert_ne!(key_hash("a"), key_hash("a\0"));
    assert_ne!(key_hash("abcdefgh"), key_hash("abcdefgh\0"));
    for n in [2u64, 16, 17, 200] {
        let mut distinct: Vec<u64> = (0..n).map(|i| i * 7919).collect();
        assert!(!may_repeat(&mut distinct), "{n}");
        let mut repeated: Vec<u64> = (0..n).map(|i| i * 7919).chain([(n - 1) * 7919]).collect();
        assert!(may_repeat(&mut repeated), "{n}");
    }
}

/// The first document of `text` as an item of a block sequence.
fn as_item(text: &str) -> String {
    text.split("---")
        .next()
        .unwrap_or_default()
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{}{l}\n", if i == 0 { "- " } else { "  " }))
        .collect()
}

#[test]
fn the_definitions_of_a_list_lose_their_specs_and_its_other_items_stay() {
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: 2, note: \"x\\ty\"}\n";
    let text = format!(
        "apiVersion: v1\nkind: List\nitems:\n{}{}{}metadata: {{resourceVersion: \"\"}}\n",
        as_item(DEFINITION),
        as_item(deployment),
        // Its spec last: the item's subtree ends where the dropped one does.
        as_item(
            &DEFINITION
                .replace("widgets", "gadgets")
                .replace("status:\n  acceptedNames: {kind: \"Wid\\tget\"}\n  conditions: [{type: Established}]\n", "")
        ),
    );
    let file = FileId(0x5ec);
    let (whole, errors) = parse_stream(file, text.as_str());
    assert!(errors.is_empty(), "{errors:?}");
    let (pruned, _) = parse_stream_without(file, text.as_str(), &SPEC_ONLY);
    // Both definitions' specs were skipped as they were read, not built and dropped.
    assert_eq!(skips_in(file), 2);
    let (full, part) = (&whole[0], &pruned[0]);
    assert!(part.spec_dropped());
    let items: Vec<NodeRef<'_>> = full.root().unwrap().get("items").unwrap().items().collect();
    assert_eq!(items.len(), 3);
    let specs: Vec<NodeId> = [&items[0], &items[2]]
        .iter()
        .map(|item| item.get("spec").unwrap().id)
        .collect();
    assert_eq!(part.nodes.len(), full.nodes.len() - 2 * 21);
    assert!(items[2].own_entries().last().unwrap().0.as_str() == Some("spec"));
    assert_eq!(outline(part, &[]), outline(full, &specs));
    let kept: Vec<NodeRef<'_>> = part.root().unwrap().get("items").unwrap().items().collect();
    assert_eq!(kept[1].str_at(&["spec", "note"]), Some("x\ty"));
    assert_eq!(
        kept[2].str_at(&["metadata", "name"]),
        Some("gadgets.example.com")
    );
}

/// Every file under `testdata` (manifests, Helm streams, broken and adversarial ones): each
/// collection spans its whole subtree, which [`NodeRef::self_contained_source`] relies on to
/// tell two nodes apart by their text; and that text is `None` exactly when an alias is in it.
#[test]
fn collections_span_their_subtrees() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let mut stack = vec![root];
    let (mut files, mut collections, mut with_alias) = (0, 0, 0);
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if !matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            ) {
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            files += 1;
            for doc in parse_stream(FileId(0), &text).0 {
                for (id, n) in doc.nodes.iter().enumerate() {
                    let end = match n.kind() {
                        Kind::Seq | Kind::Map => n.arg() as usize,
                        _ => id + 1,
                    };
                    let subtree = &doc.nodes[id..end];
                    if matches!(n.kind(), Kind::Seq | Kind::Map) {
                        collections += 1;
                        for d in subtree {
                            assert!(
                                n.start <= d.start && d.end <= n.end,
                                "{}: node {id} {n:?} does not span {d:?}",
                                path.display()
                            );
                        }
                    }
                    let aliased = subtree.iter().any(|d| d.kind() == Kind::Alias);
                    with_alias += usize::from(aliased);
                    let source = doc.node(id as NodeId).self_contained_source();
                    assert_eq!(source.is_none(), aliased, "{}: node {id}", path.display());
                    if let Some(source) = source {
                        assert_eq!(source, &text[n.start as usize..n.end as usize]);
                    }
                }
            }
        }
    }
    assert!(
        files > 100 && collections > 2_000 && with_alias > 0,
        "{files} {collections} {with_alias}"
    );
}

/// A Deployment as `kubectl get -o yaml` prints it: `metadata.managedFields` between other
/// metadata, a `status` last, stored values (escapes) before, inside and after both.
const FROM_THE_API: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  annotations: {note: \"a\\tb\"}
  managedFields:
  - apiVersion: apps/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:spec:
        f:replicas: {}
    manager: \"kubectl\\tclient\"
    time: \"2026-11-02T09:14:03Z\"
  name: web
  labels: {tier: \"front\\tend\"}
spec:
  replicas: 2
  template:
    metadata:
      managedFields: [{manager: kept}]
    spec:
      status: {kept: true}
status:
  conditions:
  - message: \"ReplicaSet \\\"web\\\" progressed\"
    type: Progressing
  replicas: 2
";

/// The ids of the values of `status` and `metadata.managedFields` in the object `object`.
fn unread_of(object: NodeRef<'_>) -> Vec<NodeId> {
    [
        object.get("metadata").and_then(|m| m.get("managedFields")),
        object.get("status"),
    ]
    .into_iter()
    .flatten()
    .map(|n| n.id)
    .collect()
}

#[test]
fn the_rules_get_every_object_without_its_status_and_managed_fields() {
    let (whole, errors) = parse_stream(FileId(0), FROM_THE_API);
    assert!(errors.is_empty(), "{errors:?}");
    let (pruned, errors) =
        parse_stream_without(FileId(0), FROM_THE_API, &crate::k8s::UNREAD_BY_RULES);
    assert!(errors.is_empty(), "{errors:?}");
    let (full, part) = (&whole[0], &pruned[0]);
    assert!(part.spec_dropped() && !full.spec_dropped());
    let skip = unread_of(full.root().unwrap());
    assert_eq!(skip.len(), 2);
    // Every node outside the two, with its span, kind and value (stored ones included); the
    // two are empty collections spanning what was written.
    assert_eq!(outline(part, &[]), outline(full, &skip));
    let root = part.root().unwrap();
    for (id, kept) in skip.iter().zip(unread_of(root)) {
        assert_eq!(full.node(*id).span(), part.node(kept).span());
        assert_eq!(part.nodes[kept as usize].arg(), kept + 1);
    }
    assert_eq!(
        root.str_at(&["metadata", "labels", "tier"]),
        Some("front\tend")
    );
    assert_eq!(
        root.str_at(&["metadata", "annotations", "note"]),
        Some("a\tb")
    );
    // Not an object's: kept.
    let template = root.path(&["spec", "template"]).unwrap();
    let fields = template.path(&["metadata", "managedFields"]).unwrap();
    assert_eq!(
        fields.items().next().unwrap().str_at(&["manager"]),
        Some("kept")
    );
    assert_eq!(template.str_at(&["spec", "status", "kept"]), Some("true"));
    // Two stored values went with them.
    assert_eq!(
        part.values.len() + "kubectl\tclient".len() + "ReplicaSet \"web\" progressed".len(),
        full.values.len()
    );
}

#[test]
fn the_items_of_a_list_lose_their_status_and_managed_fields() {
    let text = format!(
        "apiVersion: v1\nitems:\n{}{}kind: List\nmetadata:\n  resourceVersion: \"\"\n",
        as_item(FROM_THE_API),
        as_item(&FROM_THE_API.replace("name: web", "name: api"))
    );
    let (whole, errors) = parse_stream(FileId(0), text.as_str());
    assert!(errors.is_empty(), "{errors:?}");
    let (pruned, _) = parse_stream_without(FileId(0), text.as_str(), &crate::k8s::UNREAD_BY_RULES);
    let (full, part) = (&whole[0], &pruned[0]);
    let skip: Vec<NodeId> = full
        .root()
        .unwrap()
        .get("items")
        .unwrap()
        .items()
        .flat_map(unread_of)
        .collect();
    assert_eq!(skip.len(), 4);
    assert_eq!(outline(part, &[]), outline(full, &skip));
    // The list's own `metadata` is no object's: nothing of it is dropped either way.
    let names: Vec<&str> = part
        .root()
        .unwrap()
        .get("items")
        .unwrap()
        .items()
        .filter_map(|i| i.str_at(&["metadata", "name"]))
        .collect();
    assert_eq!(names, ["web", "api"]);
}

#[test]
fn status_and_managed_fields_are_kept_whole_where_their_nodes_could_matter() {
    let kept_whole = [
        // Node ids that are reported or point elsewhere: duplicate keys, tags, anchors.
        FROM_THE_API
            .replace(
                "fieldsType: FieldsV1\n",
                "fieldsType: FieldsV1\n    fieldsType: again\n",
            )
            .replace(
                "    type: Progressing\n",
                "    type: Progressing\n    type: again\n",
            ),
        FROM_THE_API
            .replace(
                "  - apiVersion: apps/v1\n",
                "  - apiVersion: !!str apps/v1\n",
            )
            .replace("  replicas: 2\n", "  replicas: !!int 2\n"),
        FROM_THE_API
            .replace("fieldsType: FieldsV1", "fieldsType: &t FieldsV1")
            .replace("type: Progressing", "type: &u Progressing")
            + "aliases: [*t, *u]\n",
        // A suppression marker written in a quoted scalar: a comment or not, the nodes tell.
        FROM_THE_API
            .replace("type: Progressing", "type: \"# kubegap-ignore: x\"")
            .replace(
                "manager: \"kubectl",
                "manager: \"# kubegap-ignore: y kubectl",
            ),
        // Empty or not collections.
        FROM_THE_API
            .replace(
                "  managedFields:\n  - apiVersion",
                "  managedFields: []\n  other:\n  - apiVersion",
            )
            .replace("status:\n", "status: {}\nnot_status:\n"),
    ];
    for text in &kept_whole {
        let (whole, errors) = parse_stream(FileId(0), text.as_str());
        assert!(errors.is_empty(), "{errors:?}\n{text}");
        let (pruned, _) =
            parse_stream_without(FileId(0), text.as_str(), &crate::k8s::UNREAD_BY_RULES);
        assert_eq!(pruned, whole, "{text}");
    }
}

/// A document too large for the builder stays too large when what would make it so is in a
/// `status` the rules drop: the limit counts the nodes dropped.
#[test]
fn the_node_limit_counts_the_nodes_dropped() {
    let mut status = String::from("status:\n  conditions:\n");
    for i in 0..40 {
        status.push_str(&format!("  - type: c{i}\n"));
    }
    let mut spec = String::from("spec:\n  containers:\n");
    for i in 0..20 {
        spec.push_str(&format!("  - name: c{i}\n"));
    }
    // The status before the spec: its nodes are gone by the time the spec's reach the limit.
    let text = format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\n{status}{spec}");
    let nodes = parse_stream(FileId(0), text.as_str()).0[0].nodes.len();
    assert!(nodes > 120, "{nodes}");
    let limited = |limit: usize| {
        TEST_MAX_NODES.with(|m| m.set(limit));
        let whole = parse_stream(FileId(0), text.as_str());
        let pruned = parse_stream_without(FileId(0), text.as_str(), &crate::k8s::UNREAD_BY_RULES);
        TEST_MAX_NODES.with(|m| m.set(MAX_NODES));
        (whole, pruned)
    };
    let ((whole, whole_errors), (pruned, pruned_errors)) = limited(nodes - 10);
    assert!(whole.is_empty() && pruned.is_empty());
    assert_eq!(whole_errors, pruned_errors);
    assert_eq!(whole_errors.len(), 1);
    let ((whole, _), (pruned, _)) = limited(nodes + 1);
    assert_eq!((whole.len(), pruned.len()), (1, 1));
    assert_eq!(pruned[0].nodes.len(), nodes - 2 - 3 * 40);
}

/// A document larger than the builder keeps its buffer for (a dump of a cluster is one) takes
/// that buffer instead of a copy; the documents after it, parsed into a new one, are whole.
#[test]
fn a_document_too_large_for_the_scratch_leaves_the_next_ones_whole() {
    let items: String = (0..SCRATCH_MAX_NODES / 2)
        .map(|i| format!("- {{a: {i}}}\n"))
        .collect();
    let small = "kind: Service\nmetadata: {name: \"s\\tt\"}\n";
    let text = format!("items:\n{items}---\n{small}---\n{small}");
    let (docs, errors) = parse_stream(FileId(0), text.as_str());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(docs.len(), 3);
    assert!(docs[0].nodes.len() > SCRATCH_MAX_NODES);
    assert_eq!(
        docs[0]
            .root()
            .unwrap()
            .get("items")
            .unwrap()
            .items()
            .count(),
        SCRATCH_MAX_NODES / 2
    );
    let (alone, _) = parse_stream(FileId(0), small);
    for doc in &docs[1..] {
        assert_eq!(doc.nodes.len(), alone[0].nodes.len());
        assert_eq!(
            doc.root().unwrap().str_at(&["metadata", "name"]),
            Some("s\tt")
        );
    }
}

#[test]
fn a_marker_is_found_by_one_search_as_line_by_line() {
    // Markers at the start, after CRLF, at the end with and without a line break, followed by
    // a blank, a tab, a CR or a character (not a marker), indented (not one), `----`, and
    // `\n--` at the very end; every start offset, past the end included.
    let texts = [
        "",
        "---",
        "---\n",
        "--- a\n",
        "a: 1\n---\nb: 2\n",
        "a: 1\r\n---\r\nb: 2\r\n---",
        "x\n---x\n----\n ---\n---\tt\n--- |\n  ---\n",
        "a\n--",
        "a\n---",
        "- a\n- b\n--- # c\n...\n---\n",
        "\n\n---\n\n---\n",
    ];
    let mut found = 0;
    for text in texts {
        let bytes = text.as_bytes();
        for from in 0..=bytes.len() + 1 {
            let by_lines = find_marker_by_lines(bytes, from);
            assert_eq!(find_marker(bytes, from), by_lines, "{text:?} from {from}");
            found += usize::from(by_lines.is_some());
        }
    }
    assert!(found > 50, "{found}");
}

/// Chunks start at the first marker line of each stretch of `size` bytes after the first (or at
/// the comment lines above it; not after a directive), found as a search of the whole text
/// line by line finds it, whatever straddles a stretch's end (`---x` cut after its `---`).
#[test]
fn chunks_start_at_each_stretchs_first_marker() {
    let texts = [
        "a: 1\n---\nb: 2\n---x: 3\n--- \nc: 4\n# one\n# two\n---\nd: 5\n",
        "x\n---x\n----\n ---\n---\tt\n--- |\n  ---\n---\n",
        "%YAML 1.2\n---\na: 1\n...\n%YAML 1.2\n---\nb: 2\n---\r\nc: 3\r\n",
        "k: v\n---x\n---x\n---x\n---x\n---\n",
        "- a\n- b\n--- # c\n...\n---\n\n\n---\n\n---\n",
        "# a comment\n# and another\n---\na: 1\n",
    ];
    let mut cuts_seen = 0;
    for text in texts {
        let bytes = text.as_bytes();
        for size in 1..=bytes.len() + 1 {
            let mut expected = vec![0];
            for k in 1..bytes.len().div_ceil(size) {
                let found = find_marker_by_lines(bytes, k * size).filter(|f| *f < (k + 1) * size);
                if let Some(cut) = found.and_then(|f| chunk_cut_before(bytes, f)) {
                    if cut > *expected.last().unwrap_or(&0) {
                        expected.push(cut);
                    }
                }
            }
            cuts_seen += expected.len() - 1;
            assert_eq!(chunk_starts(text, size), expected, "{text:?}, size {size}");
        }
    }
    assert!(cuts_seen > 100, "{cuts_seen}");
}
