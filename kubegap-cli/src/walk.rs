//! File discovery: explicit paths, directories (recursive, honouring `.gitignore` and
//! `.kubegapignore`, skipping VCS directories), and stdin.
//!
//! Untrusted repositories (see docs/RELIABILITY.md): every read is bounded by `--max-file-size`
//! and the memory budget ([`Limits`]); a symbolic link inside a walked directory is followed
//! when it resolves inside the lint roots and reported (not read) when it leaves them; a link
//! loop is skipped; file names that are not UTF-8 are linted like any other and shown escaped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use kubegap_core::reads::{self, format_size, Refusal};
use kubegap_core::{kind, FileKind, Input};

/// What discovery produced: inputs, and errors of the command itself (exit code 2).
#[derive(Default)]
pub struct Discovered {
    /// Files to lint.
    pub inputs: Vec<Input>,
    /// Problems reading paths (exit code 2).
    pub errors: Vec<String>,
    /// Helm charts and kustomizations found (`crate::charts`).
    pub layout: kubegap_core::layout::Layout,
    /// Things not read on purpose (symbolic links leaving the roots, link loops): printed as
    /// warnings, the exit code is unchanged.
    pub warnings: Vec<String>,
}

/// Bounds on what discovery reads.
#[derive(Clone, Debug)]
pub struct Limits {
    /// `--max-file-size`.
    pub max_file_size: u64,
    /// `--max-memory`: the budget the estimate of every input together must stay under.
    pub max_memory: u64,
    /// Canonical directories a symbolic link met in a walk may lead into (besides the walked
    /// directory itself).
    pub roots: Vec<PathBuf>,
    /// Whether the manifests a walk reads are parsed for the rules as soon as they are read
    /// ([`kubegap_core::engine::prepare`]), so that the lines no rule reads are never all held
    /// at once: for `lint` and `chains` without a baseline, which read nothing else of them.
    pub prepare: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_size: reads::DEFAULT_MAX_FILE_SIZE,
            max_memory: u64::MAX,
            roots: Vec::new(),
            prepare: false,
        }
    }
}

/// Peak memory per input byte, as measured (release, `/usr/bin/time`, 2026-12-01;
/// docs/PERFORMANCE.md "Memory to issue #16's bound", docs/RELIABILITY.md "Memory"): beyond
/// [`MEMORY_BASE`], at most 5.5 × on every shape measured (a 102 MB Helm stream, a 1M-line
/// haproxy.cfg, 20,000 small manifests, 9,221 copies of a release sharing one selector);
/// 8 leaves room for shapes not measured. It was 24 while a 300,000-line haproxy.cfg peaked at
/// 21 × its size.
pub const MEMORY_PER_INPUT_BYTE: u64 = 8;
/// Memory kubegap needs whatever the input (binary, rule tables, output buffers).
pub const MEMORY_BASE: u64 = 50 << 20;

const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".jj"];

/// The running estimate of the memory the inputs will need.
struct Budget {
    limit: u64,
    input_bytes: u64,
    exceeded: bool,
}

impl Budget {
    /// Adds `size` input bytes; `Err` (once) when the estimate goes over the limit.
    fn take(&mut self, size: u64) -> Result<(), String> {
        if self.exceeded {
            return Err(String::new());
        }
        let total = self.input_bytes.saturating_add(size);
        let estimate = total
            .saturating_mul(MEMORY_PER_INPUT_BYTE)
            .saturating_add(MEMORY_BASE);
        if estimate > self.limit {
            self.exceeded = true;
            return Err(format!(
                "the inputs need an estimated {} of memory ({} of input × {MEMORY_PER_INPUT_BYTE} + {}), \
                 above --max-memory {}: lint fewer files at once, or raise --max-memory",
                format_size(estimate),
                format_size(total),
                format_size(MEMORY_BASE),
                format_size(self.limit)
            ));
        }
        self.input_bytes = total;
        Ok(())
    }

    /// The most bytes a stream may still bring (its size is unknown before reading).
    fn room(&self) -> u64 {
        (self.limit.saturating_sub(MEMORY_BASE) / MEMORY_PER_INPUT_BYTE)
            .saturating_sub(self.input_bytes)
    }
}

/// A path as shown in messages and output: its text when it is UTF-8, otherwise its bytes with
/// the invalid ones escaped (`\xff`); a file literally named `<stdin>` is shown `./<stdin>`, so
/// it cannot be mistaken for standard input.
pub fn display_name(path: &Path) -> String {
    let name = match path.to_str() {
        Some(text) => text.to_string(),
        None => escape_bytes(path),
    };
    if name == "<stdin>" {
        "./<stdin>".to_string()
    } else {
        name
    }
}

