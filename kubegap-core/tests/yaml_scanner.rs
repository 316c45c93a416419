//! kubegap's YAML scanner (`src/yaml/fast.rs`) against granit-parser, the reference it falls
//! back to: for every input, `yaml::parse` (the scanner, with granit-parser for the documents
//! it gives up) and `yaml::parse_reference` (granit-parser alone) must give the same documents
//! (nodes, spans, values, origins, duplicate keys, document bounds) and the same errors.
//! Compared on hand-written edge cases, on every YAML and JSON file of `testdata/`, and on the
//! k8s and helm corpus. The `yaml_scanner` fuzz target does the same on arbitrary input.
//!
//! The coverage tests make sure the scanner really reads what it was built for, so that a
//! scanner that gave every document up (and so always agreed) would fail here.
//!
//! On the same files, a key lookup in the trees (`NodeRef::get_entry`, a hand-written walk over
//! a mapping's pairs) is compared with the mapping's entries (`NodeRef::entries`).

use std::path::{Path, PathBuf};

use kubegap_core::yaml::{
    parse, parse_reference, parse_reference_without, parse_stream_without, scanner_coverage,
    scanner_coverage_without, Document, NodeKind,
};
use kubegap_core::{FileId, ParseError};

mod support;
use support::corpus;

/// Both parsers, reading everything and reading what the rules read (where the scanner skips
/// a definition's `spec` as it reads it and granit-parser's nodes are built, then dropped).
fn assert_same(name: &str, text: &str) {
    let (docs, errors) = parse(FileId(0), text);
    let (want, want_errors) = parse_reference(FileId(0), text);
    assert_same_documents(name, (&docs, &errors), (&want, &want_errors));
    let unread = &kubegap_core::k8s::UNREAD_BY_RULES;
    let (docs, errors) = parse_stream_without(FileId(0), text, unread);
    let (want, want_errors) = parse_reference_without(FileId(0), text, unread);
    let name = format!("{name}, without what the rules do not read");
    assert_same_documents(&name, (&docs, &errors), (&want, &want_errors));
}

fn assert_same_documents(
    name: &str,
    (docs, errors): (&[Document], &[ParseError]),
    (want, want_errors): (&[Document], &[ParseError]),
) {
    assert_eq!(
        format!("{errors:?}"),
        format!("{want_errors:?}"),
        "{name}: errors differ"
    );
    assert_eq!(docs.len(), want.len(), "{name}: document count differs");
    for (doc, want) in docs.iter().zip(want) {
        assert!(
            doc == want,
            "{name}: document {} differs\nscanner:   {:?}\nreference: {:?}",
            want.index,
            (doc.start, doc.end, doc.root, &doc.nodes, doc.origin_span()),
            (
                want.start,
                want.end,
                want.root,
                &want.nodes,
                want.origin_span()
            ),
        );
    }
}

