//! Source files, byte spans, and the one place where byte offsets become lines and columns.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A byte range in one source file. Every key, value, directive and argument carries one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// Start byte offset (inclusive).
    pub start: u32,
    /// End byte offset (exclusive).
    pub end: u32,
}

impl Span {
    /// A span over `start..end` of `file`.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        let start = u32::try_from(start).unwrap_or(u32::MAX);
        let end = u32::try_from(end).unwrap_or(u32::MAX).max(start);
        Span { file, start, end }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// The smallest span covering both (they must be in the same file).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// What kind of configuration a file holds. Detection lives in [`crate::kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileKind {
    /// Kubernetes manifests: YAML (or JSON, which is YAML) streams.
    Yaml,
    /// An haproxy.cfg.
    Haproxy,
    /// An nginx configuration.
    Nginx,
    /// A Helm chart's `Chart.yaml`: not a manifest. Kept so that findings about the chart
    /// (`helm-chart-not-rendered`) can point at it; never parsed into documents.
    HelmChart,
}

impl FileKind {
    /// The lowercase name used by `--kind`.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Yaml => "yaml",
            FileKind::Haproxy => "haproxy",
            FileKind::Nginx => "nginx",
            FileKind::HelmChart => "helm-chart",
        }
    }
}

/// 1-based line and column; the column counts characters, as editors do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    /// 1-based line.
    pub line: u32,
    /// 1-based column in characters.
    pub column: u32,
}

/// One input file: its name as given, its text, and a line index. A clone shares the text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name as the user gave it (`<stdin>` for standard input).
    pub name: String,
    /// The path on disk, when there is one (used to resolve includes).
    pub path: Option<PathBuf>,
    /// The text. Invalid UTF-8 was replaced (and reported) when the file was loaded. Shared
    /// with the YAML documents parsed from it, whose scalars are spans into it.
    pub text: Arc<String>,
    /// The kind of configuration.
    pub kind: FileKind,
    /// The line index of `text`, made by the first line lookup: most files are never asked
    /// for a line (no finding, no suppression marker, nothing cut), and a file whose text is
    /// cut ([`SourceFile::set_holes`]) was indexed whole, then again as kept.
    index: OnceLock<LineIndex>,
    /// Runs of whole lines cut out of the text once it was parsed, because only what no rule
    /// reads was written there (the inside of a CustomResourceDefinition's `spec`, see
    /// [`crate::yaml::cut_unread`]); in text order. Offsets are those of the text as kept;
    /// line numbers count the lines cut, so they are those of the file. Empty for nearly every
    /// file.
    holes: Box<[Hole]>,
}

/// Where the lines of a text start.
#[derive(Clone, Debug)]
struct LineIndex {
    /// The start of every [`LINE_STRIDE`]-th line (the others are found from the nearest one
    /// before them): 1/32 of a full index, which is 7 MB for a 51 MB stream.
    samples: Box<[u32]>,
    /// Number of lines of the text.
    lines: usize,
    /// Whether the text has no `\r`, so that every line end is a `\n` (nearly every file): the
    /// lines between two samples are then counted a vector at a time instead of searched one
    /// by one.
    lf_only: bool,
}

impl LineIndex {
    fn of(text: &str) -> LineIndex {
        let (samples, lines, lf_only) = sample_lines(text.as_bytes());
        LineIndex {
            samples,
            lines,
            lf_only,
        }
    }
}

/// Whole lines cut out of a [`SourceFile`]'s text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hole {
    /// Where the lines were, in the text as kept: the start of the line that followed them.
    pub at: u32,
    /// Lines cut.
    pub lines: u32,
    /// The 0-based line of `at` in the text as kept (set by [`SourceFile::set_holes`]).
    pub line: u32,
    /// Lines cut by the holes before this one (set by [`SourceFile::set_holes`]): lookups
    /// binary-search the holes instead of adding them up from the first (a dump of a cluster
    /// has one for each object's `managedFields`).
    pub before: u32,
}

