//! The YAML layer: granit-parser events fed into an arena tree that kubegap owns.
//!
//! Why this design (measurements in `docs/DEPENDENCIES.md`): granit-parser gives exact byte
//! spans for every key and value, comment events (for Helm's `# Source:`), nesting limits and
//! per-document error recovery. The tree keeps raw scalar text and style so kubegap decides
//! typing; aliases stay links (never expanded, so alias bombs cost nothing); duplicate keys are
//! recorded with both positions; every walk over it is iterative or depth-bounded.

use std::collections::HashMap;

use granit_parser::{Event, Parser, ScanError};

use crate::finding::ParseError;
use crate::source::{FileId, Span};

/// Index of a node in its [`Document`].
pub type NodeId = u32;

/// Nesting limit for block and flow collections. Deeper input is a parse error, not a crash.
pub const NESTING_LIMIT: usize = 512;

/// How many alias or merge hops an accessor follows before giving up.
const ALIAS_HOPS: usize = 16;

/// How many mappings one merge-key lookup may visit: `<<: [*a, *a, …]` nested through aliases
/// would otherwise make a lookup exponential (a "billion laughs" of merge keys).
const MERGE_BUDGET: usize = 1_000;

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    /// `value`
    Plain,
    /// `'value'`
    SingleQuoted,
    /// `"value"`
    DoubleQuoted,
    /// `|`
    Literal,
    /// `>`
    Folded,
}

/// A node's content.
#[derive(Clone, Debug)]
pub enum NodeKind {
    /// A scalar with its value after escape processing and its style.
    Scalar(Box<str>, ScalarStyle),
    /// A sequence.
    Seq(Vec<NodeId>),
    /// A mapping, keys in source order (duplicates kept).
    Map(Vec<(NodeId, NodeId)>),
    /// An alias to an anchored node of the same document (`None` if the anchor was unknown).
    Alias(Option<NodeId>),
}

/// One YAML node with its byte span.
#[derive(Clone, Debug)]
pub struct Node {
    /// Content.
    pub kind: NodeKind,
    /// Start byte offset.
    pub start: u32,
    /// End byte offset.
    pub end: u32,
}

/// One YAML document of a stream.
#[derive(Debug)]
pub struct Document {
    /// The file it is in.
    pub file: FileId,
    /// Its index in the file (0-based), counting every document.
    pub index: u32,
    /// The arena.
    pub nodes: Vec<Node>,
    /// The root node (`None` for an empty document).
    pub root: Option<NodeId>,
    /// Byte range of the document in its file.
    pub start: u32,
    /// End byte offset.
    pub end: u32,
    /// `# Source: PATH` of a Helm-rendered document, with the comment's span.
    pub origin: Option<(String, Span)>,
    /// Duplicate mapping keys: (first, duplicate) key nodes.
    pub duplicates: Vec<(NodeId, NodeId)>,
    /// Tags written on nodes (e.g. `!!str`), rare in manifests, so kept aside.
    pub tags: Vec<(NodeId, String)>,
}

impl Document {
    /// The tag written on a node, if any.
    pub fn tag(&self, id: NodeId) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| *n == id)
            .map(|(_, t)| t.as_str())
    }

    /// The root as a [`NodeRef`].
    pub fn root(&self) -> Option<NodeRef<'_>> {
        self.root.map(|id| NodeRef { doc: self, id })
    }

    /// A node by id.
    pub fn node(&self, id: NodeId) -> NodeRef<'_> {
        NodeRef { doc: self, id }
    }

    /// The span of a node.
    pub fn span(&self, id: NodeId) -> Span {
        let n = &self.nodes[id as usize];
        Span {
            file: self.file,
            start: n.start,
            end: n.end,
        }
    }
}

/// A borrowed node with accessors that resolve aliases and merge keys.
#[derive(Clone, Copy, Debug)]
pub struct NodeRef<'a> {
    /// The document.
    pub doc: &'a Document,
    /// The node.
    pub id: NodeId,
}

