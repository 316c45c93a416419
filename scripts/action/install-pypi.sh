#!/usr/bin/env bash
# action.yml, step "Install kubegap from PyPI": the wheel carries the binary (no Rust needed),
# in a virtual environment of its own whose bin/ is added to PATH for the next steps.
set -euo pipefail

python=$(command -v python3 || command -v python)
venv="$RUNNER_TEMP/kubegap-venv"
"$python" -m venv "$venv"
bin="$venv/bin"
[ -d "$bin" ] || bin="$venv/Scripts" # Windows
"$bin/python" -m pip install --quiet --disable-pip-version-check "kubegap==${INPUT_VERSION}"
echo "$bin" >> "$GITHUB_PATH"
"$bin/kubegap" --version
