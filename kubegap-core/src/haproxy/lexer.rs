//! Splitting one haproxy.cfg line into words, as HAProxy's `parse_line()` does.
//!
//! Words are separated by spaces and tabs. `"…"` quotes weakly (backslash escapes and
//! variables still apply), `'…'` quotes strongly (nothing is interpreted), `\` escapes the next
//! character outside single quotes, and an unquoted, unescaped `#` starts a comment. Quoted and
//! unquoted parts glue together into one word (`"fd@${px}"x`). Environment variables (`$VAR`,
//! `${VAR}`, `${VAR-default}`) are not expanded: the word keeps them as written and is marked
//! symbolic.

use crate::source::{FileId, Span};

/// One word of a line, as read through its [`super::Line`]: the text HAProxy reads (quotes and
/// escapes removed) and its raw span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word<'a> {
    /// The text after quote removal and escape processing; variables kept as written.
    pub text: &'a str,
    /// The raw bytes in the file, quotes included.
    pub span: Span,
    /// Whether any part of the word was quoted.
    pub quoted: bool,
    /// Whether the word contains an environment variable (`$VAR`, `${VAR}`).
    pub symbolic: bool,
    /// Whether `text` is byte-for-byte the raw source (no quotes, no escapes), so that
    /// sub-spans can be computed by offset.
    pub verbatim: bool,
}

impl Word<'_> {
    /// A sub-span of the word's text, exact when the word is verbatim, else the whole word.
    pub fn sub_span(&self, start: usize, end: usize) -> Span {
        if self.verbatim && start <= end && end <= self.text.len() {
            Span {
                file: self.span.file,
                start: self
                    .span
                    .start
                    .saturating_add(u32::try_from(start).unwrap_or(u32::MAX)),
                end: self
                    .span
                    .start
                    .saturating_add(u32::try_from(end).unwrap_or(u32::MAX)),
            }
        } else {
            self.span
        }
    }
}

/// A word as the file's [`Words`] store it (4 bytes): its raw byte range as an offset from its
/// line's first word (16 bits) and a length (14 bits), and two flags. A word whose
/// text differs from its raw bytes (quotes, escapes) has an [`AltWord`] entry holding that
/// text; a word that starts 64 KiB or more into its line, or is 16 KiB or longer, has a
/// [`WideWord`] entry holding its range. A 1M-line haproxy.cfg held 95 MB of 16-byte words in
/// a boxed slice per line; one flat vector of 8-byte words with absolute offsets was 48 MB,
/// of 4-byte words 24 MB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawWord(u32);

/// A word too far into its line or too long for a [`RawWord`]: its absolute raw range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WideWord {
    /// The word's index in [`Words::words`].
    word: u32,
    /// Start byte offset in the file.
    start: u32,
    /// The raw length (low 30 bits; a word of 1 GiB or more keeps a span of its first GiB).
    len: u32,
}

/// The text of a word that differs from its raw bytes: where it is in [`Words::alt`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AltWord {
    /// The word's index in [`Words::words`].
    word: u32,
    /// Offset of the text in the side buffer.
    at: u32,
    /// The text's length (low 30 bits) and [`QUOTED`] (bit 30).
    bits: u32,
}

const ALT: u32 = 1 << 30;
const QUOTED: u32 = 1 << 30;
const SYMBOLIC: u32 = 1 << 31;
const LEN: u32 = (1 << 30) - 1;
/// A [`RawWord`]'s offset from its line's first word: the low 16 bits.
const REL: u32 = 0xFFFF;
/// A [`RawWord`]'s length: bits 16 to 29. All ones marks a [`WideWord`].
const SHORT_LEN: u32 = 0x3FFF;
const SHORT_LEN_SHIFT: u32 = 16;

/// Every word of a file, in order, and the side buffer of the texts that differ from the raw
/// bytes (most words have none). A line is a range of indexes into it.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Words {
    words: Vec<RawWord>,
    /// Sorted by word index.
    alts: Vec<AltWord>,
    alt: String,
    /// Sorted by word index.
    wides: Vec<WideWord>,
}

