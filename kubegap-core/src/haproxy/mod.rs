//! haproxy.cfg: a parser that never fails, a model with spans, and effective settings (issue #3).
//!
//! - [`parse`] turns text into a [`HaproxyConfig`]: [`Section`]s of [`Line`]s of [`Word`]s,
//!   every one with a [`Span`]. Conditional blocks (`.if/.elif/.else/.endif`) are kept: each
//!   line records the innermost branch it sits in ([`CondBranch`]), and [`View`] decides which
//!   branches are live for a given HAProxy version.
//! - [`View`] answers "what is the effective value of X for this proxy": the proxy itself, else
//!   the defaults section it inherits from (named with `from`, else the last one before it),
//!   else HAProxy's built-in default, together with its [`crate::value::provenance::Source`].
//! - [`logic`] holds the pure reasoning (long-lived thresholds, retry stalls, WebSocket ACLs,
//!   ordering of server lists) over plain values, so controller rules can reuse it;
//!   [`duration`] parses and formats HAProxy times (`30m`, `3.6s`).
//!
//! ```
//! use kubegap_core::haproxy;
//! use kubegap_core::value::duration::Millis;
//! use kubegap_core::FileId;
//!
//! let text = "defaults base\n  timeout client 50s\nbackend app from base\n  server a 10.0.0.1:8080\n";
//! let (config, errors) = haproxy::parse(FileId(0), text);
//! assert!(errors.is_empty());
//! let view = config.view(None); // or Some(&version) to evaluate `.if version_atleast(...)`
//! let (app, _) = view.backends().next().unwrap();
//! let client = view.timeout(app, "client");
//! assert_eq!(client.value.as_ref().and_then(|d| d.ms()), Some(Millis(50_000)));
//! assert!(client.origin().span().is_some()); // line 2, in `defaults base`
//! assert!(view.timeout(app, "tunnel").origin().is_default());
//! let server = &view.servers(app)[0];
//! let address = server.address().unwrap();
//! assert_eq!((address.host.as_str(), address.port.as_deref()), ("10.0.0.1", Some("8080")));
//! ```

pub mod duration;
pub mod lexer;
pub mod logic;
mod view;

#[cfg(test)]
mod tests;

pub use duration::{parse_time, Duration, DurationValue, TimeUnit};
pub use lexer::Word;
use lexer::Words;
pub use view::{cite, Address, Effective, LongLived, PerRequest, Route, Server, View};

use std::sync::Arc;

use crate::finding::{excerpt, ParseError};
use crate::source::{FileId, Span};

/// HAProxy sections. Keywords HAProxy knows as section headers but kubegap does not model are
/// [`SectionKind::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SectionKind {
    /// `global`.
    Global,
    /// `defaults [NAME] [from NAME]`.
    Defaults,
    /// `frontend NAME`.
    Frontend,
    /// `backend NAME`.
    Backend,
    /// `listen NAME`: a frontend and a backend in one.
    Listen,
    /// `resolvers NAME`.
    Resolvers,
    /// `peers NAME`.
    Peers,
    /// `userlist NAME`.
    Userlist,
    /// `cache NAME`.
    Cache,
    /// `program NAME`.
    Program,
    /// `http-errors NAME`.
    HttpErrors,
    /// `ring NAME`.
    Ring,
    /// `mailers NAME`.
    Mailers,
    /// `crt-store [NAME]`.
    CrtStore,
    /// Another section HAProxy knows (`log-forward`, `fcgi-app`, `traces`, `acme`, ...).
    Other,
}

