//! What kubegap may read: the lint roots, the files beneath them, and bounds on what it holds.
//!
//! kubegap's input is untrusted (it lints pull requests, including forks'), its output is often
//! public (annotations, SARIF) and the machine it runs on holds secrets. So a file *named by the
//! input* (an nginx `include`, today; the configuration's `extends:` may use the same policy) is
//! only read when it is a regular file inside the **lint roots** (the directories given, the
//! directory of each file given, the repository root when run in a git work tree) or inside an
//! explicitly given `--nginx-prefix`. `/proc`, `/sys` and `/dev` are never read that way, even
//! with `--allow-read-outside-root`, and neither are FIFOs, sockets or devices. Every read is
//! bounded by the per-file size limit (`--max-file-size`).
//!
//! See docs/RELIABILITY.md for the threat model and the tests behind each guarantee.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The default per-file size limit: 256 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 256 * 1024 * 1024;

/// Pseudo file systems whose files are never read through the input, whatever the roots.
const PSEUDO: &[&str] = &["/proc", "/sys", "/dev"];

/// The read policy of one run (part of [`crate::Settings`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadPolicy {
    /// Directories beneath which files named by the input may be read, besides the directory of
    /// every input file (always a root). The CLI adds the directories it was given and the root
    /// of the git work tree it runs in.
    pub roots: Vec<PathBuf>,
    /// `--allow-read-outside-root`: files outside the roots may be read (pseudo file systems
    /// and non-regular files still are not).
    pub allow_outside_roots: bool,
    /// `--max-file-size`: larger files are refused before they are read.
    pub max_file_size: u64,
}

impl Default for ReadPolicy {
    fn default() -> ReadPolicy {
        ReadPolicy {
            roots: Vec::new(),
            allow_outside_roots: false,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
        }
    }
}

/// Why a file named by the input was not read. Messages name the path, never content.
#[derive(Debug)]
pub enum Refusal {
    /// The file does not exist (or a component of its path does not).
    NotFound,
    /// The file resolves outside every lint root.
    OutsideRoots,
    /// The file is in `/proc`, `/sys` or `/dev`.
    Pseudo,
    /// Not a regular file (a directory, FIFO, socket or device).
    NotRegular,
    /// Larger than `--max-file-size`.
    TooLarge {
        /// The size seen (at least the limit plus one when read from a stream).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The read failed.
    Io(std::io::Error),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::NotFound => f.write_str("not found"),
            Refusal::OutsideRoots => f.write_str("outside the lint root, not read"),
            Refusal::Pseudo => f.write_str("in a pseudo file system (/proc, /sys, /dev), not read"),
            Refusal::NotRegular => f.write_str("not a regular file, not read"),
            Refusal::TooLarge { size, limit } => write!(
                f,
                "larger than --max-file-size ({} > {}), not read",
                format_size(*size),
                format_size(*limit)
            ),
            Refusal::Io(e) => write!(f, "cannot be read: {}", io_kind(e)),
        }
    }
}

/// An I/O error without its OS-specific text (messages must read the same on every machine).
fn io_kind(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::NotFound => "not found".into(),
        _ => "I/O error".into(),
    }
}

/// `256 MiB`, `1.5 KiB`, `17 bytes`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: &[(u64, &str)] = &[(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if bytes >= *size {
            let whole = bytes / size;
            let tenth = (bytes % size) * 10 / size;
            return if tenth == 0 {
                format!("{whole} {unit}")
            } else {
                format!("{whole}.{tenth} {unit}")
            };
        }
    }
    format!("{bytes} bytes")
}

/// Parses `256M`, `256MiB`, `1G`, `4096`, `10k` (binary units) into bytes.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return None,
    };
    number.checked_mul(factor)
}

/// `path` made absolute (against the current directory) with `.` and `..` removed lexically.
pub fn lexical_absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The canonical form of a path that may not exist: its deepest existing ancestor resolved
/// (symlinks included), the rest appended as written (`.` and `..` removed lexically).
pub fn best_canonical(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let lexical = lexical_absolute(path);
    let mut rest = Vec::new();
    let mut at = lexical.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(real, |p, c| p.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return lexical,
        }
    }
}

