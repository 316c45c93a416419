//! Repository layout: which discovered files are manifests when a repository holds Helm chart
//! sources or kustomizations.
//!
//! - **Helm charts.** A directory with a `Chart.yaml` is a chart. Its `templates/` are Go
//!   templates, not YAML, and are never linted as manifests; its `values*.yaml`, `Chart.yaml`
//!   and every other YAML file are not manifests either, except those under `crds/`, which Helm
//!   installs as they are. The top-level chart's `Chart.yaml` is kept as a
//!   [`FileKind::HelmChart`] input, so that `helm-chart-not-rendered` can say the chart was not
//!   linted and how to lint it. Charts inside another chart (`charts/<sub>/`) are part of it.
//!   Non-YAML files of a chart outside `templates/` (an `haproxy.cfg` under `files/`) are
//!   linted as before.
//! - **kustomize.** A directory with a `kustomization.yaml` (`.yml`, `Kustomization`) governs
//!   the YAML files under it (down to the next kustomization): those are manifests only when a
//!   kustomization lists them in `resources` (or the deprecated `bases`), `crds` or
//!   `components`. Generator inputs and unlisted files are not read. The kustomizations and
//!   the files they list as patches stay inputs for the model: `k8s::scope` reads the
//!   kustomization trees, and a patched workload's ports and probes become uncertain. A patch
//!   is a fragment, so no rule reports on the objects in it (they would lack what the patch
//!   leaves out and duplicate the object they patch). A kustomization that is not a YAML
//!   mapping changes nothing (its parse error is reported).
//!
//! The decisions read the file system (which directories hold a `Chart.yaml` or a
//! kustomization) but never depend on the order of the inputs.

use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use crate::engine::Input;
use crate::source::{FileId, FileKind};

/// The file that makes a directory a Helm chart.
pub const CHART_FILE: &str = "Chart.yaml";

/// The file names that make a directory a kustomization, in kustomize's order of preference.
pub const KUSTOMIZATION_FILES: &[&str] =
    &["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The inputs to lint, and the charts and kustomizations found among them.
#[derive(Debug, Default)]
pub struct Arranged {
    /// Manifests and configs to lint, plus the `Chart.yaml` of each top-level chart.
    pub inputs: Vec<Input>,
    /// The charts and kustomizations found.
    pub layout: Layout,
    /// Files that could not be read (a chart's `Chart.yaml` that is not an input).
    pub errors: Vec<String>,
}

/// The charts and kustomizations found among the inputs: what `--render-charts` and
/// `--render-kustomize` render.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Top-level chart directories, sorted.
    pub charts: Vec<PathBuf>,
    /// Kustomization directories that no other kustomization of the run lists (the overlays,
    /// or a base used alone), sorted: what `kubectl kustomize` renders.
    pub kustomizations: Vec<PathBuf>,
    /// Names of the inputs that a kustomization governs (its listed resources): rendering the
    /// kustomizations replaces them.
    pub kustomized: BTreeSet<String>,
}

/// Which directories are charts and kustomizations, keyed by the bytes of the directory paths
/// above the inputs. Looked up ahead ([`Dirs::prefetch`]) by discovery while it reads the
/// files, or by [`arrange`] itself.
#[derive(Debug, Default)]
pub struct Dirs {
    /// Whether the directory holds a `Chart.yaml`, and its kustomization file.
    known: HashMap<std::ffi::OsString, (bool, Option<PathBuf>)>,
}

impl Dirs {
    /// Whether `dir` holds a `Chart.yaml` (looked up now if [`Dirs::prefetch`] did not).
    fn is_chart(&self, dir: &Path) -> bool {
        match self.known.get(dir.as_os_str()) {
            Some(&(known, _)) => known,
            None => join(dir, CHART_FILE).is_file(),
        }
    }