/// One line start in this many is kept in a [`SourceFile`]'s line index.
const LINE_STRIDE: usize = 32;

/// Where each line break of `bytes` ends (the next line's start), in order. LF, CRLF and a lone
/// CR (old Mac line ends, which YAML reads as line breaks) each end a line.
fn line_ends(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    line_ends_in(bytes, 0, bytes.len())
}

/// Files larger than this have their line index built in parallel, a block of this many bytes
/// per task (a 51 MB stream's index took 18 ms on one thread).
const LINE_BLOCK: usize = 1 << 20;

/// The line ends (next line starts) whose line break is in `bytes[lo..hi]` (a CR's LF may be
/// just past `hi`).
pub(crate) fn line_ends_in(bytes: &[u8], lo: usize, hi: usize) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr2_iter(b'\n', b'\r', &bytes[lo..hi])
        .map(move |i| lo + i)
        .filter(move |&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
        .map(|i| i + 1)
}

/// The `\n`s of at most 255 bytes, counted in a byte (which the compiler turns into vector
/// compares and adds).
fn newlines(piece: &[u8]) -> u8 {
    piece
        .iter()
        .fold(0u8, |n, b| n.wrapping_add(u8::from(*b == b'\n')))
}

/// The `\n`s of `bytes`, counted 64 bytes at a time.
pub(crate) fn count_newlines(bytes: &[u8]) -> usize {
    bytes
        .chunks(64)
        .map(|piece| usize::from(newlines(piece)))
        .sum()
}

/// Where the `n`-th `\n` of `bytes` ends (from 1), for a text whose line ends are all `\n`:
/// whole 64-byte pieces are counted, and only the piece holding it is read byte by byte (a
/// search per line costs more on lines of a few dozen bytes).
pub(crate) fn nth_newline_end(bytes: &[u8], n: usize) -> Option<usize> {
    let mut need = n;
    let mut at = 0;
    for piece in bytes.chunks(64) {
        let count = usize::from(newlines(piece));
        if count < need {
            need -= count;
            at += piece.len();
            continue;
        }
        for (i, b) in piece.iter().enumerate() {
            if *b == b'\n' {
                need -= 1;
                if need == 0 {
                    return Some(at + i + 1);
                }
            }
        }
    }
    None
}