#[cfg(unix)]
fn escape_bytes(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in path.as_os_str().as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

#[cfg(not(unix))]
fn escape_bytes(path: &Path) -> String {
    path.display().to_string()
}

/// Reads every input named by `paths` under the default [`Limits`]. `forced_kind` is the kind
/// of `-` (and of explicitly named files whose kind cannot be detected).
pub fn discover(paths: &[PathBuf], forced_kind: Option<FileKind>) -> Discovered {
    discover_with(paths, forced_kind, &Limits::default())
}

/// [`discover`] under explicit size, memory and symbolic-link limits.
pub fn discover_with(
    paths: &[PathBuf],
    forced_kind: Option<FileKind>,
    limits: &Limits,
) -> Discovered {
    let mut out = Discovered::default();
    let mut budget = Budget {
        limit: limits.max_memory,
        input_bytes: 0,
        exceeded: false,
    };
    let default = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    // The directories are walked all at once, by one walk when none is inside another (each
    // walk waits on its slowest directory, and a small one is mostly starting and stopping its
    // threads); their files are then admitted and read one directory after the other, in
    // argument order.
    use rayon::prelude::*;
    // The walks read the files they find as they go, up to what the budget has room for
    // (`Ahead`); what they leave is read after the budget has admitted it.
    let ahead = Ahead(AtomicU64::new(budget.room()));
    let is_dir: Vec<bool> = paths
        .par_iter()
        .map(|path| path.as_os_str() != "-" && path.is_dir())
        .collect();
    let dirs: Vec<&Path> = paths
        .iter()
        .zip(&is_dir)
        .filter(|(_, d)| **d)
        .map(|(p, _)| p.as_path())
        .collect();
    let canonical: Vec<Option<PathBuf>> = dirs
        .par_iter()
        .map(|d| std::fs::canonicalize(d).ok())
        .collect();
    let mut walked = if one_walk_for(&dirs, &canonical) {
        scan_dirs(&dirs, &canonical, limits, &ahead)
    } else {
        dirs.par_iter()
            .zip(&canonical)
            .map(|(dir, canonical)| {
                scan_dirs(&[dir], std::slice::from_ref(canonical), limits, &ahead)
                    .pop()
                    .unwrap_or_default()
            })
            .collect()
    }
    .into_iter();
    let mut scans: Vec<Option<Scan>> = is_dir
        .iter()
        .map(|d| if *d { walked.next() } else { None })
        .collect();
    // What each argument gives, in argument order; the directories' files are read at the
    // end, all at once.
    let mut parts: Vec<Discovered> = Vec::with_capacity(paths.len());
    let mut admitted: Vec<(usize, Admitted)> = Vec::new();
    for (path, scan) in paths.iter().zip(scans.iter_mut()) {
        if budget.exceeded {
            break;
        }
        let mut part = Discovered::default();
        if path.as_os_str() == "-" {
            read_stdin(forced_kind, limits, &mut budget, &mut part);
        } else if let Some(scan) = scan.take() {
            admitted.push((parts.len(), admit_dir(scan, limits, &mut budget)));
        } else {
            match read_file(path, limits, &mut budget) {
                Ok(bytes) => {
                    match kind_of(path, None, &bytes).or(forced_kind) {
                        Some(kind) => part.inputs.push(input(path, bytes, kind)),
                        None => part.errors.push(format!(
                            "{}: cannot tell whether this is a manifest, an haproxy.cfg or an nginx config; pass --kind",
                            display_name(path)
                        )),
                    }
                }
                Err(e) if e.is_empty() => {}
                Err(e) => part.errors.push(e),
            }
        }
        parts.push(part);
    }
    drop(scans);
    // The layout's look at the directories above the walked files (which hold a `Chart.yaml`
    // or a kustomization) needs their paths only: it runs beside the reading of the files the
    // walk left, whose few large files leave a thread waiting.
    // One file of each run of files in one directory is enough: copying every walked path for
    // it, and going over each, took 1.2 ms more of a two-thread run over 20,000 small files.
    let mut last = None;
    let walked: Vec<PathBuf> = admitted
        .iter()
        .flat_map(|(_, a)| &a.steps)
        .filter_map(|step| match step {
            Step::Read(_, path, ..) => Some(path.as_path()),
            Step::Ready(input) => input.path.as_deref(),
            Step::Error(_) | Step::Warning(_) => None,
        })
        .filter(|path| kubegap_core::layout::in_another_directory(&mut last, path))
        .map(Path::to_path_buf)
        .collect();
    let ((), dirs) = rayon::join(
        || read_admitted_steps(admitted, limits, &mut parts),
        || kubegap_core::layout::Dirs::prefetch(walked.iter().map(PathBuf::as_path)),
    );
    drop(walked);
    for part in parts {
        out.inputs.extend(part.inputs);
        out.errors.extend(part.errors);
        out.warnings.extend(part.warnings);
    }
    // Helm chart sources and kustomizations decide which files are manifests.
    crate::charts::arrange(&mut out, dirs);
    out
}

/// A path's bytes with every `/` made `0`: sorted as bytes, paths that share a prefix and
/// continue with plain names compare as `Path`s do, component by component.
fn walk_key(path: &Path) -> Vec<u8> {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|b| if *b == b'/' { 0 } else { *b })
        .collect()
}

/// Standard input, bounded by the size limit and the memory budget.
fn read_stdin(
    forced_kind: Option<FileKind>,
    limits: &Limits,
    budget: &mut Budget,
    out: &mut Discovered,
) {
    let limit = limits.max_file_size.min(budget.room());
    match read_stdin_bytes(limit) {
        Ok(bytes) => {
            if let Err(e) = budget.take(bytes.len() as u64) {
                out.errors.push(e);
                return;
            }
            out.inputs.push(Input {
                name: "<stdin>".to_string(),
                path: None,
                // Detected from the content like `.cfg`/`.conf` files; `--kind` overrides.
                kind: forced_kind
                    .unwrap_or_else(|| kind::detect_content(&bytes[..bytes.len().min(4096)])),
                bytes,
                canonical: None,
                prepared: None,
            });
        }
        Err(Refusal::TooLarge { .. }) if limit < limits.max_file_size => {
            // The budget, not the file limit, stopped the read: say so.
            let _ = budget.take(limit.saturating_add(1));
            out.errors.push(format!(
                "<stdin>: more than {} would exceed --max-memory {}, not read",
                format_size(limit),
                format_size(limits.max_memory)
            ));
        }
        Err(refusal) => out
            .errors
            .push(format!("<stdin>: {}", refusal_text(&refusal))),
    }
}

/// Standard input up to `limit` bytes. Redirected from a file (`kubegap lint - < stream.yaml`),
/// it is read like a file, in parallel blocks when large; a pipe is read as a stream.
fn read_stdin_bytes(limit: u64) -> Result<Vec<u8>, Refusal> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() {
            return reads::read_bounded_open(std::fs::File::from(fd), limit);
        }
    }
    reads::read_bounded(std::io::stdin().lock(), limit, 0)
}

fn refusal_text(refusal: &Refusal) -> String {
    match refusal {
        Refusal::TooLarge { limit, .. } => format!(
            "larger than --max-file-size ({}), not read",
            format_size(*limit)
        ),
        Refusal::Io(e) => e.to_string(),
        other => other.to_string(),
    }
}

