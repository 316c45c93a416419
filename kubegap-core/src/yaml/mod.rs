//! The YAML layer: granit-parser events fed into a flat, span-based tree that kubegap owns.
//!
//! Why this design (measurements in `docs/DEPENDENCIES.md` and `docs/PERFORMANCE.md`):
//! granit-parser gives exact byte spans for every key and value, comment events (for Helm's
//! `# Source:`), nesting limits and per-document error recovery. The tree has the shape of
//! rapidyaml's: one small [`Node`] per key, value or item in one exact-size array per document,
//! in document order, a collection holding the id just past its subtree (so its children are
//! found by skipping subtrees, with no list of children stored), and scalars as spans into the file's text, not copies. Only a scalar whose value differs
//! from its source slice (escapes, folding, block scalars) has its value stored, in one side
//! buffer per document. A [`Document`] holds its file's text (shared, [`Arc<String>`]) so that
//! [`NodeRef::as_str`] needs nothing else. The tree keeps raw scalar text and style so kubegap
//! decides typing; aliases stay links (never expanded, so alias bombs cost nothing); duplicate
//! keys are recorded with both positions; every walk over it is iterative or depth-bounded.

use std::collections::HashMap;
use std::sync::Arc;

use granit_parser::{Event, Parser, ScanError};

use crate::finding::ParseError;
use crate::source::{FileId, Span};

mod cut;
mod fast;
mod list;

pub use cut::cut_unread;
pub use fast::Coverage;

/// Index of a node in its [`Document`].
pub type NodeId = u32;

/// Nesting limit for block and flow collections. Deeper input is a parse error, not a crash.
pub const NESTING_LIMIT: usize = 512;

/// How many alias or merge hops an accessor follows before giving up.
const ALIAS_HOPS: usize = 16;

/// How many mappings one merge-key lookup may visit: `<<: [*a, *a, …]` nested through aliases
/// would otherwise make a lookup exponential (a "billion laughs" of merge keys).
const MERGE_BUDGET: usize = 1_000;

/// Text that documents can hold: an [`Arc<String>`] (a [`crate::SourceFile`]'s text) is shared,
/// a `String` is moved into one, and a borrowed text is copied once.
pub trait SharedText {
    /// The text as an [`Arc<String>`].
    fn into_shared(self) -> Arc<String>;
}

impl SharedText for Arc<String> {
    fn into_shared(self) -> Arc<String> {
        self
    }
}

impl SharedText for &Arc<String> {
    fn into_shared(self) -> Arc<String> {
        Arc::clone(self)
    }
}

impl SharedText for &str {
    fn into_shared(self) -> Arc<String> {
        Arc::new(self.to_string())
    }
}

impl SharedText for String {
    fn into_shared(self) -> Arc<String> {
        Arc::new(self)
    }
}

impl SharedText for &String {
    fn into_shared(self) -> Arc<String> {
        Arc::new(self.clone())
    }
}

/// "No value here": a scalar read from its source slice, or an alias to an unknown anchor.
const NONE: u32 = u32::MAX;

/// A node's kind is the top 3 bits of its `a`; the other 29 bits are its argument.
const KIND_SHIFT: u32 = 29;
const ARG_MASK: u32 = (1 << KIND_SHIFT) - 1;
/// [`NONE`] as a node's argument.
const NONE_ARG: u32 = ARG_MASK;
/// The most nodes a document may hold: ids and arguments must fit in 29 bits beside the kind
/// (536 million; a document needs about a byte of text per node at the least, as in
/// `{a,b,c}`, so only a document of hundreds of megabytes gets there, and it is reported as
/// an error).
const MAX_NODES: usize = NONE_ARG as usize;

/// The node limit of a new [`Builder`]: [`MAX_NODES`], lowered by tests to reach it.
#[cfg(not(test))]
fn max_nodes() -> usize {
    MAX_NODES
}

#[cfg(test)]
thread_local! {
    /// [`MAX_NODES`] for the builders this thread creates.
    static TEST_MAX_NODES: std::cell::Cell<usize> = const { std::cell::Cell::new(MAX_NODES) };
}

#[cfg(test)]
fn max_nodes() -> usize {
    TEST_MAX_NODES.with(std::cell::Cell::get)
}

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

/// A node's content, borrowed from its [`Document`] (see [`NodeRef::kind`]).
#[derive(Clone, Debug)]
pub enum NodeKind<'a> {
    /// A scalar with its value after escape processing and its style.
    Scalar(&'a str, ScalarStyle),
    /// A sequence: its items.
    Seq(Children<'a>),
    /// A mapping: keys and values alternating (`k0, v0, k1, v1, …`), in source order,
    /// duplicates kept (see [`Children::pairs`]).
    Map(Children<'a>),
    /// An alias to an anchored node of the same document (`None` if the anchor was unknown).
    Alias(Option<NodeId>),
}

/// What a node is: 3 bits of its `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
    Seq,
    Map,
    Alias,
}

impl Kind {
    /// The kind stored in the top bits of a node's `a`.
    #[inline]
    fn from_bits(bits: u32) -> Kind {
        match bits & 7 {
            0 => Kind::Plain,
            1 => Kind::SingleQuoted,
            2 => Kind::DoubleQuoted,
            3 => Kind::Literal,
            4 => Kind::Folded,
            5 => Kind::Seq,
            6 => Kind::Map,
            _ => Kind::Alias,
        }
    }

    #[inline]
    fn style(self) -> Option<ScalarStyle> {
        Some(match self {
            Kind::Plain => ScalarStyle::Plain,
            Kind::SingleQuoted => ScalarStyle::SingleQuoted,
            Kind::DoubleQuoted => ScalarStyle::DoubleQuoted,
            Kind::Literal => ScalarStyle::Literal,
            Kind::Folded => ScalarStyle::Folded,
            Kind::Seq | Kind::Map | Kind::Alias => return None,
        })
    }

    fn of_style(style: granit_parser::ScalarStyle) -> Kind {
        match style {
            granit_parser::ScalarStyle::SingleQuoted => Kind::SingleQuoted,
            granit_parser::ScalarStyle::DoubleQuoted => Kind::DoubleQuoted,
            granit_parser::ScalarStyle::Literal => Kind::Literal,
            granit_parser::ScalarStyle::Folded => Kind::Folded,
            _ => Kind::Plain,
        }
    }

    /// Bytes of quoting around a scalar's value in its source slice.
    #[inline]
    fn quote_len(self) -> usize {
        match self {
            Kind::SingleQuoted | Kind::DoubleQuoted => 1,
            _ => 0,
        }
    }
}

/// One YAML node with its byte span and its kind: 12 bytes (4.3 M nodes per 51 MB of
/// `helm template` output). The kind was a byte in a parallel array: one more allocation per
/// document and one more cache line per lookup.
///
/// `a` holds the kind in its top 3 bits and an argument in the other 29 ([`Node::arg`]),
/// which means, by kind: a scalar read from its source slice [`NONE_ARG`]; a scalar with a
/// stored value the index of that value in its document; a collection the id just past its
/// subtree (nodes are in document order, so its children are the nodes from its id + 1 to
/// there, each subtree skipped in one step: no list of children is stored); an alias its
/// target ([`NONE_ARG`] when the anchor was unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// Start byte offset in the file.
    pub start: u32,
    /// End byte offset in the file.
    pub end: u32,
    a: u32,
}

impl Node {
    /// A node; `arg` is cut to 29 bits (the builder reports documents whose ids do not fit).
    #[inline]
    fn new(start: u32, end: u32, kind: Kind, arg: u32) -> Node {
        Node {
            start,
            end,
            a: ((kind as u32) << KIND_SHIFT) | (arg & ARG_MASK),
        }
    }

    #[inline]
    fn kind(&self) -> Kind {
        Kind::from_bits(self.a >> KIND_SHIFT)
    }

    /// The argument: stored value, end of subtree or alias target (see [`Node`]).
    #[inline]
    fn arg(&self) -> u32 {
        self.a & ARG_MASK
    }

    #[inline]
    fn set_arg(&mut self, arg: u32) {
        self.a = (self.a & !ARG_MASK) | (arg & ARG_MASK);
    }
}

/// One YAML document of a stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The file it is in.
    pub file: FileId,
    /// Its index in the file (0-based), counting every document.
    pub index: u32,
    /// The text of the whole file (shared with the [`crate::SourceFile`] and every other
    /// document of the file): scalars are spans into it.
    text: Arc<String>,
    /// The nodes, in document order (a collection before its children), exact size.
    pub nodes: Box<[Node]>,
    /// Values of the scalars that differ from their source slice, concatenated.
    values: Box<str>,
    /// Where each stored value ends in `values` (it starts where the previous one ends).
    value_ends: Box<[u32]>,
    /// The root node (`None` for an empty document).
    pub root: Option<NodeId>,
    /// Byte range of the document in its file.
    pub start: u32,
    /// End byte offset.
    pub end: u32,
    /// The span of `PATH` in the `# Source: PATH` comment of a Helm-rendered document (a span
    /// into the text, not a copy: a 100 MB stream has 180,000 of them).
    origin: Option<Span>,
    /// Duplicate keys and tags, rare in manifests: boxed apart (`None` when there are none), so
    /// a document is 32 bytes smaller.
    rare: Option<Box<Rare>>,
    /// Whether a value [`parse_stream_without`] leaves out was not kept: the `spec` of this
    /// CustomResourceDefinition (or of definitions among the items of this `…List`), or the
    /// `status` or `metadata.managedFields` of an object.
    spec_dropped: bool,
}