    /// Looks up every directory above `paths` at once, in parallel (two to four `stat` calls
    /// each, over thousands of directories in a monorepo), so that [`arrange`] finds them
    /// known. Discovery calls it beside reading the files it found (it needs their paths
    /// only), where it fills the other thread's waits.
    pub fn prefetch<'p>(paths: impl Iterator<Item = &'p Path>) -> Dirs {
        let mut dirs = Dirs::default();
        dirs.add(paths);
        dirs
    }

    /// Looks up the directories above `paths` not known yet.
    fn add<'p>(&mut self, paths: impl Iterator<Item = &'p Path>) {
        // Deduplicated by bytes (a directory spelled two ways is looked up twice, which is
        // harmless). A path's ancestors are listed up to the first one already listed or
        // known: that one's ancestors were listed with it (every input under one directory is
        // one step).
        let mut seen: HashSet<&OsStr> = HashSet::new();
        let mut dirs: Vec<&Path> = Vec::new();
        // A walk's files come directory by directory: a file in the previous file's directory
        // adds nothing.
        let mut last = None;
        for path in paths.filter(|path| in_another_directory(&mut last, path)) {
            for dir in parents(path) {
                if self.known.contains_key(dir.as_os_str()) || !seen.insert(dir.as_os_str()) {
                    break;
                }
                dirs.push(dir);
            }
        }
        drop(seen);
        let found: Vec<(std::ffi::OsString, (bool, Option<PathBuf>))> = dirs
            .into_par_iter()
            .map(|dir| {
                let kustomization = KUSTOMIZATION_FILES
                    .iter()
                    .map(|name| join(dir, name))
                    .find(|p| p.is_file());
                (
                    dir.as_os_str().to_os_string(),
                    (join(dir, CHART_FILE).is_file(), kustomization),
                )
            })
            .collect();
        self.known.extend(found);
    }

    /// The kustomization file of `dir`, if it has one (looked up now if [`Dirs::prefetch`] did
    /// not).
    fn kustomization(&self, dir: &Path) -> Option<PathBuf> {
        match self.known.get(dir.as_os_str()) {
            Some((_, known)) => known.clone(),
            None => KUSTOMIZATION_FILES
                .iter()
                .map(|name| join(dir, name))
                .find(|p| p.is_file()),
        }
    }
}

/// Whether `path` is in another directory than the path met before it (`last`, which this
/// updates; a path without a directory always is): a walk's files come directory by directory,
/// and what is looked up per directory needs the first file of each run only.
pub fn in_another_directory<'p>(last: &mut Option<&'p OsStr>, path: &'p Path) -> bool {
    match path.parent() {
        Some(dir) => last.replace(dir.as_os_str()) != Some(dir.as_os_str()),
        None => true,
    }
}

/// `dir/name`, without a leading `./` when `dir` is empty (the parent of a bare file name).
fn join(dir: &Path, name: &str) -> PathBuf {
    if dir.as_os_str().is_empty() {
        PathBuf::from(name)
    } else {
        dir.join(name)
    }
}

/// The directories above `path`, nearest first: its directory and those above it
/// ([`dir_and_above`]).
fn parents(path: &Path) -> impl Iterator<Item = &Path> {
    path.parent().into_iter().flat_map(dir_and_above)
}

/// `dir` and the directories above it, nearest first. `./a` has `.` above it, and not also
/// the empty path, which is the same directory.
fn dir_and_above(dir: &Path) -> impl Iterator<Item = &Path> {
    let dotted = dir.starts_with(".");
    dir.ancestors()
        .filter(move |p| !(dotted && p.as_os_str().is_empty()))
}

/// `path` with `.` removed and `..` applied to the components before it (no file system
/// access, so symlinks are not followed): how kustomize entries are compared with inputs.
pub fn normalize(path: &Path) -> PathBuf {
    // Most paths are already spelled so (a walk's paths, a kustomization's plain entries):
    // copied as they are, not parsed into components and joined again (5,800 instructions a
    // path, 3,600 paths on the corpus's kustomize directories).
    if is_normal(path) {
        return path.to_path_buf();
    }
    normalize_by_components(path)
}

/// Whether `bytes` are names joined by `/`, at least one and none of them empty, `.` or `..`:
/// a path spelled as its components join (below a root, or relative), told by its bytes. The
/// walk's canonical paths and [`normalize`] take such a path as it is.
pub fn plain_names(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes
            .split(|b| *b == b'/')
            .all(|name| !matches!(name, b"" | b"." | b".."))
}

/// Whether `path` is spelled as [`normalize_by_components`] spells what it returns: on Unix,
/// plain names ([`plain_names`]) after an optional root, or nothing after it (`/`, or the
/// empty path). Elsewhere (prefixes, two separators) always `false`.
#[cfg(unix)]
fn is_normal(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    let names = bytes.strip_prefix(b"/").unwrap_or(bytes);
    names.is_empty() || plain_names(names)
}