/// The directory a file is in: its parent, `.` for a bare name (and for `/`, which has no
/// parent).
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `std::fs::canonicalize` of every path (`None` where it fails), with one `lstat` per file
/// and directory instead of one `readlink` per component of every path (30,000 system calls
/// for the 5,400 inputs of a monorepo and their directories). A path that is not a symbolic
/// link is its parent's canonical path joined with its name; every directory above the paths
/// is looked at once, and only those without a plain parent (`.`, `/`, links, names ending in
/// `.` or `..`) take the full canonicalisation.
pub fn canonicalize_all(paths: &[&Path]) -> Vec<Option<PathBuf>> {
    use rayon::prelude::*;
    use std::collections::HashMap;
    use std::ffi::OsStr;
    // The parent and name of a path whose last component is a plain name written last.
    fn split(path: &Path) -> Option<(&Path, &OsStr)> {
        let Some(Component::Normal(name)) = path.components().next_back() else {
            return None;
        };
        if !path
            .as_os_str()
            .as_encoded_bytes()
            .ends_with(name.as_encoded_bytes())
        {
            return None;
        }
        Some((parent_dir(path), name))
    }
    // Every path and every directory above it, once (by bytes): a path's parents are listed
    // up to the first one already listed, whose own parents were listed with it.
    let mut index: HashMap<&OsStr, usize> = HashMap::with_capacity(paths.len());
    let mut nodes: Vec<&Path> = Vec::with_capacity(paths.len());
    for path in paths {
        let mut at = Some(*path);
        while let Some(node) = at {
            if index.contains_key(node.as_os_str()) {
                break;
            }
            index.insert(node.as_os_str(), nodes.len());
            nodes.push(node);
            at = split(node).map(|(parent, _)| parent);
        }
    }
    // Which nodes are plain names that are not links (one `lstat` each, in parallel), and
    // how deep each is (its parents come first below).
    let plain: Vec<Option<(usize, &OsStr)>> = nodes
        .par_iter()
        .map(|node| {
            let (parent, name) = split(node)?;
            std::fs::symlink_metadata(node)
                .is_ok_and(|m| !m.file_type().is_symlink())
                .then(|| (index[parent.as_os_str()], name))
        })
        .collect();
    let mut depth = vec![usize::MAX; nodes.len()];
    fn depth_of(i: usize, plain: &[Option<(usize, &OsStr)>], depth: &mut [usize]) -> usize {
        // Iterative: the chain of plain parents up to one whose depth is known or that has
        // none.
        let mut chain = Vec::new();
        let mut at = i;
        let mut base = loop {
            if depth[at] != usize::MAX {
                break depth[at];
            }
            match plain[at] {
                Some((parent, _)) if parent != at => {
                    chain.push(at);
                    at = parent;
                }
                _ => {
                    depth[at] = 0;
                    break 0;
                }
            }
        };
        for node in chain.into_iter().rev() {
            base += 1;
            depth[node] = base;
        }
        depth[i]
    }
    for i in 0..nodes.len() {
        depth_of(i, &plain, &mut depth);
    }
    // The nodes without a plain parent are canonicalised in full (in parallel); the others
    // from their parent, shallowest first.
    let mut resolved: Vec<Option<PathBuf>> = nodes
        .par_iter()
        .zip(&plain)
        .map(|(node, plain)| match plain {
            Some(_) => None,
            None => std::fs::canonicalize(node).ok(),
        })
        .collect();
    // A node from its resolved parent (or in full, should the parent not resolve although the
    // node exists: it changed meanwhile).
    let from_parent = |i: usize, resolved: &[Option<PathBuf>]| match plain[i] {
        Some((parent, name)) => match &resolved[parent] {
            Some(dir) => Some(dir.join(name)),
            None => std::fs::canonicalize(nodes[i]).ok(),
        },
        None => resolved[i].clone(),
    };
    // The directories (the parents), shallowest first; then the paths asked for, in parallel.
    let mut is_parent = vec![false; nodes.len()];
    for (parent, _) in plain.iter().flatten() {
        is_parent[*parent] = true;
    }
    let mut order: Vec<usize> = (0..nodes.len())
        .filter(|i| is_parent[*i] && plain[*i].is_some())
        .collect();
    order.sort_unstable_by_key(|i| depth[*i]);
    for i in order {
        resolved[i] = from_parent(i, &resolved);
    }
    paths
        .par_iter()
        .map(|p| {
            let i = index[p.as_os_str()];
            if is_parent[i] {
                resolved[i].clone()
            } else {
                from_parent(i, &resolved)
            }
        })
        .collect()
}

