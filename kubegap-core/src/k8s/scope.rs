//! Scopes: where each object was written, and how near two objects are.
//!
//! A reference (a Service name, a selector, a PDB or HPA target, an Ingress backend) resolves
//! nearest first: the same file (one document stream), then the same directory, then the same
//! kustomization tree or Helm chart (or two directories side by side under one parent), then
//! the whole run. Objects in two different kustomization trees or charts are never candidates
//! for each other: a monorepo of many apps is many projects, not one cluster.
//!
//! A kustomization tree is the set of directories holding a `kustomization.yaml` that reference
//! each other through `resources`, `bases` or `components`; a chart is the directory holding a
//! `Chart.yaml` and everything below it.

use std::collections::BTreeMap;

use crate::source::FileId;
use crate::yaml::Document;

/// How near a candidate is to the object that refers to it, nearest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Near {
    /// The same file (document stream).
    File,
    /// The same directory.
    Dir,
    /// The same kustomization tree or chart, or directories side by side under one parent.
    Tree,
    /// Only the whole run (same namespace anywhere in the input).
    Run,
}

impl Near {
    /// Whether a link this near is evidence enough for an `error`: the referrer and the
    /// candidate were written together (file, directory, tree).
    pub fn is_close(self) -> bool {
        self <= Near::Tree
    }
}

/// Where one object was written.
#[derive(Clone, Debug, Default)]
pub struct Place {
    /// The file.
    pub file: Option<FileId>,
    /// The directory's components (`a/b/c.yaml` → `[a, b]`), shared by every object of the
    /// file (not a copy per object).
    pub dir: std::sync::Arc<[String]>,
    /// The kustomization tree or chart the file is in, if any.
    pub tree: Option<usize>,
    /// Whether a kustomization lists the file as a patch (`patches`, `patchesStrategicMerge`,
    /// `patchesJson6902`): its objects are fragments merged into others.
    pub patch: bool,
}

/// The nearness of `b` seen from `a`, with the depth of their common directory as a tie-break
/// (deeper is nearer); `None` when `b` is in another kustomization tree or chart than `a`.
pub fn nearness(a: &Place, b: &Place) -> Option<(Near, std::cmp::Reverse<usize>)> {
    let common = a
        .dir
        .iter()
        .zip(b.dir.iter())
        .take_while(|(x, y)| x == y)
        .count();
    let depth = std::cmp::Reverse(common);
    if a.file.is_some() && a.file == b.file {
        return Some((Near::File, std::cmp::Reverse(usize::MAX)));
    }
    if a.dir == b.dir {
        return Some((Near::Dir, depth));
    }
    match (a.tree, b.tree) {
        (Some(x), Some(y)) if x == y => return Some((Near::Tree, depth)),
        (Some(_), Some(_)) => return None,
        _ => {}
    }
    // Directories side by side (`k8s/services/` and `k8s/deployments/`) are one project.
    if a.dir.len() <= common + 1 && b.dir.len() <= common + 1 && common > 0 {
        return Some((Near::Tree, depth));
    }
    Some((Near::Run, depth))
}

const KUSTOMIZATION_FILES: &[&str] = &["kustomization.yaml", "kustomization.yml", "Kustomization"];

fn split(name: &str) -> (Vec<String>, String) {
    let mut parts: Vec<String> = split_components(name);
    let base = parts.pop().unwrap_or_default();
    (parts, base)
}

/// The components of a path as [`split`] reads them (empty and `.` components dropped).
fn split_components(path: &str) -> Vec<String> {
    path.split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .map(str::to_string)
        .collect()
}

/// A file's directory (a path whose components are [`split`]'s) and base name, borrowed from
/// the name when its last component is a plain name, as it is for every file.
fn split_dir(name: &str) -> (std::borrow::Cow<'_, str>, std::borrow::Cow<'_, str>) {
    let (dir, base) = match name.rfind(['/', '\\']) {
        Some(at) => (&name[..at], &name[at + 1..]),
        None => ("", name),
    };
    if !base.is_empty() && base != "." {
        return (dir.into(), base.into());
    }
    let (parts, base) = split(name);
    (parts.join("/").into(), base.into())
}