impl SectionKind {
    /// The section kind a header keyword opens, if it is one.
    pub fn from_keyword(keyword: &str) -> Option<SectionKind> {
        Some(match keyword {
            "global" => SectionKind::Global,
            "defaults" => SectionKind::Defaults,
            "frontend" => SectionKind::Frontend,
            "backend" => SectionKind::Backend,
            "listen" => SectionKind::Listen,
            "resolvers" => SectionKind::Resolvers,
            "peers" => SectionKind::Peers,
            "userlist" => SectionKind::Userlist,
            "cache" => SectionKind::Cache,
            "program" => SectionKind::Program,
            "http-errors" => SectionKind::HttpErrors,
            "ring" => SectionKind::Ring,
            "mailers" => SectionKind::Mailers,
            "crt-store" => SectionKind::CrtStore,
            "log-forward" | "fcgi-app" | "traces" | "acme" | "log-profile" | "namespace_list"
            | "dynamic-update" | "thread-group" => SectionKind::Other,
            _ => return None,
        })
    }

    /// Whether the section is a proxy (`frontend`, `backend`, `listen`).
    pub fn is_proxy(self) -> bool {
        matches!(
            self,
            SectionKind::Frontend | SectionKind::Backend | SectionKind::Listen
        )
    }

    /// Whether the section accepts client connections (`frontend`, `listen`).
    pub fn has_frontend(self) -> bool {
        matches!(self, SectionKind::Frontend | SectionKind::Listen)
    }

    /// Whether the section has servers (`backend`, `listen`).
    pub fn has_backend(self) -> bool {
        matches!(self, SectionKind::Backend | SectionKind::Listen)
    }
}

/// The text the words of a file's lines are read from: the file's text and every word of the
/// file, shared by all its lines.
#[derive(Default, PartialEq, Eq)]
struct LineText {
    source: Arc<String>,
    words: Words,
}

impl std::fmt::Debug for LineText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the whole file once per line.
        f.debug_struct("LineText")
            .field("words", &self.words.len())
            .finish()
    }
}

/// One configuration line: keyword and arguments, each with its span (32 bytes: the words are
/// a range of the file's words, stored from the start of the line's first word).
#[derive(Clone)]
pub struct Line {
    /// Where the words and their text are read from.
    text: Arc<LineText>,
    /// The index of the first word in the file's words.
    first: u32,
    /// How many words; the first is the keyword. Never 0 for a parsed line.
    count: u32,
    /// From the first to the last word (comments excluded). The words are read from its start:
    /// a line whose span is changed reads its words from elsewhere.
    pub span: Span,
    /// The innermost conditional branch the line sits in (index into
    /// [`HaproxyConfig::branches`]), [`NO_BRANCH`] when none (not an `Option`: 8 bytes more
    /// a line).
    cond: u32,
}

/// [`Line::cond`] of a line outside any conditional block.
const NO_BRANCH: u32 = u32::MAX;

impl PartialEq for Line {
    fn eq(&self, other: &Line) -> bool {
        self.span == other.span && self.cond == other.cond && self.words().eq(other.words())
    }
}

impl Eq for Line {}

impl std::fmt::Debug for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Line")
            .field("words", &self.words().map(|w| w.text).collect::<Vec<_>>())
            .field("span", &self.span)
            .field("cond", &self.cond())
            .finish()
    }
}

impl Line {
    /// The innermost conditional branch the line sits in (index into
    /// [`HaproxyConfig::branches`]).
    pub fn cond(&self) -> Option<usize> {
        (self.cond != NO_BRANCH).then_some(self.cond as usize)
    }

    /// The keyword (first word).
    pub fn keyword(&self) -> &str {
        self.text(0)
    }

    /// The span of the keyword.
    pub fn keyword_span(&self) -> Span {
        self.word(0).map_or(self.span, |w| w.span)
    }

