#!/usr/bin/env bash
# The GitHub Action's own steps, run as a script (scripts/ci/run_action.py) on a sample
# repository (a git repository made from testdata/sample-repo), with kubegap installed by the
# action's PyPI step from the wheel that scripts/ci/wheel.sh built (pip pointed at it with
# PIP_FIND_LINKS and PIP_NO_INDEX, the same `pip install kubegap==VERSION`). Checks the
# annotations, the job summary, the SARIF file, the outputs, the failing step, the `chart`
# input with and without `helm` (a stand-in on PATH), paths with nothing to lint (fail, or pass
# with `args: --allow-empty`), and PR mode (`base`) on a throwaway git repository of two commits
# whose HEAD renames a Service port: cloned shallow (BASE is fetched), BASE as a branch of
# origin, BASE equal to HEAD (passes), and `base` with `chart` or starting with `-` (refused).
#
# KUBEGAP_ACTION_QUICK=1 leaves out the `install: source` case (a release `cargo install`).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/ci/tools.sh
repo_root=$PWD
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$(ls "$KUBEGAP_CI_DIR"/wheels/kubegap-"$version"-*.whl 2>/dev/null)" ] \
  || { echo "action: run scripts/ci/wheel.sh first (it builds the wheel this test installs)" >&2; exit 1; }

work="$KUBEGAP_CI_DIR/action"
rm -rf "$work"
mkdir -p "$work/bin" "$work/helm-bin"
# The runner's PATH: the system's, and the Python that creates the action's venv.
ln -s "$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')" "$work/bin/python3"
base_path="$work/bin:/usr/bin:/bin"
cat > "$work/helm-bin/helm" <<'SH'
#!/bin/sh
# Stand-in for `helm template CHART`: the rendered sample chart.
[ "$1" = template ] || exit 64
# The Service's selector misses the Deployment's labels: with a workload of the release beside
# it, `k8s-service-selects-nothing` has the evidence it needs (a Service alone is not flagged).
cat <<'STREAM'
---
# Source: shop/templates/service.yaml
apiVersion: v1
kind: Service
metadata: {name: release-name-shop}
spec:
  selector: {app: shop}
  ports: [{port: 80, targetPort: http}]
---
# Source: shop/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: release-name-shop}
spec:
  replicas: 2
  selector: {matchLabels: {app.kubernetes.io/name: shop}}
  template:
    metadata: {labels: {app.kubernetes.io/name: shop}}
    spec:
      containers:
        - name: shop
          image: registry.example.com/shop:1.0
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /healthz, port: http}}
STREAM
SH
chmod +x "$work/helm-bin/helm"
# cargo and rustc for `install: source`, without whatever else their directory holds.
mkdir -p "$work/cargo-bin"
ln -s "$(command -v cargo)" "$work/cargo-bin/cargo"
ln -s "$(command -v rustc)" "$work/cargo-bin/rustc"

export PIP_NO_INDEX=1 PIP_FIND_LINKS="$KUBEGAP_CI_DIR/wheels"

# run CASE [input=value ...]: a fresh workspace and RUNNER_TEMP, the result in $work/CASE.json.
run() {
  local case=$1 path=$base_path
  shift
  if [ "$case" = chart-helm ]; then path="$work/helm-bin:$base_path"; fi
  if [ "$case" = source ]; then
    path="$work/cargo-bin:$base_path"
    # The action builds in RUNNER_TEMP/kubegap-target (cached on GitHub); here that is this
    # checkout's target directory, so that only kubegap's own crates are compiled again.
    mkdir -p "$work/$case/temp"
    ln -s "${CARGO_TARGET_DIR:-$repo_root/target}" "$work/$case/temp/kubegap-target"
  fi
  local ws="$work/$case/workspace"
  mkdir -p "$ws"
  cp -r "$repo_root/testdata/sample-repo/." "$ws/"
  # Not Kubernetes, haproxy or nginx: `paths: notes` has nothing to lint.
  mkdir -p "$ws/notes"
  echo '{"name": "notes", "private": true}' > "$ws/notes/package.json"
  git -C "$ws" init --quiet
  "$TOOLS/bin/python" scripts/ci/run_action.py "$repo_root" "$ws" "$work/$case/temp" "$path" "$@" \
    > "$work/$case.json"
}

