//! `docs/rules/` is generated from the rules' own documentation and committed. This test
//! regenerates it in memory and fails on any difference; `KUBEGAP_BLESS=1 cargo test` rewrites it.

use std::collections::BTreeMap;
use std::path::Path;

use kubegap_core::rules::RULES;

fn generate() -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut index = String::from(
        "# Rule reference\n\n<!-- Generated from the rules' doc comments by kubegap-core/tests/generated_docs.rs; \
         do not edit. `KUBEGAP_BLESS=1 cargo test -p kubegap-core --test generated_docs` rewrites it. -->\n\n\
         | rule | default severity | layer | summary |\n|---|---|---|---|\n",
    );
    // Lint rules, then the rules only `kubegap diff` runs.
    for rule in RULES
        .iter()
        .chain(kubegap_core::rules::DIFF_CHECKS.iter().map(|(r, _)| r))
    {
        index.push_str(&format!(
            "| [`{id}`]({id}.md) | {sev} | {domain:?} | {summary} |\n",
            id = rule.id,
            sev = rule.default_severity.name(),
            domain = rule.domain,
            summary = rule.summary.replace('|', "\\|"),
        ));
        let mut page = format!(
            "# `{}`\n\n<!-- Generated from the rule's doc comment; do not edit. -->\n\nDefault severity: **{}**. Layer: {:?}.\n\n",
            rule.id,
            rule.default_severity.name(),
            rule.domain
        );
        page.push_str(rule.markdown().trim_end());
        page.push('\n');
        if !rule.evidence.is_empty() {
            page.push_str("\n## Evidence\n\n");
            for link in rule.evidence {
                page.push_str(&format!("- <{link}>\n"));
            }
        }
        files.insert(format!("{}.md", rule.id), page);
    }
    files.insert("README.md".to_string(), index);
    files
}

#[test]
fn rule_reference_is_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules");
    let expected = generate();
    if std::env::var_os("KUBEGAP_BLESS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if !expected.contains_key(path.file_name().unwrap().to_str().unwrap()) {
                std::fs::remove_file(path).unwrap();
            }
        }
        for (name, text) in &expected {
            std::fs::write(dir.join(name), text).unwrap();
        }
        return;
    }
    let mut stale = Vec::new();
    for (name, text) in &expected {
        if std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(text.as_str()) {
            stale.push(name.clone());
        }
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !expected.contains_key(&name) {
            stale.push(format!("{name} (no such rule)"));
        }
    }
    assert!(stale.is_empty(), "docs/rules is stale: {stale:?}; run `KUBEGAP_BLESS=1 cargo test -p kubegap-core --test generated_docs`");
}

/// The `kubegap.io/*` table of `docs/USER_GUIDE.md` is generated from
/// `kubegap_core::value::declarations::DECLARATIONS`, between the BEGIN/END declarations markers.
#[test]
fn declarations_table_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/USER_GUIDE.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let begin = text
        .find("<!-- BEGIN declarations")
        .expect("USER_GUIDE.md has a BEGIN declarations marker");
    let body_start = begin + text[begin..].find("-->\n").expect("marker ends") + 4;
    let end = text
        .find("<!-- END declarations -->")
        .expect("USER_GUIDE.md has an END declarations marker");
    let expected = kubegap_core::value::declarations::markdown_table();
    if std::env::var_os("KUBEGAP_BLESS").is_some() {
        let updated = format!("{}{}{}", &text[..body_start], expected, &text[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert_eq!(
        &text[body_start..end],
        expected,
        "the declarations table of docs/USER_GUIDE.md is stale; run `KUBEGAP_BLESS=1 cargo test -p kubegap-core --test generated_docs`"
    );
}