/// Whether a walk reads this file, from its path alone: `Some(kind)` for a recognised name,
/// `Some(None)` for `.cfg`/`.conf`, whose head tells (haproxy, nginx or neither), `None` for
/// anything else.
fn candidate(path: &Path) -> Option<Option<FileKind>> {
    let by_name = kind::detect(path, None);
    let needs_head = by_name.is_none()
        && matches!(
            path.extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
                .as_deref(),
            Some("cfg" | "conf")
        );
    (by_name.is_some() || needs_head).then_some(by_name)
}

/// The size of a regular file (`None`: not one, or gone).
fn regular_size(path: &Path) -> Option<u64> {
    std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
}

/// A regular file's size checked against `--max-file-size` and the memory budget, before
/// [`read_sized`] reads it. `Err("")` when the budget was already reported.
fn admit_size(path: &Path, size: u64, limits: &Limits, budget: &mut Budget) -> Result<(), String> {
    if size > limits.max_file_size {
        return Err(format!(
            "{}: {} is larger than --max-file-size ({}), not read",
            display_name(path),
            format_size(size),
            format_size(limits.max_file_size)
        ));
    }
    budget.take(size)
}

/// Reads a regular file that [`admit_size`] admitted at `size`, up to that size (a file that
/// grew since is read as it was; an empty or large one is bounded by `--max-file-size` still).
fn read_sized(path: &Path, size: u64, limits: &Limits) -> Result<Vec<u8>, String> {
    reads::read_file_of_size(path, size, limits.max_file_size)
        .map_err(|r| format!("{}: {}", display_name(path), refusal_text(&r)))
}

/// A file given or found: its size checked against the limit and the budget before reading.
/// `Err("")` when the budget was already reported.
fn read_file(path: &Path, limits: &Limits, budget: &mut Budget) -> Result<Vec<u8>, String> {
    kubegap_core::phases::within(READ_PART, || read_file_now(path, limits, budget))
}

/// What [`KUBEGAP_PHASES`](kubegap_core::phases) calls the time spent opening, sizing and
/// reading files, wherever the walk does it.
const READ_PART: &str = "files opened, sized and read";

fn read_file_now(path: &Path, limits: &Limits, budget: &mut Budget) -> Result<Vec<u8>, String> {
    let name = display_name(path);
    if let Some(size) = regular_size(path) {
        admit_size(path, size, limits, budget)?;
        return read_sized(path, size, limits);
    }
    // A stream named explicitly (`<(helm template .)`, a FIFO, a device): bounded while read.
    let limit = limits.max_file_size.min(budget.room());
    let file = std::fs::File::open(path).map_err(|e| format!("{name}: {e}"))?;
    let bytes =
        reads::read_bounded(file, limit, 0).map_err(|r| format!("{name}: {}", refusal_text(&r)))?;
    budget.take(bytes.len() as u64)?;
    Ok(bytes)
}

/// A walked file as read: its bytes, or its input already parsed for the rules
/// ([`kubegap_core::engine::prepare`]) when it is worth it.
enum Read {
    Bytes(Vec<u8>),
    Prepared(Box<Input>),
}

impl Read {
    /// A walked file read, parsed for the rules at once when `limits` say so
    /// ([`Limits::prepare`]), its kind is known (from its name, or else from its bytes) and it
    /// holds what the parse cuts ([`kubegap_core::engine::worth_preparing`]), unless it is in a
    /// `templates` directory (a Helm chart's templates are not manifests: the layout drops
    /// them). Every other file stays bytes, as small as they were, until it is admitted.
    fn new(path: &Path, bytes: Vec<u8>, by_name: Option<FileKind>, limits: &Limits) -> Read {
        if !limits.prepare
            || !kubegap_core::engine::worth_preparing(&bytes)
            || path
                .components()
                .any(|c| c.as_os_str() == std::ffi::OsStr::new("templates"))
        {
            return Read::Bytes(bytes);
        }
        match kind_of(path, by_name, &bytes) {
            Some(kind) => {
                let mut input = input(path, bytes, kind);
                kubegap_core::phases::within("definitions parsed and cut", || {
                    kubegap_core::engine::prepare(&mut input)
                });
                Read::Prepared(Box::new(input))
            }
            None => Read::Bytes(bytes),
        }
    }

    /// The input (its kind from its name, or else from its bytes; `None` when neither tells).
    fn into_input(self, path: &Path, by_name: Option<FileKind>) -> Option<Input> {
        match self {
            Read::Prepared(input) => Some(*input),
            Read::Bytes(bytes) => {
                let kind = kind_of(path, by_name, &bytes)?;
                Some(input(path, bytes, kind))
            }
        }
    }

    /// [`Read::into_input`], the input taking `path` as its own.
    fn into_input_at(self, path: PathBuf, by_name: Option<FileKind>) -> Option<Input> {
        match self {
            Read::Prepared(input) => Some(*input),
            Read::Bytes(bytes) => {
                let kind = kind_of(&path, by_name, &bytes)?;
                Some(input_at(path, bytes, kind))
            }
        }
    }
}

/// A file's kind from its name (`by_name`, found by the walk), or else from its name and
/// first bytes ([`kind::detect`]).
fn kind_of(path: &Path, by_name: Option<FileKind>, bytes: &[u8]) -> Option<FileKind> {
    by_name.or_else(|| kind::detect(path, Some(&bytes[..bytes.len().min(4096)])))
}

/// The input of a walked file read ([`Read::new`], [`Read::into_input`]).
fn walked_input(
    path: &Path,
    bytes: Vec<u8>,
    by_name: Option<FileKind>,
    limits: &Limits,
) -> Option<Input> {
    Read::new(path, bytes, by_name, limits).into_input(path, by_name)
}

fn input(path: &Path, bytes: Vec<u8>, kind: FileKind) -> Input {
    input_at(path.to_path_buf(), bytes, kind)
}

fn input_at(path: PathBuf, bytes: Vec<u8>, kind: FileKind) -> Input {
    Input {
        name: display_name(&path),
        path: Some(path),
        bytes,
        kind,
        canonical: None,
        prepared: None,
    }
}