/// What few documents have.
#[derive(Clone, Debug, PartialEq)]
struct Rare {
    duplicates: Box<[(NodeId, NodeId)]>,
    tags: Box<[(NodeId, String)]>,
    /// The byte ranges of the values left out ([`Document::spec_dropped`]), until
    /// [`cut_unread`] has cut their lines out of the text.
    dropped: Box<[(u32, u32)]>,
    /// Whether a part of a `…List` read in parts ([`Part::Around`], [`Part::Items`]) has an
    /// anchor: the whole document then drops no definition's spec ([`Builder::droppable`]), so
    /// its parts are not joined ([`list`]). Always `false` elsewhere.
    anchored: bool,
}

impl Document {
    /// `PATH` of the `# Source: PATH` comment of a Helm-rendered document.
    pub fn origin(&self) -> Option<&str> {
        self.origin
            .and_then(|o| self.text.get(o.start as usize..o.end as usize))
    }

    /// Moves the document to the file `file` (an input parsed before its id was known).
    pub(crate) fn set_file(&mut self, file: FileId) {
        self.file = file;
        if let Some(origin) = &mut self.origin {
            origin.file = file;
        }
    }

    /// The span of [`Document::origin`].
    pub fn origin_span(&self) -> Option<Span> {
        self.origin
    }

    /// Whether a value was not kept (see [`parse_stream_without`]): the `spec` of a
    /// CustomResourceDefinition (or of some in a `…List`), or an object's `status` or
    /// `metadata.managedFields`. Each reads as an empty collection spanning the value as
    /// written. (The name is older than the last two.)
    pub fn spec_dropped(&self) -> bool {
        self.spec_dropped
    }

    /// Duplicate mapping keys: (first, duplicate) key nodes.
    pub fn duplicates(&self) -> &[(NodeId, NodeId)] {
        self.rare.as_ref().map_or(&[], |r| &r.duplicates)
    }

    /// Tags written on nodes (e.g. `!!str`).
    pub fn tags(&self) -> &[(NodeId, String)] {
        self.rare.as_ref().map_or(&[], |r| &r.tags)
    }

    /// The tag written on a node, if any.
    pub fn tag(&self, id: NodeId) -> Option<&str> {
        self.tags()
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

    /// The text of the file the document is in.
    pub fn text(&self) -> &Arc<String> {
        &self.text
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

    /// Bytes this document holds on the heap besides the shared text (nodes, children, stored
    /// values, origin, duplicates, tags), for memory estimates and benchmarks.
    pub fn heap_size(&self) -> usize {
        std::mem::size_of_val(&*self.nodes)
            + self.values.len()
            + std::mem::size_of_val(&*self.value_ends)
            + self.rare.as_ref().map_or(0, |r| {
                std::mem::size_of::<Rare>() + std::mem::size_of_val(&*r.dropped)
            })
            + std::mem::size_of_val(self.duplicates())
            + self
                .tags()
                .iter()
                .map(|(_, t)| std::mem::size_of::<(NodeId, String)>() + t.capacity())
                .sum::<usize>()
    }

    /// The scalar style of a node, `None` for collections and aliases (not followed).
    pub fn style(&self, id: NodeId) -> Option<ScalarStyle> {
        self.nodes[id as usize].kind().style()
    }

    /// What a node is (aliases not followed).
    pub fn kind(&self, id: NodeId) -> NodeKind<'_> {
        let n = &self.nodes[id as usize];
        let kind = n.kind();
        match kind {
            Kind::Seq => NodeKind::Seq(self.children_of(id)),
            Kind::Map => NodeKind::Map(self.children_of(id)),
            Kind::Alias => NodeKind::Alias((n.arg() != NONE_ARG).then_some(n.arg())),
            scalar => NodeKind::Scalar(
                scalar_text(&self.text, &self.values, &self.value_ends, n, kind),
                scalar.style().unwrap_or(ScalarStyle::Plain),
            ),
        }
    }

    /// The children of the collection `id`.
    #[inline]
    fn children_of(&self, id: NodeId) -> Children<'_> {
        Children::of(&self.nodes, id)
    }
}

/// The children of a collection, in source order: each child's id, its subtree skipped.
#[derive(Clone, Debug)]
pub struct Children<'a> {
    nodes: &'a [Node],
    next: NodeId,
    end: NodeId,
}

impl<'a> Children<'a> {
    /// The children of collection `id` among `nodes` (a document's, or a document's being
    /// built, whose collections are closed).
    #[inline]
    fn of(nodes: &'a [Node], id: NodeId) -> Children<'a> {
        let end = nodes.get(id as usize).map_or(0, Node::arg);
        Children {
            nodes,
            next: id.saturating_add(1),
            end: end.min(u32::try_from(nodes.len()).unwrap_or(NONE)),
        }
    }

    /// No children at all.
    const EMPTY: Children<'static> = Children {
        nodes: &[],
        next: 0,
        end: 0,
    };

    /// A mapping's children as (key, value) pairs (a trailing key without a value, which a
    /// well-formed event stream never gives, is left out).
    pub fn pairs(self) -> impl Iterator<Item = (NodeId, NodeId)> + 'a {
        let mut it = self;
        std::iter::from_fn(move || Some((it.next()?, it.next()?)))
    }
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = self.next;
        let i = id as usize;
        // A collection's `a` is the id past its subtree (always past its own id); any other
        // node is one node.
        self.next = match self.nodes.get(i) {
            Some(n) if matches!(n.kind(), Kind::Seq | Kind::Map) => n.arg().max(id + 1),
            _ => id + 1,
        };
        Some(id)
    }
}

/// The value of a scalar node: its source slice (without quotes) or its stored value.
#[inline]
fn scalar_text<'a>(
    text: &'a str,
    values: &'a str,
    value_ends: &[u32],
    n: &Node,
    kind: Kind,
) -> &'a str {
    if n.arg() == NONE_ARG {
        let q = kind.quote_len();
        text.get(n.start as usize + q..(n.end as usize).saturating_sub(q))
            .unwrap_or("")
    } else {
        let k = n.arg() as usize;
        let from = if k == 0 {
            0
        } else {
            value_ends.get(k - 1).copied().unwrap_or(0) as usize
        };
        let to = value_ends.get(k).copied().unwrap_or(0) as usize;
        values.get(from..to).unwrap_or("")
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
    #[inline]
    fn raw(&self) -> &'a Node {
        &self.doc.nodes[self.id as usize]
    }

    #[inline]
    fn raw_kind(&self) -> Kind {
        self.raw().kind()
    }

    /// What this node is (aliases not followed; see [`NodeRef::resolve`]).
    pub fn kind(&self) -> NodeKind<'a> {
        self.doc.kind(self.id)
    }

    /// Follows aliases (bounded). Returns `self` for non-aliases.
    #[inline]
    pub fn resolve(self) -> NodeRef<'a> {
        // Nearly every node is not an alias: that test stays inline at every lookup, the loop
        // does not.
        if self.raw_kind() != Kind::Alias {
            return self;
        }
        self.follow_aliases()
    }

    #[inline(never)]
    fn follow_aliases(self) -> NodeRef<'a> {
        let mut cur = self;
        for _ in 0..ALIAS_HOPS {
            let n = cur.raw();
            if n.kind() == Kind::Alias && n.arg() != NONE_ARG {
                cur = NodeRef {
                    doc: cur.doc,
                    id: n.arg(),
                };
            } else {
                return cur;
            }
        }
        cur
    }

    /// The span where this node is written (the alias itself for an alias).
    pub fn span(&self) -> Span {
        self.doc.span(self.id)
    }

    /// The source text of this node and everything under it, when nothing under it is an
    /// alias (which reads a value written elsewhere): two such nodes written alike read alike,
    /// whatever their documents hold around them. `None` for an alias or a subtree with one.
    pub fn self_contained_source(&self) -> Option<&'a str> {
        let doc = self.doc;
        let n = self.raw();
        let end = match n.kind() {
            Kind::Alias => return None,
            Kind::Seq | Kind::Map => n.arg() as usize,
            _ => self.id as usize + 1,
        };
        let subtree = doc.nodes.get(self.id as usize..end)?;
        if subtree.iter().any(|n| n.kind() == Kind::Alias) {
            return None;
        }
        doc.text.get(n.start as usize..n.end as usize)
    }

    /// The scalar value (any style), after resolving aliases.
    #[inline]
    pub fn as_str(&self) -> Option<&'a str> {
        let r = self.resolve();
        let kind = r.raw_kind();
        kind.style()
            .map(|_| scalar_text(&r.doc.text, &r.doc.values, &r.doc.value_ends, r.raw(), kind))
    }

    /// The scalar style.
    pub fn style(&self) -> Option<ScalarStyle> {
        self.resolve().raw_kind().style()
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
        self.resolve().raw_kind() == Kind::Map
    }

    /// Children of a collection of `kind` (after resolving aliases); empty for anything else.
    #[inline]
    fn children(&self, kind: Kind) -> Children<'a> {
        let r = self.resolve();
        if r.raw_kind() == kind {
            r.doc.children_of(r.id)
        } else {
            Children::EMPTY
        }
    }

    /// Items of a sequence (after resolving aliases); empty for anything else.
    pub fn items(&self) -> impl Iterator<Item = NodeRef<'a>> + 'a {
        let doc = self.doc;
        self.children(Kind::Seq).map(move |id| NodeRef { doc, id })
    }

    /// Explicit entries of a mapping as (key, value), in source order. Merge keys (`<<`) are
    /// not expanded here; use [`NodeRef::get`] or [`NodeRef::entries`].
    pub fn own_entries(&self) -> impl Iterator<Item = (NodeRef<'a>, NodeRef<'a>)> + 'a {
        let doc = self.doc;
        self.children(Kind::Map)
            .pairs()
            .map(move |(k, v)| (NodeRef { doc, id: k }, NodeRef { doc, id: v }))
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
        let doc = self.doc;
        let map = self.resolve();
        let nodes: &'a [Node] = &doc.nodes;
        let m = nodes
            .get(map.id as usize)
            .filter(|m| m.kind() == Kind::Map)?;
        // The pairs walked by hand (a hot loop: most lookups end within a few keys), as
        // `Children::pairs` would: a child is one node, or a collection and its subtree.
        let end = (m.arg() as usize).min(nodes.len());
        let past = |i: usize, n: &Node| match n.kind() {
            Kind::Seq | Kind::Map => (n.arg() as usize).max(i + 1),
            _ => i + 1,
        };
        // Most mappings have no merge key: look for the key first, then for merges only when
        // it is absent (the first explicit match wins either way, as merged keys never
        // override explicit ones).
        let mut has_merge = false;
        let text = doc.text.as_bytes();
        let mut i = map.id as usize + 1;
        while i < end {
            let n = &nodes[i];
            let v = past(i, n);
            let Some(value) = nodes.get(v).filter(|_| v < end) else {
                break;
            };
            let (id, value_id) = (i as NodeId, v as NodeId);
            i = past(v, value);
            let kind = n.kind();
            // A key read from its source slice (nearly all keys): compare lengths before bytes.
            if n.arg() == NONE_ARG
                && matches!(kind, Kind::Plain | Kind::SingleQuoted | Kind::DoubleQuoted)
            {
                let q = kind.quote_len();
                let from = n.start as usize + q;
                let to = (n.end as usize).saturating_sub(q);
                let len = to.saturating_sub(from);
                if len == key.len()
                    && text
                        .get(from..to)
                        .is_some_and(|k| same_bytes(k, key.as_bytes()))
                {
                    return Some((NodeRef { doc, id }, NodeRef { doc, id: value_id }));
                }
                if len == 2 && kind == Kind::Plain && text.get(from..to) == Some(b"<<") {
                    has_merge = true;
                }
                continue;
            }
            let k = NodeRef { doc, id };
            match k.as_str() {
                Some(s) if s == key => return Some((k, NodeRef { doc, id: value_id })),
                Some("<<") if k.is_plain() => has_merge = true,
                _ => {}
            }
        }
        if !has_merge {
            return None;
        }
        for (key_id, value) in map.children(Kind::Map).pairs() {
            let k = NodeRef { doc, id: key_id };
            if k.as_str() != Some("<<") || !k.is_plain() {
                continue;
            }
            let m = NodeRef { doc, id: value }.resolve();
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
    /// The collection.
    node: NodeId,
    /// Where its children start in [`Builder::pending`].
    base: usize,
}

