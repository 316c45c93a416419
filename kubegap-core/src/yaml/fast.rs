//! kubegap's own YAML scanner for the block-style YAML that Kubernetes manifests and
//! `helm template` output are written in, with granit-parser as the reference and fallback.
//!
//! It reads a document straight into the tree [`Builder`], with no token or event structs in
//! between (granit-parser spends a fifth of its time copying those), and produces exactly what
//! the granit-parser path produces: the same nodes, spans, values, `# Source:` origins,
//! duplicate keys and document bounds, including granit-parser's own placements (an empty
//! value at its key's colon, an empty item at the end of its dash's line, an indentless
//! sequence starting at its first item, a block scalar starting at its first content
//! character and ending where the next token starts). `kubegap-core/tests/yaml_scanner.rs`
//! compares both on edge cases, `testdata/` and the corpus; the `yaml_scanner` fuzz target
//! compares them on arbitrary input.
//!
//! It is deliberately partial. It reads block mappings and sequences, plain and quoted
//! scalars (over several lines too), literal and folded block scalars, flow collections,
//! comments and `---` markers. Anything else, and anything it is not sure of (anchors,
//! aliases, tags, directives, `...`, `?` keys, indentation indicators, tabs around tokens,
//! odd indentation, control characters, any syntax error), makes it give the document up
//! ([`Bail`]). granit-parser then reads that document alone, from its `---` to the next one,
//! and if granit-parser reports an error anywhere, it parses the whole range instead, so error
//! messages and recovery are exactly granit-parser's.

use std::borrow::Cow;
use std::sync::Arc;

use super::{find_marker, path_span, source_comment, Builder, Document, Kind};
use crate::finding::ParseError;
use crate::source::{FileId, Span};

/// The scanner gives the current document up (see the module docs); with the line of this
/// file that did, for [`Coverage::reasons`].
#[derive(Debug)]
pub(super) struct Bail(u32);

type R<T> = Result<T, Bail>;

/// Deeper nesting than this is left to granit-parser (which enforces the real limit).
const FAST_DEPTH: usize = 64;

/// Keys longer than this are left to granit-parser (YAML limits implicit keys to 1024
/// characters).
const KEY_LIMIT: usize = 1000;

/// An implicit key: its kind, its end, its colon and its value.
type Key<'t> = (Kind, usize, usize, Cow<'t, str>);

/// What the next line holds.
#[derive(Clone, Copy, Debug)]
enum At {
    /// Content: its first non-space byte and its column.
    Content { pos: usize, col: usize },
    /// A `---` document marker at this line start.
    Marker(usize),
    /// The end of the range.
    End,
}

/// Counts of documents read by each path, for tests and benchmarks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Why documents were left to granit-parser: the line of `fast.rs` that gave up, and how
    /// many times.
    pub reasons: std::collections::BTreeMap<u32, usize>,
    /// Documents read by kubegap's scanner.
    pub fast: usize,
    /// Documents of segments given to granit-parser.
    pub fallback: usize,
    /// Whether the whole range went to granit-parser.
    pub whole: bool,
    /// Documents read by kubegap's scanner with a collection's inside skipped as it was read
    /// (a definition's `spec`, where what the rules do not read is left out).
    pub skipped: usize,
}

/// A scalar's value as it is built from its lines, or only its errors checked (`keep` false:
/// a value inside a collection the builder skips is never read, and the descriptions of a
/// definition's schema are most of its bytes).
struct Value {
    text: String,
    keep: bool,
}

impl Value {
    fn of(keep: bool, first: &str) -> Value {
        Value {
            text: if keep {
                first.to_owned()
            } else {
                String::new()
            },
            keep,
        }
    }

    fn push(&mut self, c: char) {
        if self.keep {
            self.text.push(c);
        }
    }

    fn push_str(&mut self, s: &str) {
        if self.keep {
            self.text.push_str(s);
        }
    }
}

struct Fast<'a, 't> {
    file: FileId,
    text: &'t Arc<String>,
    b: &'t [u8],
    hi: usize,
    builder: &'a mut Builder<'t>,
    pending: Option<Span>,
    depth: usize,
}

/// Whether the range is free of bytes the scanner leaves to granit-parser: control characters
/// other than tab and line feed (so also `\r`), DEL, C1 controls (`U+0085` is a YAML line
/// break), `U+2028`/`U+2029`, a byte order mark and the non-characters `U+FFFE`/`U+FFFF`.
fn plain_bytes(b: &[u8]) -> bool {
    // Whole blocks of printable ASCII, line feeds and tabs are skipped at once (a loop the
    // compiler vectorises); a block with anything else is looked at byte by byte.
    const BLOCK: usize = 64;
    let ordinary = |c: u8| (0x20..0x7f).contains(&c) | (c == b'\n') | (c == b'\t');
    let mut from = 0;
    while from < b.len() {
        let to = (from + BLOCK).min(b.len());
        let block = &b[from..to];
        if !block.iter().fold(true, |all, &c| all & ordinary(c)) && !plain_bytes_at(b, from, to) {
            return false;
        }
        from = to;
    }
    true
}