# A repository of two commits on `main`: BASE names a Service port `http`, HEAD renames it to
# `web-http`; the branch `release` stays at BASE.
upstream="$work/upstream"
mkdir -p "$upstream"
git -C "$upstream" init --quiet -b main
git -C "$upstream" config user.email ci@example.invalid
git -C "$upstream" config user.name ci
cat > "$upstream/web.yaml" <<'YAML'
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports:
    - name: http
      port: 80
      targetPort: 8080
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.example/web:1.0
          ports: [{containerPort: 8080}]
YAML
git -C "$upstream" add -A
git -C "$upstream" commit --quiet -m base
base_sha=$(git -C "$upstream" rev-parse HEAD)
git -C "$upstream" branch release
sed -i 's/- name: http$/- name: web-http/' "$upstream/web.yaml"
git -C "$upstream" commit --quiet -am head

# run_git CASE CLONE_OPTION [input=value ...]: like run, the workspace a clone of $upstream
# (CLONE_OPTION `--depth=1` is actions/checkout's default, `--no-local` a full clone).
run_git() {
  local case=$1 clone=$2
  shift 2
  local ws="$work/$case/workspace"
  git clone --quiet "$clone" "file://$upstream" "$ws"
  "$TOOLS/bin/python" scripts/ci/run_action.py "$repo_root" "$ws" "$work/$case/temp" "$base_path" "$@" \
    > "$work/$case.json"
}