/// Builds the documents of one stream (or chunk) one after another, reusing its buffers; each
/// finished [`Document`] gets exact-size copies, so no spare capacity is kept.
struct Builder<'t> {
    file: FileId,
    /// The whole file: offsets are absolute.
    text: &'t Arc<String>,
    /// Whether a document is open.
    open: bool,
    index: u32,
    start: u32,
    root: Option<NodeId>,
    origin: Option<Span>,
    nodes: Vec<Node>,
    /// Whether the open document holds more than `max_nodes` nodes.
    too_large: bool,
    /// [`MAX_NODES`] (smaller in tests).
    max_nodes: usize,
    /// The start of the last document dropped for holding more than [`MAX_NODES`] nodes, for
    /// the caller to report.
    dropped_too_large: Option<u32>,
    values: String,
    value_ends: Vec<u32>,
    /// Children of the open collections, innermost last.
    pending: Vec<NodeId>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, NodeId>,
    duplicates: Vec<(NodeId, NodeId)>,
    tags: Vec<(NodeId, String)>,
    /// What is dropped when a document is finished, or as soon as it is closed
    /// ([`Unread::in_every_object`]) ([`parse_stream_without`]).
    reading: Reading,
    /// How many nodes the values of the open document dropped as they closed held: the node
    /// limit counts them, so that a document is too large exactly when it would be without
    /// dropping them.
    closed_dropped_nodes: usize,
    /// The collection closed last and the end it was closed at (before trimming), so that
    /// the collections closing at the same place around it take its trimmed end instead of
    /// trimming the same blanks again ([`Builder::close`]).
    last_closed: (NodeId, usize),
    /// Whether the inside of a definition's `spec` may be skipped as it is read
    /// ([`Builder::skips`]): only for kubegap's scanner, which writes no tags or anchors and
    /// can give a document back to granit-parser.
    may_skip: bool,
    /// The open collections inside the collection being skipped, that one first; empty when
    /// none is.
    skip_frames: Vec<SkipFrame>,
    /// Hashes of the scalar keys of the open mappings of `skip_frames` (merge keys excepted).
    skip_keys: Vec<u64>,
    /// How many nodes the skipped collection held so far (the node limit counts them).
    skipped_nodes: usize,
    /// The collections whose insides were skipped, and whether each had any, in document
    /// order (one never inside another): found by binary search ([`Builder::skipped_inside`]),
    /// as a `List` may hold tens of thousands.
    skipped: Vec<(NodeId, bool)>,
    /// Documents finished with a collection's inside skipped (counted for
    /// [`scanner_coverage_without`]).
    skipped_documents: usize,
    /// Whether what was skipped must be read after all (a key that may repeat one, or the
    /// document's spec not dropped at its end): [`Builder::finish`] gives no document, and
    /// the scanner gives the document to granit-parser.
    skip_failed: bool,
}

/// An open collection inside one whose inside is skipped: what its end needs.
#[derive(Clone, Copy, Debug)]
struct SkipFrame {
    start: u32,
    is_map: bool,
    /// Its children so far (keys and values).
    entries: u32,
    /// Where its keys' hashes start in [`Builder::skip_keys`].
    keys: usize,
    /// The end of its last child.
    last: LastEnd,
    /// Where its last child, when that is a collection, was closed (before trimming).
    last_closed_at: Option<usize>,
}

/// The end of the last child of a collection inside a skipped one: a scalar's, or what a
/// collection's trimmed end is found from, found only if it is still the last child when
/// its parent closes (most are not: a schema's properties are mappings one after another).
#[derive(Clone, Copy, Debug)]
enum LastEnd {
    None,
    At(u32),
    Trimmed {
        start: usize,
        closed_at: usize,
        floor: usize,
        same_close: bool,
    },
}

impl LastEnd {
    fn resolve(self, bytes: &[u8]) -> Option<usize> {
        match self {
            LastEnd::None => None,
            LastEnd::At(end) => Some(end as usize),
            LastEnd::Trimmed {
                start,
                closed_at,
                floor,
                same_close,
            } => Some(trimmed_end(bytes, start, closed_at, floor, same_close)),
        }
    }
}

/// The parts of objects that a caller never reads, left out of their documents by
/// [`parse_stream_without`]: the value of `key` in a mapping whose `apiVersion` starts with
/// `api_prefix` and whose `kind` is `kind`, and the values at the key paths `in_every_object`
/// of any mapping; in both cases at the root of a document or among the `items` of a `…List`.
/// Which parts no rule reads is the model's knowledge ([`crate::k8s::UNREAD_BY_RULES`]); the
/// parser only cuts.
#[derive(Debug)]
pub struct Unread {
    /// The start of the objects' `apiVersion` (`apiextensions.k8s.io/`).
    pub api_prefix: &'static str,
    /// Their `kind`.
    pub kind: &'static str,
    /// The key whose value is dropped (`spec`).
    pub key: &'static str,
    /// Key paths from any object whose values are dropped (`status`, `metadata.managedFields`).
    /// Unlike `key`, these need no `kind`, so they are dropped as soon as they are parsed:
    /// their nodes never reach the document, nor wait in the builder for its end.
    pub in_every_object: &'static [&'static [&'static str]],
}

/// What a builder leaves out, and what range of the text it reads.
#[derive(Clone, Copy, Debug)]
struct Reading {
    /// What is left out (nothing when `None`).
    unread: Option<&'static Unread>,
    /// What the range read is.
    part: Part,
}

impl Reading {
    /// Whole documents, every node kept.
    const WHOLE: Reading = Reading {
        unread: None,
        part: Part::Whole,
    };

    /// Whole documents without what `unread` names.
    fn whole(unread: Option<&'static Unread>) -> Reading {
        Reading {
            unread,
            part: Part::Whole,
        }
    }

    /// What is left out and the part read, when something is.
    fn pruned(self) -> Option<(&'static Unread, Part)> {
        self.unread.map(|unread| (unread, self.part))
    }
}

/// What range of a text a builder reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Whole documents: the objects are each root and the items of a root's `items`.
    Whole,
    /// The text above or below the items of a `…List` read in parts ([`list`]): its root is
    /// the list's root, without the items. It drops no definition's spec (whether the
    /// root is a definition, or a `…List` whose items' specs are dropped, is known once the
    /// parts are joined).
    Around,
    /// Some of the items of a `…List` cut out of their document ([`list`]): its root is a
    /// sequence, and its objects are its items. The definitions among them lose their
    /// spec; the parts are joined only where the whole document is a `…List`.
    Items,
}

