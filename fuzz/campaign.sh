#!/usr/bin/env bash
# A long fuzz campaign, as recorded in docs/RELIABILITY.md "What ran": each target given runs
# to N executions (default 10 M) from the committed seeds, testdata/ (rulesets/ for config) and
# its dictionary, without a sanitizer (the core forbids `unsafe`: the fuzzer looks for panics,
# hangs and memory blow-ups), on one core (RAYON_NUM_THREADS=1), under `nice`. The corpus it
# grows goes to target/fuzz-campaign/corpus/TARGET, the log to target/fuzz-campaign/TARGET.log,
# a one-line result per target to target/fuzz-campaign/summary.
#
#   bash fuzz/campaign.sh yaml haproxy          two targets, one after the other
#   RUNS=1000000 MAX_LEN=1024 bash fuzz/campaign.sh nginx_includes
#
# Run several at once for several cores. Needs cargo-fuzz (`cargo install cargo-fuzz`); on a
# stable toolchain RUSTC_BOOTSTRAP=1 enables the nightly flags it uses.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
runs=${RUNS:-10000000}
max_len=${MAX_LEN:-2048}
out=../target/fuzz-campaign
mkdir -p "$out"
export RUSTC_BOOTSTRAP=1 RAYON_NUM_THREADS=1
cargo fuzz build -O -s none || exit 1
for target in "$@"; do
  case "$target" in
    yaml|yaml_scanner|lint_one) seeds=../testdata; dict=dict/yaml.dict ;;
    config) seeds=../rulesets; dict=dict/config.dict ;;
    haproxy) seeds=../testdata; dict=dict/haproxy.dict ;;
    nginx|nginx_includes) seeds=../testdata; dict=dict/nginx.dict ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
  esac
  mkdir -p "$out/corpus/$target"
  start=$(date -u +%FT%TZ)
  nice -n 10 cargo fuzz run -O -s none "$target" "$out/corpus/$target" "corpus/$target" "$seeds" -- \
    -runs="$runs" -dict="$dict" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 > "$out/$target.log" 2>&1
  rc=$?
  echo "$target rc=$rc $start..$(date -u +%FT%TZ) $(git rev-parse --short HEAD) max_len=$max_len" \
    "$(grep -E 'number_of_executed|average_exec|peak_rss' "$out/$target.log" | tr -s ' ' | tr '\n' ' ')" \
    >> "$out/summary"
  [ "$rc" = 0 ] || echo "FUZZ CAMPAIGN: $target stopped with $rc; the input is in fuzz/artifacts/$target/ (see docs/RELIABILITY.md)" >&2
done