/// The start of every [`LINE_STRIDE`]-th line, and the number of lines. The `j`-th line end
/// (from 1) starts line `j`, kept when `j` is a multiple of the stride. Large texts are cut
/// into blocks: their line ends are counted in parallel, then each block keeps its samples
/// knowing how many line ends came before it; the result is that of one pass. Also whether the
/// text has no `\r`.
fn sample_lines(bytes: &[u8]) -> (Box<[u32]>, usize, bool) {
    use rayon::prelude::*;
    // Samples of the line ends of `bytes[lo..hi]`, `before` line ends coming before it; and
    // how many line ends it has.
    // The line end at `start` is the `n`-th of the text: kept if it is a stride's.
    let keep = |samples: &mut Vec<u32>, n: usize, start: usize| {
        if n % LINE_STRIDE == 0 {
            samples.push(u32::try_from(start).unwrap_or(u32::MAX));
        }
    };
    let sample = |lo: usize, hi: usize, before: usize| {
        let mut samples = Vec::new();
        let mut n = before;
        let lf_only = memchr::memchr(b'\r', &bytes[lo..hi]).is_none();
        if lf_only {
            // Without a `\r` (nearly every file) a line end is a `\n`. Lines are short (a
            // search per line costs more than counting): the `\n`s of 64 bytes at a time are
            // counted, and only a piece where a sample falls is read byte by byte (one in
            // twenty on a manifest).
            let mut at = lo;
            for piece in bytes[lo..hi].chunks(64) {
                let count = usize::from(newlines(piece));
                if n / LINE_STRIDE == (n + count) / LINE_STRIDE {
                    n += count;
                } else {
                    for (i, b) in piece.iter().enumerate() {
                        if *b == b'\n' {
                            n += 1;
                            keep(&mut samples, n, at + i + 1);
                        }
                    }
                }
                at += piece.len();
            }
        } else {
            for start in line_ends_in(bytes, lo, hi) {
                n += 1;
                keep(&mut samples, n, start);
            }
        }
        (samples, n - before, lf_only)
    };
    // How many line ends `bytes[lo..hi]` has: counted a vector at a time without a `\r`.
    let count = |lo: usize, hi: usize| {
        let block = &bytes[lo..hi];
        if memchr::memchr(b'\r', block).is_none() {
            count_newlines(block)
        } else {
            line_ends_in(bytes, lo, hi).count()
        }
    };
    let mut samples = vec![0u32];
    if bytes.len() <= LINE_BLOCK {
        let (more, ends, lf_only) = sample(0, bytes.len(), 0);
        samples.extend(more);
        return (samples.into_boxed_slice(), ends + 1, lf_only);
    }
    let blocks: Vec<(usize, usize)> = (0..bytes.len().div_ceil(LINE_BLOCK))
        .map(|k| (k * LINE_BLOCK, ((k + 1) * LINE_BLOCK).min(bytes.len())))
        .collect();
    let counts: Vec<usize> = blocks.par_iter().map(|&(lo, hi)| count(lo, hi)).collect();
    let mut before = Vec::with_capacity(counts.len());
    let mut ends = 0;
    for c in &counts {
        before.push(ends);
        ends += c;
    }
    let sampled: Vec<(Vec<u32>, usize, bool)> = blocks
        .par_iter()
        .zip(before)
        .map(|(&(lo, hi), b)| sample(lo, hi, b))
        .collect();
    let lf_only = sampled.iter().all(|(_, _, lf_only)| *lf_only);
    samples.reserve_exact(ends / LINE_STRIDE);
    samples.extend(sampled.into_iter().flat_map(|(more, _, _)| more));
    (samples.into_boxed_slice(), ends + 1, lf_only)
}

impl SourceFile {
    /// Builds a source file and its line index.
    pub fn new(
        name: impl Into<String>,
        path: Option<PathBuf>,
        text: String,
        kind: FileKind,
    ) -> SourceFile {
        // A stream read to its end has up to twice its size in capacity (kept for the whole
        // run): give back what it does not use (in place for a large one).
        let mut text = text;
        text.shrink_to_fit();
        SourceFile {
            name: name.into(),
            path,
            // Moved, not copied: `Arc<str>` would copy the text (28 ms and a second 51 MB for
            // a 51 MB stream, on one thread).
            text: Arc::new(text),
            kind,
            index: OnceLock::new(),
            holes: Box::default(),
        }
    }

    /// Gives this file `text` instead of its text: the same text with the lines `holes` says
    /// were cut out (their `line` is set here). Line numbers stay those of the file as written.
    pub fn set_holes(&mut self, text: Arc<String>, mut holes: Vec<Hole>) {
        self.text = text;
        self.index = OnceLock::new();
        self.holes = Box::default();
        let mut before = 0u32;
        for hole in &mut holes {
            hole.line = u32::try_from(self.kept_line_index(hole.at)).unwrap_or(u32::MAX);
            hole.before = before;
            before = before.saturating_add(hole.lines);
        }
        self.holes = holes.into_boxed_slice();
    }

    /// The lines cut out of the text (see [`SourceFile::set_holes`]).
    pub fn holes(&self) -> &[Hole] {
        &self.holes
    }

    /// Lines cut by the holes up to the `n`-th (exclusive).
    fn lines_cut_by(&self, n: usize) -> usize {
        n.checked_sub(1)
            .and_then(|i| self.holes.get(i))
            .map_or(0, |h| h.before as usize + h.lines as usize)
    }

    /// Lines cut before the offset `offset` of the text as kept.
    fn lines_cut_before(&self, offset: u32) -> usize {
        self.lines_cut_by(self.holes.partition_point(|h| h.at <= offset))
    }

