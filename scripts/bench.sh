#!/usr/bin/env bash
# Measures kubegap's end-to-end speed (release build, all rules, JSON output to /dev/null):
#   1. the real-world corpus in ../shared/corpus (k8s + helm + haproxy + nginx), 1 and 2 threads;
#   2. a generated 50 MB `helm template` stream on stdin, 1 and 2 threads.
# Needs hyperfine (apt-get install hyperfine). Results go to target/bench/*.md;
# docs/PERFORMANCE.md records the numbers of the last run on the reference machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p kubegap-cli
mkdir -p target/bench
stream=target/bench/helm-stream.yaml
[ -s "$stream" ] || python3 scripts/gen_helm_stream.py 15000 > "$stream"
bin=target/release/kubegap
corpus=../shared/corpus
hyperfine --warmup 1 --runs 5 --ignore-failure --export-markdown target/bench/corpus.md \
  -n "corpus, 1 thread"  "$bin lint $corpus/k8s $corpus/helm $corpus/haproxy $corpus/nginx --format json --threads 1 > /dev/null" \
  -n "corpus, 2 threads" "$bin lint $corpus/k8s $corpus/helm $corpus/haproxy $corpus/nginx --format json --threads 2 > /dev/null"
hyperfine --warmup 1 --runs 5 --ignore-failure --export-markdown target/bench/stream.md \
  -n "50 MB stream, 1 thread"  "$bin lint - --format json --threads 1 < $stream > /dev/null" \
  -n "50 MB stream, 2 threads" "$bin lint - --format json --threads 2 < $stream > /dev/null"
/usr/bin/time -v "$bin" lint - --format json < "$stream" 2> target/bench/rss.txt > /dev/null || true
grep -E "Maximum resident|Elapsed" target/bench/rss.txt
ls -l "$stream"