#[cfg(not(unix))]
fn is_normal(_: &Path) -> bool {
    false
}

/// [`normalize`], component by component.
fn normalize_by_components(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

/// A file's place in a chart.
enum InChart {
    /// The top-level chart's `Chart.yaml`.
    ChartFile,
    /// Linted as it is (`crds/`, non-YAML configs outside `templates/`).
    Keep,
    /// Not a manifest (templates, values, a subchart's `Chart.yaml`).
    Drop,
}

/// What the directories above a file say about it, the same for every file of one directory:
/// its nearest and outermost charts, and the nearest kustomization (its directory and file).
#[derive(Clone, Debug, PartialEq)]
struct Above<'p> {
    charts: Option<(&'p Path, &'p Path)>,
    kustomization: Option<(&'p Path, PathBuf)>,
}

impl<'p> Above<'p> {
    /// For the files in `dir`, from the facts of the directory above it (`up`; `None` when
    /// `dir` is the last of [`dir_and_above`]): each directory's own `Chart.yaml` and
    /// kustomization looked up once, not once for every directory below it.
    fn below(dirs: &Dirs, dir: &'p Path, up: Option<&Above<'p>>) -> Above<'p> {
        let charts_up = up.and_then(|a| a.charts);
        let charts = if dirs.is_chart(dir) {
            Some((dir, charts_up.map_or(dir, |(_, outermost)| outermost)))
        } else {
            charts_up
        };
        // A file in a chart is never a kustomization's.
        let kustomization = match charts {
            Some(_) => None,
            None => dirs
                .kustomization(dir)
                .map(|k| (dir, k))
                .or_else(|| up.and_then(|a| a.kustomization.clone())),
        };
        Above {
            charts,
            kustomization,
        }
    }

    /// For the files in `dir`, walking up from it ([`Above::below`]'s reference).
    #[cfg(test)]
    fn new(dirs: &Dirs, dir: &'p Path) -> Above<'p> {
        let mut charts = dir_and_above(dir).filter(|d| dirs.is_chart(d));
        let charts = charts
            .next()
            .map(|nearest| (nearest, charts.last().unwrap_or(nearest)));
        // A file in a chart is never a kustomization's.
        let kustomization = match charts {
            Some(_) => None,
            None => dir_and_above(dir).find_map(|d| dirs.kustomization(d).map(|k| (d, k))),
        };
        Above {
            charts,
            kustomization,
        }
    }
}

/// [`Above`] for each of `input_dirs`, each directory found from the one above it, which is
/// found once for all the directories below it (in the map too), where each directory walked
/// up to the root twice, a hashed look-up a step (listing the directories and finding what is
/// above them: 1.6 → 1.1 ms of a one-thread run over the corpus's k8s and helm parts).
fn above_all<'p>(dirs: &Dirs, input_dirs: &[&'p Path]) -> HashMap<&'p OsStr, Above<'p>> {
    let mut found: HashMap<&'p OsStr, Above<'p>> = HashMap::new();
    let mut chain: Vec<&'p Path> = Vec::new();
    for &dir in input_dirs {
        // `dir` and the directories above it not found yet, nearest first.
        chain.clear();
        let mut up = None;
        for d in dir_and_above(dir) {
            if let Some(above) = found.get(d.as_os_str()) {
                up = Some(above.clone());
                break;
            }
            chain.push(d);
        }
        for &d in chain.iter().rev() {
            let here = Above::below(dirs, d, up.as_ref());
            found.insert(d.as_os_str(), here.clone());
            up = Some(here);
        }
    }
    found
}

/// The outermost chart directory above `path`, and where `path` sits in its nearest chart,
/// from the charts above it ([`Above::charts`]).
fn chart_place(
    charts: Option<(&Path, &Path)>,
    path: &Path,
    kind: FileKind,
) -> Option<(PathBuf, InChart)> {
    let (nearest, outermost) = charts?;
    let rel = path.strip_prefix(nearest).unwrap_or(path);
    let first = rel.components().next().and_then(|c| c.as_os_str().to_str());
    let place = if rel == Path::new(CHART_FILE) {
        if nearest == outermost {
            InChart::ChartFile
        } else {
            InChart::Drop
        }
    } else if first == Some("templates") || (kind == FileKind::Yaml && first != Some("crds")) {
        // Templates of any kind; YAML outside `crds/` (values, CI values, `Chart.lock`).
        InChart::Drop
    } else {
        InChart::Keep
    };
    Some((outermost.to_path_buf(), place))
}