    /// The line of the text as kept that the file's 0-based line `line` is, or the hole it was
    /// cut with.
    fn kept_line(&self, line: usize) -> Result<usize, &Hole> {
        // The file's line of each hole's first cut line grows with the holes.
        let n = self
            .holes
            .partition_point(|h| h.line as usize + h.before as usize <= line);
        match n.checked_sub(1).and_then(|i| self.holes.get(i)) {
            Some(hole)
                if line < hole.line as usize + hole.before as usize + hole.lines as usize =>
            {
                Err(hole)
            }
            _ => Ok(line - self.lines_cut_by(n)),
        }
    }

    /// Number of lines (a file without a line break has one; a final line break starts an
    /// empty last line).
    pub fn line_count(&self) -> usize {
        self.index().lines + self.lines_cut_by(self.holes.len())
    }

    /// Makes the line index now, if no line was asked for yet: for a caller that will ask from
    /// several threads at once, which would each make it (see [`SourceFile::index`]).
    pub fn index_lines(&self) {
        self.index();
    }

    /// Whether the line index is made.
    #[cfg(test)]
    pub(crate) fn lines_indexed(&self) -> bool {
        self.index.get().is_some()
    }

    /// The line index of the text (as kept), made on first use.
    fn index(&self) -> &LineIndex {
        if let Some(index) = self.index.get() {
            return index;
        }
        // Made outside the cell's initialisation: a text over `LINE_BLOCK` is indexed by rayon
        // tasks, and a thread waiting for one of them may run another task that asks this
        // file for a line, which would then wait on its own initialisation. Two threads may
        // both index the text; the first one's index is kept (the same either way).
        let index = LineIndex::of(&self.text);
        self.index.get_or_init(|| index)
    }

    /// The byte offset at which the 0-based line `line` starts, `None` past the last line (a
    /// line cut out of the text starts where the text continues).
    pub fn line_start(&self, line: usize) -> Option<u32> {
        match self.kept_line(line) {
            Ok(line) => self.kept_line_start(line),
            Err(hole) => Some(hole.at),
        }
    }

    /// [`SourceFile::line_start`] of a line of the text as kept.
    fn kept_line_start(&self, line: usize) -> Option<u32> {
        let index = self.index();
        if line >= index.lines {
            return None;
        }
        let sample = *index.samples.get(line / LINE_STRIDE)?;
        let skip = line % LINE_STRIDE;
        if skip == 0 {
            return Some(sample);
        }
        let bytes = self.text.as_bytes().get(sample as usize..)?;
        let start = if index.lf_only {
            nth_newline_end(bytes, skip)?
        } else {
            line_ends(bytes).nth(skip - 1)?
        };
        u32::try_from(sample as usize + start).ok()
    }

    /// The byte range of the 0-based line `line`, its line break included (empty past the
    /// last line).
    pub fn line_range(&self, line: usize) -> std::ops::Range<usize> {
        let len = self.text.len();
        let line = match self.kept_line(line) {
            Ok(line) => line,
            Err(hole) => return hole.at as usize..hole.at as usize,
        };
        let Some(start) = self.kept_line_start(line) else {
            return len..len;
        };
        let start = start as usize;
        let end = self
            .text
            .as_bytes()
            .get(start..)
            .and_then(|rest| {
                if self.index().lf_only {
                    memchr::memchr(b'\n', rest).map(|i| i + 1)
                } else {
                    line_ends(rest).next()
                }
            })
            .map_or(len, |e| start + e);
        start..end
    }

    /// 0-based line index of a byte offset (the last line for an offset past the end).
    pub fn line_index(&self, offset: u32) -> usize {
        self.kept_line_index(offset) + self.lines_cut_before(offset)
    }