impl Words {
    /// How many words so far.
    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }

    /// No spare capacity: the words live as long as the run.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.words.shrink_to_fit();
        self.alts.shrink_to_fit();
        self.alt.shrink_to_fit();
        self.wides.shrink_to_fit();
    }

    /// The raw range and flags of the word at `index` of a line whose first word starts at
    /// `base`: (start, end, flags).
    fn raw(&self, base: u32, index: usize) -> Option<(u32, u32, u32)> {
        let RawWord(packed) = *self.words.get(index)?;
        let flags = packed & (ALT | SYMBOLIC);
        let len = (packed >> SHORT_LEN_SHIFT) & SHORT_LEN;
        if len != SHORT_LEN {
            let start = base.saturating_add(packed & REL);
            return Some((start, start.saturating_add(len), flags));
        }
        self.wide(index).map(|(start, end)| (start, end, flags))
    }

    /// The raw range of the word at `index`, kept apart ([`WideWord`]).
    #[cold]
    #[inline(never)]
    fn wide(&self, index: usize) -> Option<(u32, u32)> {
        let at = u32::try_from(index).ok()?;
        let wide = self
            .wides
            .binary_search_by_key(&at, |w| w.word)
            .ok()
            .and_then(|i| self.wides.get(i))?;
        Some((wide.start, wide.start.saturating_add(wide.len)))
    }

    /// The word at `index` of a line whose first word starts at byte `base`, its text read
    /// from `source` (the file) or the side buffer.
    #[inline]
    pub(crate) fn resolve<'a>(
        &'a self,
        file: FileId,
        source: &'a str,
        base: u32,
        index: usize,
    ) -> Option<Word<'a>> {
        let (start, end, flags) = self.raw(base, index)?;
        let span = Span { file, start, end };
        let symbolic = flags & SYMBOLIC != 0;
        if flags & ALT == 0 {
            return Some(Word {
                text: source.get(start as usize..end as usize).unwrap_or(""),
                span,
                quoted: false,
                symbolic,
                verbatim: true,
            });
        }
        let at = u32::try_from(index).ok()?;
        let alt = self
            .alts
            .binary_search_by_key(&at, |a| a.word)
            .ok()
            .and_then(|i| self.alts.get(i));
        let text = alt.and_then(|a| {
            let from = a.at as usize;
            self.alt.get(from..from + (a.bits & LEN) as usize)
        });
        Some(Word {
            text: text.unwrap_or(""),
            span,
            quoted: alt.is_some_and(|a| a.bits & QUOTED != 0),
            symbolic,
            verbatim: false,
        })
    }

    /// Whether [`Words::text`] of the word at `index` is `want`: a word whose length differs
    /// is told apart from its four bytes, without reading the source (most of the rules'
    /// comparisons, millions on a large file, are of a keyword with another keyword).
    #[inline]
    pub(crate) fn text_is(&self, source: &str, base: u32, index: usize, want: &str) -> bool {
        let Some(&RawWord(packed)) = self.words.get(index) else {
            return want.is_empty();
        };
        let len = (packed >> SHORT_LEN_SHIFT) & SHORT_LEN;
        if packed & ALT == 0 && len != SHORT_LEN {
            if len as usize != want.len() {
                return false;
            }
            let start = base.saturating_add(packed & REL) as usize;
            return source
                .as_bytes()
                .get(start..start.saturating_add(len as usize))
                == Some(want.as_bytes());
        }
        self.text(source, base, index) == want
    }

    /// The text of the word at `index` of a line whose first word starts at `base`, as
    /// [`Words::resolve`] gives it, `""` when there is none.
    #[inline]
    pub(crate) fn text<'a>(&'a self, source: &'a str, base: u32, index: usize) -> &'a str {
        let Some(&RawWord(packed)) = self.words.get(index) else {
            return "";
        };
        let len = (packed >> SHORT_LEN_SHIFT) & SHORT_LEN;
        if packed & ALT == 0 && len != SHORT_LEN {
            let start = base.saturating_add(packed & REL) as usize;
            return source
                .get(start..start.saturating_add(len as usize))
                .unwrap_or("");
        }
        self.resolve(FileId(0), source, base, index)
            .map_or("", |w| w.text)
    }

    /// The raw span of the word at `index` of a line whose first word starts at `base`.
    pub(crate) fn span(&self, file: FileId, base: u32, index: usize) -> Option<Span> {
        self.raw(base, index)
            .map(|(start, end, _)| Span { file, start, end })
    }

    /// Appends a word of raw range `start..start + len` of a line whose first word starts at
    /// `base` (`start` itself for the first word).
    fn push(&mut self, base: u32, start: u32, len: u32, flags: u32) {
        let rel = start.saturating_sub(base);
        if rel <= REL && len < SHORT_LEN {
            self.words
                .push(RawWord(rel | len << SHORT_LEN_SHIFT | flags));
            return;
        }
        self.wides.push(WideWord {
            word: u32::try_from(self.words.len()).unwrap_or(u32::MAX),
            start,
            len: len.min(LEN),
        });
        self.words
            .push(RawWord(SHORT_LEN << SHORT_LEN_SHIFT | flags));
    }
}

