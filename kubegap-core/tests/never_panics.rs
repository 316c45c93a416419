//! Arbitrary input never panics, hangs or crashes the engine, whatever its kind.

use kubegap_core::{lint, FileKind, Input, Settings};
use proptest::prelude::*;

fn run(bytes: Vec<u8>, kind: FileKind) {
    let input = Input {
        name: "fuzz".into(),
        path: None,
        bytes,
        kind,
        canonical: None,
        prepared: None,
    };
    let report = lint(vec![input], &Settings::default());
    // Every finding's span is inside its file.
    for f in &report.findings {
        let file = report.files.get(f.span.file);
        assert!(f.span.end as usize <= file.text.len());
    }
}

/// Fragments that steer random input towards YAML structure.
fn yaml_like() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "apiVersion: v1\n",
        "kind: Service\n",
        "kind: List\nitems:\n",
        "- ",
        "  ",
        "---\n",
        "...\n",
        "&a ",
        "*a ",
        "<<: *a\n",
        "{",
        "}",
        "[",
        "]",
        ": ",
        ", ",
        "\"",
        "'",
        "|\n",
        ">-\n",
        "# Source: x\n",
        "\t",
        "\r\n",
        "?",
        "metadata: {name: x}\n",
        "spec:\n",
        "selector: {app: x}\n",
        "ports: [{port: 80, targetPort: http}]\n",
        "\u{feff}",
        "é",
        "!!str ",
        "%YAML 1.2\n",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        run(bytes.clone(), FileKind::Yaml);
        run(bytes.clone(), FileKind::Haproxy);
        run(bytes, FileKind::Nginx);
    }

    #[test]
    fn yaml_shaped_text(text in yaml_like()) {
        run(text.into_bytes(), FileKind::Yaml);
    }
}

#[test]
fn hostile_yaml_inputs() {
    let mut laughs = String::from("a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n");
    let mut prev = 'a';
    for c in 'b'..='z' {
        laughs.push_str(&format!(
            "{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
        ));
        prev = c;
    }
    laughs.push_str("apiVersion: v1\nkind: ConfigMap\nmetadata: *z\n");
    let merge_chain = (1..2000u32)
        .map(|i| format!("m{i}: &m{i} {{<<: *m{}, k: v}}\n", i - 1))
        .collect::<String>();
    // Nested merge keys through aliases: exponential without a budget.
    let mut merge_laughs = String::from("a: &a {x: 1}\n");
    let mut prev = 'a';
    for c in 'b'..='y' {
        merge_laughs.push_str(&format!("{c}: &{c} {{<<: [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]}}\n"));
        prev = c;
    }
    merge_laughs.push_str(
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {app: x}}\n",
    );
    let mut merge_doc = merge_laughs.clone();
    merge_doc.push_str("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  <<: [*a]\n  name: d\nspec:\n  template:\n    metadata:\n      labels: {app: x}\n");
    let (docs, _) = kubegap_core::yaml::parse(kubegap_core::FileId(0), &merge_laughs);
    let y = docs[0].root().unwrap().get("y").unwrap();
    let started = std::time::Instant::now();
    assert!(y.get("nope").is_none());
    assert!(y.entries().len() <= 1);
    // Within the hop limit, merged keys are found.
    let f = docs[0].root().unwrap().get("f").unwrap();
    assert_eq!(f.get("x").and_then(|x| x.as_i64()), Some(1));
    assert_eq!(f.entries().len(), 1);
    assert!(
        started.elapsed().as_secs() < 5,
        "merge lookups must stay bounded"
    );
    let cases: Vec<Vec<u8>> = vec![
        merge_laughs.into_bytes(),
        merge_doc.into_bytes(),
        "[".repeat(200_000).into_bytes(),
        "- ".repeat(100_000).into_bytes(),
        "{a: ".repeat(100_000).into_bytes(),
        laughs.into_bytes(),
        format!("m0: &m0 {{k: v}}\n{merge_chain}").into_bytes(),
        vec![0xff, 0xfe, b'a', b':', b' ', 0x80],
        "apiVersion: v1\nkind: List\nitems: &i [*i]\n"
            .as_bytes()
            .to_vec(),
    ];
    for bytes in cases {
        run(bytes, FileKind::Yaml);
    }
}