impl<'a> NodeRef<'a> {
    fn raw(&self) -> &'a Node {
        &self.doc.nodes[self.id as usize]
    }

    /// Follows aliases (bounded). Returns `self` for non-aliases.
    pub fn resolve(self) -> NodeRef<'a> {
        let mut cur = self;
        for _ in 0..ALIAS_HOPS {
            match cur.raw().kind {
                NodeKind::Alias(Some(target)) => {
                    cur = NodeRef {
                        doc: cur.doc,
                        id: target,
                    }
                }
                _ => return cur,
            }
        }
        cur
    }

    /// The span where this node is written (the alias itself for an alias).
    pub fn span(&self) -> Span {
        self.doc.span(self.id)
    }

    /// The scalar value (any style), after resolving aliases.
    pub fn as_str(&self) -> Option<&'a str> {
        match &self.resolve().raw().kind {
            NodeKind::Scalar(s, _) => Some(&**s),
            _ => None,
        }
    }

    /// The scalar style.
    pub fn style(&self) -> Option<ScalarStyle> {
        match &self.resolve().raw().kind {
            NodeKind::Scalar(_, style) => Some(*style),
            _ => None,
        }
    }

    /// Whether this is a plain (unquoted) scalar.
    pub fn is_plain(&self) -> bool {
        self.style() == Some(ScalarStyle::Plain)
    }

    /// A YAML 1.2 core-schema integer: a plain scalar of decimal (or `0x`/`0o`) digits.
    pub fn as_i64(&self) -> Option<i64> {
        if !self.is_plain() {
            return None;
        }
        parse_int(self.as_str()?)
    }

    /// A YAML 1.2 boolean (`true`/`false` in plain style).
    pub fn as_bool(&self) -> Option<bool> {
        if !self.is_plain() {
            return None;
        }
        match self.as_str()? {
            "true" | "True" | "TRUE" => Some(true),
            "false" | "False" | "FALSE" => Some(false),
            _ => None,
        }
    }

    /// Whether this is a null (empty plain scalar, `~` or `null`).
    pub fn is_null(&self) -> bool {
        self.is_plain() && matches!(self.as_str(), Some("" | "~" | "null" | "Null" | "NULL"))
    }

    /// Whether this is a mapping (after resolving aliases).
    pub fn is_map(&self) -> bool {
        matches!(self.resolve().raw().kind, NodeKind::Map(_))
    }

    /// Items of a sequence (after resolving aliases); empty for anything else.
    pub fn items(&self) -> impl Iterator<Item = NodeRef<'a>> + 'a {
        let resolved = self.resolve();
        let doc = self.doc;
        let items: &'a [NodeId] = match &resolved.raw().kind {
            NodeKind::Seq(items) => items,
            _ => &[],
        };
        items.iter().map(move |id| NodeRef { doc, id: *id })
    }

    /// Explicit entries of a mapping as (key, value), in source order. Merge keys (`<<`) are
    /// not expanded here; use [`NodeRef::get`] or [`NodeRef::entries`].
    pub fn own_entries(&self) -> impl Iterator<Item = (NodeRef<'a>, NodeRef<'a>)> + 'a {
        let resolved = self.resolve();
        let doc = self.doc;
        let entries: &'a [(NodeId, NodeId)] = match &resolved.raw().kind {
            NodeKind::Map(entries) => entries,
            _ => &[],
        };
        entries
            .iter()
            .map(move |(k, v)| (NodeRef { doc, id: *k }, NodeRef { doc, id: *v }))
    }

    /// Entries of a mapping including those merged with `<<` (explicit keys win), bounded.
    pub fn entries(&self) -> Vec<(NodeRef<'a>, NodeRef<'a>)> {
        let mut out: Vec<(NodeRef<'a>, NodeRef<'a>)> = Vec::new();
        let mut budget = MERGE_BUDGET;
        self.collect_entries(&mut out, 0, &mut budget);
        out
    }

    fn collect_entries(
        &self,
        out: &mut Vec<(NodeRef<'a>, NodeRef<'a>)>,
        depth: usize,
        budget: &mut usize,
    ) {
        if depth > ALIAS_HOPS || *budget == 0 {
            return;
        }
        *budget -= 1;
        let mut merges = Vec::new();
        for (k, v) in self.own_entries() {
            if k.is_plain() && k.as_str() == Some("<<") {
                merges.push(v);
            } else if !out
                .iter()
                .any(|(ok, _)| ok.as_str().is_some() && ok.as_str() == k.as_str())
            {
                out.push((k, v));
            }
        }
        for m in merges {
            let m = m.resolve();
            if m.is_map() {
                m.collect_entries(out, depth + 1, budget);
            } else {
                for item in m.items() {
                    item.collect_entries(out, depth + 1, budget);
                }
            }
        }
    }

    /// The value of `key` in a mapping, then in its merge sources.
    pub fn get(&self, key: &str) -> Option<NodeRef<'a>> {
        self.get_entry(key).map(|(_, v)| v)
    }

    /// The key node and value of `key`.
    pub fn get_entry(&self, key: &str) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
        let mut budget = MERGE_BUDGET;
        self.get_entry_depth(key, 0, &mut budget)
    }

    fn get_entry_depth(
        &self,
        key: &str,
        depth: usize,
        budget: &mut usize,
    ) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
        if depth > ALIAS_HOPS || *budget == 0 {
            return None;
        }
        *budget -= 1;
        let mut merges = Vec::new();
        for (k, v) in self.own_entries() {
            match k.as_str() {
                Some(s) if s == key => return Some((k, v)),
                Some("<<") if k.is_plain() => merges.push(v),
                _ => {}
            }
        }
        for m in merges {
            let m = m.resolve();
            if m.is_map() {
                if let Some(found) = m.get_entry_depth(key, depth + 1, budget) {
                    return Some(found);
                }
            } else {
                for item in m.items() {
                    if let Some(found) = item.get_entry_depth(key, depth + 1, budget) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    /// Follows a path of keys.
    pub fn path(&self, keys: &[&str]) -> Option<NodeRef<'a>> {
        let mut cur = *self;
        for key in keys {
            cur = cur.get(key)?;
        }
        Some(cur)
    }

    /// The string at a path of keys.
    pub fn str_at(&self, keys: &[&str]) -> Option<&'a str> {
        self.path(keys)?.as_str()
    }
}