    /// [`SourceFile::line_index`] in the text as kept.
    fn kept_line_index(&self, offset: u32) -> usize {
        let index = self.index();
        let j = index
            .samples
            .partition_point(|s| *s <= offset)
            .saturating_sub(1);
        let from = index.samples.get(j).copied().unwrap_or(0) as usize;
        let to = (offset as usize).min(self.text.len());
        // Line breaks before `offset`: a CR right before `offset` whose LF is at `offset` is
        // not a break yet, exactly as with a full list of line starts.
        let breaks = if from > to {
            0
        } else if index.lf_only {
            count_newlines(&self.text.as_bytes()[from..to])
        } else {
            line_ends_in(self.text.as_bytes(), from, to).count()
        };
        (j * LINE_STRIDE + breaks).min(index.lines - 1)
    }

    /// 1-based line and character column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = (offset as usize).min(self.text.len());
        let line = self.line_index(offset as u32);
        let start = self.line_start(line).unwrap_or(0) as usize;
        // (A line starts at a character boundary: stepping back never passes it.)
        let end = self.char_floor(offset as u32).max(start);
        let prefix = &self.text[start..end];
        // A trailing `\r` of CRLF is not a column; the BOM at the file start is not either.
        let mut column = prefix.chars().count();
        if start == 0 && prefix.starts_with('\u{feff}') {
            column -= 1;
        }
        LineCol {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
        }
    }

    /// `offset` clamped to the text, then back to the start of the character it is in.
    fn char_floor(&self, offset: u32) -> usize {
        let mut at = (offset as usize).min(self.text.len());
        while at > 0 && !self.text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// [`SourceFile::line_col`] of a span's start and of its end. An end on its start's line
    /// (most spans: a key, a value, a directive) is counted on from the start, not looked up
    /// again: a lookup counts the line breaks from the nearest indexed line start, and the
    /// two lookups of each location were 7 % of a run writing 75,000 findings.
    pub fn span_line_cols(&self, start: u32, end: u32) -> (LineCol, LineCol) {
        let from = self.line_col(start);
        let (s, e) = (self.char_floor(start), self.char_floor(end));
        // Not from the file's first byte, where a byte-order mark is no column of the start's
        // but one of the end's; no line break between them (a lone CR is one; lines cut out
        // of the text left their hole right after a line break, so none is in between).
        if s > 0 && s <= e && memchr::memchr2(b'\n', b'\r', &self.text.as_bytes()[s..e]).is_none() {
            let chars = u32::try_from(self.text[s..e].chars().count()).unwrap_or(u32::MAX);
            let to = LineCol {
                line: from.line,
                column: from.column.saturating_add(chars),
            };
            return (from, to);
        }
        (from, self.line_col(end))
    }

    /// The text a span covers (empty if the span is out of range).
    pub fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// The file's base name (`nginx.conf` for `etc/nginx/nginx.conf`; `<stdin>` stays as it
    /// is), for messages that cite a line: the finding's labels carry the full location, and
    /// messages (and snapshots of them) then do not depend on where the files are.
    pub fn base_name(&self) -> &str {
        std::path::Path::new(&self.name)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(&self.name)
    }
}

