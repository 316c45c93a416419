//! Output formats. Each format is a function of the sorted [`Report`]; none of them decides the
//! exit code.

use kubegap_core::{Report, SourceFile, Span};

pub mod chains;
pub mod concise;
pub mod github;
pub mod human;
pub mod json;
pub mod junit;
mod pretty;
pub mod sarif;

/// Writes `items` rendered in parallel, in their order: rounds of `tasks` tasks, each task
/// rendering `chunk` consecutive items (`render` gets the index of the first of them and the
/// items), each round written before the next one is rendered, so that the text of a large
/// report is never held whole (JSON and human output; the bytes do not depend on the thread
/// count).
pub fn write_in_order<'s, T: Sync>(
    items: &'s [T],
    chunk: usize,
    tasks: usize,
    render: impl Fn(usize, &'s [T]) -> std::io::Result<Vec<u8>> + Sync,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    let chunk = chunk.max(1);
    let per_round = chunk * tasks.max(1);
    for (round, batch) in items.chunks(per_round).enumerate() {
        let rendered: Vec<std::io::Result<Vec<u8>>> = batch
            .par_chunks(chunk)
            .enumerate()
            .map(|(c, items)| render(round * per_round + c * chunk, items))
            .collect();
        for part in rendered {
            w.write_all(&part?)?;
        }
    }
    Ok(())
}

/// How the streamed JSON formats batch their items: 128 a task (about 100 KB of JSON), two
/// tasks a thread in flight (larger rounds added 1.3 MB to the peak of a 6 MB stream, for no
/// speed).
pub fn batch() -> (usize, usize) {
    (128, 2 * rayon::current_num_threads().max(1))
}

/// Writes the items of a pretty JSON array whose `[` is already written, at `depth` levels of
/// indentation (two spaces each), without the closing line: each item serialized alone from
/// what `value` makes of it, in parallel batches written in order ([`write_in_order`]), and
/// indented to its depth, so that the bytes are those of `serde_json` over the whole document.
pub fn write_json_items<'s, T: Sync, V: serde::Serialize>(
    items: &'s [T],
    depth: usize,
    (chunk, tasks): (usize, usize),
    value: impl Fn(&'s T) -> V + Sync,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    write_in_order(
        items,
        chunk,
        tasks,
        |start, chunk| {
            let mut out = Vec::with_capacity(chunk.len() * 1024);
            for (i, item) in chunk.iter().enumerate() {
                if start + i > 0 {
                    out.push(b',');
                }
                out.push(b'\n');
                Nested::spaces(&mut out, depth)?;
                write_pretty_at(&mut out, &value(item), depth)?;
            }
            Ok(out)
        },
        w,
    )
}

/// The text a streaming writer of a JSON format (`json::write`, `sarif::write`) writes, for
/// callers that want it whole (`kubegap diff`, tests); an error in place of the document if
/// the writer failed.
pub fn json_text(write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    match write(&mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(e) => format!("{{\"error\": \"{e}\"}}\n"),
    }
}

/// Lints YAML texts, each under its name, with the default settings: the reports the formats'
/// tests render.
#[cfg(test)]
pub(crate) fn lint_texts<S: AsRef<str>>(inputs: &[(S, &str)]) -> Report {
    let inputs = inputs
        .iter()
        .map(|(name, text)| kubegap_core::engine::Input {
            name: name.as_ref().to_string(),
            path: None,
            bytes: text.as_bytes().to_vec(),
            kind: kubegap_core::FileKind::Yaml,
            canonical: None,
            prepared: None,
        })
        .collect();
    kubegap_core::engine::lint(inputs, &kubegap_core::Settings::default())
}

/// Appends `value` as pretty JSON (`serde_json::to_writer_pretty`'s bytes) indented as it is
/// `depth` levels (two spaces each) deep in a larger document: an item serialized alone, with
/// the bytes it has inside the whole document. Written by [`pretty::write`], whose strings are
/// scanned a word at a time.
pub fn write_pretty_at(
    out: &mut Vec<u8>,
    value: &impl serde::Serialize,
    depth: usize,
) -> std::io::Result<()> {
    let formatter = Nested {
        depth,
        has_value: false,
    };
    pretty::write(out, formatter, value)
}

/// `serde_json`'s `PrettyFormatter` (two spaces a level) started `depth` levels deep. Writing
/// the indentation as the value is serialized, instead of indenting the pretty text after it,
/// saves a copy and a scan of every byte (9 % of the instructions of a run writing 75,000
/// findings).
struct Nested {
    depth: usize,
    has_value: bool,
}

impl Nested {
    /// Two spaces a level.
    fn spaces<W: ?Sized + std::io::Write>(w: &mut W, depth: usize) -> std::io::Result<()> {
        const SPACES: &[u8; 64] = &[b' '; 64];
        let mut left = 2 * depth;
        while left > 0 {
            let n = left.min(SPACES.len());
            w.write_all(&SPACES[..n])?;
            left -= n;
        }
        Ok(())
    }