/// What a kustomization lists.
struct Kustomization {
    /// Files and directories listed as resources, bases, CRDs or components, normalized (in
    /// the kustomization's order, repeats kept: only looked up, through a set of them all).
    listed: Vec<PathBuf>,
    /// Files listed as patches (`patches`, `patchesStrategicMerge`, `patchesJson6902`),
    /// normalized. They are kept as inputs so that the model sees what an overlay changes
    /// (`k8s::scope`: a patched workload's ports and probes are uncertain); the objects in them
    /// are fragments, which the rules do not report on. As `listed`, a list.
    patches: Vec<PathBuf>,
}

/// Reads the entries of a kustomization. `None` when it is not a YAML mapping (then it
/// changes nothing, and its own parse error is reported).
fn read_kustomization(dir: &Path, text: &str) -> Option<Kustomization> {
    let (docs, errors) = crate::yaml::parse_stream(FileId(0), text);
    if !errors.is_empty() {
        return None;
    }
    let root = docs.first()?.root()?;
    if !root.is_map() {
        return None;
    }
    let mut listed = Vec::new();
    for key in ["resources", "bases", "crds", "components"] {
        for item in root.get(key).into_iter().flat_map(|list| list.items()) {
            let Some(entry) = item.as_str() else {
                continue;
            };
            // Remote bases (`github.com/...`, `https://...`, `git@...`) are not files here.
            if entry.contains("://")
                || entry.starts_with("git@")
                || entry.starts_with("github.com/")
            {
                continue;
            }
            listed.push(normalize(&join(dir, entry)));
        }
    }
    let mut patches = Vec::new();
    for key in ["patches", "patchesStrategicMerge", "patchesJson6902"] {
        for item in root.get(key).into_iter().flat_map(|list| list.items()) {
            let entry = item.as_str().or_else(|| item.str_at(&["path"]));
            // Inline patches (a multi-line string) name no file.
            if let Some(entry) = entry.filter(|e| !e.contains('\n') && !e.contains("://")) {
                patches.push(normalize(&join(dir, entry)));
            }
        }
    }
    Some(Kustomization { listed, patches })
}

/// Applies the chart and kustomize layout to discovered inputs (see the module docs).
pub fn arrange(inputs: Vec<Input>) -> Arranged {
    arrange_with(inputs, Dirs::default())
}

