//! Line-independent finding fingerprints: what makes two findings of two runs "the same
//! finding" for baselines and `kubegap diff`.
//!
//! A fingerprint hashes, never a line number:
//! - the rule id;
//! - the Helm origin (`# Source:` template) when the document has one, else the file name
//!   (relative to the run's root, given by the caller);
//! - the Kubernetes object identity `Kind/namespace/name` of the object the finding is in;
//! - the key path from that object to the finding's node (`spec.ports[http].targetPort`;
//!   sequence items by their `name`, else their index), or for haproxy.cfg and nginx the
//!   enclosing sections/blocks and the directive's text;
//! - the message with line citations (`x.yaml:12`, `line 12`) replaced by `N`: its subject.
//!
//! Inserting lines, moving documents within a file or reordering files changes none of
//! these; editing the object, the key or the values the message cites does.

use crate::finding::Finding;
use crate::source::{FileKind, SourceFile, SourceMap, Span};
use crate::yaml::{Document, NodeKind};

/// The fingerprint of one finding, with its parts for human readers.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint {
    /// The file name (relative to the run's root) or the Helm origin.
    pub file: String,
    /// The rule id.
    pub rule: String,
    /// `Kind/namespace/name`, when the finding is inside a Kubernetes object.
    pub object: Option<String>,
    /// The key path inside the object, or the section path and directive of a proxy config.
    pub key: String,
    /// 16 hex digits of a 64-bit FNV-1a hash of every part and the message's subject.
    pub hash: String,
}

/// The fingerprint of `finding`, whose spans point into `files`; `documents` are the YAML
/// documents of the run (any superset of the finding's file's documents, in file order as the
/// engine builds them); `file_name` is how the finding's file is named in the fingerprint
/// (its name relative to the run's root).
pub fn fingerprint(
    finding: &Finding,
    files: &SourceMap,
    documents: &[Document],
    file_name: &str,
) -> Fingerprint {
    let file = files.get(finding.span.file);
    let (object, key) = match file.kind {
        FileKind::Yaml => yaml_place(documents, finding.span, file),
        FileKind::Haproxy => (None, haproxy_place(file, finding.span.start)),
        FileKind::Nginx => (None, nginx_place(file, finding.span.start)),
        // A chart's `Chart.yaml`: one finding per chart, told apart by the file.
        FileKind::HelmChart => (None, String::new()),
    };
    let place = finding
        .origin
        .clone()
        .unwrap_or_else(|| file_name.to_string());
    let subject = subject(&own_file_citations(&finding.message, file.base_name()));
    let mut hasher = Fnv::default();
    for part in [
        finding.rule,
        &place,
        object.as_deref().unwrap_or(""),
        &key,
        &subject,
    ] {
        hasher.write(part.as_bytes());
        hasher.write(&[0]);
    }
    Fingerprint {
        file: place,
        rule: finding.rule.to_string(),
        object,
        key,
        hash: format!("{:016x}", hasher.0),
    }
}

/// The message with citations of the finding's own file (`haproxy.cfg:12`, as every
/// [`crate::value::provenance::Source::cite`] writes them) named `this.file:12`: the same
/// config read from stdin (`<stdin>`) or from disk keeps its fingerprint.
fn own_file_citations(message: &str, base_name: &str) -> String {
    if base_name.is_empty() {
        return message.to_string();
    }
    let needle = format!("{base_name}:");
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(&needle) {
        let boundary = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || c == '`' || c == '(');
        let digit = rest[at + needle.len()..].starts_with(|c: char| c.is_ascii_digit());
        out.push_str(&rest[..at]);
        if boundary && digit {
            out.push_str("this.file:");
        } else {
            out.push_str(&needle);
        }
        rest = &rest[at + needle.len()..];
    }
    out.push_str(rest);
    out
}