/// The canonical path of `path`, found under the walked directory `root` whose canonical path
/// is `canonical`, should no symbolic link lead to it ([`Links`] tells): the root's canonical
/// path joined with the names below it, without asking the file system (the engine would
/// otherwise `lstat` every file and directory again).
fn lexical_canonical(path: &Path, root: &Path, canonical: Option<&Path>) -> Option<PathBuf> {
    let canonical = canonical?;
    match plain_rest(path, root) {
        Some(rest) => Some(canonical.join(rest)),
        None => lexical_canonical_by_components(path, root, canonical),
    }
}

/// What follows `root` in `path` when `path` is `root`'s bytes, a separator (unless `root`
/// ends with one; an empty root has none) and plain names (none empty, `.` or `..`): how the
/// walk writes every path it finds. Comparing bytes takes about 200 instructions a file where
/// [`Path::strip_prefix`], which parses both paths into components, took 1,700 (2 % of a run
/// on 20,000 small files); `None` sends any other spelling to that comparison.
#[cfg(unix)]
fn plain_rest<'p>(path: &'p Path, root: &Path) -> Option<&'p Path> {
    use std::os::unix::ffi::OsStrExt;
    let root = root.as_os_str().as_bytes();
    if root.is_empty() {
        return None;
    }
    let rest = path.as_os_str().as_bytes().strip_prefix(root)?;
    let rest = if root.ends_with(b"/") {
        rest
    } else {
        rest.strip_prefix(b"/")?
    };
    kubegap_core::layout::plain_names(rest).then(|| Path::new(std::ffi::OsStr::from_bytes(rest)))
}

#[cfg(not(unix))]
fn plain_rest<'p>(_: &'p Path, _: &Path) -> Option<&'p Path> {
    None
}

/// [`lexical_canonical`] by the paths' components, for any spelling of `path` under `root`.
fn lexical_canonical_by_components(path: &Path, root: &Path, canonical: &Path) -> Option<PathBuf> {
    let rest = path.strip_prefix(root).ok()?;
    // Only plain names below the root (a walk joins the names it reads to the root).
    rest.components()
        .all(|c| matches!(c, std::path::Component::Normal(_)))
        .then(|| canonical.join(rest))
}

/// The symbolic links among the walk's entries that are the last entry met or above it: a path
/// at or below one of them has no [`lexical_canonical`] path. Entries are met in path order
/// (a directory just before what it holds), so a link left behind is never above a later
/// entry: it is dropped, and the check stays one comparison however many links a tree has.
#[derive(Default)]
struct Links(Vec<PathBuf>);

impl Links {
    /// Takes note of the next entry of the walk, in path order.
    fn meet(&mut self, entry: &ignore::DirEntry) {
        while self
            .0
            .last()
            .is_some_and(|link| !entry.path().starts_with(link))
        {
            self.0.pop();
        }
        if entry.path_is_symlink() {
            self.0.push(entry.path().to_path_buf());
        }
    }

    /// `canonical` (a [`lexical_canonical`] path of the entry met last), unless a link is at
    /// or above that entry.
    fn unless_linked(&self, canonical: Option<PathBuf>) -> Option<PathBuf> {
        canonical.filter(|_| self.0.is_empty())
    }
}

/// Whether an error of the walk is a symbolic link loop (skipped, not an error).
fn is_loop(error: &ignore::Error) -> bool {
    match error {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => is_loop(err),
        _ => false,
    }
}

/// Whether a symbolic link met in a walk may be followed: it resolves inside the walked
/// directory or another lint root, and not into /proc, /sys or /dev. Dangling links are
/// skipped quietly (there is nothing to read).
fn follow_link(path: &Path, roots: &[PathBuf], refused: &Mutex<Vec<(PathBuf, String)>>) -> bool {
    let Ok(real) = std::fs::canonicalize(path) else {
        return false;
    };
    if !reads::is_pseudo(&real) && roots.iter().any(|r| real.starts_with(r)) {
        return true;
    }
    if let Ok(mut refused) = refused.lock() {
        refused.push((
            path.to_path_buf(),
            format!(
                "{}: symbolic link leaves the lint root, not read",
                display_name(path)
            ),
        ));
    }
    false
}

/// The path an error of the walk is about, where it says: where a sequential walk sorted by
/// path would have met it.
fn error_path(error: &ignore::Error) -> Option<&Path> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

/// Files from this size on are read after the budget admits them, not during the walk (a large
/// file is read in parallel blocks, [`reads::read_file_of_size`]).
const READ_AHEAD_BELOW: u64 = 1 << 20;

/// The bytes the walks may read before the memory budget has admitted them: the budget's room
/// when they start, so that what is read ahead never exceeds what the budget could admit.
/// Reading during the walk keeps both threads busy where the walk alone waits on directories:
/// the files were a seventh of a corpus run, read after the walk. The gain is small (on two
/// threads, whole corpus: 0.215 → 0.208 s in one series of 20 alternating runs, within the
/// noise in another; docs/PERFORMANCE.md "The sixth round").
struct Ahead(AtomicU64);

impl Ahead {
    /// Takes `size` bytes from the allowance; `false` (nothing taken) when there is not that
    /// much left.
    fn take(&self, size: u64) -> bool {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(size)
            })
            .is_ok()
    }
}

/// What one thread of a walk may still read of the [`Ahead`] allowance: taken from it
/// [`Share::BLOCK`] bytes at a time (or what a file needs, if more), not for every file (the
/// two threads of a walk over 20,000 small files took the allowance's cache line from each
/// other for every file: three quarters of the time of the code around the reads). What a
/// thread has not read when it ends is not read ahead by the other: those files are read
/// after the budget admits them, as every file beyond the allowance is.
struct Share<'a> {
    ahead: &'a Ahead,
    left: u64,
}