/// Where a collection starting at `start` ends when it is closed at `end` (where the next
/// token starts): before the blanks and the own-line comments after its last child, which
/// ends at `floor`. `same_close` says that its last child is a collection closed at `end`
/// too: that one was trimmed from there down to what this one would trim to (its end is
/// this one's floor, and the blanks and comment lines it trimmed are above that floor), and
/// deep schemas close a dozen collections at once, each of which trimmed the same
/// indentation again.
fn trimmed_end(bytes: &[u8], start: usize, end: usize, floor: usize, same_close: bool) -> usize {
    let mut end = if same_close { floor } else { end };
    loop {
        while end > floor && end <= bytes.len() && bytes[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        // Own-line comments after the last entry belong to what follows, not to this node.
        // Only the gap after the last child is searched, so a long line (minified JSON)
        // is not scanned again for every collection that closes on it.
        // (The newline that ends the last child's line may sit just before `floor`.)
        let from = floor.saturating_sub(1).min(end);
        let Some(newline) = bytes
            .get(from..end)
            .and_then(|gap| gap.iter().rposition(|b| *b == b'\n'))
        else {
            return end;
        };
        let line_start = from + newline + 1;
        let line = &bytes[line_start..end];
        let is_comment = line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'#');
        if is_comment && line_start >= floor && line_start > start {
            end = line_start;
        } else {
            return end;
        }
    }
}

/// A hash of a key's text, for finding keys that may repeat inside a skipped collection
/// ([`Builder::skips`]): two keys with the same hash send the document to granit-parser, which
/// reads it whole, so a collision costs time, never a wrong tree.
fn key_hash(key: &str) -> u64 {
    let mut h = key.len() as u64;
    for chunk in key.as_bytes().chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h
}

/// Whether two of `hashes` (reordered) are equal.
fn may_repeat(hashes: &mut [u64]) -> bool {
    if hashes.len() <= SMALL_MAP {
        return hashes
            .iter()
            .enumerate()
            .any(|(i, h)| hashes[..i].contains(h));
    }
    hashes.sort_unstable();
    hashes.windows(2).any(|w| w[0] == w[1])
}

/// [`Builder::last_closed`] when no collection has closed in the open document.
const NO_CLOSE: (NodeId, usize) = (NodeId::MAX, usize::MAX);

/// Maps with more keys than this find duplicates through a hash map, smaller ones by comparing
/// every pair (no allocation; most manifest mappings have a handful of keys).
const SMALL_MAP: usize = 16;

/// A builder's working buffers, kept by each thread between the files it parses: without
/// them every file grew its node vector from nothing again (five reallocations for a small
/// manifest, 100,000 blocks over 20,000 files).
#[derive(Default)]
struct Scratch {
    nodes: Vec<Node>,
    values: String,
    value_ends: Vec<u32>,
    pending: Vec<NodeId>,
    stack: Vec<Frame>,
    duplicates: Vec<(NodeId, NodeId)>,
}

/// Buffers above this many nodes (or bytes of values) are not kept for the next file: one huge document
/// should not hold its builder's memory for the rest of the run.
const SCRATCH_MAX_NODES: usize = 1 << 16;

thread_local! {
    static SCRATCH: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
}