/// Parses a YAML 1.2 core integer.
pub fn parse_int(s: &str) -> Option<i64> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let value = if let Some(hex) = digits.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()?
    } else if let Some(oct) = digits.strip_prefix("0o") {
        i64::from_str_radix(oct, 8).ok()?
    } else if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        digits.parse().ok()?
    } else {
        return None;
    };
    Some(if neg { -value } else { value })
}

struct Frame {
    node: NodeId,
    pending_key: Option<NodeId>,
}

struct Builder {
    file: FileId,
    index: u32,
    nodes: Vec<Node>,
    root: Option<NodeId>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, NodeId>,
    start: u32,
    origin: Option<(String, Span)>,
    duplicates: Vec<(NodeId, NodeId)>,
    tags: Vec<(NodeId, String)>,
}

impl Builder {
    fn new(file: FileId, index: u32, start: u32) -> Builder {
        Builder {
            file,
            index,
            nodes: Vec::new(),
            root: None,
            stack: Vec::new(),
            anchors: HashMap::new(),
            start,
            origin: None,
            duplicates: Vec::new(),
            tags: Vec::new(),
        }
    }

    fn push(
        &mut self,
        kind: NodeKind,
        start: u32,
        end: u32,
        anchor: usize,
        tag: Option<String>,
    ) -> NodeId {
        let id = NodeId::try_from(self.nodes.len()).unwrap_or(NodeId::MAX);
        self.nodes.push(Node { kind, start, end });
        if let Some(tag) = tag {
            self.tags.push((id, tag));
        }
        if anchor != 0 {
            self.anchors.insert(anchor, id);
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(id);
                }
            }
            Some(frame) => {
                let parent = frame.node as usize;
                match &mut self.nodes[parent].kind {
                    NodeKind::Seq(items) => items.push(id),
                    NodeKind::Map(entries) => match frame.pending_key.take() {
                        None => frame.pending_key = Some(id),
                        Some(key) => entries.push((key, id)),
                    },
                    _ => {}
                }
            }
        }
        id
    }

    fn close(&mut self, end: u32, text: &str) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let id = frame.node as usize;
        // Block collections end where the next token starts; trim trailing blanks.
        let start = self.nodes[id].start as usize;
        let mut end = (end as usize).max(start);
        let bytes = text.as_bytes();
        // Never end before the last child (a block scalar may hold lines that look like comments).
        let floor = match &self.nodes[id].kind {
            NodeKind::Seq(items) => items.last().map(|c| self.nodes[*c as usize].end as usize),
            NodeKind::Map(entries) => entries
                .last()
                .map(|(_, v)| self.nodes[*v as usize].end as usize),
            _ => None,
        }
        .unwrap_or(start)
        .max(start);
        loop {
            while end > floor && end <= bytes.len() && bytes[end - 1].is_ascii_whitespace() {
                end -= 1;
            }
            // Own-line comments after the last entry belong to what follows, not to this node.
            // Only the gap after the last child is searched, so a long line (minified JSON)
            // is not scanned again for every collection that closes on it.
            // (The newline that ends the last child's line may sit just before `floor`.)
            let from = floor.saturating_sub(1).min(end);
            let Some(newline) = bytes[from..end].iter().rposition(|b| *b == b'\n') else {
                break;
            };
            let line_start = from + newline + 1;
            let line = &bytes[line_start..end];
            let is_comment = line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'#');
            if is_comment && line_start >= floor && line_start > start {
                end = line_start;
            } else {
                break;
            }
        }
        self.nodes[id].end = u32::try_from(end).unwrap_or(u32::MAX);
        if let NodeKind::Map(entries) = &self.nodes[id].kind {
            if entries.len() > 1 {
                let mut seen: HashMap<&str, NodeId> = HashMap::with_capacity(entries.len());
                let mut dups = Vec::new();
                for (k, _) in entries {
                    if let NodeKind::Scalar(s, style) = &self.nodes[*k as usize].kind {
                        if *style == ScalarStyle::Plain && &**s == "<<" {
                            continue;
                        }
                        if let Some(first) = seen.get(&**s) {
                            dups.push((*first, *k));
                        } else {
                            seen.insert(&**s, *k);
                        }
                    }
                }
                self.duplicates.extend(dups);
            }
        }
    }

    fn finish(self, end: u32) -> Document {
        Document {
            file: self.file,
            index: self.index,
            nodes: self.nodes,
            root: self.root,
            start: self.start,
            end,
            origin: self.origin,
            duplicates: self.duplicates,
            tags: self.tags,
        }
    }
}