impl Share<'_> {
    const BLOCK: u64 = 1 << 20;

    fn new(ahead: &Ahead) -> Share<'_> {
        Share { ahead, left: 0 }
    }

    /// Takes `size` bytes from this thread's share, refilled from the allowance when it runs
    /// short (a block, or what is missing if more, or else just what is missing); `false`
    /// (nothing taken) when the allowance has not what is missing either.
    fn take(&mut self, size: u64) -> bool {
        let Some(missing) = size.checked_sub(self.left).filter(|m| *m > 0) else {
            self.left -= size;
            return true;
        };
        let refill = missing.max(Self::BLOCK);
        if self.ahead.take(refill) {
            self.left += refill - size;
        } else if self.ahead.take(missing) {
            self.left = 0;
        } else {
            return false;
        }
        true
    }

    /// A walked file's size (`None`: not a regular file, or gone), and the file read now when
    /// it is small, within `--max-file-size` and the allowance ([`Read::new`]); not read: read
    /// later (or refused) as before the walk read ahead, and a read that fails here is tried
    /// again then and reported there. The file is opened first and its size taken from the
    /// open file, so that its path is looked up once (a `stat` by path, then an `open`, looked
    /// it up twice: the kernel's path lookups were most of a walk over 20,000 small files). A
    /// file that cannot be opened is sized by its path, as before.
    fn size_and_read(
        &mut self,
        path: &Path,
        by_name: Option<FileKind>,
        limits: &Limits,
    ) -> (Option<u64>, Option<Read>) {
        let (size, bytes) = kubegap_core::phases::within(READ_PART, || {
            let Ok(file) = std::fs::File::open(path) else {
                return (regular_size(path), None);
            };
            let size = file
                .metadata()
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len());
            let ahead =
                size.filter(|s| *s > 0 && *s < READ_AHEAD_BELOW && *s <= limits.max_file_size);
            let Some(ahead) = ahead.filter(|s| self.take(*s)) else {
                return (size, None);
            };
            let bytes = reads::read_opened_of_size(file, ahead, limits.max_file_size).ok();
            (size, bytes)
        });
        (
            size,
            bytes.map(|bytes| Read::new(path, bytes, by_name, limits)),
        )
    }
}

/// What may be read (from its name) under a walked directory: its kind by name, its size, its
/// input when the walk read it ([`Ahead`]) and its [`lexical_canonical`] path (found by the
/// walk's threads as they meet it).
type Candidate = Option<(Option<FileKind>, Option<u64>, Option<Read>, Option<PathBuf>)>;
/// An entry of a walk, or an error with the path it is at ([`found_at`]). (An entry's path is
/// its own: copying it beside the entry was an allocation a file.)
type Found = (
    Result<ignore::DirEntry, (PathBuf, ignore::Error)>,
    Candidate,
);

/// Where a walk's entry or error is.
fn found_at(found: &Found) -> &Path {
    match &found.0 {
        Ok(entry) => entry.path(),
        Err((at, _)) => at,
    }
}

/// A walked directory before the memory budget: its entries and errors sorted by path, and
/// the symbolic links it refused to follow.
#[derive(Default)]
struct Scan {
    found: Vec<Found>,
    refused: Vec<(PathBuf, String)>,
}

/// Whether the directories given can be walked by one walk: none is inside another (or the
/// same), so that every entry belongs to the one whose path starts its path. At most 64 (a
/// few directories named on the command line; many are walked one walk each, as before).
fn one_walk_for(dirs: &[&Path], canonical: &[Option<PathBuf>]) -> bool {
    if dirs.len() < 2 || dirs.len() > 64 || canonical.len() != dirs.len() {
        return false;
    }
    dirs.iter().enumerate().all(|(i, a)| {
        dirs.iter().enumerate().all(|(j, b)| {
            i == j
                || !(b.starts_with(a)
                    || match (&canonical[i], &canonical[j]) {
                        (Some(ca), Some(cb)) => cb.starts_with(ca),
                        _ => true,
                    })
        })
    })
}

/// Which of `roots` an entry of their walk is under: the one its path starts with, byte for
/// byte, followed by a separator (the walk builds an entry's path on its root's path; `/` or,
/// on Windows, `\` too).
fn root_of(path: &Path, roots: &[impl AsRef<Path>]) -> usize {
    let bytes = path.as_os_str().as_encoded_bytes();
    roots
        .iter()
        .position(|root| {
            let root = root.as_ref().as_os_str().as_encoded_bytes();
            let separator = |b: &u8| std::path::is_separator(char::from(*b));
            bytes.starts_with(root)
                && (bytes.len() == root.len()
                    || root.last().is_some_and(separator)
                    || bytes.get(root.len()).is_some_and(separator))
        })
        .unwrap_or(0)
}