    /// The `i`-th word (0 is the keyword).
    pub fn word(&self, i: usize) -> Option<Word<'_>> {
        if i >= self.count as usize {
            return None;
        }
        self.text.words.resolve(
            self.span.file,
            &self.text.source,
            self.span.start,
            self.first as usize + i,
        )
    }

    /// The text of the `i`-th word, `""` when absent: [`Line::word`]'s text without its span
    /// and flags (the rules compare keywords and arguments millions of times on a large file).
    pub fn text(&self, i: usize) -> &str {
        if i >= self.count as usize {
            return "";
        }
        self.text
            .words
            .text(&self.text.source, self.span.start, self.first as usize + i)
    }

    /// Whether the `i`-th word's text is `want` ([`Line::text`]`(i) == want`, most often
    /// answered from the word's length alone).
    pub fn is(&self, i: usize, want: &str) -> bool {
        if i >= self.count as usize {
            return want.is_empty();
        }
        self.text.words.text_is(
            &self.text.source,
            self.span.start,
            self.first as usize + i,
            want,
        )
    }

    /// How many words the line has, the keyword included.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether the line has no words (never, for a parsed line).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The words in order, the keyword first.
    pub fn words(&self) -> impl DoubleEndedIterator<Item = Word<'_>> + ExactSizeIterator + Clone {
        (0..self.len()).map(move |i| {
            self.word(i).unwrap_or(Word {
                text: "",
                span: self.span,
                quoted: false,
                symbolic: false,
                verbatim: false,
            })
        })
    }

    /// The texts of the words in order, the keyword first ([`Line::text`] of each).
    pub fn texts(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + Clone {
        (0..self.len()).map(move |i| self.text(i))
    }

    /// Whether the line starts with these words (e.g. `["timeout", "client"]`).
    pub fn starts_with(&self, words: &[&str]) -> bool {
        words.len() <= self.len() && words.iter().enumerate().all(|(i, want)| self.is(i, want))
    }

    /// The span of words `from..` (to the end of the line); the line span when out of range.
    pub fn span_from(&self, from: usize) -> Span {
        match (
            self.word(from),
            self.len().checked_sub(1).and_then(|l| self.word(l)),
        ) {
            (Some(first), Some(last)) => first.span.to(last.span),
            _ => self.span,
        }
    }
}

/// A `.if`, `.elif` or `.else` branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CondBranch {
    /// The directive line.
    pub line: Line,
    /// The condition text (`version_atleast(2.6)`); empty for `.else`.
    pub expr: String,
    /// The branch just before this one in the same `.if` block: its condition, and those of
    /// the branches before it, must be false for this one to be taken.
    pub previous: Option<usize>,
    /// The branch enclosing the block.
    pub parent: Option<usize>,
}

/// A section: header, name, inheritance and lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// What kind of section.
    pub kind: SectionKind,
    /// The header line (`backend app from base`).
    pub header: Line,
    /// The index of the name in the header's words, if given.
    name_at: Option<usize>,
    /// The index of the `from NAME` word in the header's words, if given.
    from_at: Option<usize>,
    /// For proxies and defaults: the index of the defaults section settings come from (the
    /// `from` one, else, for proxies, the last defaults section before this one).
    pub inherits: Option<usize>,
    /// The lines of the section, header excluded, in file order.
    pub lines: Vec<Line>,
}

impl Section {
    /// The name, `""` when absent.
    pub fn name(&self) -> &str {
        self.name_word().map_or("", |w| w.text)
    }

    /// The name word, if given.
    pub fn name_word(&self) -> Option<Word<'_>> {
        self.header.word(self.name_at?)
    }

    /// The `from NAME` word, if given.
    pub fn from_word(&self) -> Option<Word<'_>> {
        self.header.word(self.from_at?)
    }

    /// The span of the header keyword and name: the primary span for findings about the
    /// section as a whole.
    pub fn header_span(&self) -> Span {
        match self.name_word() {
            Some(name) => self.header.keyword_span().to(name.span),
            None => self.header.keyword_span(),
        }
    }

    /// A short description: `backend \`app\``.
    pub fn describe(&self) -> String {
        let keyword = self.header.keyword();
        match self.name_word() {
            Some(name) => format!("{keyword} `{}`", excerpt(name.text)),
            None => keyword.to_string(),
        }
    }
}

