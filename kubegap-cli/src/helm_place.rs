//! Helm findings on the templates: a finding in a document rendered from
//! `# Source: CHART/templates/x.yaml` is moved to the template file when it can be found, at
//! the template line that emits the finding's key. The rendered position stays as a label
//! ([`RENDERED_LABEL`]), which JSON shows as `rendered`, SARIF as a related location and the
//! human output as a nested location.
//!
//! The template is walked along the finding's key path (template keys are mostly literal,
//! values are `{{ … }}`): each key is looked for below the previous one, deeper than it; a
//! list item by its literal `name: X`, else by position. Exact: every key of the path is
//! written in the template. Approximate (a note says so): a key comes from a helper
//! (`include`, `toYaml`), a list item's name is templated, or the template loops (`range`);
//! then the nearest enclosing key found is used, else the object's first line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubegap_core::fingerprint::{document_of, node_path, Seg};
use kubegap_core::yaml::Document;
use kubegap_core::{FileId, FileKind, Label, Report, SourceFile, Span};

/// The message of the label that keeps a placed finding's rendered position.
pub const RENDERED_LABEL: &str = "rendered here (`helm template` output)";

/// Where `# Source:` paths are on disk: under `--chart DIR` (the path without its first
/// component, the chart's name); else resolved against the current directory or a directory
/// above it, or the stream file's directory or one above it, directly or, in a directory
/// holding a `Chart.yaml`, without the chart's name. Paths stay relative, as given.
///
/// Each directory is listed once, when first looked in: a path whose first component a
/// directory does not hold is not looked up there (a 90,000-document stream from 15,000
/// charts made 90,000 failed `stat` calls and 15,000 `getcwd` calls, serially, after the
/// lint). The directories a stream's origins may be in are known before any is resolved, so
/// that origins resolve in parallel (15,000 origins were 6 ms on one thread, after the rules).
struct Resolver<'c> {
    chart: Option<&'c Path>,
    /// Every directory looked in, each once, with what it holds (listed on first use).
    dirs: Vec<(PathBuf, std::sync::OnceLock<Listing>)>,
    /// The current directory and up to 15 above it (`""`, `..`, …), as positions in `dirs`.
    cwd_dirs: Vec<usize>,
    /// Each stream's directory and those above it, then the current directory's, as positions
    /// in `dirs`, by the stream's path.
    stream_dirs: BTreeMap<&'c Path, Vec<usize>>,
}

/// A directory's entry names (`None` when it cannot be listed: every path is then looked up)
/// and whether it holds a `Chart.yaml`.
struct Listing {
    names: Option<std::collections::BTreeSet<std::ffi::OsString>>,
    chart_yaml: bool,
}

impl Listing {
    fn of(dir: &Path) -> Listing {
        let at = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let names = std::fs::read_dir(at).ok().map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name())
                .collect::<std::collections::BTreeSet<_>>()
        });
        let chart_yaml = names
            .as_ref()
            .is_none_or(|n| n.contains(std::ffi::OsStr::new("Chart.yaml")))
            && dir.join("Chart.yaml").is_file();
        Listing { names, chart_yaml }
    }

    /// Whether `dir.join(path)` may exist: its first component is in the listing (or the
    /// listing or the component tells nothing).
    fn may_hold(&self, path: &Path) -> bool {
        match (path.components().next(), &self.names) {
            (Some(std::path::Component::Normal(first)), Some(names)) => names.contains(first),
            _ => true,
        }
    }
}