/// Walks `roots` (directories none of which is inside another, see [`one_walk_for`]) with one
/// walk, reading the small files it finds within the budget's room ([`Ahead`]); one [`Scan`]
/// per root, in order. One walk for all the roots keeps both threads busy where a walk per
/// root left its threads asleep at its start and end (`ignore`'s idle workers sleep a
/// millisecond at a time): on the corpus's four directories, on two threads, the walk alone
/// takes 9.6 ms instead of 12.2, walking and reading 24.2 instead of 30.1
/// (`examples/walk_bench.rs`, docs/PERFORMANCE.md "The twelfth round"). An error the walk
/// gives without a path is counted under the first root.
fn scan_dirs(
    roots: &[&Path],
    canonical: &[Option<PathBuf>],
    limits: &Limits,
    ahead: &Ahead,
) -> Vec<Scan> {
    let Some((first, rest)) = roots.split_first() else {
        return Vec::new();
    };
    // Where a symbolic link met under each root may lead: the lint roots and that root
    // (`canonical`: each root's canonical path).
    let allowed: Vec<Vec<PathBuf>> = roots
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let mut allowed = limits.roots.clone();
            allowed.extend(canonical.get(i).cloned().flatten());
            allowed
        })
        .collect();
    let owned: Vec<PathBuf> = roots.iter().map(|r| r.to_path_buf()).collect();
    let refused = Arc::new(Mutex::new(Vec::new()));
    let refused_in_filter = Arc::clone(&refused);
    let mut builder = ignore::WalkBuilder::new(first);
    for root in rest {
        builder.add(root);
    }
    let walker = builder
        .hidden(false)
        .require_git(false)
        .follow_links(true)
        .add_custom_ignore_filename(".kubegapignore")
        .filter_entry(move |entry| {
            if entry
                .file_name()
                .to_str()
                .is_some_and(|name| VCS_DIRS.contains(&name))
            {
                return false;
            }
            if !entry.path_is_symlink() {
                return true;
            }
            let allowed = &allowed[root_of(entry.path(), &owned)];
            follow_link(entry.path(), allowed, &refused_in_filter)
        })
        .threads(rayon::current_num_threads())
        .build_parallel();
    // The directories are read in parallel (`readdir` and `stat` of every entry were a fifth
    // of a corpus run, on one thread), every entry and error is sorted by path: the order of a
    // sequential walk sorted by path (a directory before its entries, siblings in path order).
    // Then the size checks and the memory budget run in that order; reading the files and
    // telling their kind run in parallel, and results are taken back in that order, so inputs,
    // errors and where the budget stops are those of a sequential walk.
    // Which files kubegap may read (from their names) and their sizes (one `stat` each) are
    // looked up by the walk's threads as they meet the files, and the files under 1 MiB read
    // then, within the budget's room ([`Ahead`]); the budget below still admits them in path
    // order, and drops what it does not admit.
    // Each root's entries apart (as each is met, by the walk's threads: splitting them after
    // the walk moved every entry once more, on one thread), handed over a batch at a time (a
    // lock taken for every entry was 83 % of this visitor's time on two threads over 20,000
    // small files: the two threads took the lock's cache line from each other for each file).
    let found: Vec<Mutex<Vec<Found>>> = roots.iter().map(|_| Mutex::new(Vec::new())).collect();
    walker.run(|| {
        let mut batch = Batch {
            found: Vec::new(),
            to: &found,
        };
        let mut share = Share::new(ahead);
        Box::new(move |result| {
            let result = result.map_err(|e| (error_path(&e).unwrap_or(first).to_path_buf(), e));
            let root = match &result {
                Ok(entry) => root_of(entry.path(), roots),
                Err((at, _)) => root_of(at, roots),
            };
            let candidate = match &result {
                Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                    candidate(entry.path()).map(|by_name| {
                        let (size, read) = share.size_and_read(entry.path(), by_name, limits);
                        let canonical = lexical_canonical(
                            entry.path(),
                            roots[root],
                            canonical.get(root).and_then(Option::as_deref),
                        );
                        (by_name, size, read, canonical)
                    })
                }
                _ => None,
            };
            batch.push(root, (result, candidate));
            ignore::WalkState::Continue
        })
    });
    let mut refused = refused
        .lock()
        .map(|mut r| std::mem::take(&mut *r))
        .unwrap_or_default();
    refused.sort_by(|a, b| a.0.cmp(&b.0));
    // Each root's entries, errors and refused links, each sorted as its own walk's.
    let mut per_root: Vec<Scan> = found
        .into_iter()
        .map(|found| Scan {
            found: sorted_by_path(found.into_inner().unwrap_or_default()),
            refused: Vec::new(),
        })
        .collect();
    for refused in refused {
        let i = root_of(&refused.0, roots);
        per_root[i].refused.push(refused);
    }
    per_root
}

/// The entries one thread of a walk met last, with their roots, handed over to the roots' vectors
/// when there are [`Batch::LEN`] of them, and when the thread ends (the walk drops each
/// thread's visitor, and this with it, when the thread has no more work).
struct Batch<'a> {
    found: Vec<(usize, Found)>,
    to: &'a [Mutex<Vec<Found>>],
}

impl Batch<'_> {
    const LEN: usize = 64;

    fn push(&mut self, root: usize, found: Found) {
        if self.found.capacity() == 0 {
            self.found.reserve_exact(Self::LEN);
        }
        self.found.push((root, found));
        if self.found.len() == Self::LEN {
            self.hand_over();
        }
    }

    fn hand_over(&mut self) {
        // Most batches are of one root: its lock taken once for the run.
        let mut found = self.found.drain(..).peekable();
        while let Some((root, first)) = found.next() {
            let Some(Ok(mut to)) = self.to.get(root).map(Mutex::lock) else {
                continue;
            };
            to.push(first);
            while let Some((_, next)) = found.next_if(|(r, _)| *r == root) {
                to.push(next);
            }
        }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        self.hand_over();
    }
}

/// A walk's entries and errors in path order (an entry before an error at the same path: the
/// error of reading a directory comes after the directory).
fn sorted_by_path(mut found: Vec<Found>) -> Vec<Found> {
    // Sorted by a byte key, the path with its separators made the smallest byte: every path
    // of one walk is the root's path followed by plain names joined by `/`, for which this is
    // the order of `Path` (component by component), at a byte comparison's cost. The keys are
    // made and sorted in parallel, then the entries swapped into place (moving them into a
    // vector of slots and out again in key order took two fresh vectors, their pages faulted in
    // on one thread).
    use rayon::prelude::*;
    found.par_sort_by_cached_key(|found| (walk_key(found_at(found)), found.0.is_err()));
    found
}

/// The inputs of a walked directory (see [`scan_dirs`]), admitted by the memory budget in path
/// order, then read in parallel.
/// One step of a walked directory, in path order.
enum Step {
    Error(String),
    Warning(String),
    /// A file admitted by the budget, to read (its canonical path if the walk knows it, its
    /// kind from its name, its size).
    Read(Option<PathBuf>, PathBuf, Option<FileKind>, u64),
    Ready(Input),
}

/// A walked directory's files admitted by the memory budget, before reading.
struct Admitted {
    steps: Vec<Step>,
    /// Links refused, reported if the walk got that far.
    refused: Vec<(PathBuf, String)>,
    /// Where the budget stopped the walk.
    stopped_at: Option<PathBuf>,
}

