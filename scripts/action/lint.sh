#!/usr/bin/env bash
# action.yml, step "Lint": runs kubegap three times on the same input (cheap: it is fast) for
# the log in the chosen format (annotations with `github`), the SARIF file and the job summary
# (from `--format json`), and sets the step's outputs. It never fails itself: the exit code is
# an output, so that SARIF is uploaded before the "Fail on findings" step fails the job.
#
# Lint mode (no `base`): `kubegap lint PATHS…`. PR mode (`base` set): `kubegap diff --git BASE
# PATHS…`, which reports what the change does (`diff-*` rules) and the lint findings HEAD (the
# checked-out working tree) adds to BASE. A BASE that is not in the local object store (a
# shallow checkout, actions/checkout's default) is fetched first with
# `git fetch --no-tags --depth=1 origin BASE`.
set -uo pipefail

read -r -a paths <<< "${INPUT_PATHS:-.}"
read -r -a extra <<< "${INPUT_ARGS:-}"
options=()
[ -n "${INPUT_CONFIG:-}" ] && options+=(--config "$INPUT_CONFIG")
options+=("${extra[@]}")
fail_on="${INPUT_FAIL_ON:-error}"
sarif_file="${INPUT_SARIF_FILE:-kubegap.sarif}"
json_file="$RUNNER_TEMP/kubegap.json"
stdin=/dev/null

# An error before kubegap runs: an annotation, the job summary, exit code 2 for the last step.
fail_early() {
  echo "::error title=kubegap::$1"
  printf '## kubegap\n\n**failed before linting:** %s\n' "$1" >> "$GITHUB_STEP_SUMMARY"
  echo "exit-code=2" >> "$GITHUB_OUTPUT"
  exit 0
}

command=(lint)
base="${INPUT_BASE:-}"
if [ -n "$base" ]; then
  # The revision to read BASE from: BASE itself when the checkout has it, else the remote
  # branch of that name, else fetched from origin (a shallow checkout has neither).
  if git rev-parse --verify --quiet "${base}^{commit}" > /dev/null; then
    rev="$base"
  elif git rev-parse --verify --quiet "refs/remotes/origin/${base}^{commit}" > /dev/null; then
    rev="origin/$base"
  else
    echo "kubegap: \`$base\` is not in this checkout (a shallow clone?): git fetch --no-tags --depth=1 origin $base"
    if ! git fetch --no-tags --depth=1 origin "$base"; then
      fail_early "the \`base\` input \`$base\` is not in this checkout and \`git fetch --no-tags --depth=1 origin $base\` failed (its error is in the log above); check out with \`fetch-depth: 0\` or fetch BASE before this step"
    fi
    if git rev-parse --verify --quiet "${base}^{commit}" > /dev/null; then
      rev="$base"
    else
      rev=$(git rev-parse --verify --quiet "FETCH_HEAD^{commit}") \
        || fail_early "\`git fetch origin $base\` fetched no commit"
    fi
  fi
  command=(diff --git "$rev")
fi

if [ -n "${INPUT_CHART:-}" ]; then
  if ! command -v helm > /dev/null 2>&1; then
    fail_early "the \`chart\` input needs \`helm\` on PATH to run \`helm template ${INPUT_CHART}\` (GitHub's hosted runners have it; elsewhere, install it first, e.g. with azure/setup-helm)"
  fi
  read -r -a values <<< "${INPUT_CHART_VALUES:-}"
  helm_args=(template "$INPUT_CHART")
  for v in "${values[@]}"; do helm_args+=(-f "$v"); done
  stdin="$RUNNER_TEMP/kubegap-chart.yaml"
  if ! helm "${helm_args[@]}" > "$stdin"; then
    fail_early "\`helm ${helm_args[*]}\` failed (its error is in the log above)"
  fi
  echo "kubegap: linting \`helm ${helm_args[*]}\` (stdin) with ${paths[*]}"
  paths+=(-)
fi

echo "::group::kubegap ${command[*]} ${paths[*]} ${options[*]} --fail-on $fail_on --format ${INPUT_FORMAT:-github}"
kubegap "${command[@]}" "${paths[@]}" "${options[@]}" --fail-on "$fail_on" --format "${INPUT_FORMAT:-github}" < "$stdin"
code=$?
echo "::endgroup::"
kubegap "${command[@]}" "${paths[@]}" "${options[@]}" --fail-on never --format sarif < "$stdin" > "$sarif_file" 2> /dev/null
sarif_code=$?
# stderr kept for the summary: why there is no report (a usage error, nothing to lint).
kubegap "${command[@]}" "${paths[@]}" "${options[@]}" --fail-on never --format json < "$stdin" > "$json_file" 2> "$json_file.stderr"

{
  echo "exit-code=$code"
  # A usage error (exit 2) writes no report worth uploading.
  if [ "$sarif_code" -eq 0 ] && [ -s "$sarif_file" ]; then echo "sarif-written=true"; else echo "sarif-written=false"; fi
} >> "$GITHUB_OUTPUT"
python=$(command -v python3 || command -v python)
"$python" "$GITHUB_ACTION_PATH/scripts/action/summary.py" "$json_file" "$fail_on" "$code" \
  "$GITHUB_OUTPUT" "$base" >> "$GITHUB_STEP_SUMMARY"
exit 0