/// A lexing problem on a line (the line's words are still returned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// Where.
    pub span: Span,
    /// What, lowercase.
    pub message: String,
}

/// What [`split_words`] found on a line besides its words.
pub(crate) struct Split {
    /// The byte offset of the line's first word in the file (the line's offset when it has
    /// none): its words are stored from there ([`Words::resolve`]).
    pub(crate) base: u32,
    /// A lexing problem, if any.
    pub(crate) error: Option<LexError>,
}

/// Splits `line` (without its newline), which starts at byte `offset` of the file, appending its
/// words to `out` (the text of words that differ from their raw bytes goes to the side buffer).
pub(crate) fn split_words(file: FileId, line: &str, offset: usize, out: &mut Words) -> Split {
    let mut error = None;
    let mut base: Option<u32> = None;
    let bytes = line.as_bytes();
    // The text of a word that differs from its raw bytes, built once it does (most words are
    // their raw bytes: building every word's text was an allocation per word, 4 % of the
    // instructions of a run on a 300k-line haproxy.cfg).
    let mut text: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b' ' || b == b'\t' || b == b'\r' || b == b'\n' || b == 0x0b || b == 0x0c {
            i += 1;
            continue;
        }
        if b == b'#' {
            break;
        }
        // A word starts here.
        let start = i;
        text.clear();
        let mut quoted = false;
        let mut symbolic = false;
        let mut verbatim = true;
        let mut dquote: Option<usize> = None;
        let mut squote: Option<usize> = None;
        let mut comment = false;
        while i < bytes.len() {
            let c = bytes[i];
            if let Some(_open) = squote {
                if c == b'\'' {
                    squote = None;
                } else {
                    text.push(c);
                }
                i += 1;
                continue;
            }
            match c {
                b'\'' if dquote.is_none() => {
                    unverbatim(&mut verbatim, &mut text, bytes.get(start..i));
                    squote = Some(i);
                    quoted = true;
                    i += 1;
                }
                b'"' => {
                    unverbatim(&mut verbatim, &mut text, bytes.get(start..i));
                    dquote = if dquote.is_some() { None } else { Some(i) };
                    quoted = true;
                    i += 1;
                }
                b'\\' => {
                    unverbatim(&mut verbatim, &mut text, bytes.get(start..i));
                    match bytes.get(i + 1) {
                        None => {
                            // A trailing backslash: kept as a literal backslash.
                            text.push(b'\\');
                            i += 1;
                        }
                        Some(&next) => {
                            match next {
                                b' ' | b'#' | b'\\' | b'\'' | b'"' | b'$' => text.push(next),
                                b't' => text.push(b'\t'),
                                b'r' => text.push(b'\r'),
                                b'n' => text.push(b'\n'),
                                b'x' => {
                                    let hex = line
                                        .get(i + 2..i + 4)
                                        .and_then(|h| u8::from_str_radix(h, 16).ok());
                                    if let Some(v) = hex {
                                        text.push(v);
                                        i += 4;
                                        continue;
                                    }
                                    text.extend_from_slice(b"\\x");
                                }
                                _ => {
                                    // Unknown escapes keep the backslash, as HAProxy does.
                                    text.push(b'\\');
                                    text.push(next);
                                }
                            }
                            i += 2;
                        }
                    }
                }
                b'$' => {
                    symbolic = true;
                    if !verbatim {
                        text.push(c);
                    }
                    i += 1;
                }
                b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c if dquote.is_none() => break,
                b'#' if dquote.is_none() => {
                    comment = true;
                    break;
                }
                _ => {
                    if !verbatim {
                        text.push(c);
                    }
                    i += 1;
                }
            }
        }
        let open = squote.or(dquote);
        if let Some(open) = open {
            if error.is_none() {
                error = Some(LexError {
                    span: Span::new(file, offset + open, offset + open + 1),
                    message: format!(
                        "unterminated {} quote",
                        if squote.is_some() { "single" } else { "double" }
                    ),
                });
            }
        }
        let raw_start = u32::try_from(offset + start).unwrap_or(u32::MAX);
        let raw_len = u32::try_from(i - start).unwrap_or(LEN).min(LEN);
        let mut flags = 0;
        if symbolic {
            flags |= SYMBOLIC;
        }
        if !verbatim {
            flags |= ALT;
            let index = u32::try_from(out.words.len()).unwrap_or(u32::MAX);
            let before = out.alt.len();
            out.alt.push_str(&String::from_utf8_lossy(&text));
            // A text that does not fit (over 1 GiB, or past 4 GiB of side buffer) reads as
            // empty rather than wrong.
            let (at, len) = match (u32::try_from(before), u32::try_from(out.alt.len() - before)) {
                (Ok(at), Ok(len)) if len <= LEN => (at, len),
                _ => {
                    out.alt.truncate(before);
                    (0, 0)
                }
            };
            out.alts.push(AltWord {
                word: index,
                at,
                bits: len | if quoted { QUOTED } else { 0 },
            });
        }
        let line_base = *base.get_or_insert(raw_start);
        out.push(line_base, raw_start, raw_len, flags);
        if comment || open.is_some() {
            break;
        }
    }
    Split {
        base: base.unwrap_or_else(|| u32::try_from(offset).unwrap_or(u32::MAX)),
        error,
    }
}