/// Joins a relative reference to a directory, resolving `..`.
fn join(dir: &[String], rel: &str) -> Vec<String> {
    let mut out = dir.to_vec();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            p => out.push(p.to_string()),
        }
    }
    out
}

/// A file's directory (its components, shared by the files of the directory) and tree.
type FilePlace = (std::sync::Arc<[String]>, Option<usize>);

/// The places of every file of a run, with its kustomization trees and charts.
#[derive(Clone, Debug, Default)]
pub struct Places {
    /// File → (directory, tree), indexed by file id (ids are dense from 0).
    files: Vec<Option<FilePlace>>,
    /// Files a kustomization lists as patches.
    patches: std::collections::BTreeSet<FileId>,
}

/// What [`Places`] takes from the files' names alone: each file's directory, the charts, and
/// the kustomization directories with the nearest one above each directory. It is built while
/// the files are parsed (it needs no document); [`Names::finish`] adds what the kustomizations
/// say (which directories they join into a tree, which files are patches). Building it after
/// the parse kept one thread busy and the other idle for 4–6 ms of a two-thread corpus run.
#[derive(Debug, Default)]
pub struct Names {
    /// Each file, with the index of its directory and its base name.
    files: Vec<(FileId, usize, Box<str>)>,
    /// Each directory's components, and the same shared by its files.
    components: Vec<Vec<String>>,
    dirs: Vec<std::sync::Arc<[String]>>,
    /// Kustomization directories (numbered in the order met), and the directory of each
    /// kustomization file.
    kdirs: BTreeMap<Vec<String>, usize>,
    kfiles: BTreeMap<FileId, Vec<String>>,
    /// Each directory's chart (its tree number, after the kustomization directories'), or the
    /// nearest kustomization directory at or above it.
    trees: Vec<(Option<usize>, Option<usize>)>,
}