/// The canonical form of a root (or its best form when it does not exist).
fn canonical_root(path: &Path) -> PathBuf {
    best_canonical(path)
}

/// Whether a canonical path lies in `/proc`, `/sys` or `/dev`.
pub fn is_pseudo(canonical: &Path) -> bool {
    PSEUDO.iter().any(|p| canonical.starts_with(p))
}

/// The roots of one run, canonical: the policy's roots plus extra ones (the directory of each
/// input, `--nginx-prefix`).
#[derive(Clone, Debug, Default)]
pub struct Roots {
    roots: Vec<PathBuf>,
    allow_outside: bool,
    max_file_size: u64,
}

impl Roots {
    /// The roots of `policy`, plus `extra` directories.
    pub fn new<'a>(policy: &ReadPolicy, extra: impl IntoIterator<Item = &'a Path>) -> Roots {
        Roots::resolved(policy, extra.into_iter().map(|dir| (dir, None)).collect())
    }

    /// [`Roots::new`], with the canonical form of some `extra` directories already known.
    pub fn resolved(policy: &ReadPolicy, extra: Vec<(&Path, Option<&PathBuf>)>) -> Roots {
        use rayon::prelude::*;
        // Every input's directory is a root of an nginx run: thousands of system calls, in
        // parallel, for those the caller did not resolve.
        let wanted: Vec<&Path> = policy
            .roots
            .iter()
            .map(PathBuf::as_path)
            .chain(
                extra
                    .iter()
                    .filter(|(_, known)| known.is_none())
                    .map(|(dir, _)| *dir),
            )
            .collect();
        let mut roots: Vec<PathBuf> = canonicalize_all(&wanted)
            .into_par_iter()
            .zip(&wanted)
            .map(|(real, r)| real.unwrap_or_else(|| canonical_root(r)))
            .collect();
        roots.extend(extra.iter().filter_map(|(_, known)| known.cloned()));
        roots.par_sort();
        roots.dedup();
        Roots {
            roots,
            allow_outside: policy.allow_outside_roots,
            max_file_size: policy.max_file_size,
        }
    }

    /// Whether a canonical (or lexically absolute) path is inside a root.
    pub fn contains(&self, path: &Path) -> bool {
        // `roots` is sorted: look each ancestor of `path` up instead of testing every root (an
        // nginx run over thousands of directories checked each include against all of them).
        path.ancestors()
            .any(|a| self.roots.binary_search_by(|r| r.as_path().cmp(a)).is_ok())
    }

    /// Whether a directory may be searched (listed, or probed for files): inside a root, or
    /// anywhere but a pseudo file system with `--allow-read-outside-root`. Nothing is read.
    pub fn may_search(&self, dir: &Path) -> bool {
        let real = best_canonical(dir);
        !is_pseudo(&real) && (self.allow_outside || self.contains(&real))
    }

    /// Checks that `path` may be read, without reading it. A path outside the roots is refused
    /// as such whether or not it exists, so the answer reveals nothing about the file system
    /// outside the roots.
    pub fn check(&self, path: &Path) -> Result<PathBuf, Refusal> {
        let real = match std::fs::canonicalize(path) {
            Ok(real) => real,
            Err(_) => {
                let lexical = best_canonical(path);
                return Err(
                    if is_pseudo(&lexical) || !(self.allow_outside || self.contains(&lexical)) {
                        Refusal::OutsideRoots
                    } else {
                        Refusal::NotFound
                    },
                );
            }
        };
        if is_pseudo(&real) {
            return Err(Refusal::Pseudo);
        }
        if !self.allow_outside && !self.contains(&real) {
            return Err(Refusal::OutsideRoots);
        }
        match std::fs::metadata(&real) {
            Ok(meta) if meta.is_file() => {
                if meta.len() > self.max_file_size {
                    Err(Refusal::TooLarge {
                        size: meta.len(),
                        limit: self.max_file_size,
                    })
                } else {
                    Ok(real)
                }
            }
            Ok(_) => Err(Refusal::NotRegular),
            Err(e) => Err(Refusal::Io(e)),
        }
    }

    /// Reads a file named by the input, after [`Roots::check`], never more than the size limit.
    pub fn read(&self, path: &Path) -> Result<Vec<u8>, Refusal> {
        let real = self.check(path)?;
        read_bounded_file(&real, self.max_file_size)
    }
}