/// The message without line numbers: `a.yaml:12` → `a.yaml:N`, `line 12` → `line N`.
pub fn subject(message: &str) -> String {
    let bytes = message.as_bytes();
    let mut out = String::with_capacity(message.len());
    let mut i = 0;
    'outer: while i < bytes.len() {
        let c = bytes[i];
        let digits_from = |j: usize| {
            let mut k = j;
            while k < bytes.len() && bytes[k].is_ascii_digit() {
                k += 1;
            }
            k
        };
        // `name.ext:123`: a file citation (the word before the colon contains a dot).
        if c == b':' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit() {
            let word_start = message[..i]
                .rfind(|ch: char| ch.is_whitespace() || ch == '`' || ch == '(')
                .map_or(0, |p| p + 1);
            if message[word_start..i].contains('.') {
                out.push_str(":N");
                i = digits_from(i + 1);
                continue;
            }
        }
        for word in ["line ", "lines "] {
            if message[i..].starts_with(word)
                && bytes.get(i + word.len()).is_some_and(u8::is_ascii_digit)
                && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            {
                out.push_str(word);
                out.push('N');
                i = digits_from(i + word.len());
                continue 'outer;
            }
        }
        let ch = message[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// One step of a path from an object to a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A mapping key.
    Key(String),
    /// A sequence item: its `name` when it has a scalar one, and its index.
    Item(Option<String>, usize),
}

/// The path to the node at `offset` in a document, from the innermost Kubernetes object
/// (a mapping with `kind` and `metadata`) that holds it, with that object's identity.
pub fn node_path(doc: &Document, offset: u32) -> (Option<String>, Vec<Seg>) {
    let mut object = None;
    let mut path: Vec<Seg> = Vec::new();
    let Some(mut cur) = doc.root else {
        return (None, path);
    };
    let contains = |id: u32| {
        let n = &doc.nodes[id as usize];
        n.start <= offset && (offset < n.end || (n.start == n.end && offset == n.start))
    };
    // Bounded by the document's depth: every step goes into a strictly nested node.
    for _ in 0..doc.nodes.len() {
        match doc.kind(cur) {
            NodeKind::Map(entries) => {
                if let Some(id) = identity(doc, cur) {
                    object = Some(id);
                    path.clear();
                }
                let mut next = None;
                for (k, v) in entries.pairs() {
                    let key = doc.node(k).as_str().unwrap_or("?").to_string();
                    if contains(k) {
                        path.push(Seg::Key(key));
                        break;
                    }
                    if contains(v) {
                        path.push(Seg::Key(key));
                        next = Some(v);
                        break;
                    }
                }
                match next {
                    Some(v) => cur = v,
                    None => break,
                }
            }
            NodeKind::Seq(items) => {
                let Some((i, item)) = items.enumerate().find(|(_, id)| contains(*id)) else {
                    break;
                };
                let name = doc
                    .node(item)
                    .get("name")
                    .and_then(|n| n.as_str())
                    .map(str::to_string);
                path.push(Seg::Item(name, i));
                cur = item;
            }
            _ => break,
        }
    }
    (object, path)
}

/// The document of `documents` (grouped by file, in offset order) that holds `span`.
pub fn document_of(documents: &[Document], span: Span) -> Option<&Document> {
    let first = documents.partition_point(|d| d.file < span.file);
    let in_file = &documents[first..];
    let in_file = &in_file[..in_file.partition_point(|d| d.file == span.file)];
    let after = in_file.partition_point(|d| d.start <= span.start);
    in_file[..after].last().filter(|d| span.start <= d.end)
}

/// (object identity, key path) of a span in a YAML file.
fn yaml_place(documents: &[Document], span: Span, file: &SourceFile) -> (Option<String>, String) {
    let Some(doc) = document_of(documents, span).filter(|d| d.root.is_some()) else {
        return (None, line_text(file, span.start));
    };
    let (object, segs) = node_path(doc, span.start);
    let mut path: Vec<String> = Vec::new();
    for seg in segs {
        match seg {
            Seg::Key(k) => path.push(k),
            Seg::Item(name, i) => {
                let item = match name {
                    Some(name) => format!("[{name}]"),
                    None => format!("[{i}]"),
                };
                match path.last_mut() {
                    Some(last) => last.push_str(&item),
                    None => path.push(item),
                }
            }
        }
    }
    (object, path.join("."))
}

/// `Kind/namespace/name` of a mapping that is a Kubernetes object.
fn identity(doc: &Document, map: u32) -> Option<String> {
    let node = doc.node(map);
    let kind = node.str_at(&["kind"])?;
    let metadata = node.get("metadata")?;
    let name = metadata
        .str_at(&["name"])
        .or_else(|| metadata.str_at(&["generateName"]))
        .unwrap_or("");
    let namespace = metadata.str_at(&["namespace"]).unwrap_or("default");
    Some(format!("{kind}/{namespace}/{name}"))
}

/// The trimmed text of the line at `offset`, whitespace runs collapsed.
fn line_text(file: &SourceFile, offset: u32) -> String {
    let line = file.line_index(offset);
    collapse(file.text.get(file.line_range(line)).unwrap_or(""))
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// haproxy.cfg: `section header > directive`.
fn haproxy_place(file: &SourceFile, offset: u32) -> String {
    let line = file.line_index(offset);
    let own = line_text(file, offset);
    for i in (0..=line).rev() {
        let text = file.text.get(file.line_range(i)).unwrap_or("");
        let first = text.split_whitespace().next().unwrap_or("");
        if matches!(
            first,
            "global"
                | "defaults"
                | "frontend"
                | "backend"
                | "listen"
                | "resolvers"
                | "peers"
                | "userlist"
                | "program"
                | "cache"
                | "ring"
                | "http-errors"
                | "mailers"
        ) && !text.starts_with(char::is_whitespace)
        {
            let header = collapse(text);
            return if i == line {
                header
            } else {
                format!("{header} > {own}")
            };
        }
    }
    own
}

/// nginx: the headers of the enclosing blocks, then the directive's text.
fn nginx_place(file: &SourceFile, offset: u32) -> String {
    let text = file.text.get(..offset as usize).unwrap_or("");
    let mut stack: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut in_comment = false;
    let mut quote: Option<char> = None;
    for ch in text.chars() {
        if in_comment {
            if ch == '\n' {
                in_comment = false;
            }
            continue;
        }
        if let Some(q) = quote {
            current.push(ch);
            if ch == q {
                quote = None;
            }
            continue;
        }
        match ch {
            '#' => in_comment = true,
            '"' | '\'' => {
                quote = Some(ch);
                current.push(ch);
            }
            '{' => {
                stack.push(collapse(&current));
                current.clear();
            }
            '}' => {
                stack.pop();
                current.clear();
            }
            ';' => current.clear(),
            _ => current.push(ch),
        }
    }
    stack.push(line_text(file, offset));
    stack.join(" > ")
}

/// FNV-1a, 64 bits: stable across platforms and releases, unlike `DefaultHasher`.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_drops_line_citations_only() {
        assert_eq!(
            subject("`timeout client` (line 12) vs svc.yaml:40 and web:8080"),
            "`timeout client` (line N) vs svc.yaml:N and web:8080"
        );
        assert_eq!(subject("pipeline 3"), "pipeline 3");
    }

    #[test]
    fn own_file_citations_do_not_depend_on_the_file_name() {
        let disk = own_file_citations("`timeout tunnel 1h` at haproxy.cfg:29", "haproxy.cfg");
        let stdin = own_file_citations("`timeout tunnel 1h` at <stdin>:29", "<stdin>");
        assert_eq!(disk, stdin);
        assert_eq!(subject(&disk), "`timeout tunnel 1h` at this.file:N");
        assert_eq!(
            own_file_citations("see other.cfg:3 and xhaproxy.cfg:4", "haproxy.cfg"),
            "see other.cfg:3 and xhaproxy.cfg:4"
        );
    }

    fn fp_of(text: &str, needle: &str) -> Fingerprint {
        let mut files = SourceMap::default();
        let id = files.add(SourceFile::new(
            "a.yaml",
            None,
            text.to_string(),
            FileKind::Yaml,
        ));
        let (docs, _) = crate::yaml::parse_stream(id, text);
        let at = text.find(needle).unwrap();
        let f = Finding {
            rule: "r",
            severity: crate::finding::Severity::Warning,
            message: "m".into(),
            span: Span::new(id, at, at + needle.len()),
            labels: Vec::new(),
            help: None,
            evidence: &[],
            notes: Vec::new(),
            origin: None,
        };
        fingerprint(&f, &files, &docs, "a.yaml")
    }

    #[test]
    fn yaml_path_names_object_and_key() {
        let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - name: http\n    targetPort: app\n";
        let fp = fp_of(text, "app");
        assert_eq!(fp.object.as_deref(), Some("Service/default/web"));
        assert_eq!(fp.key, "spec.ports[http].targetPort");
        let moved = format!("# a comment\n\n{text}");
        assert_eq!(fp_of(&moved, "app").hash, fp.hash);
    }
}