/// A parsed haproxy.cfg.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HaproxyConfig {
    /// The file it was read from.
    pub file: FileId,
    /// Sections in file order.
    pub sections: Vec<Section>,
    /// Conditional branches in file order.
    pub branches: Vec<CondBranch>,
    /// Other directives (`.diag`, `.notice`, `.warning`, `.alert`), kept for completeness.
    pub directives: Vec<Line>,
}

impl HaproxyConfig {
    /// Sections of one kind, with their indexes.
    pub fn sections_of(&self, kind: SectionKind) -> impl Iterator<Item = (usize, &Section)> {
        self.sections
            .iter()
            .enumerate()
            .filter(move |(_, s)| s.kind == kind)
    }

    /// Proxies (`frontend`, `backend`, `listen`), with their indexes.
    pub fn proxies(&self) -> impl Iterator<Item = (usize, &Section)> {
        self.sections
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind.is_proxy())
    }

    /// The first `global` section.
    pub fn global(&self) -> Option<&Section> {
        self.sections.iter().find(|s| s.kind == SectionKind::Global)
    }

    /// The span to report whole-file findings at: the `global` header, else the first
    /// section header, else the start of the file.
    pub fn global_span(&self) -> Span {
        self.global()
            .or(self.sections.first())
            .map_or(Span::new(self.file, 0, 0), |s| s.header_span())
    }

    /// A view of effective settings for a HAProxy version (`None`: unknown).
    pub fn view<'a>(&'a self, version: Option<&'a crate::config::Version>) -> View<'a> {
        View::new(self, version)
    }
}

/// HAProxy's `MAX_LINE_ARGS`: a line with more words is rejected ("too many words").
pub const MAX_LINE_ARGS: usize = 64;

/// Keywords whose first argument is a time value, checked at parse time in these sections.
fn time_argument(section: SectionKind, line: &Line) -> Option<(usize, bool)> {
    match (section, line.keyword()) {
        (SectionKind::Global, "hard-stop-after" | "grace") => Some((1, false)),
        (SectionKind::Global, "close-spread-time") => Some((1, true)),
        (
            SectionKind::Defaults
            | SectionKind::Frontend
            | SectionKind::Backend
            | SectionKind::Listen,
            "timeout",
        ) => Some((2, false)),
        _ => None,
    }
}

/// Parses an haproxy.cfg. Never fails: problems are returned as [`ParseError`]s, and every
/// other line is still read.
pub fn parse(file: FileId, text: &str) -> (HaproxyConfig, Vec<ParseError>) {
    parse_shared(file, Arc::new(text.to_string()))
}