impl<'t> Builder<'t> {
    fn new(file: FileId, text: &'t Arc<String>, reading: Reading) -> Builder<'t> {
        let Scratch {
            nodes,
            values,
            value_ends,
            pending,
            stack,
            duplicates,
        } = SCRATCH
            .try_with(std::cell::Cell::take)
            .ok()
            .flatten()
            .unwrap_or_default();
        Builder {
            file,
            text,
            open: false,
            index: 0,
            start: 0,
            root: None,
            origin: None,
            nodes,
            too_large: false,
            max_nodes: max_nodes(),
            dropped_too_large: None,
            values,
            value_ends,
            pending,
            stack,
            anchors: HashMap::new(),
            duplicates,
            tags: Vec::new(),
            reading,
            closed_dropped_nodes: 0,
            last_closed: NO_CLOSE,
            may_skip: false,
            skip_frames: Vec::new(),
            skip_keys: Vec::new(),
            skipped_nodes: 0,
            skipped: Vec::new(),
            skipped_documents: 0,
            skip_failed: false,
        }
    }

    /// Starts a document (dropping any unfinished one).
    fn begin(&mut self, index: u32, start: u32, origin: Option<Span>) {
        self.abort();
        self.open = true;
        self.index = index;
        self.start = start;
        self.origin = origin;
    }

    /// Drops the open document, if any (after a syntax error).
    fn abort(&mut self) {
        self.open = false;
        self.root = None;
        self.origin = None;
        self.nodes.clear();
        self.too_large = false;
        self.values.clear();
        self.value_ends.clear();
        self.pending.clear();
        self.stack.clear();
        self.anchors.clear();
        self.duplicates.clear();
        self.tags.clear();
        self.closed_dropped_nodes = 0;
        self.last_closed = NO_CLOSE;
        self.skip_frames.clear();
        self.skip_keys.clear();
        self.skipped_nodes = 0;
        self.skipped.clear();
        self.skip_failed = false;
    }

    fn push(&mut self, node: Node, anchor: usize, tag: Option<String>) -> NodeId {
        if self.nodes.len() + self.closed_dropped_nodes + self.skipped_nodes >= self.max_nodes {
            // Ids past this would not fit beside the kind: the document is dropped at its end.
            self.too_large = true;
        }
        let id = NodeId::try_from(self.nodes.len()).unwrap_or(NodeId::MAX);
        self.nodes.push(node);
        if let Some(tag) = tag {
            self.tags.push((id, tag));
        }
        if anchor != 0 {
            self.anchors.insert(anchor, id);
        }
        if self.stack.is_empty() {
            if self.root.is_none() {
                self.root = Some(id);
            }
        } else {
            self.pending.push(id);
        }
        id
    }

    /// Whether the builder is inside a collection whose inside it skips ([`Builder::skips`]):
    /// there a scalar's value is read only when it is a mapping's key.
    fn skipping(&self) -> bool {
        !self.skip_frames.is_empty()
    }

    fn scalar(
        &mut self,
        value: &str,
        kind: Kind,
        start: u32,
        end: u32,
        anchor: usize,
        tag: Option<String>,
    ) {
        if let Some(parent) = self.skip_frames.last_mut() {
            if parent.is_map && parent.entries % 2 == 0 && (kind != Kind::Plain || value != "<<") {
                self.skip_keys.push(key_hash(value));
            }
            parent.entries += 1;
            parent.last = LastEnd::At(end);
            parent.last_closed_at = None;
            self.skip_node(anchor, tag.is_some());
            return;
        }
        // The value is the source slice (minus quotes) unless escapes, folding or a block
        // scalar's indentation made it differ: only then is it stored.
        let q = kind.quote_len();
        // Most values are the source slice itself (the scanner borrows it): same place, same
        // length, no comparison of their bytes.
        let in_source = !matches!(kind, Kind::Literal | Kind::Folded)
            && self
                .text
                .get(start as usize + q..(end as usize).saturating_sub(q))
                .is_some_and(|s| {
                    (std::ptr::eq(s.as_ptr(), value.as_ptr()) && s.len() == value.len())
                        || s == value
                });
        let a = if in_source {
            NONE_ARG
        } else {
            self.values.push_str(value);
            self.value_ends
                .push(u32::try_from(self.values.len()).unwrap_or(NONE - 1));
            u32::try_from(self.value_ends.len() - 1).unwrap_or(NONE_ARG - 1)
        };
        self.push(Node::new(start, end, kind, a), anchor, tag);
    }

    fn open_collection(
        &mut self,
        kind: Kind,
        start: u32,
        end: u32,
        anchor: usize,
        tag: Option<String>,
    ) {
        if let Some(parent) = self.skip_frames.last_mut() {
            parent.entries += 1;
            parent.last_closed_at = None;
            self.skip_frames.push(SkipFrame {
                start,
                is_map: kind == Kind::Map,
                entries: 0,
                keys: self.skip_keys.len(),
                last: LastEnd::None,
                last_closed_at: None,
            });
            self.skip_node(anchor, tag.is_some());
            return;
        }
        let id = self.push(Node::new(start, end, kind, 0), anchor, tag);
        self.stack.push(Frame {
            node: id,
            base: self.pending.len(),
        });
        if self.skips(id) {
            self.skip_frames.push(SkipFrame {
                start,
                is_map: kind == Kind::Map,
                entries: 0,
                keys: 0,
                last: LastEnd::None,
                last_closed_at: None,
            });
        }
    }

    /// Whether the inside of the collection `id`, just opened, is skipped as it is read: it
    /// is the value of the `spec` ([`Unread::key`]) of the root, or of an item of the root's
    /// `items` (a `…List`, as `kubectl get crd -o yaml` prints), or of an item of the root
    /// sequence of a part of those items ([`Part::Items`]), and that object already said it
    /// is a definition (its `apiVersion` and `kind`, as [`Builder::droppable`] reads them at
    /// the document's end, which drops the collection's inside whether it was skipped or
    /// built, and checks that the root of a list is a `…List`; for a part, its join does).
    /// A definition's `spec` is most of the corpus's bytes: its nodes were built only to be
    /// dropped. Skipped, its nodes are counted ([`Builder::skip_node`]), its keys hashed
    /// (a mapping with two alike fails the skip) and its collections' ends found as
    /// [`Builder::close`] finds them ([`Builder::close_skipped`]); where the skip fails
    /// ([`Builder::skip_failed`]), the document is read whole by granit-parser.
    fn skips(&self, id: NodeId) -> bool {
        let Some((unread, part)) = self.reading.pruned() else {
            return false;
        };
        if !self.may_skip {
            return false;
        }
        let kind_of = |f: &Frame| self.nodes[f.node as usize].kind();
        let object = match (part, self.stack.as_slice()) {
            (Part::Whole, [root, _]) => root,
            // A part of the items of a `…List`: its root is their sequence.
            (Part::Items, [root, item, _]) => {
                if kind_of(root) != Kind::Seq {
                    return false;
                }
                item
            }
            (Part::Whole, [root, items, item, _]) => {
                // `items` is a sequence, the value of the root's key `items`.
                let above = &self.pending[root.base..items.base];
                if kind_of(root) != Kind::Map
                    || kind_of(items) != Kind::Seq
                    || above.len() % 2 != 0
                    || above.len() < 2
                    || self.scalar_of(above[above.len() - 2]) != Some("items")
                {
                    return false;
                }
                item
            }
            _ => return false,
        };
        if kind_of(object) != Kind::Map {
            return false;
        }
        // The object's entries, this collection last: it must be a value, that of `spec`.
        let entries = &self.pending[object.base..];
        if entries.len() % 2 != 0 || entries.last() != Some(&id) {
            return false;
        }
        let entries = &entries[..entries.len() - 1];
        if entries.last().and_then(|k| self.scalar_of(*k)) != Some(unread.key) {
            return false;
        }
        let (mut api, mut kind) = (false, false);
        for pair in entries.chunks_exact(2) {
            match self.scalar_of(pair[0]) {
                Some("apiVersion") => {
                    api = self
                        .scalar_of(pair[1])
                        .is_some_and(|a| a.starts_with(unread.api_prefix));
                }
                Some("kind") => kind = self.scalar_of(pair[1]) == Some(unread.kind),
                _ => {}
            }
        }
        api && kind
    }

    /// Whether the collection `id` had an inside, skipped as it was read.
    fn skipped_inside(&self, id: NodeId) -> bool {
        self.skipped
            .binary_search_by_key(&id, |(s, _)| *s)
            .is_ok_and(|at| self.skipped[at].1)
    }

    /// Counts a node skipped as [`Builder::push`] counts the nodes it keeps.
    fn skip_node(&mut self, anchor: usize, tagged: bool) {
        if self.nodes.len() + self.closed_dropped_nodes + self.skipped_nodes >= self.max_nodes {
            self.too_large = true;
        }
        self.skipped_nodes += 1;
        // Never written by the scanner that skips; a document with them is read whole.
        if anchor != 0 || tagged {
            self.skip_failed = true;
        }
    }

    /// Closes a collection inside the skipped one, or that one, as [`Builder::close`] closes
    /// the collections it keeps.
    fn close_skipped(&mut self, end: u32) {
        let Some(frame) = self.skip_frames.pop() else {
            return;
        };
        let start = frame.start as usize;
        let end = (end as usize).max(start);
        if frame.is_map && frame.entries % 2 == 1 {
            self.skip_failed = true;
        }
        let bytes = self.text.as_bytes();
        let floor = frame.last.resolve(bytes).unwrap_or(start).max(start);
        let same_close = frame.last_closed_at == Some(end);
        if frame.is_map && may_repeat(&mut self.skip_keys[frame.keys..]) {
            self.skip_failed = true;
        }
        self.skip_keys.truncate(frame.keys);
        if let Some(parent) = self.skip_frames.last_mut() {
            parent.last = LastEnd::Trimmed {
                start,
                closed_at: end,
                floor,
                same_close,
            };
            parent.last_closed_at = Some(end);
            return;
        }
        let trimmed = trimmed_end(bytes, start, end, floor, same_close);
        // The skipped collection itself, with no child kept.
        let Some(outer) = self.stack.pop() else {
            return;
        };
        let id = outer.node as usize;
        self.nodes[id].end = u32::try_from(trimmed).unwrap_or(u32::MAX);
        self.last_closed = (outer.node, end);
        self.pending.truncate(outer.base);
        self.nodes[id].set_arg(u32::try_from(id + 1).unwrap_or(NONE_ARG));
        self.skipped.push((outer.node, frame.entries > 0));
        #[cfg(test)]
        tests::SKIPS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(self.file);
    }

    fn close(&mut self, end: u32) {
        if !self.skip_frames.is_empty() {
            self.close_skipped(end);
            return;
        }
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let id = frame.node as usize;
        let is_map = self.nodes[id].kind() == Kind::Map;
        if is_map && (self.pending.len() - frame.base) % 2 == 1 {
            // A key without a value (cannot happen in a well-formed event stream).
            self.pending.pop();
        }
        let start = self.nodes[id].start as usize;
        let closed_at = (end as usize).max(start);
        let last = self.pending[frame.base..].last().copied();
        // Never end before the last child (a block scalar may hold lines that look like comments).
        let floor = last
            .map_or(start, |c| self.nodes[c as usize].end as usize)
            .max(start);
        let end = trimmed_end(
            self.text.as_bytes(),
            start,
            closed_at,
            floor,
            last.is_some_and(|c| self.last_closed == (c, closed_at)),
        );
        self.nodes[id].end = u32::try_from(end).unwrap_or(u32::MAX);
        self.last_closed = (frame.node, closed_at);
        if is_map {
            self.find_duplicates(frame.base);
        }
        self.pending.truncate(frame.base);
        // Its subtree is every node pushed since it opened.
        let past = u32::try_from(self.nodes.len()).unwrap_or(NONE_ARG);
        self.nodes[id].set_arg(past);
        if self.nodes.len() > id + 1 && self.unread_in_object(frame.base) {
            self.drop_subtree(id);
        }
    }

    /// Whether the collection just closed, at `pending[base - 1]`, is the value of one of the
    /// key paths [`Unread::in_every_object`] of an object: the document's root mapping, or a
    /// mapping among the items of its `items` sequence (kubectl's `…List`; whether the root
    /// is one is not known yet, as `kind` may come after `items`: nothing reads the
    /// `items` of any other kind's root either).
    fn unread_in_object(&self, base: usize) -> bool {
        let Some((unread, part)) = self.reading.pruned() else {
            return false;
        };
        let items = part == Part::Items;
        let depth = self.stack.len();
        let longest = unread.in_every_object.iter().map(|p| p.len()).max();
        // An object is at level 0 or 2: nothing deeper can be the value of a path.
        if depth == 0 || longest.is_none_or(|l| depth > 2 + l) {
            return false;
        }
        // The key of the collection at `pending[at]`, whose parent is `parent`.
        let key_at = |at: usize, parent: &Frame| -> Option<&str> {
            let in_map = self.nodes.get(parent.node as usize)?.kind() == Kind::Map;
            let value = at.checked_sub(parent.base)?;
            if !in_map || value % 2 == 0 {
                return None;
            }
            self.scalar_of(*self.pending.get(at.checked_sub(1)?)?)
        };
        // The key of what is open at `level` (1 ≤ level ≤ depth; at `depth`, the collection just
        // closed).
        let key_of = |level: usize| -> Option<&str> {
            match self.stack.get(level) {
                Some(frame) => key_at(frame.base.checked_sub(1)?, &self.stack[level - 1]),
                None => key_at(base.checked_sub(1)?, &self.stack[level - 1]),
            }
        };
        let kind_at = |level: usize| {
            self.stack
                .get(level)
                .and_then(|f| self.nodes.get(f.node as usize))
                .map(Node::kind)
        };
        let is_object = |level: usize| match (items, level) {
            (false, 0) => kind_at(0) == Some(Kind::Map),
            (false, _) => {
                kind_at(0) == Some(Kind::Map)
                    && kind_at(1) == Some(Kind::Seq)
                    && kind_at(2) == Some(Kind::Map)
                    && key_of(1) == Some("items")
            }
            (true, _) => kind_at(0) == Some(Kind::Seq) && kind_at(1) == Some(Kind::Map),
        };
        let levels: &[usize] = if items { &[1] } else { &[0, 2] };
        unread.in_every_object.iter().any(|path| {
            levels.iter().any(|&level| {
                depth == level + path.len()
                    && is_object(level)
                    && path
                        .iter()
                        .enumerate()
                        .all(|(i, key)| key_of(level + 1 + i) == Some(*key))
            })
        })
    }

    /// Drops the children of the collection `id`, just closed, as [`Builder::unread_in_object`]
    /// says, unless something refers to a node among them (a duplicate key, a tag or an
    /// anchor, which are reported or linked by id) or a suppression marker is written inside
    /// it (whose being in a quoted scalar or not [`crate::suppress`] tells from the nodes).
    fn drop_subtree(&mut self, id: usize) {
        let inside = |n: NodeId| n as usize > id;
        if self.duplicates.last().is_some_and(|(_, d)| inside(*d))
            || self.tags.last().is_some_and(|(t, _)| inside(*t))
            || self.anchors.values().any(|a| inside(*a))
        {
            return;
        }
        let (start, end) = (self.nodes[id].start, self.nodes[id].end);
        let written = self
            .text
            .as_bytes()
            .get(start as usize..end as usize)
            .unwrap_or_default();
        if memchr::memmem::find(written, crate::suppress::MARK.as_bytes()).is_some() {
            return;
        }
        // The first value stored inside: it and those after it go with the nodes.
        let first_value = self.nodes[id + 1..]
            .iter()
            .find(|n| n.kind().style().is_some() && n.arg() != NONE_ARG)
            .map(|n| n.arg() as usize);
        if let Some(k) = first_value {
            let from = k
                .checked_sub(1)
                .and_then(|p| self.value_ends.get(p))
                .map_or(0, |e| *e as usize);
            self.value_ends.truncate(k);
            self.values.truncate(from);
        }
        self.closed_dropped_nodes += self.nodes.len() - (id + 1);
        self.nodes.truncate(id + 1);
        self.nodes[id].set_arg(u32::try_from(id + 1).unwrap_or(NONE_ARG));
    }

    /// Records keys of the mapping whose entries are `pending[base..]` that repeat an earlier
    /// scalar key (the merge key `<<` excepted), as (first, duplicate).
    fn find_duplicates(&mut self, base: usize) {
        let Builder {
            nodes,
            values,
            value_ends,
            text,
            pending,
            duplicates,
            ..
        } = self;
        let entries = &pending[base..];
        if entries.len() < 4 {
            return;
        }
        let key_text = |id: NodeId| -> Option<&str> {
            let n = &nodes[id as usize];
            let kind = n.kind();
            kind.style()?;
            let s = scalar_text(text, values, value_ends, n, kind);
            (kind != Kind::Plain || s != "<<").then_some(s)
        };
        let keys = || entries.iter().step_by(2);
        if entries.len() <= 2 * SMALL_MAP {
            // Each key's text found once, not again for every key after it.
            let mut texts: [Option<&str>; SMALL_MAP] = [None; SMALL_MAP];
            for (i, k) in keys().enumerate() {
                let Some(s) = key_text(*k) else {
                    continue;
                };
                if let Some(first) = texts[..i].iter().position(|t| *t == Some(s)) {
                    duplicates.push((entries[2 * first], *k));
                }
                texts[i] = Some(s);
            }
        } else {
            let mut seen: HashMap<&str, NodeId> = HashMap::with_capacity(entries.len() / 2);
            for k in keys() {
                let Some(s) = key_text(*k) else {
                    continue;
                };
                if let Some(first) = seen.get(s) {
                    duplicates.push((*first, *k));
                } else {
                    seen.insert(s, *k);
                }
            }
        }
    }

    /// Ends the open document and resets the buffers for the next one.
    fn finish(&mut self, end: u32) -> Option<Document> {
        if !self.open {
            return None;
        }
        while !self.stack.is_empty() {
            self.close(end);
        }
        if self.too_large {
            self.dropped_too_large = Some(self.start);
            self.abort();
            return None;
        }
        // Before the tags are taken: a tagged node keeps its document whole.
        let specs = match self.reading.pruned() {
            Some((unread, part)) => self.droppable(unread, part),
            None => Vec::new(),
        };
        // A skipped inside is right only where it is dropped: otherwise (a key that may
        // repeat one, the document's `kind` said twice, a list that is not a `…List`) the
        // document is read whole again.
        // Both in document order: each looked up by binary search (a linear search each was
        // quadratic in the items of a `List` of definitions).
        if self.skip_failed
            || self
                .skipped
                .iter()
                .any(|(id, any)| *any && specs.binary_search(id).is_err())
        {
            self.abort();
            self.skip_failed = true;
            return None;
        }
        // Only these have their lines cut out of the text ([`cut_unread`]): a definition's spec
        // is most of its file, so its copy of the rest costs little and frees much; an object's
        // `status` and `managedFields` (dropped as they closed) are under a third of a dump of
        // a cluster, and the copy of the other two thirds beside the whole text set its peak:
        // 88.5 MiB with the cut, 83.6 without it (115 before either), for a 41 MB
        // `kubectl get -o yaml` of 16,000 objects.
        let dropped: Box<[(u32, u32)]> = specs
            .iter()
            .filter_map(|id| self.nodes.get(*id as usize))
            .map(|n| (n.start, n.end))
            .collect();
        let values_dropped = !dropped.is_empty() || self.closed_dropped_nodes > 0;
        let anchored = !self.anchors.is_empty() && self.reading.part != Part::Whole;
        let rare = (!self.duplicates.is_empty()
            || !self.tags.is_empty()
            || !dropped.is_empty()
            || anchored)
            .then(|| {
                Box::new(Rare {
                    duplicates: self.duplicates.as_slice().into(),
                    tags: std::mem::take(&mut self.tags).into_boxed_slice(),
                    dropped,
                    anchored,
                })
            });
        // Nothing to take out when every dropped inside was skipped.
        let (nodes, values, value_ends) = if specs.iter().all(|s| self.skipped_inside(*s)) {
            // A document too large for the buffer to be kept for the next one (a dump of a
            // cluster is one `List`) takes the buffer, shrunk in place, instead of a copy of it
            // made beside it: 16 MB less at the peak of a 41 MB dump.
            let nodes: Box<[Node]> = if self.nodes.capacity() > SCRATCH_MAX_NODES {
                std::mem::take(&mut self.nodes).into_boxed_slice()
            } else {
                self.nodes.as_slice().into()
            };
            (
                nodes,
                self.values.as_str().into(),
                self.value_ends.as_slice().into(),
            )
        } else {
            self.without_subtrees(&specs)
        };
        let doc = Document {
            file: self.file,
            index: self.index,
            text: Arc::clone(self.text),
            nodes,
            values,
            value_ends,
            root: self.root,
            start: self.start,
            end,
            origin: self.origin.take(),
            rare,
            spec_dropped: values_dropped,
        };
        self.skipped_documents += usize::from(!self.skipped.is_empty());
        self.abort();
        Some(doc)
    }

    /// The value of a scalar node of the open document.
    fn scalar_of(&self, id: NodeId) -> Option<&str> {
        let n = self.nodes.get(id as usize)?;
        let kind = n.kind();
        kind.style()?;
        Some(scalar_text(
            self.text,
            &self.values,
            &self.value_ends,
            n,
            kind,
        ))
    }

    /// The children of the open document's node `id` when it is of `kind`, else none.
    fn children_if(&self, id: NodeId, kind: Kind) -> Children<'_> {
        match self.nodes.get(id as usize) {
            Some(n) if n.kind() == kind => Children::of(&self.nodes, id),
            _ => Children::EMPTY,
        }
    }