impl Names {
    /// The directories, charts and kustomization directories of the files of a run.
    pub fn new<'n>(names: impl IntoIterator<Item = (FileId, &'n str)>) -> Names {
        use rayon::prelude::*;
        use std::borrow::Cow;
        use std::sync::Arc;
        let names: Vec<(FileId, &str)> = names.into_iter().collect();
        // Each file's directory as written (its name up to the last separator) and its base
        // name. A directory is split into components, and its chart and tree found, once for
        // all its files: splitting every file's name (and copying its components twice more)
        // made this step 13.9 ms of a corpus run, most of it on one thread (9.1 ms now).
        let named: Vec<(Cow<'_, str>, Cow<'_, str>)> =
            names.par_iter().map(|(_, name)| split_dir(name)).collect();
        let mut dir_index: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::new();
        let mut dir_names: Vec<&str> = Vec::new();
        let file_dirs: Vec<usize> = named
            .iter()
            .map(|(dir, _)| {
                *dir_index.entry(dir.as_ref()).or_insert_with(|| {
                    dir_names.push(dir.as_ref());
                    dir_names.len() - 1
                })
            })
            .collect();
        drop(dir_index);
        // Directories spelled two ways (`./a`, `a`) have the same components and share them.
        let components: Vec<Vec<String>> =
            dir_names.par_iter().map(|d| split_components(d)).collect();
        let mut shared: BTreeMap<&[String], Arc<[String]>> = BTreeMap::new();
        let dirs: Vec<Arc<[String]>> = components
            .iter()
            .map(|c| Arc::clone(shared.entry(c).or_insert_with(|| Arc::from(c.as_slice()))))
            .collect();
        drop(shared);
        // Kustomization directories, and the directories each one references.
        let mut kdirs: BTreeMap<Vec<String>, usize> = BTreeMap::new();
        let mut kfiles: BTreeMap<FileId, Vec<String>> = BTreeMap::new();
        for ((id, _), ((_, base), d)) in names.iter().zip(named.iter().zip(&file_dirs)) {
            if KUSTOMIZATION_FILES.contains(&base.as_ref()) {
                let dir = components[*d].clone();
                let n = kdirs.len();
                kdirs.entry(dir.clone()).or_insert(n);
                kfiles.insert(*id, dir);
            }
        }
        // Charts: the outermost directory holding a Chart.yaml (subcharts belong to it).
        let chart_dirs: Vec<&Vec<String>> = named
            .iter()
            .zip(&file_dirs)
            .filter(|((_, base), _)| base == "Chart.yaml")
            .map(|(_, d)| &components[*d])
            .collect();
        let chart_base = kdirs.len();
        // Each directory's chart and nearest kustomization directory, in parallel (every
        // directory against every chart directory).
        let trees: Vec<(Option<usize>, Option<usize>)> = components
            .par_iter()
            .map(|dir| {
                let chart = chart_dirs
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| dir.starts_with(c))
                    .min_by_key(|(_, c)| c.len())
                    .map(|(i, _)| chart_base + i);
                let kdir = match chart {
                    Some(_) => None,
                    None => (0..=dir.len())
                        .rev()
                        .find_map(|n| kdirs.get(&dir[..n]).copied()),
                };
                (chart, kdir)
            })
            .collect();
        let files = names
            .iter()
            .zip(named)
            .zip(file_dirs)
            .map(|(((id, _), (_, base)), d)| (*id, d, Box::from(base.as_ref())))
            .collect();
        Names {
            files,
            components,
            dirs,
            kdirs,
            kfiles,
            trees,
        }
    }

    /// The places, with the kustomization trees and patches that the kustomizations among
    /// `documents` declare.
    pub fn finish(self, documents: &[Document]) -> Places {
        use rayon::prelude::*;
        use std::sync::Arc;
        // Every field of `self` is read below (a field never read is a compiler warning).
        let (kdirs, kfiles) = (&self.kdirs, &self.kfiles);
        let mut parent: Vec<usize> = (0..kdirs.len()).collect();
        let mut patch_paths: std::collections::BTreeSet<Vec<String>> = Default::default();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        // What each kustomization lists (its patches' paths, the kustomization directories
        // it references), read in parallel (a path is built per entry); then joined in order.
        let listed: Vec<(usize, Vec<Vec<String>>, Vec<usize>)> = documents
            .par_iter()
            .filter_map(|doc| {
                let dir = kfiles.get(&doc.file)?;
                let rootnode = doc.root()?;
                let from = *kdirs.get(dir)?;
                let mut patches = Vec::new();
                for key in ["patches", "patchesStrategicMerge", "patchesJson6902"] {
                    for item in rootnode.get(key).into_iter().flat_map(|n| n.items()) {
                        let rel = item.as_str().or_else(|| item.str_at(&["path"]));
                        if let Some(rel) = rel.filter(|r| !r.contains('\n') && !r.contains(':')) {
                            patches.push(join(dir, rel));
                        }
                    }
                }
                let mut references = Vec::new();
                for key in ["resources", "bases", "components"] {
                    for item in rootnode.get(key).into_iter().flat_map(|n| n.items()) {
                        let Some(rel) = item.as_str() else { continue };
                        if rel.contains("://") {
                            continue;
                        }
                        references.extend(kdirs.get(&join(dir, rel)).copied());
                    }
                }
                Some((from, patches, references))
            })
            .collect();
        for (from, patches, references) in listed {
            patch_paths.extend(patches);
            for to in references {
                let (a, b) = (root(&mut parent, from), root(&mut parent, to));
                if a != b {
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        // A directory outside charts is in the tree of its nearest kustomization directory.
        let trees: Vec<Option<usize>> = self
            .trees
            .into_iter()
            .map(|(chart, kdir)| chart.or_else(|| kdir.map(|k| root(&mut parent, k))))
            .collect();
        // The base names listed as patches in each directory: a file is a patch when its
        // directory's components and its base name are a patch's path (building each file's
        // path to look it up made this step 3.4 ms instead of 2.5 on the corpus, one thread).
        let mut patch_dirs: BTreeMap<&[String], Vec<&str>> = BTreeMap::new();
        for path in &patch_paths {
            if let Some((base, dir)) = path.split_last() {
                patch_dirs.entry(dir).or_default().push(base);
            }
        }
        let dir_patches: Vec<Option<&Vec<&str>>> = if patch_dirs.is_empty() {
            Vec::new()
        } else {
            self.components
                .iter()
                .map(|c| patch_dirs.get(c.as_slice()))
                .collect()
        };
        let mut out = Places::default();
        let len = self
            .files
            .iter()
            .map(|(id, ..)| id.0 as usize + 1)
            .max()
            .unwrap_or(0);
        out.files = vec![None; len];
        for (id, d, base) in &self.files {
            if let Some(slot) = out.files.get_mut(id.0 as usize) {
                *slot = Some((Arc::clone(&self.dirs[*d]), trees[*d]));
            }
            if let Some(Some(bases)) = dir_patches.get(*d) {
                if bases.contains(&&**base) {
                    out.patches.insert(*id);
                }
            }
        }
        out
    }
}

impl Places {
    /// Finds the kustomization trees and charts among the files of a run ([`Names::new`],
    /// then [`Names::finish`]).
    pub fn build<'n>(
        documents: &[Document],
        names: impl IntoIterator<Item = (FileId, &'n str)>,
    ) -> Places {
        Names::new(names).finish(documents)
    }

    /// The place of an object in this file.
    pub fn place(&self, file: FileId) -> Place {
        match self.files.get(file.0 as usize).and_then(Option::as_ref) {
            Some((dir, tree)) => Place {
                file: Some(file),
                dir: dir.clone(),
                tree: *tree,
                patch: self.patches.contains(&file),
            },
            None => Place {
                file: Some(file),
                ..Place::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(files: &[(&str, &str)]) -> (Places, Vec<FileId>) {
        let mut docs = Vec::new();
        let mut ids = Vec::new();
        for (i, (_, text)) in files.iter().enumerate() {
            let id = FileId(u32::try_from(i).unwrap_or_default());
            ids.push(id);
            let (d, _) = crate::yaml::parse(id, *text);
            docs.extend(d);
        }
        let names: Vec<(FileId, &str)> =
            ids.iter().copied().zip(files.iter().map(|f| f.0)).collect();
        (Places::build(&docs, names), ids)
    }

    /// A directory split once for its files gives the components of splitting each name.
    #[test]
    fn directories_split_as_names_do() {
        for name in [
            "a.yaml",
            "./a.yaml",
            "apps/web/a.yaml",
            "./apps//web/./a.yaml",
            "apps\\web\\a.yaml",
            "/abs/dir/a.yaml",
            "apps/web/.",
            "apps/web/",
            "",
        ] {
            let (dir, base) = split_dir(name);
            assert_eq!(
                (split_components(&dir), base.into_owned()),
                split(name),
                "{name:?}"
            );
        }
    }

    #[test]
    fn files_of_one_directory_share_its_components() {
        let (places, ids) = places(&[
            ("apps/web/a.yaml", "kind: A\n"),
            ("apps/web/b.yaml", "kind: B\n"),
            ("apps/api/c.yaml", "kind: C\n"),
        ]);
        let [a, b, c] = [ids[0], ids[1], ids[2]].map(|id| places.place(id).dir);
        assert_eq!(&a[..], ["apps", "web"]);
        assert!(std::sync::Arc::ptr_eq(&a, &b));
        assert_eq!(&c[..], ["apps", "api"]);
        assert!(!std::sync::Arc::ptr_eq(&a, &c));
        // One directory spelled two ways is one directory.
        let (spelled, ids) = super::tests::places(&[
            ("./apps/web/a.yaml", "kind: A\n"),
            ("apps/web/b.yaml", "kind: B\n"),
        ]);
        let [a, b] = [ids[0], ids[1]].map(|id| spelled.place(id).dir);
        assert!(std::sync::Arc::ptr_eq(&a, &b));
    }

    /// A file is a patch when a kustomization lists its path under `patches` or
    /// `patchesStrategicMerge`, however its directory is spelled; a file of the same name in
    /// another directory is not, nor are the resources.
    #[test]
    fn kustomizations_mark_their_patches() {
        let (p, ids) = places(&[
            (
                "./app/overlay/kustomization.yaml",
                "resources: [../base]\npatches: [{path: probe.yaml}]\n\
                 patchesStrategicMerge: [../base/replicas.yaml]\n",
            ),
            ("app/overlay/probe.yaml", "kind: Deployment\n"),
            ("app/base/kustomization.yaml", "resources: [deploy.yaml]\n"),
            ("app/base/deploy.yaml", "kind: Deployment\n"),
            ("app/base/replicas.yaml", "kind: Deployment\n"),
            ("other/overlay/probe.yaml", "kind: Deployment\n"),
            ("app/base/probe.yaml", "kind: Deployment\n"),
        ]);
        let patch = |i: usize| p.place(ids[i]).patch;
        let patches: Vec<usize> = (0..ids.len()).filter(|i| patch(*i)).collect();
        assert_eq!(patches, [1, 4]);
        // The overlay and its base are one tree through `resources`; the other directory is
        // in none.
        let tree = |i: usize| p.place(ids[i]).tree;
        assert!(tree(1).is_some());
        assert_eq!(tree(1), tree(3));
        assert_eq!(tree(5), None);
    }

    #[test]
    fn join_resolves_parents() {
        let dir = vec!["a".to_string(), "b".to_string()];
        assert_eq!(join(&dir, "../c"), vec!["a", "c"]);
        assert_eq!(join(&dir, "./d/"), vec!["a", "b", "d"]);
    }

    #[test]
    fn nearness_levels() {
        let (p, ids) = places(&[
            (
                "k8s/app/config/default/kustomization.yaml",
                "resources: [../manager, ../rbac]\n",
            ),
            (
                "k8s/app/config/manager/kustomization.yaml",
                "resources: [manager.yaml]\n",
            ),
            ("k8s/app/config/manager/manager.yaml", "kind: Deployment\n"),
            (
                "k8s/app/config/rbac/kustomization.yaml",
                "resources: [service.yaml]\n",
            ),
            ("k8s/app/config/rbac/service.yaml", "kind: Service\n"),
            (
                "k8s/other/config/manager/kustomization.yaml",
                "resources: [manager.yaml]\n",
            ),
            (
                "k8s/other/config/manager/manager.yaml",
                "kind: Deployment\n",
            ),
            ("k8s/plain/a/deep/svc.yaml", "kind: Service\n"),
            ("k8s/plain/b/deep/deploy.yaml", "kind: Deployment\n"),
            ("k8s/plain/services/svc.yaml", "kind: Service\n"),
            ("k8s/plain/deployments/deploy.yaml", "kind: Deployment\n"),
        ]);
        let at = |i: usize| p.place(ids[i]);
        let near = |a: usize, b: usize| nearness(&at(a), &at(b)).map(|n| n.0);
        assert_eq!(near(2, 2), Some(Near::File));
        assert_eq!(near(1, 2), Some(Near::Dir));
        // rbac and manager are one kustomization tree through default's `resources`.
        assert_eq!(near(4, 2), Some(Near::Tree));
        // Another project's kustomization tree is never a candidate.
        assert_eq!(near(4, 6), None);
        // Directories side by side are one project; deeper unrelated ones only the run.
        assert_eq!(near(9, 10), Some(Near::Tree));
        assert_eq!(near(7, 8), Some(Near::Run));
        assert!(Near::Tree.is_close() && !Near::Run.is_close());
    }
}