fn byte_of(marker: &granit_parser::Marker) -> u32 {
    u32::try_from(marker.byte_offset().unwrap_or(marker.index())).unwrap_or(u32::MAX)
}

fn scalar_style(style: granit_parser::ScalarStyle) -> ScalarStyle {
    match style {
        granit_parser::ScalarStyle::SingleQuoted => ScalarStyle::SingleQuoted,
        granit_parser::ScalarStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
        granit_parser::ScalarStyle::Literal => ScalarStyle::Literal,
        granit_parser::ScalarStyle::Folded => ScalarStyle::Folded,
        _ => ScalarStyle::Plain,
    }
}

/// Extracts the path of a Helm `# Source: PATH` comment.
fn source_comment(text: &str) -> Option<&str> {
    let rest = text.trim().strip_prefix("Source:")?.trim();
    (!rest.is_empty()).then_some(rest)
}

/// Streams larger than this are split at document markers and parsed in parallel.
const CHUNK_BYTES: usize = 2 << 20;

/// Parses a YAML stream, in parallel chunks when it is large (a `helm template` stream on
/// stdin is one file). The result is identical to [`parse`]: chunks are cut only at a `---`
/// marker at column 0, which YAML forbids inside any scalar, so no document spans two chunks.
pub fn parse_stream(file: FileId, text: &str) -> (Vec<Document>, Vec<ParseError>) {
    use rayon::prelude::*;
    let cuts = chunk_starts(text, CHUNK_BYTES);
    if cuts.len() <= 1 {
        return parse(file, text);
    }
    let ranges: Vec<(usize, usize)> = cuts
        .iter()
        .zip(cuts.iter().skip(1).chain(std::iter::once(&text.len())))
        .map(|(a, b)| (*a, *b))
        .collect();
    let parts: Vec<(Vec<Document>, Vec<ParseError>)> = ranges
        .par_iter()
        .map(|(start, end)| parse_at(file, &text[*start..*end], *start))
        .collect();
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for (mut d, e) in parts {
        for doc in &mut d {
            doc.index = u32::try_from(docs.len()).unwrap_or(u32::MAX);
            docs.push(std::mem::replace(doc, Document::empty(file)));
        }
        errors.extend(e);
    }
    (docs, errors)
}