/// [`plain_bytes`] for `b[from..to]`, byte by byte (sequences may reach past `to`).
fn plain_bytes_at(b: &[u8], from: usize, to: usize) -> bool {
    let mut i = from;
    while i < to {
        let c = b[i];
        if c < 0x20 {
            if c != b'\n' && c != b'\t' {
                return false;
            }
        } else if c >= 0x7f {
            match c {
                0x7f => return false,
                0xc2 if matches!(b.get(i + 1), Some(0x80..=0x9f)) => return false,
                0xe2 if b.get(i + 1) == Some(&0x80)
                    && matches!(b.get(i + 2), Some(0xa8 | 0xa9)) =>
                {
                    return false
                }
                0xef if (b.get(i + 1) == Some(&0xbb) && b.get(i + 2) == Some(&0xbf))
                    || (b.get(i + 1) == Some(&0xbf)
                        && matches!(b.get(i + 2), Some(0xbe | 0xbf))) =>
                {
                    return false
                }
                _ => {}
            }
        }
        i += 1;
    }
    true
}

/// Parses `text[lo..hi]` with the scanner, giving segments it cannot read to granit-parser.
/// `None` when granit-parser must parse the whole range (it reported an error, or the range
/// has something the scanner does not cut around).
pub(super) fn parse(
    file: FileId,
    text: &Arc<String>,
    lo: usize,
    hi: usize,
    coverage: &mut Coverage,
    reading: super::Reading,
) -> Option<(Vec<Document>, Vec<ParseError>)> {
    let b = text.as_bytes().get(..hi)?;
    if !plain_bytes(b.get(lo..)?) {
        return None;
    }
    let mut builder = Builder::new(file, text, reading);
    builder.may_skip = true;
    let mut f = Fast {
        file,
        text,
        b,
        hi,
        builder: &mut builder,
        pending: None,
        depth: 0,
    };
    let mut docs = Vec::new();
    let mut index = 0u32;
    // The line where the scan for the next document starts, and where granit-parser would
    // start reading that document (the range start, then each document's `---`).
    let mut p = lo;
    let mut seg = lo;
    let mut first = true;
    loop {
        // granit-parser reads comments again from `seg` if the document is given up: the
        // origin pending there is where it starts.
        let pending_at_seg = f.pending;
        let at = f.scan_lines(p).ok()?;
        let (doc_start, marker) = match at {
            At::End => break,
            At::Marker(m) => (m, Some(m)),
            At::Content { pos, .. } if first => (pos, None),
            // Content after a document that ended: cannot happen (a document ends at a marker
            // or at the end), but never guess.
            At::Content { .. } => return None,
        };
        first = false;
        f.builder.begin(index, u32_of(doc_start), f.pending.take());
        index += 1;
        let skipped_before = f.builder.skipped_documents;
        match f.document(doc_start, marker, at) {
            // A document too large for the tree: granit-parser's pass reports it.
            Ok(_) if f.builder.dropped_too_large.is_some() => return None,
            Ok((next, doc)) => {
                coverage.fast += 1;
                coverage.skipped += f.builder.skipped_documents - skipped_before;
                super::push_document(&mut docs, doc);
                p = next;
                seg = next;
            }
            Err(Bail(line)) => {
                *coverage.reasons.entry(line).or_default() += 1;
                f.builder.abort();
                index -= 1;
                // granit-parser reads the document from its `---` (or the range start) to the
                // next `---`, included, so that what ends at that marker ends as it does in a
                // whole-stream parse; the empty document the marker starts is dropped. Comment
                // lines above that marker are read with this document, as a whole-stream
                // parse reads them (a `# Source:` there is the origin of an empty document, or
                // pending for the next one).
                let from = marker.map_or(doc_start, |m| m + 1);
                let end = find_marker(b, from).filter(|m| *m < hi).unwrap_or(hi);
                if end <= seg {
                    return None;
                }
                let granit_end = if end < hi { end + 3 } else { hi };
                let (mut seg_docs, errors, mut pending, mut started) = super::granit_range(
                    file,
                    text,
                    seg,
                    granit_end,
                    index,
                    pending_at_seg,
                    reading,
                );
                if !errors.is_empty() {
                    return None;
                }
                if end < hi {
                    let extra = seg_docs.pop().filter(|d| d.start as usize == end)?;
                    pending = extra.origin_span();
                    started = started.checked_sub(1)?;
                }
                coverage.fallback += seg_docs.len();
                docs.append(&mut seg_docs);
                index += started;
                f.pending = pending;
                p = end;
                seg = end;
                continue;
            }
        }
    }
    Some((docs, Vec::new()))
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The bytes that neither stop a plain scalar's line nor end the scalar: all but `\n`, `\t`,
/// ` ` and `:` (a `#` stops it only after a space, found at the space).
static PLAIN_RUN: [bool; 256] = {
    let mut run = [true; 256];
    run[b'\n' as usize] = false;
    run[b'\t' as usize] = false;
    run[b' ' as usize] = false;
    run[b':' as usize] = false;
    run
};

fn is_blank_or_end(b: Option<&u8>) -> bool {
    matches!(b, None | Some(b' ' | b'\n'))
}

impl<'t> Fast<'_, 't> {
    /// `text[a..b]`, borrowed from the text (not from the scanner).
    fn slice(&self, a: usize, b: usize) -> R<&'t str> {
        let text: &'t Arc<String> = self.text;
        text.get(a..b).ok_or(Bail(line!()))
    }

    fn at(&self, i: usize) -> Option<u8> {
        if i < self.hi {
            self.b.get(i).copied()
        } else {
            None
        }
    }

    /// The first byte at or after `q` that is not a space, or the end of the range: the end of
    /// a line's indentation. Eight bytes at a time: a definition's schema is indented 10 to 30
    /// spaces a line, and its indentations were counted a byte at a time (9 % of a k8s+helm
    /// run's instructions). The spaces after a key or a value, most often one or none, are
    /// still counted a byte at a time, which is faster there.
    #[inline]
    fn spaces_end(&self, mut q: usize) -> usize {
        const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
        if self.at(q) != Some(b' ') {
            return q;
        }
        while let Some(word) = self
            .b
            .get(q..q + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            let other = u64::from_le_bytes(word) ^ SPACES;
            if other != 0 {
                return q + (other.trailing_zeros() / 8) as usize;
            }
            q += 8;
        }
        while self.at(q) == Some(b' ') {
            q += 1;
        }
        q
    }

    /// The first byte at or after `i` that may stop a plain scalar's line or end the scalar
    /// (a line break, tab, space or colon), or the end of the range: a key's or a value's
    /// ordinary bytes taken by one table lookup each.
    #[inline]
    fn plain_run(&self, mut i: usize) -> usize {
        while let Some(&c) = self.b.get(i) {
            if !PLAIN_RUN[usize::from(c)] {
                break;
            }
            i += 1;
        }
        i
    }

    /// The `\n` ending the line of `p`, or the end of the range.
    fn line_end(&self, p: usize) -> usize {
        match memchr::memchr(b'\n', self.b.get(p..self.hi).unwrap_or(&[])) {
            Some(i) => p + i,
            None => self.hi,
        }
    }

    /// Skips blank and comment lines from the line start `p`.
    fn scan_lines(&mut self, mut p: usize) -> R<At> {
        loop {
            if p >= self.hi {
                return Ok(At::End);
            }
            let q = self.spaces_end(p);
            match self.at(q) {
                None => return Ok(At::End),
                Some(b'\n') => p = q + 1,
                Some(b'#') => {
                    let end = self.line_end(q);
                    self.comment(q, end);
                    p = end + 1;
                }
                Some(b'\t') => return Err(Bail(line!())),
                Some(c) => {
                    if q == p {
                        let three = self.b.get(p..p + 3);
                        let marker_end =
                            is_blank_or_end(self.at(p + 3).as_ref()) && p + 3 <= self.hi;
                        if three == Some(b"---") && marker_end {
                            return Ok(At::Marker(p));
                        }
                        if three == Some(b"...") || c == b'%' {
                            return Err(Bail(line!()));
                        }
                        if three == Some(b"---") && self.at(p + 3) == Some(b'\t') {
                            return Err(Bail(line!()));
                        }
                    }
                    return Ok(At::Content { pos: q, col: q - p });
                }
            }
        }
    }

    /// A comment from its `#` to the end of its line: a Helm `# Source: PATH` sets the origin
    /// of the open document before its root, or of the next document.
    fn comment(&mut self, start: usize, end: usize) {
        let Some(body) = self.text.get(start + 1..end) else {
            return;
        };
        let Some(origin) = source_comment(body)
            .and_then(|path| path_span(self.text, self.file, u32_of(start), u32_of(end), path))
        else {
            return;
        };
        if self.builder.open && self.builder.root.is_none() {
            self.builder.origin = Some(origin);
        } else {
            self.pending = Some(origin);
        }
    }

    /// After a value ending at `p`: spaces and a comment to the end of the line. Returns the
    /// start of the next line.
    fn rest_of_line(&mut self, p: usize) -> R<usize> {
        let mut q = p;
        while self.at(q) == Some(b' ') {
            q += 1;
        }
        match self.at(q) {
            None => Ok(self.hi),
            Some(b'\n') => Ok(q + 1),
            Some(b'#') if q > p => {
                let end = self.line_end(q);
                self.comment(q, end);
                Ok((end + 1).min(self.hi))
            }
            _ => Err(Bail(line!())),
        }
    }

    fn after_value(&mut self, p: usize) -> R<At> {
        let next = self.rest_of_line(p)?;
        self.scan_lines(next)
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > FAST_DEPTH {
            return Err(Bail(line!()));
        }
        Ok(())
    }

    /// One document from its start (a `---` marker or its first content). Returns the line
    /// where the next document's scan starts, and the document.
    fn document(
        &mut self,
        start: usize,
        marker: Option<usize>,
        first: At,
    ) -> R<(usize, Option<Document>)> {
        self.depth = 0;
        let at = match marker {
            Some(m) => {
                let next = self.rest_of_line(m + 3)?;
                self.scan_lines(next)?
            }
            None => first,
        };
        let (end, next) = match at {
            At::Content { pos, col } => {
                // granit-parser ends a document whose root is a flow collection right after
                // it, any other at the next `---` or the end.
                let (after, flow_end) = if matches!(self.b[pos], b'[' | b'{') {
                    let end = self.flow(pos, -1)?;
                    (self.after_value(end)?, Some(end))
                } else {
                    (self.root(pos, col)?, None)
                };
                match after {
                    At::Marker(m) => (flow_end.unwrap_or(m), m),
                    At::End => (flow_end.unwrap_or(self.hi), self.hi),
                    At::Content { .. } => return Err(Bail(line!())),
                }
            }
            // An empty document: granit-parser gives it an empty scalar right after its `---`
            // and ends it there.
            At::Marker(_) | At::End if marker.is_some() => {
                let m32 = u32_of(start + 3);
                self.builder.scalar("~", Kind::Plain, m32, m32, 0, None);
                return Ok((pos_of(at, self.hi), self.builder.finish(m32)));
            }
            _ => return Err(Bail(line!())),
        };
        let doc = self.builder.finish(u32_of(end));
        // What the builder skipped has to be read after all: granit-parser reads it whole.
        if self.builder.skip_failed {
            return Err(Bail(line!()));
        }
        Ok((next, doc))
    }

    /// The root node of a document.
    fn root(&mut self, pos: usize, col: usize) -> R<At> {
        match self.b[pos] {
            b'-' if is_blank_or_end(self.at(pos + 1).as_ref()) => self.block_seq(pos, col, false),
            _ => {
                if self.key_at(pos)?.is_some() {
                    self.block_map(pos, col)
                } else {
                    Err(Bail(line!()))
                }
            }
        }
    }

    /// A node that starts a line (or follows `- ` or `key:` on a later line) at `pos`, column
    /// `col`, inside a collection at column `parent`.
    fn block_node(&mut self, pos: usize, col: usize, parent: i64) -> R<At> {
        if self.b[pos] == b'-' && is_blank_or_end(self.at(pos + 1).as_ref()) {
            return self.block_seq(pos, col, false);
        }
        if self.key_at(pos)?.is_some() {
            return self.block_map(pos, col);
        }
        self.inline_value(pos, parent)
    }

    /// A value on the same line as its key or dash, or alone on its line.
    fn inline_value(&mut self, p: usize, parent: i64) -> R<At> {
        // Never a key: inside a skipped collection its value is not kept, only its errors.
        let keep = !self.builder.skipping();
        match self.b[p] {
            b'|' | b'>' => self.block_scalar(p, parent, keep),
            b'"' | b'\'' => {
                let (end, value) = self.quoted_lines(p, Some(parent), keep)?;
                self.builder.scalar(
                    &value,
                    quoted_kind(self.b[p]),
                    u32_of(p),
                    u32_of(end),
                    0,
                    None,
                );
                self.after_value(end)
            }
            b'[' | b'{' => {
                let end = self.flow(p, parent)?;
                self.after_value(end)
            }
            _ => {
                let (end, value) = self.plain_lines(p, parent, keep)?;
                self.builder
                    .scalar(&value, Kind::Plain, u32_of(p), u32_of(end), 0, None);
                self.after_value(end)
            }
        }
    }

    /// A plain scalar at `p` (block context) with its continuation lines, which must be
    /// indented more than `parent`: its end and value (lines folded; with `keep` false, the
    /// first line's only).
    fn plain_lines(&self, p: usize, parent: i64, keep: bool) -> R<(usize, Cow<'t, str>)> {
        let mut end = self.plain(p)?;
        let mut value: Option<Value> = None;
        loop {
            // Only a line that ends right after the scalar continues.
            let mut q = end;
            while self.at(q) == Some(b' ') {
                q += 1;
            }
            if self.at(q) != Some(b'\n') {
                break;
            }
            let (next, blanks) = self.skip_blank_lines(q + 1)?;
            let Some((c, _)) = next.filter(|(_, col)| *col as i64 > parent) else {
                break;
            };
            if self.b[c] == b'#' {
                break;
            }
            if self.b[c] == b':' && is_blank_or_end(self.at(c + 1).as_ref()) {
                return Err(Bail(line!()));
            }
            let e = self.plain_rest(c)?;
            let s = match &mut value {
                Some(s) => s,
                None => value.insert(Value::of(keep, self.slice(p, end)?)),
            };
            if blanks == 0 {
                s.push(' ');
            } else {
                for _ in 0..blanks {
                    s.push('\n');
                }
            }
            s.push_str(self.slice(c, e)?);
            end = e;
        }
        Ok(match value {
            Some(Value { text, keep: true }) => (end, Cow::Owned(text)),
            _ => (end, Cow::Borrowed(self.slice(p, end)?)),
        })
    }

    /// A block mapping whose first key is at `pos`, column `col`.
    fn block_map(&mut self, pos: usize, col: usize) -> R<At> {
        self.enter()?;
        let p32 = u32_of(pos);
        self.builder.open_collection(Kind::Map, p32, p32, 0, None);
        let mut key = pos;
        let at = loop {
            let Some((kind, key_end, colon, value)) = self.key_at(key)? else {
                return Err(Bail(line!()));
            };
            self.builder
                .scalar(&value, kind, u32_of(key), u32_of(key_end), 0, None);
            let mut v = colon + 1;
            while self.at(v) == Some(b' ') {
                v += 1;
            }
            let at = match self.at(v) {
                None | Some(b'\n' | b'#') => {
                    let next = self.rest_of_line(colon + 1)?;
                    match self.scan_lines(next)? {
                        At::Content { pos, col: c } if c > col => {
                            self.block_node(pos, c, col as i64)?
                        }
                        At::Content { pos, col: c }
                            if c == col
                                && self.b[pos] == b'-'
                                && is_blank_or_end(self.at(pos + 1).as_ref()) =>
                        {
                            self.block_seq(pos, c, true)?
                        }
                        other => {
                            let at = u32_of(colon);
                            self.builder.scalar("~", Kind::Plain, at, at, 0, None);
                            other
                        }
                    }
                }
                Some(b'-') if is_blank_or_end(self.at(v + 1).as_ref()) => {
                    return Err(Bail(line!()))
                }
                // `key: a: b` is an error: `plain` gives it up.
                Some(_) => self.inline_value(v, col as i64)?,
            };
            match at {
                At::Content { pos, col: c } if c == col => {
                    if self.b[pos] == b'-' && is_blank_or_end(self.at(pos + 1).as_ref()) {
                        return Err(Bail(line!()));
                    }
                    key = pos;
                }
                At::Content { col: c, .. } if c > col => return Err(Bail(line!())),
                other => break other,
            }
        };
        self.builder.close(u32_of(pos_of(at, self.hi)));
        self.depth -= 1;
        Ok(at)
    }

    /// A block sequence whose first `-` is at `pos`, column `col`. An indentless sequence (the
    /// value of a key at the same column) starts, as granit-parser has it, at its first item.
    fn block_seq(&mut self, pos: usize, col: usize, indentless: bool) -> R<At> {
        self.enter()?;
        let mut dash = pos;
        let mut opened = false;
        if !indentless {
            let p32 = u32_of(pos);
            self.builder.open_collection(Kind::Seq, p32, p32, 0, None);
            opened = true;
        }
        let at = loop {
            let mut q = dash + 1;
            while self.at(q) == Some(b' ') {
                q += 1;
            }
            if !opened {
                if matches!(self.at(q), None | Some(b'\n' | b'#')) {
                    return Err(Bail(line!()));
                }
                let q32 = u32_of(q);
                self.builder.open_collection(Kind::Seq, q32, q32, 0, None);
                opened = true;
            }
            let item_col = col + (q - dash);
            let at = match self.at(q) {
                Some(b'\t') => return Err(Bail(line!())),
                None | Some(b'\n' | b'#') => {
                    let next = self.rest_of_line(dash + 1)?;
                    match self.scan_lines(next)? {
                        At::Content { pos, col: c } if c > col => {
                            self.block_node(pos, c, col as i64)?
                        }
                        other => {
                            // granit-parser places an empty item at the end of its line.
                            let at = u32_of(self.line_end(dash));
                            self.builder.scalar("~", Kind::Plain, at, at, 0, None);
                            other
                        }
                    }
                }
                Some(_) => self.block_node(q, item_col, col as i64)?,
            };
            match at {
                At::Content { pos, col: c }
                    if c == col
                        && self.b[pos] == b'-'
                        && is_blank_or_end(self.at(pos + 1).as_ref()) =>
                {
                    dash = pos;
                }
                At::Content { col: c, .. } if c > col => return Err(Bail(line!())),
                At::Content { col: c, .. } if c == col && !indentless => return Err(Bail(line!())),
                other => break other,
            }
        };
        self.builder.close(u32_of(pos_of(at, self.hi)));
        self.depth -= 1;
        Ok(at)
    }

    /// An implicit key at `p` with its `:` on the same line: (kind, end of the key, the colon,
    /// value). `None` when the line does not start with a key.
    fn key_at(&self, p: usize) -> R<Option<Key<'t>>> {
        let c = self.b[p];
        if c == b'"' || c == b'\'' {
            let Ok((end, value)) = self.quoted(p) else {
                return Ok(None);
            };
            if self.at(end) == Some(b':') && is_blank_or_end(self.at(end + 1).as_ref()) {
                if end - p > KEY_LIMIT {
                    return Err(Bail(line!()));
                }
                return Ok(Some((quoted_kind(c), end, end, value)));
            }
            return Ok(None);
        }
        if !plain_start(c, self.at(p + 1), false) {
            return Ok(None);
        }
        let mut i = p;
        loop {
            i = self.plain_run(i);
            match self.at(i) {
                None | Some(b'\n') => return Ok(None),
                Some(b'\t') => return Err(Bail(line!())),
                Some(b' ') if self.at(i + 1) == Some(b'#') => return Ok(None),
                Some(b':') if is_blank_or_end(self.at(i + 1).as_ref()) => {
                    if i == p || self.b[i - 1] == b' ' || i - p > KEY_LIMIT {
                        return Err(Bail(line!()));
                    }
                    let value = self.slice(p, i)?;
                    return Ok(Some((Kind::Plain, i, i, Cow::Borrowed(value))));
                }
                Some(_) => i += 1,
            }
        }
    }

    /// A one-line plain scalar at `p` (block context): its end, trailing spaces excluded.
    fn plain(&self, p: usize) -> R<usize> {
        if !plain_start(self.b[p], self.at(p + 1), false) {
            return Err(Bail(line!()));
        }
        self.plain_rest(p)
    }

    /// The rest of a plain scalar's line from `p` (its first character already checked).
    fn plain_rest(&self, p: usize) -> R<usize> {
        let mut i = p;
        let mut end = p;
        loop {
            let run = self.plain_run(i);
            if run > i {
                (i, end) = (run, run);
            }
            match self.at(i) {
                None | Some(b'\n') => return Ok(end),
                Some(b'\t') => return Err(Bail(line!())),
                Some(b' ') => {
                    if self.at(i + 1) == Some(b'#') {
                        return Ok(end);
                    }
                    i += 1;
                }
                Some(b':') if is_blank_or_end(self.at(i + 1).as_ref()) => {
                    return Err(Bail(line!()))
                }
                Some(_) => {
                    i += 1;
                    end = i;
                }
            }
        }
    }

    /// A one-line quoted scalar at `p`: its end (after the closing quote) and value.
    fn quoted(&self, p: usize) -> R<(usize, Cow<'t, str>)> {
        self.quoted_lines(p, None, true)
    }

    /// A quoted scalar at `p`: its end (after the closing quote) and value. With `Some(parent)`
    /// it may continue on lines indented more than `parent` (folded as YAML folds them). With
    /// `keep` false, an empty value where it differs from the text between the quotes.
    fn quoted_lines(&self, p: usize, lines: Option<i64>, keep: bool) -> R<(usize, Cow<'t, str>)> {
        let quote = self.b[p];
        let mut i = p + 1;
        let mut owned: Option<Value> = None;
        let mut run = i;
        loop {
            let c = self.at(i).ok_or(Bail(line!()))?;
            match c {
                b'\n' => {
                    let parent = lines.ok_or(Bail(line!()))?;
                    let s = owned.get_or_insert_with(|| Value::of(keep, ""));
                    // Trailing spaces of the line are dropped (tabs left to granit-parser).
                    let kept = self.slice(run, i)?.trim_end_matches(' ');
                    if kept.ends_with('\t') {
                        return Err(Bail(line!()));
                    }
                    s.push_str(kept);
                    let (next, blanks) = self.fold_lines(i + 1, parent)?;
                    if blanks == 0 {
                        s.push(' ');
                    } else {
                        for _ in 0..blanks {
                            s.push('\n');
                        }
                    }
                    i = next;
                    run = i;
                }
                b'\'' if quote == b'\'' => {
                    if self.at(i + 1) == Some(b'\'') {
                        let s = owned.get_or_insert_with(|| Value::of(keep, ""));
                        s.push_str(self.slice(run, i + 1)?);
                        i += 2;
                        run = i;
                    } else {
                        break;
                    }
                }
                b'"' if quote == b'"' => break,
                b'\\' if quote == b'"' => {
                    let s = owned.get_or_insert_with(|| Value::of(keep, ""));
                    s.push_str(self.slice(run, i)?);
                    let e = self.at(i + 1).ok_or(Bail(line!()))?;
                    let mut len = 2;
                    match e {
                        b'\\' => s.push('\\'),
                        b'"' => s.push('"'),
                        b'/' => s.push('/'),
                        b'n' => s.push('\n'),
                        b't' => s.push('\t'),
                        b'r' => s.push('\r'),
                        b'0' => s.push('\0'),
                        b'a' => s.push('\u{7}'),
                        b'b' => s.push('\u{8}'),
                        b'e' => s.push('\u{1b}'),
                        b'f' => s.push('\u{c}'),
                        b'v' => s.push('\u{b}'),
                        b' ' => s.push(' '),
                        b'\t' => s.push('\t'),
                        b'_' => s.push('\u{a0}'),
                        b'N' => s.push('\u{85}'),
                        b'L' => s.push('\u{2028}'),
                        b'P' => s.push('\u{2029}'),
                        b'\n' => {
                            // An escaped line break: nothing, and the next line's leading
                            // spaces are dropped.
                            let parent = lines.ok_or(Bail(line!()))?;
                            let (next, blanks) = self.fold_lines(i + 2, parent)?;
                            if blanks > 0 {
                                return Err(Bail(line!()));
                            }
                            len = next - i;
                        }
                        b'x' | b'u' | b'U' => {
                            let digits = match e {
                                b'x' => 2,
                                b'u' => 4,
                                _ => 8,
                            };
                            let hex = self.slice(i + 2, i + 2 + digits)?;
                            if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                                return Err(Bail(line!()));
                            }
                            let n = u32::from_str_radix(hex, 16).map_err(|_| Bail(line!()))?;
                            s.push(char::from_u32(n).ok_or(Bail(line!()))?);
                            len += digits;
                        }
                        _ => return Err(Bail(line!())),
                    }
                    i += len;
                    run = i;
                }
                _ => i += 1,
            }
        }
        // `i` is at the closing quote.
        let value = match owned {
            Some(mut s) => {
                s.push_str(self.slice(run, i)?);
                Cow::Owned(s.text)
            }
            None => Cow::Borrowed(self.slice(p + 1, i)?),
        };
        Ok((i + 1, value))
    }

    /// The continuation of a quoted scalar from the line start `line`: the first character of
    /// the next non-blank line (indented more than `parent`) and how many blank lines came
    /// before it.
    fn fold_lines(&self, line: usize, parent: i64) -> R<(usize, usize)> {
        let (next, blanks) = self.skip_blank_lines(line)?;
        let (c, col) = next.ok_or(Bail(line!()))?;
        if col as i64 <= parent
            || (col == 0 && matches!(self.b.get(c..c + 3), Some(b"---" | b"...")))
        {
            return Err(Bail(line!()));
        }
        Ok((c, blanks))
    }

    /// From the line start `line`, past blank lines: the first non-space byte of the next line
    /// with its column (`None` at the end of the range), and how many blank lines came before
    /// it. A tab in an indentation is left to granit-parser.
    fn skip_blank_lines(&self, mut line: usize) -> R<(Option<(usize, usize)>, usize)> {
        let mut blanks = 0;
        loop {
            let c = self.spaces_end(line);
            match self.at(c) {
                Some(b'\n') => {
                    blanks += 1;
                    line = c + 1;
                }
                Some(b'\t') => return Err(Bail(line!())),
                Some(_) => return Ok((Some((c, c - line)), blanks)),
                None => return Ok((None, blanks)),
            }
        }
    }

    /// A literal or folded block scalar whose indicator is at `p`, inside a collection at
    /// column `parent`.
    fn block_scalar(&mut self, p: usize, parent: i64, keep: bool) -> R<At> {
        let literal = self.b[p] == b'|';
        let mut h = p + 1;
        // The header: a chomping indicator and an indentation indicator (1 to 9), each
        // optional, in either order (`|2-`, as Istio's definitions write their descriptions,
        // or `|-2`).
        let mut chomp = Chomp::Clip;
        let mut explicit = None;
        for _ in 0..2 {
            match self.at(h) {
                Some(b'-') if matches!(chomp, Chomp::Clip) => chomp = Chomp::Strip,
                Some(b'+') if matches!(chomp, Chomp::Clip) => chomp = Chomp::Keep,
                Some(d @ b'1'..=b'9') if explicit.is_none() => {
                    explicit = Some(usize::from(d - b'0'))
                }
                _ => break,
            }
            h += 1;
        }
        if !matches!(self.at(h), None | Some(b' ' | b'\n')) {
            return Err(Bail(line!()));
        }
        let first = self.rest_of_line(h)?;
        let indent = match explicit {
            // The indentation is the enclosing collection's plus the indicator, as
            // granit-parser counts it; lines are read against it below (a first non-blank line
            // indented less leaves the scalar empty: left to granit-parser).
            Some(d) => {
                let Ok(parent) = usize::try_from(parent) else {
                    return Err(Bail(line!()));
                };
                parent + d
            }
            None => self.detected_indent(first, parent)?,
        };
        let start = first_content(self, first, indent);
        // Collect the lines of the scalar: (start of text after the indentation, line end) of
        // content lines; blank lines as None.
        let mut value = Value::of(keep, "");
        let mut line = first;
        let mut trailing_blanks = 0usize;
        let mut any_content = false;
        let mut prev_normal = false;
        let mut pending_blanks = 0usize;
        let mut last_newline = true;
        let term = loop {
            if line >= self.hi {
                break None;
            }
            let q = self.spaces_end(line).min(line + indent);
            let spaces = q - line;
            match self.at(q) {
                None => break None,
                Some(b'\n') => {
                    // A blank line (no more spaces than the indentation).
                    if any_content {
                        trailing_blanks += 1;
                    }
                    pending_blanks += 1;
                    line = q + 1;
                    continue;
                }
                _ if spaces < indent => {
                    // Less indented: the scalar ends here (a tab in the indentation is left
                    // to granit-parser).
                    if self.at(q) == Some(b'\t') {
                        return Err(Bail(line!()));
                    }
                    break Some(q);
                }
                _ => {}
            }
            // A content line: text from q to the line end.
            let end = self.line_end(q);
            let content = self.slice(q, end)?;
            if content.bytes().all(|c| c == b' ') {
                // Only spaces beyond the indentation: left to granit-parser.
                return Err(Bail(line!()));
            }
            let spaced = matches!(content.as_bytes().first(), Some(b' ' | b'\t'));
            if literal {
                for _ in 0..pending_blanks {
                    value.push('\n');
                }
                if any_content {
                    value.push('\n');
                }
            } else {
                if spaced {
                    return Err(Bail(line!()));
                }
                if any_content {
                    if prev_normal && pending_blanks == 0 {
                        value.push(' ');
                    } else if prev_normal {
                        for _ in 0..pending_blanks {
                            value.push('\n');
                        }
                    } else {
                        for _ in 0..=pending_blanks {
                            value.push('\n');
                        }
                    }
                } else {
                    for _ in 0..pending_blanks {
                        value.push('\n');
                    }
                }
                prev_normal = true;
            }
            value.push_str(content);
            any_content = true;
            pending_blanks = 0;
            trailing_blanks = 0;
            last_newline = end < self.hi;
            line = (end + 1).min(self.hi);
            if end >= self.hi {
                break None;
            }
        };
        if !any_content || !last_newline {
            return Err(Bail(line!()));
        }
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => value.push('\n'),
            Chomp::Keep => {
                for _ in 0..=trailing_blanks {
                    value.push('\n');
                }
            }
        }
        let end = term.unwrap_or(self.hi);
        let kind = if literal { Kind::Literal } else { Kind::Folded };
        self.builder
            .scalar(&value.text, kind, u32_of(start), u32_of(end), 0, None);
        match term {
            None => Ok(At::End),
            Some(_) => self.scan_lines(line),
        }
    }

    /// The indentation of a block scalar without an indentation indicator, whose lines start at
    /// `first`, inside a collection at column `parent`: its first non-blank line's.
    fn detected_indent(&self, first: usize, parent: i64) -> R<usize> {
        let mut line = first;
        let mut leading_blank_max = 0usize;
        let indent = loop {
            if line >= self.hi {
                return Err(Bail(line!()));
            }
            let q = self.spaces_end(line);
            match self.at(q) {
                Some(b'\n') => {
                    leading_blank_max = leading_blank_max.max(q - line);
                    line = q + 1;
                }
                None => return Err(Bail(line!())),
                Some(b'\t') => return Err(Bail(line!())),
                Some(_) => break q - line,
            }
        };
        if (indent as i64) <= parent || leading_blank_max > indent || indent == 0 {
            return Err(Bail(line!()));
        }
        Ok(indent)
    }

    /// A flow collection at `p` (`[` or `{`) inside a block collection at column `parent`:
    /// returns the end (after the closing bracket).
    fn flow(&mut self, p: usize, parent: i64) -> R<usize> {
        self.enter()?;
        let seq = self.b[p] == b'[';
        let p32 = u32_of(p);
        let kind = if seq { Kind::Seq } else { Kind::Map };
        self.builder.open_collection(kind, p32, p32 + 1, 0, None);
        let close = if seq { b']' } else { b'}' };
        let mut i = self.flow_ws(p + 1, parent)?;
        loop {
            let c = self.at(i).ok_or(Bail(line!()))?;
            if c == close {
                break;
            }
            if seq {
                i = self.flow_item(i, parent)?;
                i = self.flow_ws(i, parent)?;
                if self.at(i) == Some(b':') {
                    return Err(Bail(line!()));
                }
            } else {
                // A key: quoted or plain, then `:`.
                let key_end = match c {
                    b'"' | b'\'' => {
                        let (end, value) = self.quoted(i)?;
                        self.builder.scalar(
                            &value,
                            quoted_kind(c),
                            u32_of(i),
                            u32_of(end),
                            0,
                            None,
                        );
                        end
                    }
                    _ => {
                        let end = self.flow_plain(i)?;
                        let value = self.slice(i, end)?;
                        self.builder
                            .scalar(value, Kind::Plain, u32_of(i), u32_of(end), 0, None);
                        if !is_blank_or_end(self.at(end + 1).as_ref()) {
                            return Err(Bail(line!()));
                        }
                        end
                    }
                };
                let mut j = key_end;
                while self.at(j) == Some(b' ') {
                    j += 1;
                }
                if self.at(j) != Some(b':') {
                    return Err(Bail(line!()));
                }
                i = self.flow_ws(j + 1, parent)?;
                if matches!(self.at(i), Some(b',' | b'}' | b']')) {
                    return Err(Bail(line!()));
                }
                i = self.flow_item(i, parent)?;
                i = self.flow_ws(i, parent)?;
            }
            match self.at(i) {
                Some(b',') => i = self.flow_ws(i + 1, parent)?,
                Some(x) if x == close => {}
                _ => return Err(Bail(line!())),
            }
        }
        self.builder.close(u32_of(i + 1));
        self.depth -= 1;
        Ok(i + 1)
    }

    /// One value in a flow collection: returns its end.
    fn flow_item(&mut self, i: usize, parent: i64) -> R<usize> {
        let c = self.at(i).ok_or(Bail(line!()))?;
        match c {
            b'[' | b'{' => self.flow(i, parent),
            b'"' | b'\'' => {
                let (end, value) = self.quoted(i)?;
                self.builder
                    .scalar(&value, quoted_kind(c), u32_of(i), u32_of(end), 0, None);
                Ok(end)
            }
            _ => {
                let end = self.flow_plain(i)?;
                let value = self.slice(i, end)?;
                self.builder
                    .scalar(value, Kind::Plain, u32_of(i), u32_of(end), 0, None);
                Ok(end)
            }
        }
    }

    /// A one-line plain scalar in a flow collection: its end, trailing spaces excluded.
    fn flow_plain(&self, p: usize) -> R<usize> {
        if !plain_start(self.b[p], self.at(p + 1), true) {
            return Err(Bail(line!()));
        }
        let mut i = p;
        let mut end = p;
        loop {
            match self.at(i) {
                None | Some(b'\n' | b',' | b'[' | b']' | b'{' | b'}') => break,
                Some(b'\t') => return Err(Bail(line!())),
                Some(b' ') => {
                    if self.at(i + 1) == Some(b'#') {
                        break;
                    }
                    i += 1;
                }
                Some(b':')
                    if matches!(
                        self.at(i + 1),
                        None | Some(b' ' | b'\n' | b',' | b'[' | b']' | b'{' | b'}')
                    ) =>
                {
                    break
                }
                Some(_) => {
                    i += 1;
                    end = i;
                }
            }
        }
        if end == p {
            return Err(Bail(line!()));
        }
        Ok(end)
    }

    /// Whitespace, line breaks and comments inside a flow collection; continuation lines must
    /// be indented more than the enclosing block collection. Returns the next token.
    fn flow_ws(&mut self, mut i: usize, parent: i64) -> R<usize> {
        loop {
            match self.at(i) {
                Some(b' ') => i += 1,
                Some(b'\n') => {
                    let line = i + 1;
                    let q = self.spaces_end(line);
                    match self.at(q) {
                        Some(b'\n') => {}
                        Some(b'#') => {}
                        Some(b'\t') | None => return Err(Bail(line!())),
                        Some(_) => {
                            if ((q - line) as i64) <= parent
                                || (q == line
                                    && matches!(self.b.get(q..q + 3), Some(b"---" | b"...")))
                            {
                                return Err(Bail(line!()));
                            }
                        }
                    }
                    i = q;
                }
                Some(b'#') if i > 0 && matches!(self.b[i - 1], b' ' | b'\n') => {
                    let end = self.line_end(i);
                    self.comment(i, end);
                    i = end;
                }
                Some(_) => return Ok(i),
                None => return Err(Bail(line!())),
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// The first content byte of a block scalar whose lines start at `line` (skipping blank
/// lines), given its indentation.
fn first_content(f: &Fast<'_, '_>, mut line: usize, indent: usize) -> usize {
    loop {
        let q = f.spaces_end(line);
        if f.at(q) == Some(b'\n') {
            line = q + 1;
        } else {
            return line + indent;
        }
    }
}

fn quoted_kind(quote: u8) -> Kind {
    if quote == b'"' {
        Kind::DoubleQuoted
    } else {
        Kind::SingleQuoted
    }
}

/// Whether a plain scalar may start with `c` followed by `next`.
fn plain_start(c: u8, next: Option<u8>, flow: bool) -> bool {
    match c {
        b'-' | b'?' | b':' => match next {
            None | Some(b' ' | b'\n' | b'\t') => false,
            Some(b',' | b'[' | b']' | b'{' | b'}') => !flow,
            Some(_) => true,
        },
        b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' | b' ' | b'\t' | b'\n' => false,
        _ => true,
    }
}

/// The position where `at` is (the end of the range for [`At::End`]).
fn pos_of(at: At, hi: usize) -> usize {
    match at {
        At::Content { pos, .. } => pos,
        At::Marker(m) => m,
        At::End => hi,
    }
}
