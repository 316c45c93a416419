//! The nginx tokenizer and tree builder for one file. Follows `ngx_conf_read_token` closely:
//! words end at whitespace, `;` or `{`; quotes only open at the start of a word; a closing quote
//! must be followed by whitespace, `;`, `{` or `)` (which starts the next word); `#` starts a
//! comment only at the start of a word. `*_by_lua_block` bodies are skipped as opaque text.
//! No recursion: blocks use a stack. Checked against `nginx -t` on generated inputs.

use crate::finding::{excerpt, Label, ParseError};
use crate::source::{FileId, Span};

use super::directives;

/// One argument (or the name) of a directive: the unquoted, unescaped value and the raw span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The value after removing quotes and nginx escapes (`\"`, `\'`, `\\`, `\t`, `\r`, `\n`).
    pub value: String,
    /// The raw text's span, quotes included.
    pub span: Span,
    /// Whether the word was written in quotes.
    pub quoted: bool,
}

/// A directive of one file, before includes are spliced in. Indexes are local to the file.
#[derive(Clone, Debug)]
pub(crate) struct RawDirective {
    pub name: Arg,
    pub args: Vec<Arg>,
    /// From the name to the `;`, or to the `{` for a block.
    pub span: Span,
    /// For blocks: the children (local indexes), the `{` and `}` spans, the raw body of a Lua block.
    pub block: Option<RawBlock>,
}

#[derive(Clone, Debug)]
pub(crate) struct RawBlock {
    pub children: Vec<usize>,
    pub close: Option<Span>,
    pub raw: Option<Span>,
}

/// A `#` comment: its text (without the `#`) and span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The text after `#`, trimmed.
    pub text: String,
    /// The span of the whole comment, `#` included.
    pub span: Span,
}

/// The parse of one file.
#[derive(Clone, Debug, Default)]
pub(crate) struct FileTree {
    pub directives: Vec<RawDirective>,
    pub roots: Vec<usize>,
    pub comments: Vec<Comment>,
}

#[derive(Debug)]
enum Token {
    Word(Arg),
    Semi(Span),
    Open(Span),
    Close(Span),
    Eof(Span),
}

struct Lexer<'a> {
    file: FileId,
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    comments: Vec<Comment>,
    errors: Vec<ParseError>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Applies nginx's unescaping of a word: `\"`, `\'`, `\\` lose the backslash; `\t`, `\r`, `\n`