/// [`parse`] of a file's shared text (`SourceFile::text`), which the model keeps instead of a
/// copy of every word.
pub fn parse_shared(file: FileId, text: Arc<String>) -> (HaproxyConfig, Vec<ParseError>) {
    // First every line's words, into one store shared by the lines; then the lines.
    let mut words = Words::default();
    // Per line with words: its first word, how many, and where the first starts.
    let mut ranges: Vec<(u32, u32, u32)> = Vec::new();
    // Lexing errors, each with the index in `ranges` of the line it is reported before.
    let mut lex_errors: Vec<(usize, ParseError)> = Vec::new();
    let mut offset = 0usize;
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let mut body = raw.strip_suffix('\n').unwrap_or(raw);
        body = body.strip_suffix('\r').unwrap_or(body);
        let mut start = line_start;
        if line_start == 0 {
            if let Some(rest) = body.strip_prefix('\u{feff}') {
                body = rest;
                start += '\u{feff}'.len_utf8();
            }
        }
        let first = words.len();
        let split = lexer::split_words(file, body, start, &mut words);
        if let Some(e) = split.error {
            lex_errors.push((ranges.len(), ParseError::new(e.span, e.message)));
        }
        let count = words.len() - first;
        if count > 0 {
            ranges.push((
                u32::try_from(first).unwrap_or(u32::MAX),
                u32::try_from(count).unwrap_or(u32::MAX),
                split.base,
            ));
        }
    }
    words.shrink_to_fit();
    let shared = Arc::new(LineText {
        source: Arc::clone(&text),
        words,
    });
    let mut config = HaproxyConfig {
        file,
        sections: Vec::new(),
        branches: Vec::new(),
        directives: Vec::new(),
    };
    let mut errors = Vec::new();
    let mut lex_errors = lex_errors.into_iter().peekable();
    // Open `.if` blocks: (the `.if` branch, the block's latest branch, the enclosing branch).
    let mut blocks: Vec<(usize, usize, Option<usize>)> = Vec::new();
    // Lines seen outside any section (only possible before the first section header).
    let mut orphans = 0usize;
    let mut defaults = DefaultsSeen::default();
    for (index, &(first, count, base)) in ranges.iter().enumerate() {
        while let Some((_, e)) = lex_errors.next_if(|(at, _)| *at <= index) {
            errors.push(e);
        }
        let store = &shared.words;
        let (Some(first_span), Some(last_span)) = (
            store.span(file, base, first as usize),
            store.span(file, base, (first + count - 1) as usize),
        ) else {
            continue;
        };
        let span = first_span.to(last_span);
        if let Some(extra) = store
            .span(file, base, first as usize + MAX_LINE_ARGS)
            .filter(|_| count as usize > MAX_LINE_ARGS)
        {
            errors.push(ParseError::new(
                extra,
                format!(
                    "too many words on one line ({count}): HAProxy reads at most {MAX_LINE_ARGS} and rejects the configuration; split long ACL value lists over several `acl` lines with the same name"
                ),
            ));
        }
        let current = blocks.last().map(|(_, latest, _)| *latest);
        let line = Line {
            text: Arc::clone(&shared),
            first,
            count,
            span,
            cond: current
                .and_then(|c| u32::try_from(c).ok())
                .unwrap_or(NO_BRANCH),
        };
        // Conditional directives are never quoted.
        if !line.word(0).is_some_and(|w| w.quoted) && line.keyword().starts_with('.') {
            match line.keyword() {
                ".if" => {
                    let idx = config.branches.len();
                    config.branches.push(CondBranch {
                        expr: condition_text(&line),
                        previous: None,
                        parent: current,
                        line,
                    });
                    blocks.push((idx, idx, current));
                }
                ".elif" | ".else" => {
                    let is_else = line.keyword() == ".else";
                    if let Some((_, latest, parent)) = blocks.last_mut() {
                        let idx = config.branches.len();
                        config.branches.push(CondBranch {
                            expr: if is_else {
                                String::new()
                            } else {
                                condition_text(&line)
                            },
                            previous: Some(*latest),
                            parent: *parent,
                            line,
                        });
                        *latest = idx;
                    } else {
                        errors.push(ParseError::new(
                            line.keyword_span(),
                            format!("`{}` without a matching `.if`", excerpt(line.keyword())),
                        ));
                    }
                }
                ".endif" => {
                    if blocks.pop().is_none() {
                        errors.push(ParseError::new(
                            line.keyword_span(),
                            "`.endif` without a matching `.if`",
                        ));
                    }
                }
                _ => config.directives.push(line),
            }
            continue;
        }
        if let Some(kind) = SectionKind::from_keyword(line.keyword()) {
            if !line.word(0).is_some_and(|w| w.quoted) {
                let section = open_section(&defaults, kind, line, &mut errors);
                if section.kind == SectionKind::Defaults {
                    let index = config.sections.len();
                    defaults.last = Some(index);
                    defaults.by_name.insert(section.name().to_string(), index);
                }
                config.sections.push(section);
                continue;
            }
        }
        let Some(section) = config.sections.last_mut() else {
            // One error per run of lines before the first section, not one per line: a file
            // that is not an haproxy.cfg at all would otherwise drown in errors.
            if orphans == 0 {
                errors.push(ParseError::new(
                    line.span,
                    format!(
                        "`{}` is outside any section; HAProxy expects a section header such as `global` or `defaults` first",
                        excerpt(line.keyword())
                    ),
                ));
            }
            orphans += 1;
            continue;
        };
        if let Some((index, allow_infinite)) = time_argument(section.kind, &line) {
            if let Some(word) = line.word(index) {
                if let Err(e) = parse_time(word.text, allow_infinite) {
                    errors.push(ParseError::new(
                        word.span,
                        format!(
                            "invalid time `{}` for `{}`: {}",
                            excerpt(word.text),
                            excerpt(&line.span_text_keywords(index)),
                            e.describe()
                        ),
                    ));
                }
            } else if line.len() <= index {
                // `timeout client` or `hard-stop-after` without its value; HAProxy rejects it.
                errors.push(ParseError::new(
                    line.span,
                    if line.len() < index {
                        format!(
                            "`{}` needs a name and a time value",
                            excerpt(line.keyword())
                        )
                    } else {
                        format!(
                            "`{}` needs a time value",
                            excerpt(&line.span_text_keywords(index))
                        )
                    },
                ));
            }
        }
        section.lines.push(line);
    }
    errors.extend(lex_errors.map(|(_, e)| e));
    if orphans > 1 {
        if let Some(e) = errors
            .iter_mut()
            .find(|e| e.message.contains("is outside any section"))
        {
            e.message
                .push_str(&format!(" ({} lines outside any section)", orphans));
        }
    }
    for (first, _, _) in blocks.iter().rev() {
        if let Some(branch) = config.branches.get(*first) {
            errors.push(ParseError::new(
                branch.line.keyword_span(),
                "`.if` block is not closed by `.endif`",
            ));
        }
    }
    // The model lives as long as the run: no spare capacity (a 1M-line file kept ~30 %).
    for section in &mut config.sections {
        section.lines.shrink_to_fit();
    }
    config.sections.shrink_to_fit();
    (config, errors)
}