/// Inputs at the edges of what the scanner reads itself, and just past them (which it must
/// give up, leaving them to granit-parser).
const EDGE_CASES: &[&str] = &[
    "",
    "\n\n",
    "# only a comment\n",
    "a: 1",
    "a: 1\n",
    "a:\n",
    "a:",
    "a: 1\n...\n",
    "---\n",
    "---\n---\n# c\n---\na: 1\n",
    "--- # c\na: 1\n",
    "---a: 1\n",
    "--- a\n",
    "---\t\na: 1\n",
    "%YAML 1.2\n---\na: 1\n",
    "# Source: x/y.yaml\napiVersion: v1\n",
    "---\n# Source: x/y.yaml\napiVersion: v1\n",
    "a: 1\n# Source: next.yaml\n---\nb: 2\n",
    "a: 1\n\n---\n# Source: x\n---\nb: 2\n",
    "a: &x 1\n\n---\n# Source: x\n---\nb: 2\n",
    "a: &x 1\n# Source: x\n---\nb: *x\n",
    "a: 1 # Source: trailing.yaml\n---\nb: 2\n",
    "  a: 1\n  b: 2\n",
    "    a: \"t\"\nspec: {c: d}\n---\nx: 1\n",
    "a: 1\n  b: 2\n",
    "a: 1\nb:\n  c: 2\n  d:\n    - e\n    - f: g\n      h: i\n",
    "list:\n- a\n- b: c\n  d: e\n-   - nested\n# own comment\n",
    "key:\n  - a\n  -\n  - b: \n    c: d\n",
    "- a\n- - x\n  - y\n-\n  k: v\n- k2: |\n    z\n- \"\"\n",
    "- # c\n- a\n",
    "-   \n- a\n",
    "x:\n  -\n\n  - a\n",
    "- a\nb: c\n",
    "k: # c\nj:   \nm: #\n",
    "a: b: c\n",
    "a: - b\n",
    "a:b\n",
    "a : b\n",
    "\"q\": 1\n'r': 2\n\"s\":3\n",
    "a: \"x\\\"y\\n\\t\\u00e9\\x41\\U0001F600\\/\\\\\"\n",
    "a: \"bad \\q escape\"\n",
    "a: 'it''s'\n",
    "a: \"multi\n  line\n\n  quoted\"\n",
    "a: \"escaped \\\n  break\"\n",
    "a: 'multi\n  line'\n",
    "a: \"unterminated\n",
    "a: \"x\"y\n",
    "a: \"x\" # c\n",
    "a: \"x\"# c\n",
    "a: plain\n  continued\n\n  after blank\nb: 1\n",
    "a: plain\n  - dash\n  * star\n",
    "a: plain\n  # comment\n  more\n",
    "a: plain # c\n  more\n",
    "a: plain\n  k: v\n",
    "- plain\n  continued\n- b\n",
    "a: |\n  line1\n\n  line2\n",
    "a: |-\n\n  x\n   y\n  # not comment\n\n  \n# after\nb: 1\n",
    "a: |+\n  x\n\n\nb: 1\n",
    "a: >\n  folded\n  text\n\n  para\n",
    "a: >-\n  folded\n    more indented\n  back\n",
    "a: |2\n   x\n",
    // Indentation indicators (Istio's definitions write `description: |2-`): the indentation
    // is the mapping's column plus the digit, content may be indented further, in either
    // header order, nested, in a sequence, folded, kept, before a less indented key.
    "a:\n  b: |2-\n      x\n    y\n\n  c: 1\n",
    "a:\n  b: |-2\n    x\n  c: 1\n",
    "a:\n  b: >2\n     x\n    y\n    z\n\n    w\n  c: 1\n",
    "a:\n  b: |2+\n    x\n\n\n  c: 1\n",
    "a:\n  b: |1\n    x\n",
    "a:\n  b: |9\n    x\n",
    "a:\n  b: |2\n   x\n",
    "a:\n  b: |2\n\n      \n    x\n",
    "a:\n  b: |2\n     \n    x\n",
    "a:\n  b: |2 # c\n    x\n",
    "a:\n  b: |0\n    x\n",
    "a:\n  b: |22\n    x\n",
    "a:\n  b: |2-2\n    x\n",
    "a:\n  b: |--\n    x\n",
    "- |2\n   x\n- >1-\n  y\n",
    "a:\n- |2\n   x\n",
    "a:\n  |2\n   x\n",
    "a:\n  - b: |2-\n        x\n      c: 1\n",
    "a: |2\n\tx\n",
    "a: | # c\n  x\n",
    "a: |#c\n  x\n",
    "a: |\nb: 1\n",
    "a: |\n  x",
    "a: |\n    \n  x\n",
    "a: |\n  x\n    \n",
    "a: |\n  x\n \tb\n",
    "a: |\n  tab\there\n",
    "a: [1, 2, \"three\", 'four', [5], {six: 6}]\n",
    "a: [ ]\nb: {}\nc: [a,]\n",
    "a: [a, b\n  , c]\n",
    "a: [a,\nb]\n",
    "a: [\n  1,\n  2\n]\n",
    "a: [a: b]\n",
    "a: {b}\n",
    "a: {b: }\n",
    "a: {\"b\":1, \"c\" : 2}\n",
    "a: {b:c}\n",
    "a: [http://x, a:b]\n",
    "a: [a # c\n  , b]\n",
    "{\"a\": 1}\n\n# c\n",
    "{a: 1}\n# x\n---\n[b]\n",
    "[1, 2]\n",
    "a: {{template}}\n",
    "a: [unterminated\n",
    "a: &anchor 1\nb: *anchor\n",
    "a: !!str 1\n",
    "? complex\n: key\n",
    "a: 1\na: 2\nb: 3\nb: 4\n",
    "<<: {a: 1}\nb: 2\n",
    "a:\ttab\n",
    "\ta: 1\n",
    "a: 1\r\nb: 2\r\n",
    "\u{feff}a: 1\n",
    "a: caf\u{e9} \u{65e5}\u{672c}\n",
    "a: x\u{85}y\n",
    "a: x\u{2028}y\n",
    "a: -1\nb: -\n",
    "a: @x\n",
    "a: `x`\n",
    "a: %x\n",
    "- - - deep\n",
    "key with spaces: value with spaces\n",
    "a: value#not-a-comment\n",
    "a: http://example.com:8080/path\n",
    // A definition's `spec`, skipped by the scanner where what the rules do not read is left
    // out: last, before a comment, flow, empty, with a key said twice inside it.
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  a: 1\n  b:\n  - c\n",
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  a: |\n    x\n\n  # c\nstatus: {}\n",
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {a: [1, 2], b: c}\n",
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n",
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  a: 1\n  a: 2\n",
];

