#!/usr/bin/env bash
# The wheel, tested as a user would use it: maturin builds it (release, with Cargo.lock), pip
# installs the file into a fresh virtual environment, and the `kubegap` of that environment's
# bin/ must print the workspace version and lint a sample repository with the expected finding
# and exit code.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/ci/tools.sh

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
wheels="$KUBEGAP_CI_DIR/wheels"
rm -rf "$wheels"
start=$(date +%s)
"$TOOLS/bin/maturin" build --release --quiet --out "$wheels"
echo "wheel: built in $(( $(date +%s) - start )) s"
shopt -s nullglob
built=("$wheels"/kubegap-"$version"-*.whl)
[ "${#built[@]}" -eq 1 ] || { echo "expected one kubegap-$version wheel in $wheels, found: ${built[*]:-none}" >&2; exit 1; }
wheel="${built[0]}"
echo "wheel: $(basename "$wheel") ($(( $(stat -c %s "$wheel") / 1024 )) KiB)"

# The wheel carries the binary as a script, and nothing else but metadata.
python3 - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
scripts = [n for n in names if ".data/scripts/" in n]
assert [s.rsplit("/", 1)[1] for s in scripts] == ["kubegap"], names
others = [n for n in names if n not in scripts and ".dist-info/" not in n]
assert not others, others
PY

venv="$KUBEGAP_CI_DIR/wheel-venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --no-index "$wheel"
# Only the environment's bin/ and the system's: no cargo-built kubegap can answer instead.
user_path="$venv/bin:/usr/bin:/bin"
[ "$(PATH="$user_path" command -v kubegap)" = "$venv/bin/kubegap" ]
got=$(PATH="$user_path" kubegap --version)
[ "$got" = "kubegap $version" ] || { echo "kubegap --version printed '$got', expected 'kubegap $version'" >&2; exit 1; }
echo "wheel: $got from $venv/bin/kubegap"

set +e
PATH="$user_path" kubegap lint testdata/sample-repo --format json > "$KUBEGAP_CI_DIR/wheel-lint.json"
code=$?
set -e
[ "$code" -eq 1 ] || { echo "kubegap lint testdata/sample-repo exited $code, expected 1" >&2; exit 1; }
python3 - "$KUBEGAP_CI_DIR/wheel-lint.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
got = [(f["rule"], f["file"], f["line"]) for f in report["findings"]]
want = [
    ("helm-chart-not-rendered", "testdata/sample-repo/charts/shop/Chart.yaml", 2),
    ("k8s-service-target-port-missing", "testdata/sample-repo/k8s/web.yaml", 12),
]
assert got == want, got
PY
echo "wheel: lint run from the installed wheel exits 1 with the expected findings"