/// Byte offsets where chunks start: 0, then the start of a `---` line (or of the comment lines
/// right above it, which belong to the next document) roughly every `size` bytes. A marker
/// right after a directive line (`%YAML`) is not a cut, since the directive belongs to it.
fn chunk_starts(text: &str, size: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    let bytes = text.as_bytes();
    let mut next = size;
    while next < bytes.len() {
        // Find the next line that is a document start marker.
        let Some(found) = find_marker(bytes, next) else {
            break;
        };
        let mut cut = found;
        // Pull preceding comment lines into the next chunk; refuse cuts after directives.
        let mut directive = false;
        while cut > 0 {
            let prev_end = cut - 1; // the '\n' ending the previous line
            let prev_start = bytes[..prev_end]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            let line = &bytes[prev_start..prev_end];
            if line.first() == Some(&b'#') {
                cut = prev_start;
            } else {
                directive = line.first() == Some(&b'%');
                break;
            }
        }
        if !directive && cut > *cuts.last().unwrap_or(&0) {
            cuts.push(cut);
        }
        next = found + size;
    }
    cuts
}

/// The start of the first line at or after `from` that is `---` followed by a blank or EOL.
fn find_marker(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        let line_start = if i == 0 {
            0
        } else {
            bytes[i..]
                .iter()
                .position(|b| *b == b'\n')
                .map(|p| i + p + 1)?
        };
        let rest = &bytes[line_start..];
        if rest.starts_with(b"---")
            && matches!(rest.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
        {
            return Some(line_start);
        }
        i = line_start + 1;
    }
    None
}

impl Document {
    fn empty(file: FileId) -> Document {
        Document {
            file,
            index: 0,
            nodes: Vec::new(),
            root: None,
            start: 0,
            end: 0,
            origin: None,
            duplicates: Vec::new(),
            tags: Vec::new(),
        }
    }

    fn shift(&mut self, base: u32) {
        for node in &mut self.nodes {
            node.start += base;
            node.end += base;
        }
        self.start += base;
        self.end += base;
        if let Some((_, span)) = &mut self.origin {
            span.start += base;
            span.end += base;
        }
    }
}

fn parse_at(file: FileId, text: &str, base: usize) -> (Vec<Document>, Vec<ParseError>) {
    let (mut docs, mut errors) = parse(file, text);
    let base32 = u32::try_from(base).unwrap_or(u32::MAX);
    if base32 > 0 {
        for doc in &mut docs {
            doc.shift(base32);
        }
        for e in &mut errors {
            e.span.start += base32;
            e.span.end += base32;
        }
    }
    (docs, errors)
}