/// Reads a regular file of at most `limit` bytes (the size is checked before reading, and the
/// read stops after `limit + 1` bytes should the file grow meanwhile).
pub fn read_bounded_file(path: &Path, limit: u64) -> Result<Vec<u8>, Refusal> {
    let file = std::fs::File::open(path).map_err(Refusal::Io)?;
    // Just opened: at its start (no `lseek` to ask).
    read_open(file, limit, Some(0))
}

/// Reads a regular file whose size was just taken (`stat`), up to that size, without asking
/// it again (an `fstat` per file was a sixth of the system calls of a corpus run). A file that
/// grew since is read as it was, one that shrank as it is; an empty or large one, or one
/// over `limit`, is read as [`read_bounded_file`] reads it.
pub fn read_file_of_size(path: &Path, size: u64, limit: u64) -> Result<Vec<u8>, Refusal> {
    if size == 0 || size >= PARALLEL_READ_FROM || size > limit {
        return read_bounded_file(path, limit);
    }
    let file = std::fs::File::open(path).map_err(Refusal::Io)?;
    read_opened_of_size(file, size, limit)
}

/// [`read_file_of_size`] of a regular file just opened (at its start), whose size was taken
/// from the open file (`fstat`): a caller that opens the file first looks its path up once,
/// where a `stat` by path and an `open` look it up twice.
pub fn read_opened_of_size(file: std::fs::File, size: u64, limit: u64) -> Result<Vec<u8>, Refusal> {
    if size == 0 || size >= PARALLEL_READ_FROM || size > limit {
        return read_open(file, limit, Some(0));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(size)
        .read_to_end(&mut bytes)
        .map_err(Refusal::Io)?;
    Ok(bytes)
}

/// Files from this size on are read in parallel blocks.
const PARALLEL_READ_FROM: u64 = 8 << 20;
/// The block of a parallel read.
const READ_BLOCK: usize = 1 << 20;

/// Reads an open file (a regular file, or stdin redirected from one) from its current position
/// to its end, at most `limit` bytes: the size is checked before reading, a large file is read
/// in parallel blocks (copying a 50 MB `helm template` file into memory took 27 ms on one
/// thread), and the rest, should the file have grown meanwhile, as a stream bounded like
/// [`read_bounded`]. Anything else (a pipe, a device) is read as a stream.
pub fn read_bounded_open(file: std::fs::File, limit: u64) -> Result<Vec<u8>, Refusal> {
    read_open(file, limit, None)
}

/// [`read_bounded_open`], from `start` when the position is known.
fn read_open(mut file: std::fs::File, limit: u64, start: Option<u64>) -> Result<Vec<u8>, Refusal> {
    use std::io::{Seek, SeekFrom};
    let meta = file.metadata().map_err(Refusal::Io)?;
    let start = if meta.is_file() {
        start.or_else(|| file.stream_position().ok())
    } else {
        None
    };
    let Some(start) = start else {
        return read_bounded(file, limit, 0);
    };
    let size = meta.len().saturating_sub(start);
    if size > limit {
        return Err(Refusal::TooLarge { size, limit });
    }
    if size > 0 && size < PARALLEL_READ_FROM {
        // Read up to the size the file had when opened: looking for more (a second `read`
        // per file, returning nothing) was a seventh of the system calls of a corpus run. An
        // empty "regular" file (`/proc`) is read as a stream below.
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        (&file)
            .take(size)
            .read_to_end(&mut bytes)
            .map_err(Refusal::Io)?;
        return Ok(bytes);
    }
    let mut bytes = read_blocks(&file, start, size);
    let read = bytes.len() as u64;
    if read > 0 {
        file.seek(SeekFrom::Start(start + read))
            .map_err(Refusal::Io)?;
    }
    (&file)
        .take((limit + 1).saturating_sub(read))
        .read_to_end(&mut bytes)
        .map_err(Refusal::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Refusal::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// The first `size` bytes of `file` from `start`, read in parallel blocks when `size` is large
/// (an empty vector with room for them otherwise, or on a platform without positioned reads).
/// A block that comes back short (the file shrank) ends what is returned there.
fn read_blocks(file: &std::fs::File, start: u64, size: u64) -> Vec<u8> {
    let Ok(len) = usize::try_from(size) else {
        return Vec::new();
    };
    #[cfg(unix)]
    if size >= PARALLEL_READ_FROM {
        use rayon::prelude::*;
        use std::os::unix::fs::FileExt;
        // Zeroed by the allocator (fresh pages), written once by the reads.
        let mut bytes = vec![0u8; len];
        let filled: Vec<usize> = bytes
            .par_chunks_mut(READ_BLOCK)
            .enumerate()
            .map(|(i, block)| {
                let mut at = 0;
                while at < block.len() {
                    let offset = start + (i * READ_BLOCK + at) as u64;
                    match file.read_at(&mut block[at..], offset) {
                        Ok(0) => break,
                        Ok(n) => at += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                at
            })
            .collect();
        let whole = filled
            .iter()
            .enumerate()
            .find(|(i, n)| **n < READ_BLOCK.min(len - i * READ_BLOCK))
            .map_or(len, |(i, n)| i * READ_BLOCK + n);
        bytes.truncate(whole);
        return bytes;
    }
    let _ = start;
    Vec::with_capacity(len)
}

/// Reads a stream (stdin, a FIFO, a device) up to `limit` bytes; one more byte is an error, so
/// `/dev/zero` costs at most `limit` bytes of memory.
pub fn read_bounded(reader: impl Read, limit: u64, capacity: usize) -> Result<Vec<u8>, Refusal> {
    let mut bytes = Vec::with_capacity(capacity);
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Refusal::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Refusal::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("256M"), Some(256 << 20));
        assert_eq!(parse_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("10 k"), Some(10 << 10));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("99999999999999999999T"), None);
        assert_eq!(format_size(256 << 20), "256 MiB");
        assert_eq!(format_size(1536), "1.5 KiB");
        assert_eq!(format_size(17), "17 bytes");
    }

    #[test]
    fn open_files_are_read_from_their_position_in_blocks() {
        use std::io::{Seek, SeekFrom};
        let path = std::env::temp_dir().join(format!("kubegap-blocks-{}", std::process::id()));
        // Larger than the parallel threshold, not a whole number of blocks; every block
        // different.
        let len = PARALLEL_READ_FROM as usize + 3 * READ_BLOCK + 12_345;
        let content: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &content).unwrap();
        for start in [0, 1, READ_BLOCK as u64 + 7] {
            let mut file = std::fs::File::open(&path).unwrap();
            file.seek(SeekFrom::Start(start)).unwrap();
            let bytes = read_bounded_open(file, u64::MAX - 1).unwrap();
            assert!(bytes == content[start as usize..], "from {start}");
        }
        // The position is left at the end, as after a stream read.
        let mut file = std::fs::File::open(&path).unwrap();
        let read = read_bounded_open(file.try_clone().unwrap(), len as u64).unwrap();
        assert_eq!(read.len(), len);
        assert_eq!(file.stream_position().unwrap(), len as u64);
        // Over the limit: refused before reading, with the size from the position on.
        let mut file = std::fs::File::open(&path).unwrap();
        file.seek(SeekFrom::Start(10)).unwrap();
        match read_bounded_open(file, len as u64 - 11) {
            Err(Refusal::TooLarge { size, .. }) => assert_eq!(size, len as u64 - 10),
            other => panic!("{:?}", other.map(|b| b.len())),
        }
        // A small file, read as before.
        std::fs::write(&path, b"a: 1\n").unwrap();
        assert_eq!(read_bounded_file(&path, 100).unwrap(), b"a: 1\n");
        let _ = std::fs::remove_file(&path);
    }

    /// `canonicalize_all` gives what `std::fs::canonicalize` gives, path by path: plain files,
    /// files behind a linked directory, linked files, dangling links, `.` and `..`, missing
    /// files and relative names.
    #[cfg(unix)]
    #[test]
    fn canonicalize_all_match_canonicalize() {
        let base = std::env::temp_dir().join(format!("kubegap-canon-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let real = base.join("real");
        std::fs::create_dir_all(real.join("sub")).unwrap();
        std::fs::write(real.join("a.yaml"), "a: 1").unwrap();
        std::fs::write(real.join("sub/b.yaml"), "b: 1").unwrap();
        std::os::unix::fs::symlink(&real, base.join("linkdir")).unwrap();
        std::os::unix::fs::symlink(real.join("a.yaml"), base.join("link.yaml")).unwrap();
        std::os::unix::fs::symlink(base.join("gone"), base.join("dangling.yaml")).unwrap();
        let paths: Vec<PathBuf> = [
            "real/a.yaml",
            "real/sub/b.yaml",
            "real/sub/../a.yaml",
            "real/./sub/b.yaml",
            "real/sub/b.yaml/",
            "real/sub/.",
            "real/sub/..",
            "linkdir/a.yaml",
            "linkdir/sub/b.yaml",
            "link.yaml",
            "dangling.yaml",
            "missing.yaml",
            "real/missing/../a.yaml",
        ]
        .iter()
        .map(|p| base.join(p))
        .collect();
        let all: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let expected: Vec<Option<PathBuf>> =
            all.iter().map(|p| std::fs::canonicalize(p).ok()).collect();
        assert_eq!(canonicalize_all(&all), expected);
        // A bare name is in the current directory.
        let cwd_file = Path::new("Cargo.toml");
        assert_eq!(
            canonicalize_all(&[cwd_file, Path::new("."), Path::new("/")]),
            [
                std::fs::canonicalize(cwd_file).ok(),
                std::fs::canonicalize(".").ok(),
                Some(PathBuf::from("/"))
            ]
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn files_of_a_known_size_are_read_to_that_size() {
        let path = std::env::temp_dir().join(format!("kubegap-sized-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        // Grown since its size was taken: read as it was.
        assert_eq!(read_file_of_size(&path, 4, 100).unwrap(), b"0123");
        // Shrunk: read as it is.
        assert_eq!(read_file_of_size(&path, 20, 100).unwrap(), b"0123456789");
        // Size 0 (a /proc file says so): read as a stream.
        assert_eq!(read_file_of_size(&path, 0, 100).unwrap(), b"0123456789");
        // Over the limit: refused as by read_bounded_file.
        assert!(matches!(
            read_file_of_size(&path, 20, 5),
            Err(Refusal::TooLarge { size: 10, limit: 5 })
        ));
        // The same, from a file already opened (the walk sizes it from the open file).
        let open = || std::fs::File::open(&path).unwrap();
        assert_eq!(read_opened_of_size(open(), 4, 100).unwrap(), b"0123");
        assert_eq!(read_opened_of_size(open(), 20, 100).unwrap(), b"0123456789");
        assert_eq!(read_opened_of_size(open(), 0, 100).unwrap(), b"0123456789");
        assert!(matches!(
            read_opened_of_size(open(), 20, 5),
            Err(Refusal::TooLarge { size: 10, limit: 5 })
        ));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn streams_are_bounded() {
        let zeros = std::io::repeat(0);
        match read_bounded(zeros, 1000, 0) {
            Err(Refusal::TooLarge { size, limit }) => assert_eq!((size, limit), (1001, 1000)),
            other => panic!("{other:?}"),
        }
        assert_eq!(read_bounded(&b"abc"[..], 3, 0).unwrap(), b"abc");
    }

    #[test]
    fn confinement() {
        let dir = std::env::temp_dir().join(format!("kubegap-reads-{}", std::process::id()));
        let inside = dir.join("root");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::write(dir.join("secret"), "TOKEN=abc").unwrap();
        std::fs::write(inside.join("ok.conf"), "x;").unwrap();
        let roots = Roots::new(&ReadPolicy::default(), [inside.as_path()]);
        assert!(roots.read(&inside.join("ok.conf")).is_ok());
        assert!(matches!(
            roots.read(&inside.join("../secret")),
            Err(Refusal::OutsideRoots)
        ));
        // Missing outside the roots reads the same as present outside the roots.
        assert!(matches!(
            roots.read(&inside.join("../nope")),
            Err(Refusal::OutsideRoots)
        ));
        assert!(matches!(
            roots.read(&inside.join("nope")),
            Err(Refusal::NotFound)
        ));
        assert!(matches!(
            roots.read(Path::new("/proc/self/environ")),
            Err(Refusal::Pseudo | Refusal::OutsideRoots)
        ));
        let everywhere = Roots::new(
            &ReadPolicy {
                allow_outside_roots: true,
                ..ReadPolicy::default()
            },
            [inside.as_path()],
        );
        assert!(everywhere.read(&inside.join("../secret")).is_ok());
        assert!(matches!(
            everywhere.read(Path::new("/proc/self/environ")),
            Err(Refusal::Pseudo)
        ));
        assert!(matches!(everywhere.read(&inside), Err(Refusal::NotRegular)));
        let small = Roots::new(
            &ReadPolicy {
                max_file_size: 1,
                ..ReadPolicy::default()
            },
            [inside.as_path()],
        );
        assert!(matches!(
            small.read(&inside.join("ok.conf")),
            Err(Refusal::TooLarge { size: 2, limit: 1 })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