/// Leaves verbatim mode (a quote or an escape in a word): the word's text so far is its raw
/// bytes so far, `raw`.
fn unverbatim(verbatim: &mut bool, text: &mut Vec<u8>, raw: Option<&[u8]>) {
    if *verbatim {
        text.extend_from_slice(raw.unwrap_or_default());
        *verbatim = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        let (words, _) = split(line, 0);
        words.into_iter().map(|w| w.text.to_string()).collect()
    }

    /// The words of `line`, with their texts, as a line would resolve them.
    fn split(line: &str, offset: usize) -> (Vec<Word<'static>>, Option<LexError>) {
        let mut out = Words::default();
        let source = format!("{}{line}", " ".repeat(offset));
        let split = split_words(FileId(0), line, offset, &mut out);
        let source: &'static str = Box::leak(source.into_boxed_str());
        let out: &'static Words = Box::leak(Box::new(out));
        let words = (0..out.len())
            .filter_map(|i| out.resolve(FileId(0), source, split.base, i))
            .collect();
        (words, split.error)
    }

    #[test]
    fn words_and_comments() {
        assert_eq!(
            texts("  timeout client 30s # idle"),
            ["timeout", "client", "30s"]
        );
        assert_eq!(texts("bind :80#x"), ["bind", ":80"]);
        assert_eq!(texts("# only a comment"), Vec::<String>::new());
        assert_eq!(texts("\tmode\thttp\r"), ["mode", "http"]);
    }

    #[test]
    fn quoting_and_escapes() {
        assert_eq!(
            texts(r#"http-request set-header X "a b" 'c $d' e\ f \#g"#),
            [
                "http-request",
                "set-header",
                "X",
                "a b",
                "c $d",
                "e f",
                "#g"
            ]
        );
        assert_eq!(texts(r#"bind "fd@${px}""#), ["bind", "fd@${px}"]);
        assert_eq!(texts(r#"x "a"'b'c"#), ["x", "abc"]);
        assert_eq!(texts(r#"x "say \"hi\"""#), ["x", "say \"hi\""]);
        assert_eq!(texts(r"x \x41\t"), ["x", "A\t"]);
        assert_eq!(texts(r##"x "#not a comment""##), ["x", "#not a comment"]);
        assert_eq!(texts(r#"x """#), ["x", ""]);
        // Raw bytes before the first quote or escape of a word are part of its text.
        assert_eq!(texts(r#"x ab"c d"e $v'w'"#), ["x", "abc de", "$vw"]);
        assert_eq!(texts(r"x ab\tc"), ["x", "ab\tc"]);
    }

    #[test]
    fn spans_are_raw() {
        let (words, err) = split(r#"a "b c" d"#, 10);
        assert!(err.is_none());
        assert_eq!((words[1].span.start, words[1].span.end), (12, 17));
        assert!(words[1].quoted && !words[1].verbatim);
        assert!(words[2].verbatim);
    }

    #[test]
    fn far_and_long_words_keep_their_ranges() {
        // Words 64 KiB or more from the line's first word, or 16 KiB or longer, are kept
        // apart from the 4-byte ones; either side of each limit resolves to its own range.
        let short = "s".repeat(16_382);
        let long = "l".repeat(16_383);
        let mut line = format!("  x {short} {long}");
        let near = 65_535 - (line.len() - 2);
        line.push_str(&" ".repeat(near));
        line.push_str("a b \"q r\" $c");
        let (words, err) = split(&line, 7);
        assert!(err.is_none());
        let texts: Vec<&str> = words.iter().map(|w| w.text).collect();
        assert_eq!(
            texts,
            ["x", short.as_str(), long.as_str(), "a", "b", "q r", "$c"]
        );
        let source = format!("{}{line}", " ".repeat(7));
        for word in &words {
            let raw = &source[word.span.start as usize..word.span.end as usize];
            assert_eq!(raw.trim_matches('"'), word.text, "{:?}", word.span);
        }
        // `a` is 65,535 bytes after `x`, `b` 65,537.
        assert_eq!(words[3].span.start - words[0].span.start, 65_535);
        assert_eq!(words[4].span.start - words[0].span.start, 65_537);
        assert!(words[5].quoted && !words[5].verbatim);
        assert!(words[6].symbolic && words[6].verbatim);
    }

    #[test]
    fn variables_are_symbolic() {
        let (words, _) = split(r#"server s ${ADDR}:80 "${PORT}""#, 0);
        assert!(words[2].symbolic && words[3].symbolic && !words[1].symbolic);
        let (words, _) = split(r"x '$single' \$esc", 0);
        // Single quotes and escapes still keep the text; the word is only marked when a
        // variable would be expanded.
        assert!(!words[1].symbolic);
        assert!(!words[2].symbolic);
    }

    #[test]
    fn unterminated_quotes() {
        let (words, err) = split(r#"x "abc"#, 0);
        assert_eq!(words.len(), 2);
        assert_eq!(err.unwrap().span.start, 2);
        let (_, err) = split("x 'abc", 0);
        assert!(err.unwrap().message.contains("single"));
    }
}
