//! Entry points of the fuzz targets in `fuzz/` (cargo-fuzz), shared with the seed-replay test
//! `kubegap-core/tests/fuzz_seeds.rs`: a crash the fuzzer found stays fixed even where the
//! fuzzer cannot run. Each entry takes arbitrary bytes and must return without panicking.

use std::path::PathBuf;

use crate::source::FileId;
use crate::{lint, FileKind, Input, Settings};

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// The YAML layer: the event parser and the arena tree as the rules get it, then every
/// accessor rules use on the documents (through the object graph). A document the rules get
/// is the whole one, unless it is a definition whose spec was dropped. Where the text is a
/// `List` whose items can be parsed in parts (as a large dump of a cluster is), every item a
/// part gives the same documents.
pub fn yaml(data: &[u8]) {
    let text = text(data);
    let unread = &crate::k8s::UNREAD_BY_RULES;
    let (docs, _) = crate::yaml::parse_stream_without(FileId(0), &text, unread);
    let (whole, _) = crate::yaml::parse_stream(FileId(0), &text);
    assert_eq!(docs.len(), whole.len());
    for (doc, whole) in docs.iter().zip(&whole) {
        assert!(
            doc.spec_dropped() || doc == whole,
            "documents differ for {text:?}"
        );
    }
    list_in_parts(&text, &whole, &docs, 1);
    let graph = crate::k8s::Graph::build(&docs);
    let _ = graph.object_count();
}

/// Where `text` is a `List` whose items can be parsed in parts of `part_bytes` (as a large dump
/// of a cluster is), checks that they give `whole` and, without what the rules do not read,
/// `pruned` (the documents of [`crate::yaml::parse_stream`] and
/// [`crate::yaml::parse_stream_without`]). Returns whether the parts were taken.
pub fn list_in_parts(
    text: &str,
    whole: &[crate::yaml::Document],
    pruned: &[crate::yaml::Document],
    part_bytes: usize,
) -> bool {
    let unread = &crate::k8s::UNREAD_BY_RULES;
    let mut taken = false;
    for (unread, want) in [(None, whole), (Some(unread), pruned)] {
        if let Some((parts, errors)) =
            crate::yaml::parse_list_in_parts(FileId(0), text, unread, part_bytes)
        {
            assert!(errors.is_empty());
            assert_eq!(parts, want, "parts differ for {text:?}");
            taken = true;
        }
    }
    taken
}

/// kubegap's YAML scanner against granit-parser: both must give the same documents (nodes,
/// spans, values, origins, duplicates, bounds) and the same errors for any input, reading
/// everything and reading what the rules read (where the scanner skips a definition's `spec`
/// as it reads it, and granit-parser's nodes are built, then dropped).
pub fn yaml_scanner(data: &[u8]) {
    let text = text(data);
    let (docs, errors) = crate::yaml::parse(FileId(0), text.as_str());
    let (want, want_errors) = crate::yaml::parse_reference(FileId(0), text.as_str());
    assert_eq!(docs, want, "documents differ for {text:?}");
    assert_eq!(
        format!("{errors:?}"),
        format!("{want_errors:?}"),
        "errors differ for {text:?}"
    );
    let unread = &crate::k8s::UNREAD_BY_RULES;
    let (docs, errors) = crate::yaml::parse_stream_without(FileId(0), text.as_str(), unread);
    let (want, want_errors) =
        crate::yaml::parse_reference_without(FileId(0), text.as_str(), unread);
    assert_eq!(
        docs, want,
        "documents differ without what the rules do not read, for {text:?}"
    );
    assert_eq!(
        format!("{errors:?}"),
        format!("{want_errors:?}"),
        "errors differ without what the rules do not read, for {text:?}"
    );
}

/// The haproxy parser and model: parse, then the whole lint of the file (every rule reads the
/// model).
pub fn haproxy(data: &[u8]) {
    let (_config, _errors) = crate::haproxy::parse(FileId(0), &text(data));
    lint_as(data, FileKind::Haproxy);
}

/// The nginx parser: one file, no includes (no path).
pub fn nginx(data: &[u8]) {
    lint_as(data, FileKind::Nginx);
}

/// The nginx loader with includes: the bytes are split at NUL bytes into `nginx.conf` and
/// include files (`a.conf`, `conf.d/b.conf`, …, the names every include pattern in the
/// dictionary uses), written to a scratch directory (on `/dev/shm`, in memory, where it
/// exists), then linted from `nginx.conf`.
pub fn nginx_includes(data: &[u8]) {
    const NAMES: &[&str] = &[
        "nginx.conf",
        "a.conf",
        "conf.d/b.conf",
        "conf.d/c.conf",
        "snippets/d.conf",
        "mime.types",
    ];
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("kubegap-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["conf.d", "snippets"] {
        if std::fs::create_dir_all(dir.join(sub)).is_err() {
            return;
        }
    }
    let mut parts = data.split(|b| *b == 0);
    for name in NAMES {
        let part = parts.next().unwrap_or(b"");
        if std::fs::write(dir.join(name), part).is_err() {
            return;
        }
    }
    let main = dir.join("nginx.conf");
    let settings = Settings {
        nginx_prefix: Some(dir.clone()),
        ..Settings::default()
    };
    let bytes = std::fs::read(&main).unwrap_or_default();
    let _ = lint(
        vec![Input {
            name: "nginx.conf".into(),
            path: Some(main),
            bytes,
            kind: FileKind::Nginx,
            canonical: None,
            prepared: None,
        }],
        &settings,
    );
}

/// The whole lint of one in-memory file; the first byte picks the kind.
pub fn lint_one(data: &[u8]) {
    let Some((first, rest)) = data.split_first() else {
        return;
    };
    let kind = match first % 3 {
        0 => FileKind::Yaml,
        1 => FileKind::Haproxy,
        _ => FileKind::Nginx,
    };
    lint_as(rest, kind);
}

/// The configuration file (`.kubegap.yaml`), without following `extends:`.
pub fn config(data: &[u8]) {
    let mut settings = Settings::default();
    let _ = settings.apply_yaml(&text(data), &|id| crate::rules::find(id).is_some());
}

fn lint_as(data: &[u8], kind: FileKind) {
    let settings = Settings::default();
    let _ = lint(
        vec![Input {
            name: "input".into(),
            path: None,
            bytes: data.to_vec(),
            kind,
            canonical: None,
            prepared: None,
        }],
        &settings,
    );
}
