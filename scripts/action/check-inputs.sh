#!/usr/bin/env bash
# action.yml, step "Check inputs": refuses what this version cannot do, before installing.
set -euo pipefail

if [ -n "${INPUT_BASE:-}" ]; then
  echo "::error title=kubegap: PR mode is not available::The \`base\` input (report only the findings that the head adds to \`${INPUT_BASE}\`) needs \`kubegap diff\` and a baseline, which this version of kubegap does not have. Remove \`base\` to lint the whole head: the annotations, the job summary and the SARIF upload (which code scanning already compares with the base branch) then cover every finding."
  exit 1
fi
case "${INPUT_INSTALL:-}" in
  pypi | source) ;;
  *)
    echo "::error title=kubegap::install must be \`pypi\` or \`source\`, not \`${INPUT_INSTALL:-}\`"
    exit 1
    ;;
esac
