//! The JSON Schema of `.kubegap.yaml` (`docs/kubegap.schema.json`) is generated from the code
//! (`kubegap_core::config::json_schema`), and every example configuration in the repository
//! satisfies it (and is accepted by kubegap itself).

use std::path::{Path, PathBuf};

use kubegap_core::yaml::{NodeKind, NodeRef, ScalarStyle};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn schema_in_docs_is_generated_from_the_code() {
    let mut text = serde_json::to_string_pretty(&kubegap_core::config::json_schema()).unwrap();
    text.push('\n');
    let path = root().join("docs/kubegap.schema.json");
    if std::env::var_os("KUBEGAP_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap_or_default(),
        text,
        "docs/kubegap.schema.json is stale: KUBEGAP_BLESS=1 cargo test -p kubegap-cli --test config_schema"
    );
}

/// A YAML node as JSON, typed as YAML 1.2's core schema types plain scalars.
fn to_json(node: NodeRef<'_>) -> Value {
    let node = node.resolve();
    match node.kind() {
        NodeKind::Scalar(text, style) => {
            if style != ScalarStyle::Plain {
                return Value::String(text.to_string());
            }
            match text {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                "null" | "~" | "" => Value::Null,
                t => t
                    .parse::<i64>()
                    .map(Value::from)
                    .or_else(|_| t.parse::<f64>().map(Value::from))
                    .unwrap_or_else(|_| Value::String(t.to_string())),
            }
        }
        NodeKind::Seq(_) => Value::Array(node.items().map(to_json).collect()),
        NodeKind::Map(_) => Value::Object(
            node.entries()
                .into_iter()
                .map(|(k, v)| (k.as_str().unwrap_or_default().to_string(), to_json(v)))
                .collect(),
        ),
        NodeKind::Alias(_) => Value::Null,
    }
}

fn yaml_to_json(text: &str) -> Value {
    let (docs, errors) = kubegap_core::yaml::parse(kubegap_core::FileId(0), text);
    assert!(errors.is_empty(), "{errors:?}");
    docs.first()
        .and_then(|d| d.root())
        .map_or(Value::Object(Default::default()), to_json)
}

fn validator() -> (boon::Schemas, boon::SchemaIndex) {
    let schema = kubegap_core::config::json_schema();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    let url = "https://kubegap.invalid/kubegap.schema.json";
    compiler.add_resource(url, schema).unwrap();
    let index = compiler.compile(url, &mut schemas).unwrap();
    (schemas, index)
}

/// Every configuration file of the repository, and the README's example.
fn examples() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut push = |path: PathBuf| {
        let text = std::fs::read_to_string(&path).unwrap();
        out.push((path.display().to_string(), text));
    };
    for entry in std::fs::read_dir(root().join("rulesets")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            push(path);
        }
    }
    for entry in std::fs::read_dir(root().join("testdata/incidents")).unwrap() {
        let path = entry.unwrap().path().join(".kubegap.yaml");
        if path.is_file() {
            push(path);
        }
    }
    push(root().join("testdata/cli/kubegap-config.yaml"));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = &readme[readme
        .find("### Configuration")
        .expect("README configuration section")..];
    let block = section
        .split("```yaml\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("README configuration example");
    out.push(("README.md (### Configuration)".into(), block.to_string()));
    out.sort();
    out
}

#[test]
fn every_example_configuration_satisfies_the_schema() {
    let (schemas, index) = validator();
    let examples = examples();
    assert!(examples.len() >= 9, "{}", examples.len());
    for (name, text) in examples {
        let value = yaml_to_json(&text);
        if let Err(e) = schemas.validate(&value, index) {
            panic!("{name}: {e:#}\n{value}");
        }
        // kubegap itself accepts it too.
        let mut settings = kubegap_core::Settings::default();
        settings
            .apply_yaml(&text, &|id| kubegap_core::rules::find(id).is_some())
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
}

#[test]
fn the_schema_rejects_what_kubegap_rejects() {
    let (schemas, index) = validator();
    for bad in [
        "ignor: [k8s-no-pdb]\n",
        "ignore: [k8s-no-pdbb]\n",
        "severity: {k8s-no-pdb: fatal}\n",
        "cluster: {node: 3}\n",
        "topology: {outer: [{keepalive: 5s}]}\n",
        "extends: /proc/self/environ\n",
        "complete: yes please\n",
    ] {
        let value = yaml_to_json(bad);
        assert!(
            schemas.validate(&value, index).is_err(),
            "the schema accepts {bad:?}"
        );
        let mut settings = kubegap_core::Settings::default();
        let rejected = settings
            .apply_yaml(bad, &|id| kubegap_core::rules::find(id).is_some())
            .is_err();
        // `extends:` paths are checked when the file is loaded, not by apply_yaml.
        assert!(
            rejected || bad.starts_with("extends"),
            "kubegap accepts {bad:?}"
        );
    }
}