impl<'c> Resolver<'c> {
    /// A resolver for origins from `streams` (the paths of the files they were rendered in;
    /// standard input has none).
    fn new(chart: Option<&'c Path>, streams: impl Iterator<Item = &'c Path>) -> Resolver<'c> {
        let mut resolver = Resolver {
            chart,
            dirs: Vec::new(),
            cwd_dirs: Vec::new(),
            stream_dirs: BTreeMap::new(),
        };
        if chart.is_some() {
            return resolver;
        }
        let mut positions: BTreeMap<PathBuf, usize> = BTreeMap::new();
        let mut position =
            |dir: PathBuf, dirs: &mut Vec<(PathBuf, std::sync::OnceLock<Listing>)>| {
                *positions.entry(dir.clone()).or_insert_with(|| {
                    dirs.push((dir, std::sync::OnceLock::new()));
                    dirs.len() - 1
                })
            };
        let depth = std::fs::canonicalize(".").map_or(0, |c| c.ancestors().count());
        let mut up = PathBuf::new();
        for _ in 0..depth.min(16) {
            let at = position(up.clone(), &mut resolver.dirs);
            resolver.cwd_dirs.push(at);
            up.push("..");
        }
        for stream in streams {
            if resolver.stream_dirs.contains_key(stream) {
                continue;
            }
            let mut list: Vec<usize> = stream
                .parent()
                .into_iter()
                .flat_map(Path::ancestors)
                .map(|dir| position(dir.to_path_buf(), &mut resolver.dirs))
                .collect();
            list.extend(&resolver.cwd_dirs);
            resolver.stream_dirs.insert(stream, list);
        }
        resolver
    }

    fn resolve(&self, origin: &str, stream: Option<&Path>) -> Option<PathBuf> {
        let rest = origin.split_once('/').map(|(_, r)| r)?;
        if let Some(dir) = self.chart {
            let p = dir.join(rest);
            return p.is_file().then_some(p);
        }
        let positions = stream
            .and_then(|s| self.stream_dirs.get(s))
            .unwrap_or(&self.cwd_dirs);
        for (dir, listing) in positions.iter().filter_map(|at| self.dirs.get(*at)) {
            let listing = listing.get_or_init(|| Listing::of(dir));
            if listing.may_hold(Path::new(origin)) {
                let direct = dir.join(origin);
                if direct.is_file() {
                    return Some(direct);
                }
            }
            if listing.chart_yaml && listing.may_hold(Path::new(rest)) {
                let p = dir.join(rest);
                if p.is_file() {
                    return Some(p);
                }
            }
        }
        None
    }
}

/// The key at the start of a template line: (column in bytes, key) after any `- `.
fn line_key(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start();
    let mut col = line.len() - trimmed.len();
    let mut t = trimmed;
    while let Some(rest) = t.strip_prefix("- ") {
        let r = rest.trim_start();
        col += t.len() - r.len();
        t = r;
    }
    let end = t.find(':')?;
    let key = t[..end].trim_matches(|c| c == '"' || c == '\'');
    let after = &t[end + 1..];
    if key.is_empty() || key.contains(' ') || key.contains('{') {
        return None;
    }
    (after.is_empty() || after.starts_with(' ')).then_some((col, key))
}

/// Lines that carry no YAML of their own: blank, comments, template actions.
fn is_noise(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with('#') || t.starts_with("{{")
}

