#!/usr/bin/env bash
# action.yml, step "Check inputs": refuses inputs that cannot work together, before installing.
set -euo pipefail

if [ -n "${INPUT_BASE:-}" ] && [ -n "${INPUT_CHART:-}" ]; then
  echo "::error title=kubegap::\`base\` (PR mode, \`kubegap diff --git\`) and \`chart\` cannot be combined: diff reads BASE from git, and a rendered chart has no BASE there. Lint the chart in a second step of this action without \`base\`."
  exit 1
fi
case "${INPUT_BASE:-}" in
  -*)
    # It becomes an argument of `git rev-parse` and `git fetch`: never an option.
    echo "::error title=kubegap::\`base\` must be a commit or a branch name, not \`${INPUT_BASE}\`"
    exit 1
    ;;
esac
case "${INPUT_INSTALL:-}" in
  pypi | source) ;;
  *)
    echo "::error title=kubegap::install must be \`pypi\` or \`source\`, not \`${INPUT_INSTALL:-}\`"
    exit 1
    ;;
esac