/// become control characters; any other backslash stays.
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some(&n @ ('"' | '\'' | '\\')) => {
                    out.push(n);
                    chars.next();
                }
                Some('t') => {
                    out.push('\t');
                    chars.next();
                }
                Some('r') => {
                    out.push('\r');
                    chars.next();
                }
                Some('n') => {
                    out.push('\n');
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl<'a> Lexer<'a> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// The character at `at` as text, for messages.
    fn char_at(&self, at: usize) -> String {
        self.text
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .map_or_else(String::new, String::from)
    }

    fn char_len(&self, at: usize) -> usize {
        self.text
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .map_or(1, char::len_utf8)
    }

    fn next(&mut self) -> Token {
        loop {
            while self.pos < self.bytes.len() && is_space(self.bytes[self.pos]) {
                self.pos += 1;
            }
            let Some(&b) = self.bytes.get(self.pos) else {
                return Token::Eof(self.span(self.bytes.len(), self.bytes.len()));
            };
            let start = self.pos;
            match b {
                b'#' => {
                    let end = self.bytes[start..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(self.bytes.len(), |i| start + i);
                    let end_text = if end > start && self.bytes[end - 1] == b'\r' {
                        end - 1
                    } else {
                        end
                    };
                    self.comments.push(Comment {
                        text: self.text[start + 1..end_text].trim().to_string(),
                        span: self.span(start, end_text),
                    });
                    self.pos = end;
                }
                b';' => {
                    self.pos += 1;
                    return Token::Semi(self.span(start, start + 1));
                }
                b'{' => {
                    self.pos += 1;
                    return Token::Open(self.span(start, start + 1));
                }
                b'}' => {
                    self.pos += 1;
                    return Token::Close(self.span(start, start + 1));
                }
                b'"' | b'\'' => return self.quoted(b),
                _ => return self.word(),
            }
        }
    }

    fn quoted(&mut self, quote: u8) -> Token {
        let start = self.pos;
        let mut i = start + 1;
        while i < self.bytes.len() {
            match self.bytes[i] {
                b'\\' => i += 2,
                c if c == quote => break,
                _ => i += 1,
            }
        }
        if i >= self.bytes.len() {
            self.errors.push(ParseError::new(
                self.span(start, start + 1),
                format!(
                    "unexpected end of file: quote `{}` is never closed",
                    quote as char
                ),
            ));
            self.pos = self.bytes.len();
            let inner = self.text.get(start + 1..).unwrap_or("");
            return Token::Word(Arg {
                value: unescape(inner),
                span: self.span(start, self.bytes.len()),
                quoted: true,
            });
        }
        let inner = self.text.get(start + 1..i).unwrap_or("");
        self.pos = i + 1;
        let arg = Arg {
            value: unescape(inner),
            span: self.span(start, i + 1),
            quoted: true,
        };
        // nginx wants a separator after a closing quote; `)` may follow directly (for `if`), and
        // then starts the next word.
        match self.bytes.get(self.pos) {
            None | Some(b' ' | b'\t' | b'\r' | b'\n' | b';' | b'{' | b')') => {}
            Some(_) => {
                let at = self.pos;
                let len = self.char_len(at);
                self.errors.push(ParseError::new(
                    self.span(at, at + len),
                    format!("unexpected \"{}\" after a closing quote", self.char_at(at)),
                ));
            }
        }
        Token::Word(arg)
    }

    fn word(&mut self) -> Token {
        let start = self.pos;
        let mut i = start;
        let mut variable = false;
        while i < self.bytes.len() {
            let c = self.bytes[i];
            if c == b'{' && variable {
                // `${name}`: the brace belongs to the word. As in nginx, `variable` stays set, so
                // `${{` keeps both braces.
                i += 1;
                continue;
            }
            variable = false;
            match c {
                b'\\' => {
                    i += 2;
                    continue;
                }
                b'$' => variable = true,
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'{' => break,
                _ => {}
            }
            i += 1;
        }
        let end = i.min(self.bytes.len());
        self.pos = end;
        let raw = self.text.get(start..end).unwrap_or("");
        Token::Word(Arg {
            value: unescape(raw),
            span: self.span(start, end),
            quoted: false,
        })
    }

    /// Skips a Lua block body after its `{`, up to the matching `}`. Returns the body span and the
    /// closing brace, if any. Lua strings, long brackets and comments may hold braces.
    fn lua_body(&mut self) -> (Span, Option<Span>) {
        let start = self.pos;
        let mut depth = 1usize;
        let mut i = start;
        let b = self.bytes;
        while i < b.len() {
            match b[i] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = i + 1;
                        return (self.span(start, i), Some(self.span(i, i + 1)));
                    }
                }
                q @ (b'"' | b'\'') => {
                    i += 1;
                    while i < b.len() && b[i] != q && b[i] != b'\n' {
                        if b[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                b'-' if b.get(i + 1) == Some(&b'-') => {
                    if let Some(end) = long_bracket_end(b, i + 2) {
                        i = end;
                    } else {
                        while i < b.len() && b[i] != b'\n' {
                            i += 1;
                        }
                    }
                    continue;
                }
                b'[' => {
                    if let Some(end) = long_bracket_end(b, i) {
                        i = end;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        self.pos = b.len();
        (self.span(start, b.len()), None)
    }
}

/// If a Lua long bracket (`[[`, `[==[`) opens at `at`, the offset just after its closing bracket.
fn long_bracket_end(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'[') {
        return None;
    }
    let mut level = 0;
    let mut i = at + 1;
    while b.get(i) == Some(&b'=') {
        level += 1;
        i += 1;
    }
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i += 1;
    while i < b.len() {
        if b[i] == b']' {
            let mut j = i + 1;
            let mut eq = 0;
            while b.get(j) == Some(&b'=') {
                eq += 1;
                j += 1;
            }
            if eq == level && b.get(j) == Some(&b']') {
                return Some(j + 1);
            }
        }
        i += 1;
    }
    Some(b.len())
}

/// Blocks whose entries are data (`key value;`), not directives: no name or arity checks inside.
pub(crate) fn is_literal_block(name: &str) -> bool {
    matches!(
        name,
        "map" | "geo" | "types" | "split_clients" | "charset_map" | "match" | "perl_set"
    )
}

/// The words read since the last `;`, `{` or `}` as a directive's name and its arguments, the
/// arguments in a vector of their own length (most directives have one or two; `words` keeps
/// its room for the next directive). `None` when no word was read.
fn split_words(words: &mut Vec<Arg>) -> Option<(Arg, Vec<Arg>)> {
    let mut drained = words.drain(..);
    let name = drained.next()?;
    Some((name, drained.collect()))
}

/// The words read since the last `;`, `{` or `}` as a directive that lacks its `;`, spanning
/// from the name to the last argument (the caller reports the error); `None` without words.
fn unterminated(words: &mut Vec<Arg>) -> Option<RawDirective> {
    let (name, args) = split_words(words)?;
    let end = args.last().map_or(name.span, |a| a.span);
    Some(RawDirective {
        span: name.span.to(end),
        name,
        args,
        block: None,
    })
}

/// Parses one file. Never fails: returns what it could read and the problems met.
pub(crate) fn parse_file(file: FileId, text: &str) -> (FileTree, Vec<ParseError>) {
    let mut lexer = Lexer {
        file,
        bytes: text.as_bytes(),
        text,
        pos: 0,
        comments: Vec::new(),
        errors: Vec::new(),
    };
    let mut tree = FileTree::default();
    // Open blocks: index of the block directive.
    let mut stack: Vec<usize> = Vec::new();
    let mut words: Vec<Arg> = Vec::new();
    // How many open blocks hold data entries (`map`, `types`…) rather than directives; kept as
    // a counter so that checking it does not walk the stack.
    let mut literal_open = 0usize;

    let push = |tree: &mut FileTree, stack: &[usize], d: RawDirective| -> usize {
        let id = tree.directives.len();
        tree.directives.push(d);
        match stack.last() {
            Some(&parent) => {
                if let Some(block) = tree.directives[parent].block.as_mut() {
                    block.children.push(id);
                }
            }
            None => tree.roots.push(id),
        }
        id
    };

    loop {
        let token = lexer.next();
        match token {
            Token::Word(arg) => words.push(arg),
            Token::Semi(span) => {
                let Some((name, args)) = split_words(&mut words) else {
                    lexer.errors.push(ParseError::new(span, "unexpected \";\""));
                    continue;
                };
                if literal_open == 0 {
                    lexer.errors.extend(directives::check(&name, &args, false));
                }
                let d = RawDirective {
                    span: name.span.to(span),
                    name,
                    args,
                    block: None,
                };
                push(&mut tree, &stack, d);
            }
            Token::Open(open) => {
                let Some((name, args)) = split_words(&mut words) else {
                    lexer.errors.push(ParseError::new(open, "unexpected \"{\""));
                    // Still track the brace so the matching `}` is not reported too.
                    let d = RawDirective {
                        name: Arg {
                            value: String::new(),
                            span: open,
                            quoted: false,
                        },
                        args: Vec::new(),
                        span: open,
                        block: Some(RawBlock {
                            children: Vec::new(),
                            close: None,
                            raw: None,
                        }),
                    };
                    let id = push(&mut tree, &stack, d);
                    stack.push(id);
                    continue;
                };
                if literal_open == 0 {
                    lexer.errors.extend(directives::check(&name, &args, true));
                }
                if name.value.ends_with("_by_lua_block") {
                    let (raw, close) = lexer.lua_body();
                    if close.is_none() {
                        lexer.errors.push(ParseError {
                            span: Span::new(file, text.len(), text.len()),
                            message: format!(
                                "unexpected end of file: `{}` block is never closed",
                                excerpt(&name.value)
                            ),
                            labels: vec![Label {
                                span: name.span,
                                message: "opened here".into(),
                            }],
                        });
                    }
                    let d = RawDirective {
                        span: name.span.to(open),
                        name,
                        args,
                        block: Some(RawBlock {
                            children: Vec::new(),
                            close,
                            raw: Some(raw),
                        }),
                    };
                    push(&mut tree, &stack, d);
                    continue;
                }
                let d = RawDirective {
                    span: name.span.to(open),
                    name,
                    args,
                    block: Some(RawBlock {
                        children: Vec::new(),
                        close: None,
                        raw: None,
                    }),
                };
                if is_literal_block(&d.name.value) {
                    literal_open += 1;
                }
                let id = push(&mut tree, &stack, d);
                stack.push(id);
            }
            Token::Close(close) => {
                // A directive without its `;` before the `}`: report it at the directive, as
                // crossplane does, and keep it.
                if let Some(d) = unterminated(&mut words) {
                    let mut error = ParseError::new(
                        d.name.span,
                        format!(
                            "directive \"{}\" is not terminated by \";\"",
                            excerpt(&d.name.value)
                        ),
                    );
                    error.labels.push(Label {
                        span: close,
                        message: "the block ends here".into(),
                    });
                    lexer.errors.push(error);
                    push(&mut tree, &stack, d);
                }
                match stack.pop() {
                    Some(id) => {
                        if is_literal_block(&tree.directives[id].name.value) {
                            literal_open = literal_open.saturating_sub(1);
                        }
                        if let Some(block) = tree.directives[id].block.as_mut() {
                            block.close = Some(close);
                        }
                    }
                    None => lexer
                        .errors
                        .push(ParseError::new(close, "unexpected \"}\"")),
                }
            }
            Token::Eof(eof) => {
                if let Some(d) = unterminated(&mut words) {
                    lexer.errors.push(ParseError::new(
                        d.name.span,
                        format!(
                            "directive \"{}\" is not terminated by \";\" (unexpected end of file)",
                            excerpt(&d.name.value)
                        ),
                    ));
                    push(&mut tree, &stack, d);
                }
                if let Some(&open) = stack.last() {
                    let d = &tree.directives[open];
                    lexer.errors.push(ParseError {
                        span: eof,
                        message: format!(
                            "unexpected end of file, expecting \"}}\" to close `{}`",
                            excerpt(&d.name.value)
                        ),
                        labels: vec![Label {
                            span: d.span,
                            message: "block opened here".into(),
                        }],
                    });
                }
                break;
            }
        }
    }
    tree.comments = lexer.comments;
    // Kept while the configurations that include the file are spliced: without the room the
    // vectors grew.
    tree.directives.shrink_to_fit();
    tree.roots.shrink_to_fit();
    (tree, lexer.errors)
}