/// The files of a walked directory (see [`scan_dirs`]) admitted by the memory budget in path
/// order; [`read_admitted_steps`] reads them.
fn admit_dir(scan: Scan, limits: &Limits, budget: &mut Budget) -> Admitted {
    let Scan { found, refused } = scan;
    // Where the walk stopped (the memory budget): later symbolic links were never met.
    let mut stopped_at: Option<PathBuf> = None;
    let mut steps = Vec::new();
    let mut links = Links::default();
    for (entry, candidate) in found {
        let entry = match entry {
            Ok(entry) => {
                links.meet(&entry);
                entry
            }
            Err((_, e)) if is_loop(&e) => {
                steps.push(Step::Warning(format!(
                    "{e}: symbolic link loop, followed once"
                )));
                continue;
            }
            Err((_, e)) => {
                steps.push(Step::Error(e.to_string()));
                continue;
            }
        };
        let Some((by_name, size, read_ahead, canonical)) = candidate else {
            continue;
        };
        let canonical = links.unless_linked(canonical);
        let path = entry.path();
        let admitted = match size {
            Some(size) => admit_size(path, size, limits, budget).map(|()| read_ahead),
            // Not a regular file any more (replaced since the walk saw it): read as a stream,
            // bounded while read, here.
            None => read_file(path, limits, budget)
                .map(|bytes| Some(Read::new(path, bytes, by_name, limits))),
        };
        match admitted {
            Ok(None) => steps.push(Step::Read(
                canonical,
                entry.into_path(),
                by_name,
                size.unwrap_or_default(),
            )),
            // Read by the walk, or not a regular file any more (replaced since the walk saw
            // it: read as a stream, bounded while read, above).
            // The entry's path is the input's (not copied: these are most files).
            Ok(Some(read)) => {
                if let Some(mut input) = read.into_input_at(entry.into_path(), by_name) {
                    input.canonical = canonical;
                    steps.push(Step::Ready(input));
                }
            }
            Err(e) if e.is_empty() => {}
            Err(e) => {
                steps.push(Step::Error(e));
                if budget.exceeded {
                    stopped_at = Some(entry.into_path());
                    break;
                }
            }
        }
    }
    Admitted {
        steps,
        refused,
        stopped_at,
    }
}

