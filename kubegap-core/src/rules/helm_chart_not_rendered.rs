//! `helm-chart-not-rendered`: a Helm chart's sources were found, and its templates were not
//! linted.

use crate::rule::prelude::*;
use crate::source::{FileId, FileKind};

declare_rule! {
    /// A Helm chart whose templates kubegap did not lint, because they are templates and not
    /// manifests.
    ///
    /// ## What it does
    /// Reports once per chart (a directory with a `Chart.yaml`) found among the inputs, at the
    /// chart's `name`, and says how to lint it. The chart's `templates/` are Go templates
    /// (`{{- include … }}`), not YAML: kubegap does not read them, so they never produce a
    /// `parse-error`. Its `values.yaml`, `Chart.yaml` and other YAML files outside `crds/` are
    /// not manifests and are not linted either; `crds/` is linted as it is.
    ///
    /// ## Why is this bad?
    /// Nothing is wrong with the chart: the finding says that its objects were not checked.
    /// What a chart deploys exists only once it is rendered with its values; a whole-repository
    /// run (the pre-commit hook, CI) would otherwise pass silently over every object the chart
    /// deploys. Render it and lint the stream, with the values you deploy:
    ///
    /// ```sh
    /// helm template CHART -f values-prod.yaml | kubegap lint -
    /// ```
    ///
    /// or let kubegap run `helm template` on each chart with its default values
    /// (`kubegap lint --render-charts`, when `helm` is on `PATH`). The finding is `info`: it
    /// does not fail a run under the default `--fail-on error`; ignore it in `.kubegap.yaml`
    /// (`ignore: [helm-chart-not-rendered]`) once the charts are linted rendered.
    ///
    /// ## Example
    /// The `Chart.yaml` of a chart in the linted directory:
    /// ```helm-chart,invalid
    /// apiVersion: v2
    /// name: shop
    /// version: 1.4.2
    /// ```
    ///
    /// Use instead: the rendered chart (`helm template shop | kubegap lint -`):
    /// ```yaml,valid
    /// ---
    /// # Source: shop/templates/service.yaml
    /// apiVersion: v1
    /// kind: Service
    /// metadata: {name: shop}
    /// spec:
    ///   ports: [{port: 80}]
    /// ```
    pub static HELM_CHART_NOT_RENDERED = {
        id: "helm-chart-not-rendered",
        severity: Info,
        domain: Parse,
        summary: "a Helm chart's templates were not linted: render the chart and lint the output",
        evidence: &[
            "https://helm.sh/docs/topics/charts/#the-chart-file-structure",
            "https://helm.sh/docs/helm/helm_template/",
        ],
        check: check,
    }
}

fn check(cx: &Context<'_>, sink: &mut Sink) {
    for (id, file) in cx.files.iter() {
        if file.kind != FileKind::HelmChart {
            continue;
        }
        let dir = chart_dir(&file.name);
        let (span, name) = name_of(id, &file.text);
        let named = match name {
            Some(name) => format!("Helm chart `{name}` (`{dir}`)"),
            None => format!("the Helm chart in `{dir}`"),
        };
        sink.report(
            span,
            format!("{named} was not rendered, so its templates were not linted"),
        )
        .help(format!(
            "lint it rendered: `helm template {dir} | kubegap lint -` (add `-f` for the values you deploy), \
             or `kubegap lint --render-charts` to run `helm template` on each chart"
        ));
    }
}

/// The chart directory as the user named it (`Chart.yaml`'s parent), `.` for the current one.
fn chart_dir(file_name: &str) -> String {
    let dir = std::path::Path::new(file_name)
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    if dir.is_empty() {
        ".".to_string()
    } else {
        dir
    }
}

/// The span and value of the chart's `name`, or the start of the file when it has none.
fn name_of(file: FileId, text: &str) -> (Span, Option<String>) {
    let (docs, _) = crate::yaml::parse_stream(file, text);
    let root = docs.first().and_then(|d| d.root());
    let name = root
        .and_then(|root| root.get("name"))
        .and_then(|n| n.as_str().map(|s| (n.span(), s.to_string())));
    if let Some((span, name)) = name {
        return (span, Some(name));
    }
    // No name: the first key, else the first line.
    let first_key = root.and_then(|root| root.own_entries().next().map(|(k, _)| k.span()));
    let span =
        first_key.unwrap_or_else(|| Span::new(file, 0, text.find('\n').unwrap_or(text.len())));
    (span, None)
}
