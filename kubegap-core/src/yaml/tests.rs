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
fn duplicates_are_recorded_with_both_positions() {
    let text = "a: 1\nb: 2\na: 3\n";
    let (docs, _) = parse_str(text);
    let (first, dup) = docs[0].duplicates[0];
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
    assert!(docs[0].duplicates.is_empty());
}

#[test]
fn helm_source_comments_become_origins() {
    let text = "---\n# Source: chart/templates/a.yaml\na: 1\n---\n# Source: chart/templates/b.yaml\nb: 2\n";
    let (docs, _) = parse_str(text);
    assert_eq!(docs[0].origin.as_ref().unwrap().0, "chart/templates/a.yaml");
    assert_eq!(docs[1].origin.as_ref().unwrap().0, "chart/templates/b.yaml");
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