/// Reads the admitted files of every walked directory that the walk did not read, at once, in
/// parallel, and adds each directory's inputs, errors and warnings to its part, in path order.
/// (`--kind` names the kind of stdin and of explicit files only: a walk reads only what it
/// recognises.)
fn read_admitted_steps(
    admitted: Vec<(usize, Admitted)>,
    limits: &Limits,
    parts: &mut [Discovered],
) {
    use rayon::prelude::*;
    // Only the files the walk left (the large ones, a few among thousands of steps), largest
    // first, one a task: over every step, rayon's halves of the steps were uneven (the 16
    // files of 1 MB or more of the corpus, 31 MB, were read on one thread while the other
    // slept: 8 ms of a two-thread run).
    type ToRead<'a> = (
        usize,
        &'a Option<PathBuf>,
        &'a PathBuf,
        &'a Option<FileKind>,
        u64,
    );
    let mut to_read: Vec<ToRead> = admitted
        .iter()
        .flat_map(|(_, a)| &a.steps)
        .enumerate()
        .filter_map(|(i, step)| match step {
            Step::Read(canonical, path, by_name, size) => {
                Some((i, canonical, path, by_name, *size))
            }
            _ => None,
        })
        .collect();
    to_read.sort_by_key(|(i, .., size)| (std::cmp::Reverse(*size), *i));
    let mut done: Vec<(usize, Option<Result<Input, String>>)> = to_read
        .par_iter()
        .with_max_len(1)
        .map(|(i, canonical, path, by_name, size)| {
            let read = kubegap_core::phases::within(READ_PART, || read_sized(path, *size, limits));
            let bytes = match read {
                Ok(bytes) => bytes,
                Err(e) => return (*i, Some(Err(e))),
            };
            (
                *i,
                walked_input(path, bytes, **by_name, limits).map(|mut input| {
                    input.canonical.clone_from(canonical);
                    Ok(input)
                }),
            )
        })
        .collect();
    drop(to_read);
    // Back in step order: each step takes its read (if it had one) by position.
    done.sort_unstable_by_key(|(i, _)| *i);
    let mut done = done.into_iter().peekable();
    let mut position = 0usize;
    let mut read = std::iter::from_fn(|| {
        let here = position;
        position += 1;
        Some(match done.peek() {
            Some((i, _)) if *i == here => done.next().and_then(|(_, r)| r),
            _ => None,
        })
    });
    for (part, admitted) in admitted {
        let Some(out) = parts.get_mut(part) else {
            continue;
        };
        for step in admitted.steps {
            let read = read.next().flatten();
            match (step, read) {
                (Step::Error(e), _) | (_, Some(Err(e))) => out.errors.push(e),
                (Step::Warning(w), _) => out.warnings.push(w),
                (Step::Ready(input), _) | (_, Some(Ok(input))) => out.inputs.push(input),
                (Step::Read(..), None) => {}
            }
        }
        let stopped_at = admitted.stopped_at;
        out.warnings.extend(
            admitted
                .refused
                .into_iter()
                .filter(|(path, _)| stopped_at.as_ref().is_none_or(|stop| path <= stop))
                .map(|(_, warning)| warning),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The canonical path found by bytes is the one found by components, for every spelling of
    /// a root and of a path under it (and `None` where the components give none).
    #[test]
    fn a_canonical_path_by_bytes_is_the_one_by_components() {
        let roots = [
            "k8s",
            "k8s/",
            "./k8s",
            "k8s/.",
            "k8s/..",
            ".",
            "./",
            "/",
            "/srv/k8s",
            "/srv/k8s/",
            "a//b",
            "",
        ];
        let rests = [
            "x.yaml",
            "d/x.yaml",
            "d/e/f.yaml",
            "./x.yaml",
            "d/./x.yaml",
            "d//x.yaml",
            "../x.yaml",
            "d/../x.yaml",
            "d/",
            "d/..",
            "",
            "/x.yaml",
            ".hidden/x.yaml",
            "x..yaml",
            "...",
        ];
        let canonical = Path::new("/real/root");
        let mut fast = 0;
        for root in roots {
            for rest in rests {
                for sep in ["/", "", "//"] {
                    let path = format!("{root}{sep}{rest}");
                    let (path, root) = (Path::new(&path), Path::new(root));
                    let by_components = lexical_canonical_by_components(path, root, canonical);
                    // As text: `Path`'s equality skips `.` components.
                    assert_eq!(
                        lexical_canonical(path, root, Some(canonical)).map(PathBuf::into_os_string),
                        by_components.map(PathBuf::into_os_string),
                        "{path:?} under {root:?}"
                    );
                    assert_eq!(lexical_canonical(path, root, None), None);
                    if plain_rest(path, root).is_some() {
                        fast += 1;
                    }
                }
            }
        }
        // The walk's own spellings take the byte path.
        for (path, root) in [
            ("k8s/d/x.yaml", "k8s"),
            ("k8s/x.yaml", "k8s/"),
            ("./x.yaml", "."),
            ("/srv/x.yaml", "/"),
        ] {
            let rest = plain_rest(Path::new(path), Path::new(root));
            assert!(rest.is_some(), "{path} under {root}");
        }
        assert!(fast > 30, "{fast}");
    }

    /// An entry goes to the root its path continues with a separator: `k8s-extra/a.yaml` is
    /// not under `k8s`, whatever the order or spelling of the roots.
    #[test]
    fn entries_go_to_the_root_their_path_continues() {
        let roots = ["k8s", "k8s-extra", "./helm/", "."];
        let cases = [
            ("k8s", 0),
            ("k8s/a.yaml", 0),
            ("k8s-extra/a.yaml", 1),
            ("k8s-extra", 1),
            ("./helm/c/Chart.yaml", 2),
            ("./x.yaml", 3),
            (".", 3),
        ];
        for (path, root) in cases {
            assert_eq!(root_of(Path::new(path), &roots), root, "{path}");
        }
        let reversed = ["k8s-extra", "k8s"];
        assert_eq!(root_of(Path::new("k8s/a.yaml"), &reversed), 1);
        assert_eq!(root_of(Path::new("k8s-extra/a.yaml"), &reversed), 0);
    }

    /// Under one root, byte keys sort paths as `Path` does: separators before any other byte
    /// (`a/b` before `a-b`, `a.b` and `a b`), a directory before what it holds, non-ASCII names.
    #[test]
    fn walk_keys_sort_like_paths() {
        let names = [
            "a", "a-b", "a/b", "a/b/c", "a.b", "a b", "ab", "a0", "a/é", "aé", "A", "a/b-c",
            "a/b/c/d", "a/bc", "b", "é", "a!", "a/!",
        ];
        for root in ["root", "./root/", "/tmp/x y/root", "root/./sub"] {
            let mut paths: Vec<PathBuf> = names.iter().map(|n| Path::new(root).join(n)).collect();
            paths.push(PathBuf::from(root));
            let mut by_key = paths.clone();
            by_key.sort_by_key(|p| walk_key(p));
            paths.sort();
            assert_eq!(by_key, paths, "under {root}");
        }
    }

    /// A thread's share takes the allowance a block at a time, or what a file needs if more;
    /// the files read ahead, over every share, never take more than the allowance.
    #[test]
    fn shares_take_the_allowance_a_block_at_a_time() {
        let block = Share::BLOCK;
        let ahead = Ahead(AtomicU64::new(3 * block + 10));
        let left = |ahead: &Ahead| ahead.0.load(Ordering::Relaxed);
        let (mut a, mut b) = (Share::new(&ahead), Share::new(&ahead));
        assert!(a.take(100));
        assert_eq!((left(&ahead), a.left), (2 * block + 10, block - 100));
        assert!(a.take(block - 200), "from its share");
        assert_eq!((left(&ahead), a.left), (2 * block + 10, 100));
        // More than a block and more than is left: nothing taken.
        assert!(!b.take(2 * block + 20));
        assert_eq!((left(&ahead), b.left), (2 * block + 10, 0));
        // More than a block: that much, no more.
        assert!(b.take(2 * block));
        assert_eq!((left(&ahead), b.left), (10, 0));
        // Less than a block left: what the file needs.
        assert!(b.take(4));
        assert_eq!((left(&ahead), b.left), (6, 0));
        // A share's rest counts with what the allowance has left.
        assert!(!a.take(107));
        assert_eq!((left(&ahead), a.left), (6, 100));
        assert!(a.take(106));
        assert_eq!((left(&ahead), a.left), (0, 0));
        assert!(!a.take(1) && !b.take(1));
        assert!(a.take(0));
    }

    /// Two roots walked by one walk, each with more files than a thread hands over at once:
    /// each root's scan has its own entries, every one of them once, in path order.
    #[test]
    fn a_walk_hands_each_root_its_entries() {
        let dir = std::env::temp_dir().join(format!("kubegap-walk-roots-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let roots = [dir.join("a"), dir.join("b")];
        let files = Batch::LEN * 3 + 5;
        let mut expected: Vec<Vec<PathBuf>> = Vec::new();
        for root in &roots {
            let mut paths = vec![root.clone()];
            for sub in ["x", "y"] {
                std::fs::create_dir_all(root.join(sub)).unwrap();
                paths.push(root.join(sub));
                for i in 0..files {
                    let path = root.join(sub).join(format!("f{i:03}.yaml"));
                    std::fs::write(&path, "kind: ConfigMap\n").unwrap();
                    paths.push(path);
                }
            }
            paths.sort();
            expected.push(paths);
        }
        let limits = Limits::default();
        let ahead = Ahead(AtomicU64::new(u64::MAX));
        let canonical: Vec<Option<PathBuf>> = roots.iter().map(|r| r.canonicalize().ok()).collect();
        let roots: Vec<&Path> = roots.iter().map(PathBuf::as_path).collect();
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let scans = pool.install(|| scan_dirs(&roots, &canonical, &limits, &ahead));
            let found: Vec<Vec<PathBuf>> = scans
                .iter()
                .map(|scan| {
                    scan.found
                        .iter()
                        .map(|f| found_at(f).to_path_buf())
                        .collect()
                })
                .collect();
            assert_eq!(found, expected, "{threads} threads");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