check() {
  "$TOOLS/bin/python" - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
def load(case):
    return json.load(open(os.path.join(work, case + ".json")))
def outcome(r, name):
    return next(s["outcome"] for s in r["steps"] if s["name"] == name)
def fail(case, r, why):
    print(f"action ({case}): {why}\n{r['log']}\n{json.dumps(r['steps'], indent=1)}", file=sys.stderr)
    sys.exit(1)

# Default inputs: the error fails the job after SARIF and summary are written.
r = load("default")
if r["result"] != "failure" or outcome(r, "Fail on findings") != "failure (exit 1)":
    fail("default", r, "the job must fail in 'Fail on findings' with kubegap's exit code 1")
if r["outputs"] != {"exit-code": "1", "errors": "1", "warnings": "0", "infos": "1", "sarif-file": "kubegap.sarif"}:
    fail("default", r, f"outputs {r['outputs']}")
for want in ("::error file=k8s/web.yaml,line=12,endLine=12,col=19,endColumn=23,title=kubegap (k8s-service-target-port-missing)::",
             "::notice file=charts/shop/Chart.yaml,line=2"):
    if want not in r["log"]:
        fail("default", r, f"no annotation {want!r}")
upload = next(s for s in r["steps"] if s["name"] == "Upload SARIF to code scanning")
if upload["outcome"] != "would run (uses: github/codeql-action/upload-sarif@v3)" or upload["with"]["sarif_file"] != "kubegap.sarif":
    fail("default", r, f"upload step: {upload}")
sarif = json.load(open(os.path.join(work, "default/workspace/kubegap.sarif")))
results = sarif["runs"][0]["results"]
if sarif["version"] != "2.1.0" or sorted(x["ruleId"] for x in results) != ["helm-chart-not-rendered", "k8s-service-target-port-missing"]:
    fail("default", r, "SARIF results")
for want in ("## kubegap", "**failed: findings at or above `error`**", "| 🔴 error | 1 |", "| 🟠 warning | 0 |", "| 🔵 info | 1 |",
             "| 🔴 error | `k8s-service-target-port-missing` | `./k8s/web.yaml:12` |"):
    if want not in r["summary"]:
        fail("default", r, f"summary lacks {want!r}:\n{r['summary']}")
if outcome(r, "Install kubegap from PyPI") != "success" or outcome(r, "Install kubegap from source (cargo install --locked)") != "skipped":
    fail("default", r, "install steps")

# fail-on never: the same findings, a green job.
r = load("never")
if r["result"] != "success" or r["outputs"]["exit-code"] != "0" or outcome(r, "Fail on findings") != "skipped":
    fail("never", r, "fail-on never must pass")

# PR mode on a shallow clone: BASE is fetched, the renamed port is the one finding (a warning,
# which fails under fail-on warning), in the annotations, SARIF and the summary.
r = load("diff-shallow")
if r["result"] != "failure" or outcome(r, "Fail on findings") != "failure (exit 1)":
    fail("diff-shallow", r, "the renamed port must fail the job under fail-on warning")
if r["outputs"] != {"exit-code": "1", "errors": "0", "warnings": "1", "infos": "0", "sarif-file": "kubegap.sarif"}:
    fail("diff-shallow", r, f"outputs {r['outputs']}")
base_sha = open(os.path.join(work, "base-sha")).read().strip()
for want in (f"is not in this checkout (a shallow clone?): git fetch --no-tags --depth=1 origin {base_sha}",
             f"::group::kubegap diff --git {base_sha} . ",
             "::warning file=web.yaml,line=7,endLine=7,col=13,endColumn=21,title=kubegap (diff-service-port-renamed)::Service `default/web` port 80 (web.yaml:7) is renamed from `http`"):
    if want not in r["log"]:
        fail("diff-shallow", r, f"log lacks {want!r}")
sarif = json.load(open(os.path.join(work, "diff-shallow/workspace/kubegap.sarif")))
if [x["ruleId"] for x in sarif["runs"][0]["results"]] != ["diff-service-port-renamed"]:
    fail("diff-shallow", r, "SARIF results")
if not outcome(r, "Upload SARIF to code scanning").startswith("would run"):
    fail("diff-shallow", r, "the SARIF upload must run")
for want in (f"Pull request diff: `kubegap diff --git {base_sha}` (BASE) against the checkout (HEAD).",
             "**changed: 0 objects added, 0 removed, 1 modified, 0 configs changed; 1 new finding**",
             "**failed: findings at or above `warning`**", "| 🟠 warning | 1 |",
             "| 🟠 warning | `diff-service-port-renamed` | `./web.yaml:7` |"):
    if want not in r["summary"]:
        fail("diff-shallow", r, f"summary lacks {want!r}:\n{r['summary']}")

# PR mode with BASE a branch only the remote has (a full clone): origin/BASE, no fetch.
r = load("diff-branch")
if r["outputs"]["exit-code"] != "1" or "::group::kubegap diff --git origin/release . " not in r["log"] or "git fetch" in r["log"]:
    fail("diff-branch", r, f"BASE must be origin/release: {r['outputs']}")
if "title=kubegap (diff-service-port-renamed)" not in r["log"]:
    fail("diff-branch", r, "no annotation")

# PR mode, no change (BASE is HEAD's branch): a pass, the summary says nothing changed.
r = load("diff-same")
if r["result"] != "success" or r["outputs"]["exit-code"] != "0" or r["outputs"]["warnings"] != "0" or outcome(r, "Fail on findings") != "skipped":
    fail("diff-same", r, f"no change must pass: {r['outputs']}")
if "**changed: 0 objects added, 0 removed, 0 modified, 0 configs changed; 0 new findings**" not in r["summary"]:
    fail("diff-same", r, f"summary: {r['summary']}")

# PR mode and a chart: refused before anything is installed, with the reason.
r = load("base-chart")
if r["result"] != "failure" or outcome(r, "Check inputs") != "failure (exit 1)" or outcome(r, "Install kubegap from PyPI") != "skipped":
    fail("base-chart", r, "base with chart must fail the first step")
if "`base` (PR mode, `kubegap diff --git`) and `chart` cannot be combined" not in r["log"]:
    fail("base-chart", r, "no explanation")

# A base that would be an option of git: refused.
r = load("base-option")
if r["result"] != "failure" or outcome(r, "Check inputs") != "failure (exit 1)" or "`base` must be a commit or a branch name, not `--upload-pack=touch`" not in r["log"]:
    fail("base-option", r, "a base starting with - must be refused")

# Paths with nothing to lint (a non-Kubernetes JSON file): exit 2 with kubegap's reason in the
# log and the summary, no SARIF upload; `args: --allow-empty` passes.
r = load("empty")
if r["result"] != "failure" or r["outputs"]["exit-code"] != "2" or "nothing to lint" not in r["log"]:
    fail("empty", r, f"nothing to lint must fail: {r['outputs']}")
if "kubegap did not produce a report (exit code 2): error: nothing to lint:" not in r["summary"]:
    fail("empty", r, f"summary: {r['summary']}")
if outcome(r, "Upload SARIF to code scanning") != "skipped":
    fail("empty", r, "nothing to upload")
r = load("empty-allowed")
if r["result"] != "success" or r["outputs"]["exit-code"] != "0" or "**passed (`--fail-on error`)**: 1 files, 0 objects" not in r["summary"]:
    fail("empty-allowed", r, f"--allow-empty must pass: {r['outputs']}\n{r['summary']}")

# A chart without helm: exit code 2 and a message, no SARIF upload.
r = load("chart-no-helm")
if r["result"] != "failure" or r["outputs"]["exit-code"] != "2" or "needs `helm` on PATH" not in r["log"]:
    fail("chart-no-helm", r, "missing helm must be explained")
if outcome(r, "Upload SARIF to code scanning") != "skipped":
    fail("chart-no-helm", r, "nothing to upload")
if "**failed before linting:** the `chart` input needs `helm` on PATH" not in r["summary"]:
    fail("chart-no-helm", r, f"summary: {r['summary']}")

# A chart with helm: the rendered chart is linted with the paths (stdin), origins kept: its
# Service selects no pod (a warning), beside k8s/web.yaml's error.
r = load("chart-helm")
if (r["outputs"]["errors"], r["outputs"]["warnings"]) != ("1", "1") or "title=kubegap (k8s-service-selects-nothing)::selector `app=shop` of Service `default/release-name-shop` matches no pod template in namespace `default` (from shop/templates/service.yaml)" not in r["log"]:
    fail("chart-helm", r, f"rendered chart findings: {r['outputs']}")
# The example workflow only passes inputs the action declares (actionlint cannot see the
# action.yml of a remote `uses:`).
import yaml
action = yaml.safe_load(open("action.yml"))
example = yaml.safe_load(open("docs/examples/kubegap-workflow.yml"))
for job in example["jobs"].values():
    for step in job["steps"]:
        if step.get("uses", "").startswith("kubegap/kubegap@"):
            unknown = set(step.get("with", {})) - set(action["inputs"])
            if unknown:
                print(f"action: docs/examples/kubegap-workflow.yml passes unknown inputs {unknown}", file=sys.stderr)
                sys.exit(1)
# The action installs the kubegap of its own release by default.
cargo_version = next(l.split('"')[1] for l in open("Cargo.toml") if l.startswith("version = "))
if action["inputs"]["version"]["default"] != cargo_version:
    print(f"action: action.yml's version default {action['inputs']['version']['default']} is not the workspace version {cargo_version}", file=sys.stderr)
    sys.exit(1)
# install: source builds with `cargo install --locked` and lints the same.
if os.environ.get("KUBEGAP_ACTION_QUICK") == "1":
    print("action: install: source left out (KUBEGAP_ACTION_QUICK=1)")
    sys.exit(0)
r = load("source")
if outcome(r, "Install kubegap from source (cargo install --locked)") != "success" or outcome(r, "Install kubegap from PyPI") != "skipped":
    fail("source", r, "install steps")
cache = next(s for s in r["steps"] if s["name"] == "Cache the source build")
if not cache["outcome"].startswith("would run") or not cache["with"]["key"].startswith("kubegap-source-Linux-") or len(cache["with"]["key"]) != len("kubegap-source-Linux-") + 16:
    fail("source", r, f"cache step: {cache}")
if r["outputs"]["errors"] != "1" or "Installed package `kubegap-cli v" not in r["log"]:
    fail("source", r, f"outputs {r['outputs']}")
print("action: default (fails on the error, SARIF + summary + annotations), fail-on never, PR mode (shallow clone, remote branch, no change; refused with chart or as a git option), nothing to lint (fails; passes with --allow-empty), chart without and with helm, install from source: as expected")
PY
}

start=$(date +%s)
run default
run never fail-on=never
echo "$base_sha" > "$work/base-sha"
run_git diff-shallow --depth=1 "base=$base_sha" fail-on=warning
run_git diff-branch --no-local base=release fail-on=warning
run_git diff-same --no-local base=main fail-on=warning
run base-chart base=main chart=charts/shop
run base-option base=--upload-pack=touch
run empty paths=notes
run empty-allowed paths=notes args=--allow-empty
run chart-no-helm chart=charts/shop paths=k8s
run chart-helm chart=charts/shop paths=k8s
runs=12
if [ "${KUBEGAP_ACTION_QUICK:-0}" = 1 ]; then runs=11; else run source install=source; fi
check
echo "action: $runs runs of the action's steps in $(( $(date +%s) - start )) s"