impl Line {
    /// The first `n` words joined by spaces (`timeout client`), for messages.
    pub fn span_text_keywords(&self, n: usize) -> String {
        self.words()
            .take(n)
            .map(|w| w.text)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn condition_text(line: &Line) -> String {
    line.words()
        .skip(1)
        .map(|w| w.text)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Builds a section from its header line, resolving `from` and the implicit defaults.
/// The defaults sections declared so far: the last one, and the last one of each name (a
/// scan of every section per proxy was quadratic: 50,000 backends took 13 s).
#[derive(Default)]
struct DefaultsSeen {
    last: Option<usize>,
    by_name: std::collections::HashMap<String, usize>,
}

fn open_section(
    defaults: &DefaultsSeen,
    kind: SectionKind,
    header: Line,
    errors: &mut Vec<ParseError>,
) -> Section {
    let mut name_at = None;
    let mut from_at = None;
    let mut i = 1;
    if let Some(w) = header.word(1) {
        if w.text != "from" || header.len() == 2 {
            name_at = Some(1);
            i = 2;
        }
    }
    let inheriting = kind.is_proxy() || kind == SectionKind::Defaults;
    if inheriting && header.text(i) == "from" {
        if i + 1 < header.len() {
            from_at = Some(i + 1);
        } else if let Some(w) = header.word(i) {
            errors.push(ParseError::new(
                w.span,
                "`from` needs the name of a defaults section",
            ));
        }
    }
    let mut inherits = None;
    if inheriting {
        if let Some(from) = from_at.and_then(|at| header.word(at)) {
            let found = defaults.by_name.get(from.text).copied();
            if found.is_none() && !from.symbolic {
                errors.push(ParseError::new(
                    from.span,
                    format!(
                        "defaults section `{}` is not declared before this section",
                        excerpt(from.text)
                    ),
                ));
            }
            inherits = found;
        } else if kind.is_proxy() {
            inherits = defaults.last;
        }
    }
    Section {
        kind,
        header,
        name_at,
        from_at,
        inherits,
        lines: Vec::new(),
    }
}