/// Parses a YAML stream into documents. Never fails: syntax errors become [`ParseError`]s and
/// parsing resumes at the next document.
pub fn parse(file: FileId, text: &str) -> (Vec<Document>, Vec<ParseError>) {
    let options = granit_parser::options! {
        flow_nesting_limit: NESTING_LIMIT,
        block_nesting_limit: NESTING_LIMIT,
    };
    let mut parser = Parser::new_from_str_with_options(text, options);
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    let mut current: Option<Builder> = None;
    let mut pending_origin: Option<(String, Span)> = None;
    let mut index = 0u32;
    let mut last_error_at: Option<u32> = None;
    while let Some(next) = parser.next_event() {
        match next {
            Ok((event, span)) => {
                let start = byte_of(&span.start);
                let end = byte_of(&span.end);
                let is_seq = matches!(event, Event::SequenceStart(..));
                match event {
                    Event::StreamStart => {}
                    Event::StreamEnd => break,
                    Event::DocumentStart(..) => {
                        let mut b = Builder::new(file, index, start);
                        index += 1;
                        b.origin = pending_origin.take();
                        current = Some(b);
                    }
                    Event::DocumentEnd => {
                        if let Some(b) = current.take() {
                            docs.push(b.finish(end.max(start)));
                        }
                    }
                    Event::Comment(body, _) => {
                        if let Some(path) = source_comment(&body) {
                            let origin = (path.to_string(), Span { file, start, end });
                            match current.as_mut() {
                                Some(b) if b.root.is_none() => b.origin = Some(origin),
                                Some(_) => pending_origin = Some(origin),
                                None => pending_origin = Some(origin),
                            }
                        }
                    }
                    Event::Scalar(value, style, anchor, tag) => {
                        if let Some(b) = current.as_mut() {
                            let tag = tag.map(|t| t.original());
                            b.push(
                                NodeKind::Scalar(
                                    value.into_owned().into_boxed_str(),
                                    scalar_style(style),
                                ),
                                start,
                                end,
                                anchor,
                                tag,
                            );
                        }
                    }
                    Event::SequenceStart(_, anchor, tag) | Event::MappingStart(_, anchor, tag) => {
                        if let Some(b) = current.as_mut() {
                            let kind = if is_seq {
                                NodeKind::Seq(Vec::new())
                            } else {
                                NodeKind::Map(Vec::new())
                            };
                            let tag = tag.map(|t| t.original());
                            let id = b.push(kind, start, end, anchor, tag);
                            b.stack.push(Frame {
                                node: id,
                                pending_key: None,
                            });
                        }
                    }
                    Event::SequenceEnd | Event::MappingEnd => {
                        if let Some(b) = current.as_mut() {
                            b.close(end, text);
                        }
                    }
                    Event::Alias(anchor) => {
                        if let Some(b) = current.as_mut() {
                            let target = b.anchors.get(&anchor).copied();
                            b.push(NodeKind::Alias(target), start, end, 0, None);
                        }
                    }
                    _ => {}
                }
            }
            Err(error) => {
                let at = byte_of(error.marker());
                errors.push(scan_error(file, text, &error));
                current = None;
                pending_origin = None;
                if last_error_at == Some(at) {
                    break;
                }
                last_error_at = Some(at);
                match parser.proceed_next_document() {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(error) => {
                        errors.push(scan_error(file, text, &error));
                        break;
                    }
                }
            }
        }
    }
    (docs, errors)
}

fn scan_error(file: FileId, text: &str, error: &ScanError) -> ParseError {
    let at = (byte_of(error.marker()) as usize).min(text.len());
    // Point at one character, so the diagnostic underlines something.
    let len = text[at..].chars().next().map_or(0, char::len_utf8);
    // The parser's message may quote the input: keep it short (see `finding::excerpt`).
    let mut message = format!(
        "invalid YAML: {}",
        crate::finding::excerpt_n(&error.kind().to_string(), 120)
    );
    if matches!(
        error.kind(),
        granit_parser::ErrorKind::RecursionLimitExceeded
    ) || message.contains("nesting")
        || message.contains("recursion")
    {
        message.push_str(&format!(
            " (kubegap stops at {NESTING_LIMIT} levels of nesting)"
        ));
    }
    ParseError::new(Span::new(file, at, at + len), message)
}

#[cfg(test)]
mod tests;