    /// The `unread` value of mapping `map` when `map` is one of its objects and the value a
    /// collection with children. Also the `kind` and `items` of `map`, for a caller looking
    /// for a `…List`.
    fn unread_in(
        &self,
        map: NodeId,
        unread: &Unread,
    ) -> (Option<NodeId>, Option<&str>, Option<NodeId>) {
        let (mut kind, mut api, mut value, mut items) = (None, false, None, None);
        for (k, v) in self.children_if(map, Kind::Map).pairs() {
            match self.scalar_of(k) {
                Some("kind") => kind = self.scalar_of(v),
                Some("apiVersion") => {
                    api = self
                        .scalar_of(v)
                        .is_some_and(|a| a.starts_with(unread.api_prefix));
                }
                Some("items") => items = Some(v),
                Some(key) if key == unread.key => value = Some(v),
                _ => {}
            }
        }
        let value = value.filter(|v| {
            let node = self.nodes[*v as usize];
            api && kind == Some(unread.kind)
                && matches!(node.kind(), Kind::Map | Kind::Seq)
                && (node.arg() > v + 1 || self.skipped_inside(*v))
        });
        (value, kind, items)
    }

    /// The collections of the open document that `unread` drops, in document order: the
    /// root's, or those of the items of a `…List` (of the root sequence, in a part of them:
    /// [`Part`]). None when the document has duplicate keys, tags or anchors, whose node ids
    /// are reported or linked.
    fn droppable(&self, unread: &Unread, part: Part) -> Vec<NodeId> {
        if !self.duplicates.is_empty() || !self.tags.is_empty() || !self.anchors.is_empty() {
            return Vec::new();
        }
        let Some(root) = self.root else {
            return Vec::new();
        };
        match part {
            Part::Whole => {}
            Part::Around => return Vec::new(),
            Part::Items => {
                return self
                    .children_if(root, Kind::Seq)
                    .filter_map(|item| self.unread_in(item, unread).0)
                    .collect()
            }
        }
        match self.unread_in(root, unread) {
            (Some(value), _, _) => vec![value],
            (None, Some(kind), Some(items)) if kind.ends_with("List") => self
                .children_if(items, Kind::Seq)
                .filter_map(|item| self.unread_in(item, unread).0)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Exact-size copies of the open document's nodes and stored values without the children
    /// of the collections `drops` (in document order, none inside another; each is left as an
    /// empty collection with its span): later ids and the subtree ends that reach past a
    /// dropped subtree move down, stored values are numbered again.
    fn without_subtrees(&self, drops: &[NodeId]) -> (Box<[Node]>, Box<str>, Box<[u32]>) {
        let len = self.nodes.len();
        // Each dropped range of ids, and the ids dropped up to its end.
        let mut ranges: Vec<(usize, usize, u32)> = Vec::with_capacity(drops.len());
        let mut gone = 0u32;
        for &d in drops {
            let from = d as usize + 1;
            let past = (self.nodes[d as usize].arg() as usize).clamp(from, len);
            gone += u32::try_from(past - from).unwrap_or(0);
            ranges.push((from, past, gone));
        }
        // Ids dropped before `id` (an end of subtree: a range ends at or before it, or is after it).
        let shift = |id: u32| {
            let i = ranges.partition_point(|r| r.1 <= id as usize);
            i.checked_sub(1).map_or(0, |i| ranges[i].2)
        };
        let mut kept_ranges = Vec::with_capacity(ranges.len() + 1);
        let mut at = 0;
        for &(from, past, _) in &ranges {
            kept_ranges.push(at..from);
            at = past;
        }
        kept_ranges.push(at..len);
        let kept = || kept_ranges.iter().flat_map(|r| &self.nodes[r.clone()]);
        let stored = || kept().filter(|n| n.kind().style().is_some() && n.arg() != NONE_ARG);
        let mut values = String::with_capacity(
            stored()
                .map(|n| scalar_text(self.text, &self.values, &self.value_ends, n, n.kind()).len())
                .sum(),
        );
        let mut value_ends = Vec::with_capacity(stored().count());
        let mut nodes = Vec::with_capacity(len - gone as usize);
        for (r, range) in kept_ranges.iter().enumerate() {
            for (i, n) in self.nodes[range.clone()].iter().enumerate() {
                let id = range.start + i;
                let mut node = *n;
                match n.kind() {
                    // The last node before a dropped range is the collection it empties.
                    Kind::Seq | Kind::Map if r < ranges.len() && id + 1 == range.end => {
                        let new_id = u32::try_from(nodes.len()).unwrap_or(NONE_ARG - 1);
                        node.set_arg(new_id + 1);
                    }
                    Kind::Seq | Kind::Map => node.set_arg(n.arg() - shift(n.arg())),
                    Kind::Alias => {}
                    kind if n.arg() != NONE_ARG => {
                        values.push_str(scalar_text(
                            self.text,
                            &self.values,
                            &self.value_ends,
                            n,
                            kind,
                        ));
                        node.set_arg(u32::try_from(value_ends.len()).unwrap_or(NONE_ARG - 1));
                        value_ends.push(u32::try_from(values.len()).unwrap_or(NONE - 1));
                    }
                    _ => {}
                }
                nodes.push(node);
            }
        }
        (
            nodes.into_boxed_slice(),
            values.into_boxed_str(),
            value_ends.into_boxed_slice(),
        )
    }
}

impl Drop for Builder<'_> {
    /// Gives the buffers back to the thread for its next file, empty.
    fn drop(&mut self) {
        if self.nodes.capacity() > SCRATCH_MAX_NODES || self.values.capacity() > SCRATCH_MAX_NODES {
            return;
        }
        self.abort();
        let scratch = Scratch {
            nodes: std::mem::take(&mut self.nodes),
            values: std::mem::take(&mut self.values),
            value_ends: std::mem::take(&mut self.value_ends),
            pending: std::mem::take(&mut self.pending),
            stack: std::mem::take(&mut self.stack),
            duplicates: std::mem::take(&mut self.duplicates),
        };
        // Nothing to keep them for once the thread is ending.
        let _ = SCRATCH.try_with(|s| s.set(Some(scratch)));
    }
}

fn byte_of(marker: &granit_parser::Marker) -> u32 {
    u32::try_from(marker.byte_offset().unwrap_or(marker.index())).unwrap_or(u32::MAX)
}

/// Extracts the path of a Helm `# Source: PATH` comment.
fn source_comment(text: &str) -> Option<&str> {
    let rest = text.trim().strip_prefix("Source:")?.trim();
    (!rest.is_empty()).then_some(rest)
}

/// The span of `path` in the comment at `text[start..end]`: the comment's end, whitespace
/// excluded.
fn path_span(text: &str, file: FileId, start: u32, end: u32, path: &str) -> Option<Span> {
    let comment = text.get(start as usize..end as usize)?;
    let at = if comment.trim_end().ends_with(path) {
        comment.trim_end().len() - path.len()
    } else {
        comment.rfind(path)?
    };
    let from = start.checked_add(u32::try_from(at).ok()?)?;
    Some(Span {
        file,
        start: from,
        end: from.checked_add(u32::try_from(path.len()).ok()?)?,
    })
}

/// Adds a finished document to a file's documents. The first one gets room for itself only:
/// most files hold one document, and every file's vector waits until all files are parsed
/// (room for four was 312 bytes too many for each of 20,000 small files).
fn push_document(docs: &mut Vec<Document>, doc: Option<Document>) {
    if let Some(doc) = doc {
        if docs.capacity() == 0 {
            docs.reserve_exact(1);
        }
        docs.push(doc);
    }
}

/// Streams larger than this are split at document markers and parsed in parallel.
const CHUNK_BYTES: usize = 2 << 20;

/// Parses a YAML stream, in parallel chunks when it is large (a `helm template` stream on
/// stdin is one file). The result is identical to [`parse`]: chunks are cut only at a `---`
/// marker at column 0, which YAML forbids inside any scalar, so no document spans two chunks.
/// A large stream that is one `List` as `kubectl get -o yaml` prints it has its items parsed
/// in parallel parts instead, joined into the same document. The documents share `text`
/// (pass the file's [`Arc<String>`] to avoid a copy).
pub fn parse_stream(file: FileId, text: impl SharedText) -> (Vec<Document>, Vec<ParseError>) {
    stream(file, text.into_shared(), None)
}

/// [`parse_stream`] without what `unread` names: for the rules, the `spec` of a
/// CustomResourceDefinition ([`crate::k8s::UNREAD_BY_RULES`]), most of the nodes of a chart's
/// or an operator's install manifests (82 % of the bytes of the corpus's manifests). What is
/// reported does not change: the dropped value's key and span stay (it reads as an empty
/// collection, see [`Document::spec_dropped`]), and the objects among the items of a `…List`
/// (`kubectl get crd -o yaml`) lose theirs too; a document with duplicate keys, tags or
/// anchors is kept whole. And every object's `status` and `metadata.managedFields`, which a
/// dump of a cluster (`kubectl get -o yaml`) writes for each: dropped as soon as each is
/// parsed (so a 41 MB dump of 16,000 objects peaks at 84 MiB instead of 115), unless a
/// duplicate key, a tag, an anchor or a suppression marker is inside it.
pub fn parse_stream_without(
    file: FileId,
    text: impl SharedText,
    unread: &'static Unread,
) -> (Vec<Document>, Vec<ParseError>) {
    stream(file, text.into_shared(), Some(unread))
}

fn stream(
    file: FileId,
    text: Arc<String>,
    unread: Option<&'static Unread>,
) -> (Vec<Document>, Vec<ParseError>) {
    use rayon::prelude::*;
    let reading = Reading::whole(unread);
    let cuts = chunk_starts(&text, CHUNK_BYTES);
    if cuts.len() <= 1 {
        // One large document: a dump of a cluster (`kubectl get -o yaml`) has its items parsed
        // in parallel. Not on one thread, where joining the parts (13 ms for 41 MB) is all
        // that would change.
        if text.len() > CHUNK_BYTES && rayon::current_num_threads() > 1 {
            if let Some(parsed) = list::parse(file, &text, unread, list::PART_BYTES) {
                return parsed;
            }
        }
        return parse_range(file, &text, 0, text.len(), reading);
    }
    let ranges = between(&cuts, text.len());
    let parts: Vec<(Vec<Document>, Vec<ParseError>)> = ranges
        .par_iter()
        .map(|(start, end)| parse_range(file, &text, *start, *end, reading))
        .collect();
    // The first chunk's vector grows to the exact total (a large allocation grows in place,
    // without a second copy of every document alive at once).
    let total = parts.iter().map(|(d, _)| d.len()).sum::<usize>();
    let mut parts = parts.into_iter();
    let (mut docs, mut errors) = parts.next().unwrap_or_default();
    docs.reserve_exact(total - docs.len());
    for (d, e) in parts {
        docs.extend(d);
        errors.extend(e);
    }
    for (i, doc) in docs.iter_mut().enumerate() {
        doc.index = u32::try_from(i).unwrap_or(u32::MAX);
    }
    (docs, errors)
}

/// The documents of `text` with the items of a `…List` parsed in parts of `part_bytes`, as
/// [`parse_stream`] parses a large dump of a cluster, or `None` where that declines and the
/// text is parsed whole; for the fuzz target, which checks that it gives what [`parse_stream`]
/// and [`parse_stream_without`] give.
pub(crate) fn parse_list_in_parts(
    file: FileId,
    text: &str,
    unread: Option<&'static Unread>,
    part_bytes: usize,
) -> Option<(Vec<Document>, Vec<ParseError>)> {
    list::parse(file, &text.into_shared(), unread, part_bytes)
}

/// The ranges from each of `starts` (ascending) to the next, the last to `end`.
fn between(starts: &[usize], end: usize) -> Vec<(usize, usize)> {
    starts
        .iter()
        .zip(starts.iter().skip(1).chain(std::iter::once(&end)))
        .map(|(a, b)| (*a, *b))
        .collect()
}

/// Byte offsets where chunks start: 0, then the start of the first `---` line (or of the
/// comment lines right above it, which belong to the next document) in each stretch of `size`
/// bytes after the first. A marker right after a directive line (`%YAML`) is not a cut, since
/// the directive belongs to it. The stretches are searched in parallel: a 41 MB dump, one
/// document, was searched to its end for a second chunk's marker, on one thread (2–3 ms of a
/// two-thread run) while the other waited.
fn chunk_starts(text: &str, size: usize) -> Vec<usize> {
    use rayon::prelude::*;
    let bytes = text.as_bytes();
    let size = size.max(1);
    let found: Vec<Option<usize>> = (1..bytes.len().div_ceil(size))
        .into_par_iter()
        .map(|k| {
            let (from, to) = (k * size, (k + 1) * size);
            // A marker starting in the stretch is told from its four bytes; one starting
            // after it is the next stretch's.
            let within = bytes.get(..to.saturating_add(3).min(bytes.len()))?;
            let found = find_marker(within, from).filter(|found| *found < to)?;
            chunk_cut_before(bytes, found)
        })
        .collect();
    let mut cuts = vec![0];
    for cut in found.into_iter().flatten() {
        if cut > *cuts.last().unwrap_or(&0) {
            cuts.push(cut);
        }
    }
    cuts
}

/// Where the segment of the document whose `---` line starts at `marker` starts: the start of
/// the comment lines right above it (they belong to it), or `None` right after a directive
/// line (`%YAML`), which belongs to the marker.
fn chunk_cut_before(bytes: &[u8], marker: usize) -> Option<usize> {
    let mut cut = marker;
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
            return (line.first() != Some(&b'%')).then_some(cut);
        }
    }
    Some(cut)
}

