//! Helm charts and kustomizations among the discovered files: which files are manifests
//! (`kubegap_core::layout`), and rendering them with `helm template` (`--render-charts`) or
//! `kubectl kustomize` (`--render-kustomize`) when those tools are on `PATH`.

use std::path::Path;
use std::process::Command;

use kubegap_core::layout;
use kubegap_core::{FileKind, Input};

use crate::walk::Discovered;

/// Applies the chart and kustomize layout to what discovery read.
pub fn arrange(discovered: &mut Discovered, dirs: layout::Dirs) {
    let arranged = layout::arrange_with(std::mem::take(&mut discovered.inputs), dirs);
    discovered.inputs = arranged.inputs;
    discovered.layout = arranged.layout;
    discovered.errors.extend(arranged.errors);
}

/// What to render.
#[derive(Clone, Copy, Debug, Default)]
pub struct Render {
    /// `--render-charts`: `helm template` each top-level chart.
    pub charts: bool,
    /// `--render-kustomize`: `kubectl kustomize` each kustomization no other one lists.
    pub kustomize: bool,
}

/// Renders the charts and kustomizations found in `discovered` and replaces their sources by
/// the rendered streams. A tool that is missing or fails is an error of the command (exit 2),
/// and the sources stay as they were (a chart then keeps its `helm-chart-not-rendered`).
pub fn render(discovered: &mut Discovered, render: Render) {
    if !render.charts && !render.kustomize {
        return;
    }
    let found = discovered.layout.clone();
    if render.charts {
        for chart in &found.charts {
            let dir = display_dir(chart);
            match run("helm", &["template", &dir], "--render-charts") {
                Ok(stream) => {
                    let chart_file = chart.join(layout::CHART_FILE);
                    discovered.inputs.retain(|i| {
                        !(i.kind == FileKind::HelmChart
                            && i.path.as_deref().is_some_and(|p| same(p, &chart_file)))
                    });
                    discovered.inputs.push(Input {
                        name: format!("<helm template {dir}>"),
                        path: None,
                        bytes: stream,
                        kind: FileKind::Yaml,
                        canonical: None,
                        prepared: None,
                    });
                }
                Err(e) => discovered.errors.push(e),
            }
        }
    }
    if render.kustomize && !found.kustomizations.is_empty() {
        let mut streams = Vec::new();
        let mut failed = false;
        for dir in &found.kustomizations {
            let dir = display_dir(dir);
            match run("kubectl", &["kustomize", &dir], "--render-kustomize") {
                Ok(stream) => streams.push(Input {
                    name: format!("<kubectl kustomize {dir}>"),
                    path: None,
                    bytes: stream,
                    kind: FileKind::Yaml,
                    canonical: None,
                    prepared: None,
                }),
                Err(e) => {
                    discovered.errors.push(e);
                    failed = true;
                }
            }
        }
        // All or nothing: a partial replacement would lose or duplicate objects.
        if !failed {
            discovered
                .inputs
                .retain(|i| !found.kustomized.contains(&i.name));
            discovered.inputs.extend(streams);
        }
    }
}

/// A directory as a command argument and in names: `.` for the current one.
fn display_dir(dir: &Path) -> String {
    let text = dir.display().to_string();
    if text.is_empty() {
        ".".to_string()
    } else {
        text
    }
}

fn same(a: &Path, b: &Path) -> bool {
    layout::normalize(a) == layout::normalize(b)
}

/// Runs `program args` and returns its standard output, or the error to print.
fn run(program: &str, args: &[&str], flag: &str) -> Result<Vec<u8>, String> {
    let shown = format!("{program} {}", args.join(" "));
    let output = Command::new(program).args(args).output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "{flag}: `{program}` is not on PATH, so `{shown}` cannot run; install it, or render \
                 and pipe the output yourself (`{shown} | kubegap lint -`)"
            )
        } else {
            format!("{flag}: `{shown}`: {e}")
        }
    })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let detail: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(5)
            .collect();
        return Err(format!(
            "{flag}: `{shown}` failed ({}): {}",
            output.status,
            detail.join(" / ")
        ));
    }
    Ok(output.stdout)
}