#[test]
fn scanner_agrees_with_granit_parser_on_edge_cases() {
    for (i, text) in EDGE_CASES.iter().enumerate() {
        assert_same(&format!("edge case {i} {text:?}"), text);
    }
}

#[test]
fn scanner_agrees_with_granit_parser_on_nesting_beyond_its_depth() {
    let deep_block: String = (0..200)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    assert_same("deep block", &deep_block);
    let deep_flow = format!("a: {}{}\n", "[".repeat(600), "]".repeat(600));
    assert_same("deep flow", &deep_flow);
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        {
            out.push(path);
        }
    }
}

fn agree_on_dir(dir: &Path) -> usize {
    let mut files = Vec::new();
    yaml_files(dir, &mut files);
    for path in &files {
        let bytes = std::fs::read(path).expect("readable");
        let text = String::from_utf8_lossy(&bytes);
        assert_same(&path.display().to_string(), &text);
    }
    files.len()
}

#[test]
fn scanner_agrees_with_granit_parser_on_testdata() {
    let n = agree_on_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata"));
    assert!(n > 200, "only {n} files under testdata/");
}

#[test]
fn scanner_agrees_with_granit_parser_on_the_corpus() {
    let root = corpus();
    if !support::present(
        &root.join("k8s"),
        "scanner_agrees_with_granit_parser_on_the_corpus",
    ) {
        return;
    }
    let n = agree_on_dir(&root.join("k8s")) + agree_on_dir(&root.join("helm"));
    assert!(n > 4000, "only {n} corpus files");
}

#[test]
fn scanner_reads_helm_output_itself() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/cli/helm-stream.yaml");
    let text = std::fs::read_to_string(path).expect("helm-stream.yaml");
    let coverage = scanner_coverage(&text);
    assert!(!coverage.whole, "{coverage:?}");
    assert_eq!(coverage.fallback, 0, "{coverage:?}");
    let (docs, _) = parse(FileId(0), text.as_str());
    assert_eq!(coverage.fast, docs.len(), "{coverage:?}");
    assert!(coverage.fast >= 3, "{coverage:?}");
}

/// The texts of the k8s and helm corpus's YAML files, or none where the corpus is absent.
fn corpus_texts(test: &str) -> Option<Vec<String>> {
    let root = corpus();
    if !support::present(&root.join("helm"), test) {
        return None;
    }
    let mut files = Vec::new();
    yaml_files(&root.join("k8s"), &mut files);
    yaml_files(&root.join("helm"), &mut files);
    let read = |path: &PathBuf| {
        String::from_utf8_lossy(&std::fs::read(path).expect("readable")).into_owned()
    };
    Some(files.iter().map(read).collect())
}

#[test]
fn scanner_reads_most_of_the_corpus_itself() {
    let Some(texts) = corpus_texts("scanner_reads_most_of_the_corpus_itself") else {
        return;
    };
    let (mut fast, mut left) = (0, 0);
    for text in &texts {
        let c = scanner_coverage(text);
        fast += c.fast;
        left += c.fallback + usize::from(c.whole);
    }
    // 2026-12-01: 7,707 documents read by the scanner, 106 documents or files left.
    assert!(fast * 100 >= (fast + left) * 95, "{fast} read, {left} left");
}

/// The comparison without what the rules do not read is only worth something where the scanner
/// skips the definitions' specs itself: most of the corpus's definitions.
#[test]
fn scanner_skips_most_of_the_corpus_definitions_specs_itself() {
    let Some(texts) = corpus_texts("scanner_skips_most_of_the_corpus_definitions_specs_itself")
    else {
        return;
    };
    let unread = &kubegap_core::k8s::UNREAD_BY_RULES;
    let (mut skipped, mut definitions) = (0, 0);
    for text in &texts {
        skipped += scanner_coverage_without(text, unread).skipped;
        let (docs, _) = parse(FileId(0), text.as_str());
        definitions += docs
            .iter()
            .filter(|d| {
                d.root()
                    .and_then(|r| r.get("kind"))
                    .and_then(|k| k.as_str())
                    == Some("CustomResourceDefinition")
            })
            .count();
    }
    // 2026-12-05: 238 of the 248 definitions.
    assert!(
        skipped * 100 >= definitions * 90,
        "{skipped} of {definitions} definitions skipped"
    );
}