/// The start of the first line at or after `from` that is `---` followed by a blank or EOL.
/// The line at `from` (if a line starts there), then each `\n---` after it: one search
/// for the four bytes, not one for every line break (a 41 MB dump, one document of 1.4 M
/// lines, was searched line by line to its end for a next chunk's marker: 89 M instructions,
/// 6–8 ms of a two-thread run, on one thread while the other waited).
fn find_marker(bytes: &[u8], from: usize) -> Option<usize> {
    let is_marker = |line_start: usize| {
        bytes.get(line_start..).is_some_and(|rest| {
            rest.starts_with(b"---")
                && matches!(rest.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
        })
    };
    if from < bytes.len() && (from == 0 || bytes[from - 1] == b'\n') && is_marker(from) {
        return Some(from);
    }
    let after = bytes.get(from..)?;
    memchr::memmem::find_iter(after, b"\n---")
        .map(|at| from + at + 1)
        .find(|line_start| is_marker(*line_start))
}

/// [`find_marker`], one line at a time: its reference in tests.
#[cfg(test)]
fn find_marker_by_lines(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        let line_start = if i == 0 || bytes[i - 1] == b'\n' {
            i
        } else {
            memchr::memchr(b'\n', &bytes[i..]).map(|p| i + p + 1)?
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

/// Parses a YAML stream into documents. Never fails: syntax errors become [`ParseError`]s and
/// parsing resumes at the next document. The documents hold `text` (shared).
pub fn parse(file: FileId, text: impl SharedText) -> (Vec<Document>, Vec<ParseError>) {
    let text: Arc<String> = text.into_shared();
    parse_range(file, &text, 0, text.len(), Reading::WHOLE)
}

/// Parses a YAML stream with granit-parser alone (no scanner of kubegap's own): the reference
/// the scanner is compared with in tests, fuzzing and benchmarks. Same result as [`parse`].
pub fn parse_reference(file: FileId, text: impl SharedText) -> (Vec<Document>, Vec<ParseError>) {
    let text: Arc<String> = text.into_shared();
    let (docs, errors, _, _) = granit_range(file, &text, 0, text.len(), 0, None, Reading::WHOLE);
    (docs, errors)
}

/// [`parse_reference`] without what `unread` leaves out: granit-parser alone, every node built
/// and what is left out dropped as it closes, where kubegap's scanner skips a definition's
/// `spec` as it reads it ([`Builder::skips`]). Same result as [`parse_stream_without`]; the
/// reference the skip is compared with in tests and fuzzing.
pub fn parse_reference_without(
    file: FileId,
    text: impl SharedText,
    unread: &'static Unread,
) -> (Vec<Document>, Vec<ParseError>) {
    let text: Arc<String> = text.into_shared();
    let reading = Reading::whole(Some(unread));
    let (docs, errors, _, _) = granit_range(file, &text, 0, text.len(), 0, None, reading);
    (docs, errors)
}

/// How many documents of `text` kubegap's scanner reads itself and how many it leaves to
/// granit-parser (for tests and benchmarks; [`parse`] does the same work).
pub fn scanner_coverage(text: &str) -> fast::Coverage {
    coverage_of(text, Reading::WHOLE)
}

/// [`scanner_coverage`] without what `unread` leaves out, as [`parse_stream_without`] reads
/// a text of one chunk: also how many documents had a definition's `spec` skipped.
pub fn scanner_coverage_without(text: &str, unread: &'static Unread) -> fast::Coverage {
    coverage_of(text, Reading::whole(Some(unread)))
}

fn coverage_of(text: &str, reading: Reading) -> fast::Coverage {
    let text: Arc<String> = Arc::new(text.to_string());
    let mut coverage = fast::Coverage::default();
    if fast::parse(FileId(0), &text, 0, text.len(), &mut coverage, reading).is_none() {
        coverage.whole = true;
    }
    coverage
}

/// Parses the whole documents of `text[lo..hi]`, with offsets in `text`: kubegap's scanner,
/// which leaves what it does not read to granit-parser (see [`fast`]).
fn parse_range(
    file: FileId,
    text: &Arc<String>,
    lo: usize,
    hi: usize,
    reading: Reading,
) -> (Vec<Document>, Vec<ParseError>) {
    let mut coverage = fast::Coverage::default();
    match fast::parse(file, text, lo, hi, &mut coverage, reading) {
        Some(parsed) => parsed,
        None => {
            let (docs, errors, _, _) = granit_range(file, text, lo, hi, 0, None, reading);
            (docs, errors)
        }
    }
}

/// Parses the whole documents of `text[lo..hi]` with granit-parser, with offsets in `text`,
/// numbering documents from `index` and starting with the `# Source:` origin `pending` seen
/// before `lo`. Returns the documents, the errors, the origin pending at the end and how many
/// documents were started (with errors or not).
fn granit_range(
    file: FileId,
    text: &Arc<String>,
    lo: usize,
    hi: usize,
    index: u32,
    pending: Option<Span>,
    reading: Reading,
) -> (Vec<Document>, Vec<ParseError>, Option<Span>, u32) {
    let first_index = index;
    let chunk = text.get(lo..hi).unwrap_or("");
    let base = u32::try_from(lo).unwrap_or(u32::MAX);
    let at = |marker: &granit_parser::Marker| byte_of(marker).saturating_add(base);
    let options = granit_parser::options! {
        flow_nesting_limit: NESTING_LIMIT,
        block_nesting_limit: NESTING_LIMIT,
    };
    let mut parser = Parser::new_from_str_with_options(chunk, options);
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    let mut builder = Builder::new(file, text, reading);
    let mut pending_origin: Option<Span> = pending;
    let mut index = index;
    let mut last_error_at: Option<u32> = None;
    let error_at = |error: &ScanError| {
        let mut e = scan_error(file, chunk, error);
        e.span.start = e.span.start.saturating_add(base);
        e.span.end = e.span.end.saturating_add(base);
        e
    };
    while let Some(next) = parser.next_event() {
        match next {
            Ok((event, span)) => {
                let start = at(&span.start);
                let end = at(&span.end);
                match event {
                    Event::StreamStart => {}
                    Event::StreamEnd => break,
                    Event::DocumentStart(..) => {
                        builder.begin(index, start, pending_origin.take());
                        index += 1;
                    }
                    Event::DocumentEnd => {
                        push_document(&mut docs, builder.finish(end.max(start)));
                        if let Some(at) = builder.dropped_too_large.take() {
                            errors.push(too_large(file, at));
                        }
                    }
                    Event::Comment(body, _) => {
                        if let Some(origin) = source_comment(&body)
                            .and_then(|path| path_span(text, file, start, end, path))
                        {
                            if builder.open && builder.root.is_none() {
                                builder.origin = Some(origin);
                            } else {
                                pending_origin = Some(origin);
                            }
                        }
                    }
                    Event::Scalar(value, style, anchor, tag) if builder.open => {
                        let tag = tag.map(|t| t.original());
                        let kind = Kind::of_style(style);
                        builder.scalar(&value, kind, start, end, anchor, tag);
                    }
                    Event::SequenceStart(_, anchor, tag) if builder.open => {
                        let tag = tag.map(|t| t.original());
                        builder.open_collection(Kind::Seq, start, end, anchor, tag);
                    }
                    Event::MappingStart(_, anchor, tag) if builder.open => {
                        let tag = tag.map(|t| t.original());
                        builder.open_collection(Kind::Map, start, end, anchor, tag);
                    }
                    Event::SequenceEnd | Event::MappingEnd if builder.open => {
                        builder.close(end);
                    }
                    Event::Alias(anchor) if builder.open => {
                        let target = builder.anchors.get(&anchor).copied().unwrap_or(NONE_ARG);
                        builder.push(Node::new(start, end, Kind::Alias, target), 0, None);
                    }
                    _ => {}
                }
            }
            Err(error) => {
                let here = at(error.marker());
                errors.push(error_at(&error));
                builder.abort();
                pending_origin = None;
                if last_error_at == Some(here) {
                    break;
                }
                last_error_at = Some(here);
                match parser.proceed_next_document() {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(error) => {
                        errors.push(error_at(&error));
                        break;
                    }
                }
            }
        }
    }
    (docs, errors, pending_origin, index - first_index)
}

/// The error of a document with more than [`MAX_NODES`] nodes, at its start.
fn too_large(file: FileId, at: u32) -> ParseError {
    ParseError::new(
        Span {
            file,
            start: at,
            end: at,
        },
        format!("document too large: more than {MAX_NODES} YAML nodes; it is not linted"),
    )
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

/// Whether two byte strings are equal. Mapping keys are short, and most comparisons in a
/// lint are of keys of equal length: up to 16 bytes they are compared with two loads each
/// instead of a call to `memcmp` (2 % less CPU on a one-thread lint of the 51 MB stream).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    fn word(s: &[u8], at: usize) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_ne_bytes(w)
    }
    fn half(s: &[u8], at: usize) -> u32 {
        let mut w = [0u8; 4];
        w.copy_from_slice(&s[at..at + 4]);
        u32::from_ne_bytes(w)
    }
    match n {
        0 => true,
        // Bytes 0, n/2 and n-1 cover every byte of 1, 2 or 3.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        // Two overlapping words cover the whole string.
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}
