#!/usr/bin/env bash
# The GitHub Action's own steps, run as a script (scripts/ci/run_action.py) on a sample
# repository (a git repository made from testdata/sample-repo), with kubegap installed by the
# action's PyPI step from the wheel that scripts/ci/wheel.sh built (pip pointed at it with
# PIP_FIND_LINKS and PIP_NO_INDEX, the same `pip install kubegap==VERSION`). Checks the
# annotations, the job summary, the SARIF file, the outputs, the failing step, the refusal of
# the PR-mode input and the `chart` input with and without `helm` (a stand-in on PATH).
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
cat <<'STREAM'
---
# Source: shop/templates/service.yaml
apiVersion: v1
kind: Service
metadata: {name: release-name-shop}
spec:
  selector: {app: shop}
  ports: [{port: 80, targetPort: http}]
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
  git -C "$ws" init --quiet
  "$TOOLS/bin/python" scripts/ci/run_action.py "$repo_root" "$ws" "$work/$case/temp" "$path" "$@" \
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

# PR mode: refused before anything is installed, with the reason.
r = load("base")
if r["result"] != "failure" or outcome(r, "Check inputs") != "failure (exit 1)" or outcome(r, "Install kubegap from PyPI") != "skipped":
    fail("base", r, "the base input must fail the first step")
if "needs `kubegap diff`" not in r["log"]:
    fail("base", r, "no explanation")

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
r = load("source")
if outcome(r, "Install kubegap from source (cargo install --locked)") != "success" or outcome(r, "Install kubegap from PyPI") != "skipped":
    fail("source", r, "install steps")
cache = next(s for s in r["steps"] if s["name"] == "Cache the source build")
if not cache["outcome"].startswith("would run") or not cache["with"]["key"].startswith("kubegap-source-Linux-") or len(cache["with"]["key"]) != len("kubegap-source-Linux-") + 16:
    fail("source", r, f"cache step: {cache}")
if r["outputs"]["errors"] != "1" or "Installed package `kubegap-cli v" not in r["log"]:
    fail("source", r, f"outputs {r['outputs']}")
print("action: default (fails on the error, SARIF + summary + annotations), fail-on never, base (refused), chart without and with helm, install from source: as expected")
PY
}

start=$(date +%s)
run default
run never fail-on=never
run base base=main
run chart-no-helm chart=charts/shop paths=k8s
run chart-helm chart=charts/shop paths=k8s
run source install=source
check
echo "action: 6 runs of the action's steps in $(( $(date +%s) - start )) s"