    /// `[` or `{`: one level deeper, no value yet.
    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// `]` or `}`: on a line of its own after values, right after the opening one otherwise.
    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        if self.has_value {
            w.write_all(b"\n")?;
            Nested::spaces(w, self.depth)?;
        }
        w.write_all(bracket)
    }

    /// Before an item or a key: a line of its own.
    fn item<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        Nested::spaces(w, self.depth)
    }
}

impl serde_json::ser::Formatter for Nested {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// 1-based (line, column, end line, end column) of a span, columns in characters.
pub fn position(file: &SourceFile, span: Span) -> (u32, u32, u32, u32) {
    let (start, end) = file.span_line_cols(span.start, span.end);
    (start.line, start.column, end.line, end.column)
}

/// The human summary line.
pub fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "{}, {}, {}: {}, {}, {}",
        plural(s.files, "file"),
        plural(s.documents, "document"),
        plural(s.objects, "object"),
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.infos, "info"),
    );
    if s.suppressed > 0 {
        line.push_str(&format!(" ({} suppressed)", s.suppressed));
    }
    line
}

/// Text from the input made safe for a terminal: every control character (C0, DEL, C1; bidi
/// controls included) is shown escaped as `\u{1b}`, never sent raw. Newlines and tabs are kept
/// unless `one_line`, which escapes them too.
pub fn escape_controls(text: &str, one_line: bool) -> std::borrow::Cow<'_, str> {
    if one_line {
        escape_controls_except(text, &[])
    } else {
        escape_controls_except(text, &['\n', '\t'])
    }
}

/// Whether a character is shown escaped: a control character (C0, DEL, C1) or a bidi control
/// (embeddings, overrides and isolates, which would reorder the text around them on a
/// terminal: "Trojan Source", CVE-2021-42574).
pub fn is_escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// [`escape_controls`], keeping the control characters in `keep`.
pub fn escape_controls_except<'a>(text: &'a str, keep: &[char]) -> std::borrow::Cow<'a, str> {
    let needs = |c: char| is_escaped(c) && !keep.contains(&c);
    if !text.chars().any(needs) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs(c) {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                _ => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::{escape_controls, write_pretty_at};

    /// A value written at a depth is `serde_json`'s pretty text with each line break followed
    /// by two spaces a level (strings escape their line breaks): empty objects and arrays after
    /// a value, nested ones, scalars, and a depth past the 32 levels of one run of spaces.
    #[test]
    fn a_value_written_at_a_depth_is_the_pretty_text_indented() {
        let values = [
            serde_json::json!({}),
            serde_json::json!([]),
            serde_json::json!("a\nb"),
            serde_json::json!(7),
            serde_json::json!({"a": 1, "b": {}, "c": [], "d": {"e": [1, {}, [], {"f": {}}]}}),
            serde_json::json!([{"a": [{}, {"b": null}]}, [[]], {}, "x", {"y": []}]),
        ];
        for value in &values {
            let pretty = serde_json::to_string_pretty(value).unwrap();
            for depth in [0, 1, 2, 5, 40] {
                let by = format!("\n{}", " ".repeat(2 * depth));
                let mut out = Vec::new();
                write_pretty_at(&mut out, value, depth).unwrap();
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    pretty.replace('\n', &by),
                    "{value} at depth {depth}"
                );
            }
        }
    }

    /// Every character the escape is about, and its neighbours that share a lead byte
    /// (`€` and `—` start with 0xe2, `\u{a0}` with 0xc2), alone and anywhere in a longer text:
    /// each control is escaped, everything else is kept, and text without one is borrowed.
    #[test]
    fn every_control_is_escaped_and_nothing_else() {
        let controls = (0..0x20u32)
            .chain([0x7f])
            .chain(0x80..0xa0)
            .chain(0x202a..=0x202e)
            .chain(0x2066..=0x2069)
            .filter_map(char::from_u32);
        for c in controls {
            // Alone, and at each place of a 64-byte block and its remainder.
            let placed = [0, 1, 63, 64, 127, 130].map(|at| {
                let mut text = "xé".repeat(45);
                text.insert(at, c);
                text
            });
            for text in std::iter::once(c.to_string()).chain(placed) {
                for one_line in [false, true] {
                    let kept = !one_line && (c == '\n' || c == '\t');
                    let shown = escape_controls(&text, one_line);
                    assert_eq!(shown.contains(c), kept, "{:x} in {text:?}", c as u32);
                    if !kept {
                        assert!(shown.contains('\\'), "{:x}", c as u32);
                    }
                }
            }
        }
        for text in ["€ — \u{a0}é\u{2029}\u{2065}\u{206a}\u{2029}", "plain", ""] {
            for one_line in [false, true] {
                assert!(
                    matches!(escape_controls(text, one_line), std::borrow::Cow::Borrowed(t) if t == text),
                    "{text:?}"
                );
            }
        }
    }
}