/// Values the scanner computes itself (folding, chomping, escapes), spelled out.
#[test]
fn scanner_values() {
    let cases: &[(&str, &str)] = &[
        ("a: |\n  x\n\n  y\n\n", "x\n\ny\n"),
        ("a: |-\n  x\n  y\n", "x\ny"),
        ("a: |+\n  x\n\n\nb: 1\n", "x\n\n\n"),
        ("a: >\n  one\n  two\n\n  three\n", "one two\nthree\n"),
        ("a: >-\n  one\n  two\n", "one two"),
        ("a: \"x\\ty\\u00e9\"\n", "x\ty\u{e9}"),
        ("a: 'it''s'\n", "it's"),
        ("a: \"one\n  two\n\n  three\"\n", "one two\nthree"),
        ("a: plain\n  more\n\n  para\n", "plain more\npara"),
        // Indentation indicators: the spaces past the indentation they set are content.
        ("a: |2\n   x\n  y\n", " x\ny\n"),
        ("a: |-2\n    x\n", "  x"),
        ("b:\n  a: |2-\n      x\n    y\n", "  x\ny"),
        ("a: >2-\n  x\n  y\n", "x y"),
        ("a: |1+\n  x\n\n", " x\n\n"),
    ];
    for (text, want) in cases {
        let coverage = scanner_coverage(text);
        assert_eq!((coverage.fast, coverage.fallback), (1, 0), "{text:?}");
        let (docs, errors) = parse(FileId(0), *text);
        assert!(errors.is_empty(), "{text:?}: {errors:?}");
        let root = docs[0].root();
        let value = root
            .and_then(|r| r.get("a").or_else(|| r.path(&["b", "a"])))
            .expect("a");
        match value.kind() {
            NodeKind::Scalar(s, _) => assert_eq!(s, *want, "{text:?}"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

/// Every lookup of a key in every mapping of `text` (each of its keys, those merged into it
/// and one it has not) finds what the mapping's entries list: `NodeRef::get_entry` walks a
/// mapping's pairs by hand, `NodeRef::entries` through its children. The number of lookups.
fn lookups_agree_with_entries(name: &str, text: &str) -> usize {
    let (docs, _) = parse(FileId(0), text);
    let mut lookups = 0;
    for doc in &docs {
        let mut stack: Vec<_> = doc.root().into_iter().collect();
        while let Some(node) = stack.pop() {
            match node.kind() {
                NodeKind::Map(_) => {
                    let entries = node.entries();
                    let mut keys: Vec<&str> =
                        entries.iter().filter_map(|(k, _)| k.as_str()).collect();
                    keys.push("no such key");
                    for key in keys.into_iter().filter(|k| *k != "<<") {
                        let spans = |(k, v): (
                            kubegap_core::yaml::NodeRef<'_>,
                            kubegap_core::yaml::NodeRef<'_>,
                        )| (k.span(), v.span());
                        let expected = entries
                            .iter()
                            .find(|(k, _)| k.as_str() == Some(key))
                            .copied()
                            .map(spans);
                        assert_eq!(node.get_entry(key).map(spans), expected, "{name}: {key}");
                        lookups += 1;
                    }
                    for (k, v) in node.own_entries() {
                        stack.extend([k, v]);
                    }
                }
                NodeKind::Seq(_) => stack.extend(node.items()),
                _ => {}
            }
        }
    }
    lookups
}

#[test]
fn every_lookup_agrees_with_the_entries_on_testdata_and_the_corpus() {
    let mut files = Vec::new();
    yaml_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata"),
        &mut files,
    );
    let root = corpus();
    if support::present(
        &root.join("k8s"),
        "every_lookup_agrees_with_the_entries_on_testdata_and_the_corpus",
    ) {
        yaml_files(&root.join("k8s"), &mut files);
        yaml_files(&root.join("helm"), &mut files);
    }
    let mut lookups = 0;
    for path in &files {
        let bytes = std::fs::read(path).expect("readable");
        lookups += lookups_agree_with_entries(
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        );
    }
    assert!(lookups > 10_000, "only {lookups} lookups");
}