/// [`arrange`], with the directories above some of the inputs already looked up
/// ([`Dirs::prefetch`]); the others are looked up here. The result is [`arrange`]'s.
pub fn arrange_with(mut inputs: Vec<Input>, mut dirs: Dirs) -> Arranged {
    let mut out = Arranged::default();
    let mut charts: BTreeSet<PathBuf> = BTreeSet::new();
    let mut chart_files: BTreeSet<PathBuf> = BTreeSet::new();
    // Inputs in kustomize directories, decided once every kustomization is read.
    let mut pending: Vec<(Input, PathBuf)> = Vec::new();
    // Kustomization directory -> its entries (`None`: unreadable, changes nothing).
    let mut kustomizations: BTreeMap<PathBuf, Option<Kustomization>> = BTreeMap::new();
    let mut kustomization_inputs: BTreeMap<PathBuf, Input> = BTreeMap::new();
    dirs.add(inputs.iter().filter_map(|i| i.path.as_deref()));

    // Where each input is (a chart, a kustomize directory, neither), decided in parallel; the
    // kustomizations found are then read in parallel; then the inputs are sorted out in order.
    enum Class {
        Plain,
        Chart(PathBuf, InChart),
        /// In the directory of this kustomization file; `true` for the file itself.
        Kustomize(PathBuf, PathBuf, bool),
    }
    // What the directories above a file say is the same for every file of its directory:
    // found once per directory (by the bytes of its path, as `dirs` knows them), not once per
    // file (20,000 files in 20 directories, each walked up to the root twice and its charts
    // collected, kept this step at 5.1 % of a one-thread run over them; 1.05 % now).
    // A walk's files come directory by directory: a file in the previous file's directory is
    // not hashed again.
    let mut seen: HashSet<&OsStr> = HashSet::new();
    let mut last = None;
    let input_dirs: Vec<&Path> = inputs
        .iter()
        .filter_map(|i| i.path.as_deref())
        .filter(|path| in_another_directory(&mut last, path))
        .filter_map(Path::parent)
        .filter(|dir| seen.insert(dir.as_os_str()))
        .collect();
    drop(seen);
    let above = above_all(&dirs, &input_dirs);
    let above = &above;
    let classes: Vec<Class> = inputs
        .par_iter()
        .map(|input| {
            let Some(path) = input.path.as_deref() else {
                return Class::Plain;
            };
            // A path without a parent (`/`, empty) has no directory above it.
            let Some(facts) = path.parent().and_then(|d| above.get(d.as_os_str())) else {
                return Class::Plain;
            };
            if let Some((chart, place)) = chart_place(facts.charts, path, input.kind) {
                return Class::Chart(chart, place);
            }
            match &facts.kustomization {
                Some((dir, file)) => {
                    // Two normalized spellings are the same path when they are the same bytes.
                    let itself = normalize(path).as_os_str() == normalize(file).as_os_str();
                    Class::Kustomize(dir.to_path_buf(), file.clone(), itself)
                }
                None => Class::Plain,
            }
        })
        .collect();
    let mut to_read: Vec<(&PathBuf, &PathBuf)> = classes
        .iter()
        .filter_map(|c| match c {
            Class::Kustomize(dir, file, _) => Some((dir, file)),
            _ => None,
        })
        .collect();
    to_read.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    to_read.dedup_by(|a, b| a.0.as_os_str() == b.0.as_os_str());
    let read: Vec<(PathBuf, Option<Kustomization>)> = to_read
        .into_par_iter()
        .map(|(dir, file)| {
            let text = std::fs::read(file)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            (dir.clone(), read_kustomization(dir, &text))
        })
        .collect();
    for (dir, k) in read {
        kustomizations.entry(dir).or_insert(k);
    }

    // The inputs linted as they are stay where they are, in order (moving every input into a
    // new vector was 1 ms of a two-thread run over 20,000 small files, on one thread); those
    // of kustomize directories are taken out, and the charts' templates dropped.
    let mut classes = classes.into_iter();
    // What an input taken out leaves in its place, for `retain_mut` to drop.
    let take = |input: &mut Input| {
        std::mem::replace(
            input,
            Input {
                name: String::new(),
                path: None,
                bytes: Vec::new(),
                kind: input.kind,
                canonical: None,
                prepared: None,
            },
        )
    };
    inputs.retain_mut(|input| match classes.next() {
        None | Some(Class::Plain) => true,
        Some(Class::Chart(chart, place)) => {
            if matches!(place, InChart::ChartFile) {
                chart_files.insert(chart.clone());
                input.kind = FileKind::HelmChart;
            }
            charts.insert(chart);
            !matches!(place, InChart::Drop)
        }
        Some(Class::Kustomize(dir, _, true)) => {
            kustomization_inputs.insert(dir, take(input));
            false
        }
        Some(Class::Kustomize(dir, _, false)) => {
            if input.kind == FileKind::Yaml {
                pending.push((take(input), dir));
                false
            } else {
                true
            }
        }
    });
    out.inputs = inputs;

    // Looked up, never walked in order: hashed (`Path` hashes as it compares, component by
    // component), not sorted. Sorting every kustomization's entries as paths and looking each
    // input up among them, component by component, kept this part at 3.5 ms of a one-thread
    // run over the corpus's k8s and helm parts (1.7 ms now, with `normalize`'s copies).
    let listed: HashSet<&Path> = kustomizations
        .values()
        .flatten()
        .flat_map(|k| &k.listed)
        .map(PathBuf::as_path)
        .collect();
    let patches: HashSet<&Path> = kustomizations
        .values()
        .flatten()
        .flat_map(|k| &k.patches)
        .map(PathBuf::as_path)
        .collect();
    let by_dir: HashMap<&Path, &Option<Kustomization>> = kustomizations
        .iter()
        .map(|(dir, k)| (dir.as_path(), k))
        .collect();
    // Whether each input in a kustomize directory is listed (kept, and governed by its
    // kustomization) or not (dropped), decided in parallel.
    let decided: Vec<(bool, bool)> = pending
        .par_iter()
        .map(|(input, dir)| match by_dir.get(dir.as_path()) {
            Some(Some(_)) => {
                let listed = input.path.as_deref().is_some_and(|p| {
                    let p = normalize(p);
                    listed.contains(p.as_path()) || patches.contains(p.as_path())
                });
                (listed, true)
            }
            _ => (true, false),
        })
        .collect();
    let mut governed = Vec::new();
    for ((input, _), (keep, kustomized)) in pending.into_iter().zip(decided) {
        if keep {
            if kustomized {
                governed.push(input.name.clone());
            }
            out.inputs.push(input);
        }
    }
    out.layout.kustomized.extend(governed);
    // Kustomizations stay inputs: an unreadable one for its parse error, a readable one because
    // the model reads its trees and patch lists (`k8s::scope`). No rule reports on the
    // `Kustomization` object itself.
    for (dir, input) in kustomization_inputs {
        if matches!(kustomizations.get(&dir), Some(Some(_))) {
            out.layout.kustomized.insert(input.name.clone());
        }
        out.inputs.push(input);
    }
    out.layout.kustomizations = kustomizations
        .iter()
        .filter(|(_, k)| k.is_some())
        .map(|(dir, _)| dir)
        .filter(|dir| !listed.contains(normalize(dir).as_path()))
        .cloned()
        .collect();

    // Every top-level chart is reported once, through its Chart.yaml, even when only its
    // templates were named.
    for chart in &charts {
        if chart_files.contains(chart) {
            continue;
        }
        let path = join(chart, CHART_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => out.inputs.push(Input {
                name: path.display().to_string(),
                path: Some(path),
                bytes,
                kind: FileKind::HelmChart,
                canonical: None,
                prepared: None,
            }),
            Err(e) => out.errors.push(format!("{}: {e}", path.display())),
        }
    }
    out.layout.charts = charts.into_iter().collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_name_each_directory_once() {
        let all = |p: &'static str| parents(Path::new(p)).collect::<Vec<_>>();
        assert_eq!(all("./Chart.yaml"), [Path::new(".")]);
        assert_eq!(all("Chart.yaml"), [Path::new("")]);
        assert_eq!(all("a/b.yaml"), [Path::new("a"), Path::new("")]);
        assert_eq!(all("/a/b.yaml"), [Path::new("/a"), Path::new("/")]);
    }

    #[test]
    fn a_directory_and_those_above_it() {
        // What `arrange` looks up once per directory, for every file in it.
        let all = |d: &'static str| dir_and_above(Path::new(d)).collect::<Vec<_>>();
        assert_eq!(all("."), [Path::new(".")]);
        assert_eq!(all(""), [Path::new("")]);
        assert_eq!(all("a"), [Path::new("a"), Path::new("")]);
        assert_eq!(all("/a"), [Path::new("/a"), Path::new("/")]);
        assert_eq!(
            all("./a/b"),
            [Path::new("./a/b"), Path::new("./a"), Path::new(".")]
        );
        assert_eq!(all(".hidden"), [Path::new(".hidden"), Path::new("")]);
        assert_eq!(
            all("../x"),
            [Path::new("../x"), Path::new(".."), Path::new("")]
        );
    }

    #[test]
    fn the_first_file_of_each_run_in_one_directory_is_kept() {
        let paths: Vec<&Path> = [
            "a/x.yaml",
            "a/y.yaml",
            "b/z.yaml",
            "a/w.yaml",
            "/",
            "top.yaml",
            "other.yaml",
        ]
        .into_iter()
        .map(Path::new)
        .collect();
        let mut last = None;
        let kept: Vec<&Path> = paths
            .iter()
            .copied()
            .filter(|p| in_another_directory(&mut last, p))
            .collect();
        assert_eq!(kept, [paths[0], paths[2], paths[3], paths[4], paths[5]]);
    }

    #[test]
    fn a_normal_spelling_is_kept_byte_for_byte() {
        // Every spelling of up to three names (plain, dotted, empty) with or without a root
        // and a trailing separator: `normalize` gives the bytes the components give, and
        // copies the path as it is for some of them.
        let names = ["a", "b.yaml", ".", "..", "", ".h", "..x", "x.."];
        let mut spellings = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = spellings
                .iter()
                .flat_map(|s| {
                    names.iter().map(move |n| {
                        if s.is_empty() {
                            (*n).to_string()
                        } else {
                            format!("{s}/{n}")
                        }
                    })
                })
                .collect();
            spellings.extend(longer);
        }
        let mut kept = 0;
        for rest in &spellings {
            for spelling in [rest.clone(), format!("/{rest}"), format!("{rest}/")] {
                let path = Path::new(&spelling);
                let fast = normalize(path);
                let slow = normalize_by_components(path);
                assert_eq!(
                    fast.as_os_str(),
                    slow.as_os_str(),
                    "{spelling:?}: {fast:?} against {slow:?}"
                );
                if cfg!(unix) && is_normal(path) {
                    kept += 1;
                }
            }
        }
        assert!(spellings.len() > 500);
        if cfg!(unix) {
            assert!(kept > 100, "{kept} spellings copied as they are");
        }
    }

    #[test]
    fn each_directory_is_found_from_the_one_above_it() {
        // Charts in charts, kustomizations above and inside charts and below each other,
        // relative, dotted, absolute and empty directories, met in no particular order.
        let chart = |d: &str| (std::ffi::OsString::from(d), (true, None));
        let kustomized = |d: &str, file: &str| {
            (
                std::ffi::OsString::from(d),
                (false, Some(PathBuf::from(file))),
            )
        };
        let plain = |d: &str| (std::ffi::OsString::from(d), (false, None));
        let dirs = Dirs {
            known: HashMap::from([
                kustomized("r", "r/kustomization.yaml"),
                chart("r/a"),
                plain("r/a/charts"),
                chart("r/a/charts/sub"),
                plain("r/a/charts/sub/templates"),
                plain("r/b"),
                kustomized("r/b/c", "r/b/c/kustomization.yml"),
                plain("r/b/c/d"),
                plain("r/b/e"),
                plain("r/a/files"),
                (
                    std::ffi::OsString::from("r/k"),
                    (true, Some(PathBuf::from("r/k/Kustomization"))),
                ),
                plain("r/k/t"),
                plain(""),
                kustomized(".", "./kustomization.yaml"),
                chart("./x"),
                plain("./x/y"),
                plain("q"),
                chart("/abs"),
                plain("/abs/y"),
                plain("/abs/y/z"),
                plain("/"),
            ]),
        };
        let input_dirs: Vec<&Path> = [
            "r/b/c/d",
            "r/a/charts/sub/templates",
            "r/a",
            "r",
            "r/k/t",
            "r/b",
            "./x/y",
            ".",
            "/abs/y/z",
            "/abs",
            "r/b/c",
            "",
            "q",
            "r/a/charts",
            // Below directories found already (their own ancestors found with them).
            "r/b/e",
            "r/a/files",
        ]
        .into_iter()
        .map(Path::new)
        .collect();
        let found = above_all(&dirs, &input_dirs);
        for dir in &input_dirs {
            assert_eq!(
                found.get(dir.as_os_str()),
                Some(&Above::new(&dirs, dir)),
                "{dir:?}"
            );
        }
        // What the cases are there for: each directory's nearest and outermost charts, and
        // its nearest kustomization's directory.
        let at = |d: &str| &found[OsStr::new(d)];
        for (dir, charts) in [
            ("r/a/charts/sub/templates", Some(("r/a/charts/sub", "r/a"))),
            ("./x/y", Some(("./x", "./x"))),
            ("r/a/files", Some(("r/a", "r/a"))),
            ("/abs/y/z", Some(("/abs", "/abs"))),
            ("r/b/e", None),
        ] {
            let want = charts.map(|(n, o)| (Path::new(n), Path::new(o)));
            assert_eq!(at(dir).charts, want, "{dir}");
        }
        for (dir, kustomization) in [
            ("r/b/c/d", Some("r/b/c")),
            ("r/b", Some("r")),
            ("r/b/e", Some("r")),
            ("r/a", None),
            ("q", None),
        ] {
            let got = at(dir).kustomization.as_ref().map(|k| k.0);
            assert_eq!(got, kustomization.map(Path::new), "{dir}");
        }
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(
            normalize(Path::new("./a/../b/./c.yaml")),
            PathBuf::from("b/c.yaml")
        );
        assert_eq!(normalize(Path::new("../x")), PathBuf::from("../x"));
        assert_eq!(normalize(Path::new("a/b/../../..")), PathBuf::from(".."));
        assert_eq!(normalize(Path::new("/a/../../b")), PathBuf::from("/b"));
    }
}