/// Where a path lands in a template: (line index, column, length, exact).
pub fn walk(text: &str, path: &[Seg]) -> (usize, usize, usize, bool) {
    let lines: Vec<&str> = text.lines().collect();
    let first = lines
        .iter()
        .position(|l| !is_noise(l) && l.trim() != "---")
        .unwrap_or(0);
    let mut best: Option<(usize, usize, usize)> = None;
    let mut exact = true;
    let mut start = first;
    let mut indent: isize = -1;
    'path: for seg in path {
        // The block: from `start` until a content line at or left of `indent`.
        let mut block_end = lines.len();
        for (i, line) in lines.iter().enumerate().skip(start) {
            if line.trim() == "---" {
                block_end = i;
                break;
            }
            if is_noise(line) {
                continue;
            }
            let ind = (line.len() - line.trim_start().len()) as isize;
            if ind <= indent && i > start {
                block_end = i;
                break;
            }
        }
        match seg {
            Seg::Key(k) => {
                let found = (start..block_end).find_map(|i| {
                    line_key(lines[i])
                        .filter(|(col, key)| key == k && *col as isize > indent)
                        .map(|(col, key)| (i, col, key.len()))
                });
                let Some((i, col, len)) = found else {
                    exact = false;
                    break;
                };
                best = Some((i, col, len));
                indent = col as isize;
                start = i + 1;
            }
            Seg::Item(name, index) => {
                let named = name.as_deref().and_then(|name| {
                    (start..block_end).find_map(|i| match line_key(lines[i]) {
                        Some((col, "name")) => {
                            let value = lines[i][col + 5..]
                                .trim()
                                .trim_matches(|c| c == '"' || c == '\'');
                            (value == name && col as isize > indent).then_some((i, col))
                        }
                        _ => None,
                    })
                });
                if let Some((i, col)) = named {
                    indent = col as isize - 1;
                    start = i;
                    continue 'path;
                }
                // By position: the index-th `- ` at the block's item column.
                let dashes: Vec<(usize, usize)> = (start..block_end)
                    .filter_map(|i| {
                        let t = lines[i].trim_start();
                        let col = lines[i].len() - t.len();
                        (t.starts_with("- ") && col as isize >= indent).then_some((i, col))
                    })
                    .collect();
                let item_col = dashes.iter().map(|(_, c)| *c).min();
                let items: Vec<usize> = dashes
                    .iter()
                    .filter(|(_, c)| Some(*c) == item_col)
                    .map(|(i, _)| *i)
                    .collect();
                let looped = (start..block_end).any(|i| lines[i].contains("range"));
                match (items.get(*index), item_col) {
                    (Some(i), Some(c)) => {
                        if name.is_some() || looped {
                            exact = false;
                        }
                        // Keys of the item (the dash line's own included) are right of it.
                        indent = c as isize;
                        start = *i;
                    }
                    _ => {
                        exact = false;
                        break;
                    }
                }
            }
        }
    }
    match best {
        Some((line, col, len)) => (line, col, len, exact),
        None => {
            let line = lines.get(first).copied().unwrap_or("");
            let col = line.len() - line.trim_start().len();
            (first, col, line.trim().len(), false)
        }
    }
}

/// Moves findings of Helm-rendered documents onto their templates; returns how many moved.
/// `documents` are the run's YAML documents (of `report.files`, in file order).
pub fn apply(report: &mut Report, documents: &[Document], chart: Option<&Path>) -> usize {
    use rayon::prelude::*;
    if report.findings.iter().all(|f| f.origin.is_none()) {
        return 0;
    }
    let Report {
        findings, files, ..
    } = report;
    // Each origin once per stream, in the order the findings first name it (a stream's
    // origins are looked for from its own directory: two streams rendered from two charts may
    // both name `app/templates/service.yaml`). The templates are found in parallel.
    type Origin<'a> = (&'a str, Option<&'a Path>);
    let mut first: std::collections::HashMap<Origin<'_>, usize> = std::collections::HashMap::new();
    let mut origins: Vec<Origin<'_>> = Vec::new();
    let of_finding: Vec<Option<usize>> = findings
        .iter()
        .map(|f| {
            let origin = (f.origin.as_deref()?, files.get(f.span.file).path.as_deref());
            Some(*first.entry(origin).or_insert_with(|| {
                origins.push(origin);
                origins.len() - 1
            }))
        })
        .collect();
    drop(first);
    let resolver = Resolver::new(chart, origins.iter().filter_map(|(_, stream)| *stream));
    let found: Vec<Option<PathBuf>> = origins
        .par_iter()
        .map(|(origin, stream)| resolver.resolve(origin, *stream))
        .collect();
    drop(resolver);
    drop(origins);
    // Each template read once (two streams of one chart find the same one), in parallel, and
    // added to the files in the order of first use.
    let mut slots: std::collections::HashMap<&Path, usize> = std::collections::HashMap::new();
    let mut paths: Vec<&Path> = Vec::new();
    let slot_of: Vec<Option<usize>> = found
        .iter()
        .map(|path| {
            let path = path.as_deref()?;
            Some(*slots.entry(path).or_insert_with(|| {
                paths.push(path);
                paths.len() - 1
            }))
        })
        .collect();
    drop(slots);
    let texts: Vec<Option<String>> = paths
        .par_iter()
        .map(|path| std::fs::read_to_string(path).ok())
        .collect();
    let added: Vec<Option<FileId>> = paths
        .into_iter()
        .zip(texts)
        .map(|(path, text)| {
            text.map(|text| {
                files.add(SourceFile::new(
                    path.display().to_string(),
                    Some(path.to_path_buf()),
                    text,
                    FileKind::Yaml,
                ))
            })
        })
        .collect();
    let ids: Vec<Option<FileId>> = slot_of
        .into_iter()
        .map(|slot| slot.and_then(|s| added.get(s).copied().flatten()))
        .collect();
    drop(found);
    // Where each finding goes in its template, in parallel.
    let files = &*files;
    let placed: Vec<Option<(FileId, usize, usize, bool)>> = findings
        .par_iter()
        .zip(&of_finding)
        .map(|(f, origin)| {
            let id = (*origin).and_then(|o| ids.get(o).copied().flatten())?;
            let doc = document_of(documents, f.span)?;
            let (_, path) = node_path(doc, f.span.start);
            let template = files.get(id);
            let (line, col, len, exact) = walk(&template.text, &path);
            let line_start = template.line_start(line).unwrap_or(0) as usize;
            Some((id, line_start + col, len, exact))
        })
        .collect();
    let mut moved = 0;
    for (f, placed) in findings.iter_mut().zip(placed) {
        let Some((id, start, len, exact)) = placed else {
            continue;
        };
        f.labels.push(Label {
            span: f.span,
            message: RENDERED_LABEL.into(),
        });
        f.span = Span::new(id, start, start + len);
        if !exact {
            f.notes.push(
                "placed on the nearest line of the template found for this key (the key itself comes from a helper, a templated list item or a loop)"
                    .to_string(),
            );
        }
        moved += 1;
    }
    if moved > 0 {
        let files = &report.files;
        report.findings.sort_by(|a, b| {
            (
                &files.get(a.span.file).name,
                a.span.start,
                a.span.end,
                a.rule,
                &a.message,
            )
                .cmp(&(
                    &files.get(b.span.file).name,
                    b.span.start,
                    b.span.end,
                    b.rule,
                    &b.message,
                ))
        });
    }
    moved
}

