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

/// A word as a line stores it (16 bytes): its raw byte range in the file and, when its text
/// differs from those bytes (quotes, escapes), where the text is in the line's side buffer.
/// A 300k-line haproxy.cfg held 71 MB of 40-byte words with their own text; the text of a
/// verbatim word is now read from the file's text, which is kept anyway.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawWord {
    start: u32,
    end: u32,
    /// Offset of the text in the side buffer; [`VERBATIM`] when the text is the raw bytes.
    alt: u32,
    /// The side-buffer text's length (low 30 bits), `quoted` (bit 30), `symbolic` (bit 31).
    bits: u32,
}

const VERBATIM: u32 = u32::MAX;
const QUOTED: u32 = 1 << 30;
const SYMBOLIC: u32 = 1 << 31;
const LEN: u32 = QUOTED - 1;

impl RawWord {
    /// The word, its text read from `source` (the file) or `alt` (the side buffer).
    pub(crate) fn resolve<'a>(&self, file: FileId, source: &'a str, alt: &'a str) -> Word<'a> {
        let verbatim = self.alt == VERBATIM;
        let text = if verbatim {
            source.get(self.start as usize..self.end as usize)
        } else {
            let at = self.alt as usize;
            alt.get(at..at + (self.bits & LEN) as usize)
        };
        Word {
            text: text.unwrap_or(""),
            span: Span {
                file,
                start: self.start,
                end: self.end,
            },
            quoted: self.bits & QUOTED != 0,
            symbolic: self.bits & SYMBOLIC != 0,
            verbatim,
        }
    }

    /// The raw span.
    pub(crate) fn span(&self, file: FileId) -> Span {
        Span {
            file,
            start: self.start,
            end: self.end,
        }
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

/// Splits `line` (without its newline), which starts at byte `offset` of the file. The text of
/// words that differ from their raw bytes is appended to `alt`.
pub(crate) fn split_words(
    file: FileId,
    line: &str,
    offset: usize,
    alt: &mut String,
) -> (Vec<RawWord>, Option<LexError>) {
    let mut words = Vec::new();
    let mut error = None;
    let bytes = line.as_bytes();
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
        let mut text: Vec<u8> = Vec::new();
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
                    squote = Some(i);
                    quoted = true;
                    verbatim = false;
                    i += 1;
                }
                b'"' => {
                    dquote = if dquote.is_some() { None } else { Some(i) };
                    quoted = true;
                    verbatim = false;
                    i += 1;
                }
                b'\\' => {
                    verbatim = false;
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
                    text.push(c);
                    i += 1;
                }
                b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c if dquote.is_none() => break,
                b'#' if dquote.is_none() => {
                    comment = true;
                    break;
                }
                _ => {
                    text.push(c);
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
        let mut bits = 0;
        if quoted {
            bits |= QUOTED;
        }
        if symbolic {
            bits |= SYMBOLIC;
        }
        let mut at = VERBATIM;
        if !verbatim {
            let before = alt.len();
            alt.push_str(&String::from_utf8_lossy(&text));
            // A text that does not fit (over 1 GiB, or past 4 GiB of side buffer) reads as
            // empty rather than wrong.
            match (u32::try_from(before), u32::try_from(alt.len() - before)) {
                (Ok(start), Ok(len)) if start != VERBATIM && len <= LEN => {
                    at = start;
                    bits |= len;
                }
                _ => {
                    alt.truncate(before);
                    at = 0;
                }
            }
        }
        words.push(RawWord {
            start: u32::try_from(offset + start).unwrap_or(u32::MAX),
            end: u32::try_from(offset + i).unwrap_or(u32::MAX),
            alt: at,
            bits,
        });
        if comment || open.is_some() {
            break;
        }
    }
    words.shrink_to_fit();
    (words, error)
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
        let mut alt = String::new();
        let source = format!("{}{line}", " ".repeat(offset));
        let (raw, err) = split_words(FileId(0), line, offset, &mut alt);
        let source: &'static str = Box::leak(source.into_boxed_str());
        let alt: &'static str = Box::leak(alt.into_boxed_str());
        let words = raw
            .iter()
            .map(|w| w.resolve(FileId(0), source, alt))
            .collect();
        (words, err)
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