/// All files of one run, indexed by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map with room for `n` files (kept for the whole run: a map grown by doubling
    /// kept up to half of its room unused).
    pub fn with_capacity(n: usize) -> SourceMap {
        SourceMap {
            files: Vec::with_capacity(n),
        }
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(u32::try_from(self.files.len() - 1).unwrap_or(u32::MAX))
    }

    /// The file with this id.
    ///
    /// # Panics
    /// Only on an id that did not come from this map, which is a bug, not bad input.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// A file by id, to change.
    pub fn get_mut(&mut self, id: FileId) -> &mut SourceFile {
        &mut self.files[id.0 as usize]
    }

    /// Looks a file up by its path on disk.
    pub fn find_path(&self, path: &std::path::Path) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path.as_deref() == Some(path))
            .map(|i| FileId(i as u32))
    }

    /// All files with their ids.
    pub fn iter(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_indexed_when_a_line_is_first_asked_for() {
        let f = SourceFile::new("t", None, "a: 1\nb: 2\n".into(), FileKind::Yaml);
        assert!(f.index.get().is_none());
        assert_eq!(f.line_col(5), LineCol { line: 2, column: 1 });
        assert!(f.index.get().is_some());
        assert_eq!(f.line_count(), 3);
    }

    #[test]
    fn columns_count_characters() {
        let f = SourceFile::new("t", None, "a: é\nbé: x\r\n".into(), FileKind::Yaml);
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        // `x` is after `bé: ` = 4 characters, 5 bytes.
        let x = f.text.find('x').unwrap() as u32;
        assert_eq!(f.line_col(x), LineCol { line: 2, column: 5 });
    }

    #[test]
    fn every_line_end_counts() {
        for eol in ["\n", "\r\n", "\r"] {
            let text = ["a: 1", "b: 2", "  c: x"].join(eol);
            let f = SourceFile::new("t", None, text.clone(), FileKind::Yaml);
            let x = text.find('x').unwrap() as u32;
            assert_eq!(f.line_col(x), LineCol { line: 3, column: 6 }, "{eol:?}");
            assert_eq!(f.line_count(), 3, "{eol:?}");
        }
    }

    /// Every line start, the way the index was built before it kept one in [`LINE_STRIDE`].
    fn full_index(text: &str) -> Vec<usize> {
        std::iter::once(0)
            .chain(line_ends(text.as_bytes()))
            .collect()
    }

    fn check_against_full_index(text: &str) {
        check_lines(text, 0..=text.len() + 2);
    }

    /// The index of `text` has the lines of a full index, and finds the line of each offset in
    /// `offsets`.
    fn check_lines(text: &str, offsets: impl Iterator<Item = usize>) {
        let f = SourceFile::new("t", None, text.to_string(), FileKind::Yaml);
        let starts = full_index(text);
        assert_eq!(f.line_count(), starts.len());
        for (i, s) in starts.iter().enumerate() {
            assert_eq!(f.line_start(i), Some(*s as u32), "line {i}");
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            assert_eq!(f.line_range(i), *s..end, "line {i}");
        }
        assert_eq!(f.line_start(starts.len()), None);
        for offset in offsets {
            let expected = match starts.binary_search(&offset) {
                Ok(i) => i,
                Err(i) => i - 1,
            };
            assert_eq!(f.line_index(offset as u32), expected, "offset {offset}");
            // The column: characters from the line's start to the offset (clamped to the text,
            // back to a character boundary).
            let mut end = offset.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let start = starts[expected].min(end);
            let bom = usize::from(start == 0 && text.starts_with('\u{feff}'));
            let column = text[start..end].chars().count() - bom + 1;
            assert_eq!(
                f.line_col(offset as u32),
                LineCol {
                    line: expected as u32 + 1,
                    column: column as u32
                },
                "offset {offset}"
            );
        }
    }

    /// Offsets around each block boundary of a large text, and a sample of the others.
    fn block_offsets(len: usize) -> impl Iterator<Item = usize> {
        (1..=len / LINE_BLOCK)
            .flat_map(|k| k * LINE_BLOCK - 3..k * LINE_BLOCK + 3)
            .chain((0..len).step_by(997))
    }

    #[test]
    fn the_sampled_line_index_agrees_with_a_full_one() {
        // Around every multiple of the stride, with each kind of line end, CRLF split by a
        // sample, empty lines and a final line with and without a break.
        for eol in ["\n", "\r\n", "\r"] {
            for lines in [1, 2, 31, 32, 33, 63, 64, 65, 100] {
                for last in ["", "x"] {
                    let mut text = String::new();
                    for i in 0..lines {
                        text.push_str(&"é".repeat(i % 3));
                        text.push_str(eol);
                    }
                    text.push_str(last);
                    check_against_full_index(&text);
                }
            }
        }
        check_against_full_index("");
        check_against_full_index("\r\n\r\r\n\n\r");
    }

    #[test]
    fn a_large_text_indexed_in_blocks_has_the_lines_of_a_full_index() {
        // Over three blocks, with LF, CRLF and lone CR line ends, and a CRLF split by each block
        // boundary (its CR the last byte of a block).
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 3 * LINE_BLOCK + 100 {
            let next_boundary = (text.len() / LINE_BLOCK + 1) * LINE_BLOCK;
            if next_boundary - text.len() < 40 {
                text.push_str(&"x".repeat(next_boundary - text.len() - 1));
                text.push_str("\r\n");
                continue;
            }
            text.push_str(["a: 1", "bé: 2", "", "  - c"][i % 4]);
            text.push_str(["\n", "\r\n", "\r"][i % 3]);
            i += 1;
        }
        check_lines(&text, block_offsets(text.len()));
    }

    #[test]
    fn large_texts_with_and_without_carriage_returns_have_the_lines_of_a_full_index() {
        // Blocks with only `\n` (counted 64 bytes at a time) beside a block with `\r` (CRLF
        // and lone CRs, which only that block's `\r` tells to search line ends one by one in the
        // whole text): lines of every length around a piece (empty, 63, 64, 65 bytes, longer
        // than a piece), and a sample at each position in a piece.
        for cr_block in [None, Some(1)] {
            let mut text = String::new();
            let mut i = 0;
            while text.len() < 3 * LINE_BLOCK + 100 {
                let in_cr_block = cr_block == Some(text.len() / LINE_BLOCK);
                text.push_str(&"y".repeat([0, 3, 63, 64, 65, 200, 17, 1][i % 8]));
                text.push_str(match (in_cr_block, i % 5) {
                    (true, 0) => "\r\n",
                    (true, 2) => "\r",
                    _ => "\n",
                });
                i += 1;
            }
            check_lines(&text, block_offsets(text.len()));
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_has_the_same_lines_as_with_a_full_index(
            text in "[a\n\r\u{e9}]{0,300}"
        ) {
            check_against_full_index(&text);
        }
    }

    #[test]
    fn lines_and_columns_count_the_lines_cut_out() {
        // The file as written: lines 3–5 and 8 were cut; the text as kept has the others.
        let written: Vec<String> = (1..=10).map(|n| format!("line{n}: é{n}")).collect();
        let kept: Vec<&str> = written
            .iter()
            .enumerate()
            .filter(|(i, _)| ![2, 3, 4, 7].contains(i))
            .map(|(_, l)| l.as_str())
            .collect();
        let text = kept.join("\n") + "\n";
        let at = |kept_line: usize| {
            kept[..kept_line]
                .iter()
                .map(|l| l.len() as u32 + 1)
                .sum::<u32>()
        };
        // The file as written first, asked for a line (so indexed) before its text is cut:
        // the cut text is indexed again, not looked up in the index of the text as written.
        let mut f = SourceFile::new("t", None, written.join("\n") + "\n", FileKind::Yaml);
        // (The line break at the end starts an empty last line.)
        assert_eq!(f.line_count(), written.len() + 1);
        let holes = vec![
            Hole {
                at: at(2),
                lines: 3,
                line: 0,
                before: 0,
            },
            Hole {
                at: at(4),
                lines: 1,
                line: 0,
                before: 0,
            },
        ];
        f.set_holes(Arc::new(text.clone()), holes);
        assert_eq!(f.line_count(), written.len() + 1);
        for (k, line) in kept.iter().enumerate() {
            let number = written.iter().position(|w| w == line).unwrap() as u32 + 1;
            for (c, (byte, _)) in line.char_indices().enumerate() {
                let offset = at(k) + byte as u32;
                assert_eq!(
                    f.line_col(offset),
                    LineCol {
                        line: number,
                        column: c as u32 + 1
                    },
                    "{line} at {byte}"
                );
                assert_eq!(f.line_index(offset), number as usize - 1);
            }
        }
    }

    /// Forty runs of lines cut from a file of 300 (binary-searched: [`Hole::before`]): every
    /// line of the file as written found by its number (a cut one where the text continues,
    /// with an empty range) and by each offset of it, and the file's line count.
    #[test]
    fn many_holes_are_found_by_line_and_by_offset() {
        let written: Vec<String> = (1..=300)
            .map(|n| format!("l{n}: {}", "x".repeat(n % 7)))
            .collect();
        let cut = |i: usize| (0..40).any(|j| (7 * j + 2..7 * j + 3 + j % 3).contains(&i));
        let kept: Vec<usize> = (0..written.len()).filter(|i| !cut(*i)).collect();
        let text: String = kept.iter().map(|i| format!("{}\n", written[*i])).collect();
        // Where each line of the file is in the text as kept (a cut one: where it continues).
        let mut at = vec![0u32; written.len()];
        let mut offset = 0u32;
        let mut holes: Vec<Hole> = Vec::new();
        for (i, line) in written.iter().enumerate() {
            at[i] = offset;
            if cut(i) {
                match holes.last_mut() {
                    Some(h) if h.at == offset && i > 0 && cut(i - 1) => h.lines += 1,
                    _ => holes.push(Hole {
                        at: offset,
                        lines: 1,
                        line: 0,
                        before: 0,
                    }),
                }
            } else {
                offset += line.len() as u32 + 1;
            }
        }
        assert_eq!(holes.len(), 40);
        let mut f = SourceFile::new("t", None, String::new(), FileKind::Yaml);
        f.set_holes(Arc::new(text.clone()), holes);
        assert_eq!(f.line_count(), written.len() + 1);
        for (i, line) in written.iter().enumerate() {
            assert_eq!(f.line_start(i), Some(at[i]), "line {i}");
            let range = f.line_range(i);
            if cut(i) {
                assert!(
                    range.is_empty() && range.start == at[i] as usize,
                    "line {i}"
                );
                continue;
            }
            assert_eq!(&text[range], format!("{line}\n"), "line {i}");
            for byte in 0..=line.len() as u32 {
                assert_eq!(f.line_index(at[i] + byte), i, "line {i} byte {byte}");
            }
            assert_eq!(
                f.line_col(at[i] + 1),
                LineCol {
                    line: i as u32 + 1,
                    column: 2
                }
            );
        }
    }

    /// A span's start and end found together are each found alone, for every pair of offsets
    /// (start after end and past the text included) of texts with a byte-order mark, CRLF, a
    /// lone CR, characters of two to four bytes, and lines cut out.
    #[test]
    fn a_span_s_ends_are_found_together_as_alone() {
        let texts = [
            "a: 1\nbb: é2\n",
            "\u{feff}k: v\r\nx: 😀 y\r\n\r\nz",
            "one\rtwo\r\nthree\n",
            "no line break at all, ü",
            "",
        ];
        let mut files: Vec<SourceFile> = texts
            .iter()
            .map(|t| SourceFile::new("t", None, (*t).to_string(), FileKind::Yaml))
            .collect();
        // Two lines cut after the first, one after the third.
        let kept = "l1: a\nl4: ééé\nl5: b\n";
        let mut cut = SourceFile::new("t", None, String::new(), FileKind::Yaml);
        let holes = vec![
            Hole {
                at: 6,
                lines: 2,
                line: 0,
                before: 0,
            },
            Hole {
                at: 17,
                lines: 1,
                line: 0,
                before: 0,
            },
        ];
        cut.set_holes(Arc::new(kept.to_string()), holes);
        files.push(cut);
        for f in &files {
            let len = f.text.len() as u32;
            for start in 0..=len + 1 {
                for end in 0..=len + 1 {
                    assert_eq!(
                        f.span_line_cols(start, end),
                        (f.line_col(start), f.line_col(end)),
                        "{:?} {start}..{end}",
                        f.text
                    );
                }
            }
        }
    }

    #[test]
    fn bom_is_not_a_column() {
        let f = SourceFile::new("t", None, "\u{feff}a: 1\n".into(), FileKind::Yaml);
        assert_eq!(f.line_col(3), LineCol { line: 1, column: 1 });
    }
}
