#!/usr/bin/env bash
# The pre-commit hook end to end, as a user meets it: the real `pre-commit` (PyPI) installs the
# hook from a clone of this repository (`repo:` a local path, `rev:` its HEAD) into an empty
# cache, in a throwaway git repository; a good manifest passes, a bad one fails with kubegap's
# findings, and a repository with only non-Kubernetes JSON/YAML passes. The first run's time
# is printed (it includes the hook's install).
#
# CARGO_TARGET_DIR: by default the hook's build reuses this checkout's target/ (the wheel step's
# release build), so CI does not compile the dependencies twice. KUBEGAP_HOOK_FRESH_BUILD=1
# builds in an empty target directory instead: what a user's first run costs (docs/USER_GUIDE.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/ci/tools.sh
repo_root=$PWD

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "pre-commit: note: the hook is installed from HEAD; uncommitted changes are not part of it" >&2
fi
rev=$(git rev-parse HEAD)

work="$KUBEGAP_CI_DIR/pre-commit"
rm -rf "$work"
mkdir -p "$work"
git clone --quiet "$repo_root" "$work/kubegap"
export PRE_COMMIT_HOME="$work/cache"
if [ "${KUBEGAP_HOOK_FRESH_BUILD:-0}" = 1 ]; then
  export CARGO_TARGET_DIR="$work/cargo-target"
else
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo_root/target}"
fi

project="$work/project"
mkdir -p "$project/k8s"
cd "$project"
git init --quiet
git config user.email ci@example.invalid
git config user.name ci
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $work/kubegap
    rev: $rev
    hooks: [{id: kubegap}]
YAML
# A good manifest, and a Helm chart source whose templates must not fail the hook.
cp "$repo_root/testdata/sample-repo/kustomize/base/deployment.yaml" k8s/api.yaml
cp "$repo_root/testdata/sample-repo/kustomize/base/service.yaml" k8s/api-service.yaml
cp -r "$repo_root/testdata/sample-repo/charts" charts
git add -A
git commit --quiet -m good

run_hook() {
  set +e
  "$TOOLS/bin/pre-commit" run --all-files --color never > "$work/out.txt" 2>&1
  code=$?
  set -e
}

start=$(date +%s)
run_hook
first=$(( $(date +%s) - start ))
if [ "$code" -ne 0 ]; then
  cat "$work/out.txt"
  echo "pre-commit: the hook failed on a good repository (exit $code)" >&2
  exit 1
fi
grep -q '^kubegap\.*Passed$' "$work/out.txt" || { cat "$work/out.txt"; echo "pre-commit: the kubegap hook did not run" >&2; exit 1; }
echo "pre-commit: first run on an empty cache (installing the hook) passed in ${first} s (CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"

start=$(date +%s)
run_hook
echo "pre-commit: second run passed in $(( $(date +%s) - start )) s"
[ "$code" -eq 0 ] || { cat "$work/out.txt"; exit 1; }

# A bad manifest: the Service's targetPort names a port no pod declares.
cp "$repo_root/testdata/sample-repo/k8s/web.yaml" k8s/web.yaml
git add -A
run_hook
if [ "$code" -ne 1 ]; then
  cat "$work/out.txt"
  echo "pre-commit: expected the hook to fail with exit 1 on a bad manifest, got $code" >&2
  exit 1
fi
for want in '^kubegap\.*Failed$' 'k8s-service-target-port-missing' 'k8s/web.yaml:12:19' '1 error'; do
  grep -q -- "$want" "$work/out.txt" || { cat "$work/out.txt"; echo "pre-commit: output lacks '$want'" >&2; exit 1; }
done
echo "pre-commit: a bad manifest fails the hook with kubegap's finding (k8s/web.yaml:12)"

# A repository with no manifest, haproxy.cfg or nginx config, whose changed files match the
# hook's `files:` (package.json, a CI YAML): the hook lints what is there, nothing, and passes
# (the hook's `--allow-empty`) instead of failing with "nothing to lint".
other="$work/no-manifests"
mkdir -p "$other/.ci"
cd "$other"
git init --quiet
git config user.email ci@example.invalid
git config user.name ci
cp "$project/.pre-commit-config.yaml" .
echo '{"name": "web", "version": "1.0.0", "private": true}' > package.json
printf 'stages: [test]\ntest:\n  script: [npm test]\n' > .ci/pipeline.yml
git add -A
git commit --quiet -m 'no manifests'
run_hook
if [ "$code" -ne 0 ] || ! grep -q '^kubegap\.*Passed$' "$work/out.txt"; then
  cat "$work/out.txt"
  echo "pre-commit: the hook must pass in a repository with nothing to lint, got exit $code" >&2
  exit 1
fi
echo "pre-commit: a repository with only package.json and a CI YAML passes (nothing to lint is allowed)"
