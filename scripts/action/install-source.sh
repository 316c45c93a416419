#!/usr/bin/env bash
# action.yml, step "Install kubegap from source": `cargo install --locked` from the action's
# own checkout (the exact dependency versions of Cargo.lock). The target directory is under
# RUNNER_TEMP, which the previous step caches together with cargo's registry.
set -euo pipefail

export CARGO_TARGET_DIR="$RUNNER_TEMP/kubegap-target"
cargo install --locked --path "$GITHUB_ACTION_PATH/kubegap-cli" --root "$RUNNER_TEMP/kubegap"
echo "$RUNNER_TEMP/kubegap/bin" >> "$GITHUB_PATH"
"$RUNNER_TEMP/kubegap/bin/kubegap" --version