/// The rendered position of a placed finding, for JSON: the [`RENDERED_LABEL`] label's span.
pub fn rendered(f: &kubegap_core::Finding) -> Option<Span> {
    f.labels
        .iter()
        .find(|l| l.message == RENDERED_LABEL)
        .map(|l| l.span)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Seg {
        Seg::Key(k.to_string())
    }

    const SERVICE: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n    {{- include \"x\" . | nindent 4 }}\nspec:\n  ports:\n    - name: http\n      port: {{ .Values.port }}\n      {{- if .Values.t }}\n      targetPort: {{ .Values.t }}\n      {{- end }}\n";

    #[test]
    fn walks_literal_keys_and_named_items() {
        let path = [
            key("spec"),
            key("ports"),
            Seg::Item(Some("http".into()), 0),
            key("targetPort"),
        ];
        assert_eq!(walk(SERVICE, &path), (11, 6, 10, true));
    }

    #[test]
    fn keys_from_helpers_fall_back_to_the_enclosing_key() {
        let path = [key("metadata"), key("labels"), key("app")];
        assert_eq!(walk(SERVICE, &path), (4, 2, 6, false));
        // Nothing found: the object's first line.
        assert_eq!(walk(SERVICE, &[key("status")]), (0, 0, 14, false));
    }

    #[test]
    fn templated_item_names_use_the_position() {
        let t = "spec:\n  containers:\n    - name: {{ .Chart.Name }}\n      image: x\n    - name: sidecar\n      image: y\n";
        let path = [
            key("spec"),
            key("containers"),
            Seg::Item(Some("web".into()), 0),
            key("image"),
        ];
        assert_eq!(walk(t, &path), (3, 6, 5, false));
        let path = [
            key("spec"),
            key("containers"),
            Seg::Item(Some("sidecar".into()), 1),
            key("image"),
        ];
        assert_eq!(walk(t, &path), (5, 6, 5, true));
    }
}
