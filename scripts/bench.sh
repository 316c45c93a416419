#!/usr/bin/env bash
# kubegap's benchmark, side by side with the tools its users would otherwise run. A benchmark,
# not a test: nothing here fails on a number, and CI does not run it.
#
#   bash scripts/bench.sh            everything (Checkov adds about 2 x 200 s)
#   bash scripts/bench.sh --quick    without Checkov; yamllint once
#   bash scripts/bench.sh --memory   kubegap alone, no peers: the peak-memory rows and issue
#                                    #16's bound (6 x input + 50 MB) for each input
#   RUNS=3 bash scripts/bench.sh     peer runs per comparison (default 2)
#   KRUNS=5 bash scripts/bench.sh    kubegap runs before each peer run (default 3:
#                                    A A A B A A A B)
#
# What it does:
#   1. installs the peers, pinned, into a virtual environment (target/bench/venv) from PyPI:
#      checkov, yamllint, gixy-ng, pyyaml (with libyaml); the PyYAML and gixy-ng runs go through
#      scripts/bench_pyyaml.py and scripts/bench_gixy.py (one process over every file);
#   2. builds kubegap in release mode;
#   3. generates the inputs in target/bench/inputs: the `helm template` stream of
#      scripts/gen_helm_stream.py at 1x, 2x, 4x, 8x of BASE releases (default 1875; 8x is the
#      51 MB stream of 15,000 releases), 20,000 small manifests, and the adversarial shapes of
#      scripts/gen_shapes.py;
#   4. runs kubegap once untimed (the inputs into the page cache), then kubegap and each peer
#      interleaved (KRUNS kubegap runs before each peer run: A A A B A A A B) under
#      `/usr/bin/time`, all output to /dev/null, and prints wall and CPU (user + system)
#      medians, their ratios, and the median of the runs' peak RSS (issue #16's bound is
#      checked on the largest). kubegap's runs take a fraction of a second and move by a
#      third from run to run with the host, a peer's take seconds to minutes: with one
#      kubegap run per peer run, one slow kubegap run set a ratio (the eighteenth round's
#      Checkov pairs); its median over more runs does not. kubegap runs with all rules and
#      its default threads (all cores) unless the row says otherwise;
#   5. checks issue #13's doubling again with a precise clock (scripts/doubling.py), compares
#      two threads with one and with two one-thread processes at once (scripts/threads.py: the
#      machine's own ceiling for two), times each phase of a one-thread run with its memory
#      (scripts/phases.py, from the table kubegap prints under KUBEGAP_PHASES), counts the
#      instructions of each step of the growing inputs (scripts/instructions.py, valgrind), then measures the parse into the tree alone on one thread (kubegap-core/examples/parse_bench.rs):
#      kubegap's scanner, granit-parser into the same tree, granit-parser's bare events; and the
#      whole CLI on one thread against that parse, alternating (scripts/lint_over_parse.py).
# The raw measurements go to target/bench/times.tsv, the printed report to
# target/bench/report.txt; docs/PERFORMANCE.md is written from that report.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
memory=0
[ "${1:-}" = "--quick" ] && quick=1
[ "${1:-}" = "--memory" ] && quick=1 && memory=1
RUNS=${RUNS:-2}
KRUNS=${KRUNS:-3}
BASE=${BASE:-1875}
out=${OUT:-target/bench}
in=$out/inputs
mkdir -p "$in"
corpus=${CORPUS:-../shared/corpus}

# 1. Peers, pinned.
venv=${VENV:-target/bench/venv}
if [ "$memory" = 1 ]; then
  py=python3
else
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  pins="yamllint==1.38.0 gixy-ng==0.2.59 pyyaml==6.0.3"
  [ "$quick" = 1 ] || pins="$pins checkov==3.3.30"
  "$venv/bin/pip" install -q $pins
  py=$venv/bin/python
fi

# 2. kubegap.
cargo build --release -p kubegap-cli
bin=target/release/kubegap

# 3. Inputs (generated once; delete target/bench/inputs to regenerate).
for m in 1 2 4 8 16; do
  f=$in/stream-${m}x.yaml
  [ -s "$f" ] || python3 scripts/gen_helm_stream.py $((BASE * m)) > "$f"
done
[ -d "$in/small" ] || python3 scripts/gen_shapes.py small "$in/small" 20000
[ -d "$in/haproxy-services" ] || python3 scripts/gen_shapes.py haproxy-services "$in/haproxy-services" 4000 2000
for n in 1600 3200; do
  [ -s "$in/copies-$n.yaml" ] || python3 scripts/gen_shapes.py copies $n > "$in/copies-$n.yaml"
done
# testdata/cli/helm-stream.yaml repeated to 10 MB: identical objects, each Service selecting
# every copy (docs/RELIABILITY.md "Memory").
if [ ! -s "$in/identical-10mb.yaml" ]; then
  n=$((10000000 / $(wc -c < testdata/cli/helm-stream.yaml)))
  for ((i = 0; i < n; i++)); do cat testdata/cli/helm-stream.yaml; echo '---'; done > "$in/identical-10mb.yaml"
fi
# Copies of a release of every linked kind in one stream, named alike (every Service selects
# every copy's Deployment); with a known app keep-alive, each copy's chains differ.
for n in 1000 2000; do
  [ -s "$in/release-copies-$n.yaml" ] || python3 scripts/gen_shapes.py release-copies $n > "$in/release-copies-$n.yaml"
done
for n in 250 500; do
  [ -s "$in/app-copies-$n.yaml" ] || python3 scripts/gen_shapes.py release-copies $n app > "$in/app-copies-$n.yaml"
done
# The same releases named apart, one label: every Service selects every app, N^2 real chains.
for n in 100 200 400 800 1600 3200; do
  [ -s "$in/app-apps-$n.yaml" ] || python3 scripts/gen_shapes.py release-copies $n app distinct > "$in/app-apps-$n.yaml"
done
# ... with a request-timeout inversion on every route, and behind GKE Ingresses.
for v in slow gce; do
  [ -s "$in/app-apps-$v-200.yaml" ] || python3 scripts/gen_shapes.py release-copies 200 app distinct $v > "$in/app-apps-$v-200.yaml"
done
# ... with every Ingress declaring a ping interval above its read timeout (an idle-budget
# finding on each of the 400 routes' 400 chains: 147 MB before the rule rendered once per cause).
[ -s "$in/app-apps-ping-400.yaml" ] || python3 scripts/gen_shapes.py release-copies 400 app distinct ping > "$in/app-apps-ping-400.yaml"
for n in 2000 4000; do
  [ -d "$in/same-labels-$n" ] || python3 scripts/gen_shapes.py same-labels "$in/same-labels-$n" $n
  [ -d "$in/same-names-$n" ] || python3 scripts/gen_shapes.py same-names "$in/same-names-$n" $n
done
for n in 20000 40000; do
  [ -s "$in/definitions-$n.yaml" ] || python3 scripts/gen_shapes.py definitions $n > "$in/definitions-$n.yaml"
done
[ -s "$in/haproxy-300k.cfg" ] || python3 scripts/gen_shapes.py haproxy-lines 300000 > "$in/haproxy-300k.cfg"
[ -s "$in/haproxy-1m.cfg" ] || python3 scripts/gen_shapes.py haproxy-lines 1000000 > "$in/haproxy-1m.cfg"
# What `kubectl get deploy,svc,ingress,hpa -A -o yaml` prints of a cluster of 4,000 apps: one
# `List` of 16,000 objects with their `status` and `managedFields` (40.7 MB).
[ -s "$in/kubectl-4000.yaml" ] || python3 scripts/gen_shapes.py kubectl-dump 4000 > "$in/kubectl-4000.yaml"
# The same with one CustomResourceDefinition among them (a dump of every resource has some):
# parsed on one thread until the twenty-sixth round.
[ -s "$in/kubectl-4000-definition.yaml" ] ||
  python3 scripts/gen_shapes.py kubectl-dump 4000 definition > "$in/kubectl-4000-definition.yaml"
# A pull request's rendering: the 8x stream with one Deployment's replicas changed (for
# `kubegap diff`); the stream's own baseline (for `--baseline`).
[ -s "$in/stream-8x-changed.yaml" ] ||
  sed '0,/replicas: 2/s//replicas: 3/' "$in/stream-8x.yaml" > "$in/stream-8x-changed.yaml"

times=$out/times.tsv
: > "$times"
# run LABEL COMMAND: one timed run (the command is exec'd by bash, so the measured process is
# the tool itself); appends label, wall, user, system, max RSS (KB) to times.tsv.
run() {
  local label=$1 cmd=$2 t start end
  t=$(mktemp)
  start=$EPOCHREALTIME
  /usr/bin/time -f "%U %S %M" -o "$t" bash -c "exec $cmd" > /dev/null 2>&1 || true
  end=$EPOCHREALTIME
  # Wall from bash's microsecond clock; CPU (10 ms resolution) and RSS from time.
  printf '%s\t%s\t%s\n' "$label" "$(echo "$end - $start" | bc)" "$(tail -1 "$t" | tr ' ' '\t')" >> "$times"
  rm -f "$t"
}
# warm CMD: one untimed run of kubegap over the same inputs first, so that every timed run,
# kubegap's and the peer's, reads its files from the page cache (a cold first run measured the
# disk, not the tool).
warm() {
  bash -c "exec $1" > /dev/null 2>&1 || true
}
# pair NAME A_CMD B_CMD [RUNS]: KRUNS runs of A, then one of B, RUNS times (A A A B A A A B).
pair() {
  local name=$1 a=$2 b=$3 n=${4:-$RUNS} i j
  warm "$a"
  for ((i = 0; i < n; i++)); do
    for ((j = 0; j < KRUNS; j++)); do run "$name|kubegap" "$a"; done
    run "$name|peer" "$b"
  done
}
# solo NAME CMD [RUNS]
solo() {
  local name=$1 cmd=$2 n=${3:-$RUNS} i
  warm "$cmd"
  for ((i = 0; i < n; i++)); do run "$name|kubegap" "$cmd"; done
}

k8s="$corpus/k8s $corpus/helm"
lint="$bin lint --format json"
if [ "$memory" = 0 ]; then
  echo "== peers (interleaved: $KRUNS kubegap runs, then one of the peer, $RUNS times) ==" >&2
  # The corpus: kubegap lints k8s + helm; the bare parse loads the same YAML files.
  pair "k8s+helm corpus vs PyYAML CLoader load_all" "$lint $k8s" "$py scripts/bench_pyyaml.py $k8s"
  pair "20,000 small manifests vs PyYAML CLoader load_all" "$lint $in/small" "$py scripts/bench_pyyaml.py $in/small"
  pair "51 MB helm stream (8x) vs PyYAML CLoader load_all" "$lint - < $in/stream-8x.yaml" "$py scripts/bench_pyyaml.py - < $in/stream-8x.yaml"
  # gixy's own loop over every file in one process (the `gixy` command stops at the first file
  # one of its plugins crashes on).
  pair "nginx corpus vs gixy-ng" "$lint $corpus/nginx" "$py scripts/bench_gixy.py $corpus/nginx"
  if [ "$quick" = 1 ]; then
    pair "k8s+helm corpus vs yamllint (relaxed)" "$lint $k8s" "$venv/bin/yamllint -d relaxed -f parsable $k8s" 1
  else
    pair "k8s+helm corpus vs yamllint (relaxed)" "$lint $k8s" "$venv/bin/yamllint -d relaxed -f parsable $k8s"
    pair "k8s+helm corpus vs Checkov (kubernetes)" "$lint $k8s" \
      "$venv/bin/checkov -d $corpus/k8s -d $corpus/helm --framework kubernetes --quiet --compact --skip-download -o json"
  fi

fi

echo "== kubegap alone ==" >&2
solo "whole corpus (k8s helm haproxy nginx), 1 thread" "$lint --threads 1 $k8s $corpus/haproxy $corpus/nginx"
solo "whole corpus (k8s helm haproxy nginx), 2 threads" "$lint --threads 2 $k8s $corpus/haproxy $corpus/nginx"
for m in 1 2 4 8; do
  solo "helm stream ${m}x, 1 thread" "$lint --threads 1 - < $in/stream-${m}x.yaml"
done
solo "helm stream 8x, 2 threads" "$lint --threads 2 - < $in/stream-8x.yaml"
# The ~100 MB stream of issue #16's memory bound (memory only: 1 thread, like the others).
solo "helm stream 16x, 1 thread" "$lint --threads 1 - < $in/stream-16x.yaml"
solo "k8s+helm corpus" "$lint $k8s"
solo "20,000 small manifests" "$lint $in/small"
solo "3,200 copies of one release" "$lint $in/copies-3200.yaml"
solo "1,600 copies of one release" "$lint $in/copies-1600.yaml"
solo "identical copies of testdata/cli/helm-stream.yaml" "$lint $in/identical-10mb.yaml"
solo "1,000 copies of an eight-object release" "$lint $in/release-copies-1000.yaml"
solo "2,000 copies of an eight-object release" "$lint $in/release-copies-2000.yaml"
solo "250 copies of it with a known app keep-alive" "$lint $in/app-copies-250.yaml"
solo "500 copies of it with a known app keep-alive" "$lint $in/app-copies-500.yaml"
solo "100 of them named apart, one label" "$lint $in/app-apps-100.yaml"
solo "200 of them named apart, one label" "$lint $in/app-apps-200.yaml"
solo "400 of them named apart, one label" "$lint $in/app-apps-400.yaml"
solo "800 of them named apart, one label" "$lint $in/app-apps-800.yaml"
solo "1,600 of them named apart, one label" "$lint $in/app-apps-1600.yaml"
solo "3,200 of them named apart, one label" "$lint $in/app-apps-3200.yaml"
solo "200 named apart, slow Ingresses" "$lint $in/app-apps-slow-200.yaml"
solo "200 named apart, GKE Ingresses" "$lint $in/app-apps-gce-200.yaml"
solo "400 named apart, Ingresses declaring a ping interval" "$lint $in/app-apps-ping-400.yaml"
solo "2,000 haproxy servers beside 4,000 Services" "$lint $in/haproxy-services"
solo "2,000 apps labelled alike, one directory each" "$lint $in/same-labels-2000"
solo "4,000 apps labelled alike, one directory each" "$lint $in/same-labels-4000"
solo "2,000 apps named alike, one directory each" "$lint $in/same-names-2000"
solo "4,000 apps named alike, one directory each" "$lint $in/same-names-4000"
solo "20,000 definitions in one List" "$lint $in/definitions-20000.yaml"
solo "40,000 definitions in one List" "$lint $in/definitions-40000.yaml"
solo "haproxy.cfg 300k lines" "$lint $in/haproxy-300k.cfg"
solo "haproxy.cfg 1M lines" "$lint $in/haproxy-1m.cfg"
solo "kubectl get -o yaml of 16,000 objects, 1 thread" "$lint --threads 1 $in/kubectl-4000.yaml"
solo "kubectl get -o yaml of 16,000 objects, 2 threads" "$lint --threads 2 $in/kubectl-4000.yaml"
solo "the same and one definition, 1 thread" "$lint --threads 1 $in/kubectl-4000-definition.yaml"
solo "the same and one definition, 2 threads" "$lint --threads 2 $in/kubectl-4000-definition.yaml"
solo "one small file" "$bin lint testdata/cli/clean.yaml" 5
solo "kubegap rules" "$bin rules" 5
# The other paths users run: the SARIF report GitHub code scanning uploads, JUnit for GitLab
# and Jenkins, a baseline, and `kubegap diff` of two renderings.
solo "k8s+helm corpus, --format sarif" "$bin lint --format sarif $k8s"
solo "k8s+helm corpus, --format junit" "$bin lint --format junit $k8s"
solo "helm stream 8x, --format sarif" "$bin lint --format sarif $in/stream-8x.yaml"
# The default format, what a terminal or a CI log shows (miette's report at 100 columns).
solo "k8s+helm corpus, --format human" "$bin lint --format human $k8s"
solo "helm stream 8x, --format human" "$bin lint --format human $in/stream-8x.yaml"
solo "haproxy.cfg 300k lines, --format human" "$bin lint --format human $in/haproxy-300k.cfg"
"$bin" lint --write-baseline "$out/stream-8x.baseline.json" "$in/stream-8x.yaml" > /dev/null 2>&1 || true
solo "helm stream 8x, --baseline of itself" "$lint --baseline $out/stream-8x.baseline.json $in/stream-8x.yaml"
solo "kubegap diff: helm stream 8x and a one-line change" "$bin diff --format json $in/stream-8x.yaml $in/stream-8x-changed.yaml"
solo "kubegap diff: k8s+helm corpus against itself" "$bin diff --format json $corpus/k8s $corpus/k8s"

# The report.
sizes=$out/sizes.tsv
{
  printf 'k8s+helm\t%s\n' "$(find $corpus/k8s $corpus/helm -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -print0 | xargs -0 cat | wc -c)"
  for f in "$in"/stream-*x.yaml "$in"/copies-*.yaml "$in"/release-copies-*.yaml "$in"/app-copies-*.yaml "$in"/app-apps-*.yaml "$in"/identical-*.yaml "$in"/haproxy-*.cfg "$in"/kubectl-*.yaml; do printf '%s\t%s\n' "$(basename "$f")" "$(wc -c < "$f")"; done
  printf 'small\t%s\n' "$(find "$in/small" -type f -print0 | xargs -0 cat | wc -c)"
} > "$sizes"
{
  echo "kubegap benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD)"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB; load average before the report: $(cut -d' ' -f1-3 /proc/loadavg)"
  [ "$memory" = 1 ] || echo "peers: $("$venv/bin/pip" freeze 2>/dev/null | grep -iE '^(checkov|yamllint|gixy-ng|pyyaml)==' | tr '\n' ' ')"
  summary='import json,sys; s=json.load(sys.stdin)["summary"]; print(s["files"], "files,", s["documents"], "documents,", s["objects"], "objects")'
  echo "kubegap: $($bin --version 2>/dev/null || echo '?'); corpus as linted: k8s+helm $($bin lint --format json $k8s 2>/dev/null | "$py" -c "$summary" || true); whole corpus (k8s helm haproxy nginx) $($bin lint --format json $k8s $corpus/haproxy $corpus/nginx 2>/dev/null | "$py" -c "$summary" || true); k8s+helm YAML bytes $(grep '^k8s+helm' "$sizes" | cut -f2)"
  "$py" - "$times" "$sizes" <<'EOF'
import sys, statistics
rows = {}
order = []
for line in open(sys.argv[1]):
    label, wall, user, sys_, rss = line.rstrip("\n").split("\t")
    name, who = label.split("|")
    if name not in rows:
        rows[name] = {}
        order.append(name)
    rows[name].setdefault(who, []).append((float(wall), float(user) + float(sys_), int(rss)))
sizes = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[2]))
def med(rs, i): return statistics.median(r[i] for r in rs)
# Peak RSS: the median of the runs' peaks (kubegap has KRUNS times the peer's runs, and a
# largest over more runs reads higher); issue #16's bound, a limit, is checked on the largest.
def peak(rs): return statistics.median(r[2] for r in rs) / 1024
def largest(rs): return max(r[2] for r in rs) / 1024
def fmt_s(s): return f"{s:.3f} s" if s < 10 else f"{s:.1f} s"
def ratio(a, b): return f"{a / b:.1f}x" if b > 0 else "-"
if any("peer" in rows[n] for n in order):
    print()
    print("| comparison | runs kubegap / peer | kubegap wall / CPU | peer wall / CPU | ratio wall / CPU | peak RSS kubegap / peer |")
    print("|---|---:|---:|---:|---:|---:|")
for name in order:
    r = rows[name]
    if "peer" not in r:
        continue
    k, p = r["kubegap"], r["peer"]
    kw, kc, pw, pc = med(k, 0), med(k, 1), med(p, 0), med(p, 1)
    print(f"| {name} | {len(k)} / {len(p)} | {fmt_s(kw)} / {fmt_s(kc)} | {fmt_s(pw)} / {fmt_s(pc)} | "
          f"{ratio(pw, kw)} / {ratio(pc, kc)} | {peak(k):.0f} / {peak(p):.0f} MiB |")
print()
print("| kubegap alone | runs | wall (median) | CPU (median) | peak RSS | RSS / input |")
print("|---|---:|---:|---:|---:|---:|")
size_of = {
    "helm stream 1x": "stream-1x.yaml", "helm stream 2x": "stream-2x.yaml",
    "helm stream 4x": "stream-4x.yaml", "helm stream 8x": "stream-8x.yaml",
    "helm stream 16x": "stream-16x.yaml", "k8s+helm corpus": "k8s+helm",
    "20,000 small manifests": "small", "identical copies": "identical-10mb.yaml",
    "3,200 copies": "copies-3200.yaml", "1,600 copies": "copies-1600.yaml",
    "1,000 copies of an eight": "release-copies-1000.yaml",
    "2,000 copies of an eight": "release-copies-2000.yaml",
    "250 copies of it": "app-copies-250.yaml", "500 copies of it": "app-copies-500.yaml",
    "100 of them named apart": "app-apps-100.yaml", "200 of them named apart": "app-apps-200.yaml",
    "400 of them named apart": "app-apps-400.yaml", "800 of them named apart": "app-apps-800.yaml",
    "1,600 of them named apart": "app-apps-1600.yaml",
    "3,200 of them named apart": "app-apps-3200.yaml",
    "200 named apart, slow": "app-apps-slow-200.yaml", "200 named apart, GKE": "app-apps-gce-200.yaml",
    "400 named apart, Ingresses declaring": "app-apps-ping-400.yaml",
    "haproxy.cfg 300k": "haproxy-300k.cfg", "haproxy.cfg 1M": "haproxy-1m.cfg",
    "kubectl get -o yaml": "kubectl-4000.yaml",
}
prev = None
for name in order:
    r = rows[name]
    if "peer" in r:
        continue
    k = r["kubegap"]
    size = next((int(sizes[f]) for pre, f in size_of.items() if name.startswith(pre)), None)
    ratio = f"{peak(k) * 1024 * 1024 / size:.1f}x of {size / 1e6:.1f} MB" if size else ""
    print(f"| {name} | {len(k)} | {fmt_s(med(k, 0))} | {fmt_s(med(k, 1))} | {peak(k):.0f} MiB | {ratio} |")
print()
print("Memory bound of issue #16 (peak RSS <= 6 x input + 50 MB, every input of known size; MB = 10^6 bytes here, MiB in the table above):")
print()
print("| input | input | peak RSS | bound | met |")
print("|---|---:|---:|---:|---|")
for name in order:
    for pre, f in size_of.items():
        if name.startswith(pre) and f in sizes:
            k = rows[name]["kubegap"]
            size = int(sizes[f]) / 1e6
            bound = 6 * size + 50
            print(f"| {name} | {size:.1f} MB | {largest(k) * 1.048576:.0f} MB | {bound:.0f} MB | {'yes' if largest(k) * 1.048576 <= bound else '**no**'} |")
            break
streams = [n for n in order if n.startswith("helm stream") and n.endswith("1 thread")]
if len(streams) > 1:
    print()
    print("Doubling check (helm stream, 1 thread): " + ", ".join(
        f"{a.split(',')[0][12:]}->{b.split(',')[0][12:]}: CPU x{med(rows[b]['kubegap'], 1) / max(med(rows[a]['kubegap'], 1), 0.01):.2f}, "
        f"RSS x{peak(rows[b]['kubegap']) / peak(rows[a]['kubegap']):.2f}"
        for a, b in zip(streams, streams[1:])))
one, two = "whole corpus (k8s helm haproxy nginx), 1 thread", "whole corpus (k8s helm haproxy nginx), 2 threads"
if one in rows and two in rows:
    w1, w2 = med(rows[one]["kubegap"], 0), med(rows[two]["kubegap"], 0)
    c1 = med(rows[one]["kubegap"], 1)
    print(f"Whole corpus: 2 threads {w1 / w2:.2f}x faster than 1 (wall); a 1-thread run uses {c1:.2f} s CPU. "
          f"Serial share implied by Amdahl's law from the two walls: {max(0.0, 2 * w2 / w1 - 1) * 100:.0f} %.")
EOF
} | tee "$out/report.txt"

# Issue #13's doubling check again, with a precise clock (the table above has 10 ms resolution).
{
  echo
  python3 scripts/doubling.py "$bin" "$in"/stream-1x.yaml "$in"/stream-2x.yaml "$in"/stream-4x.yaml "$in"/stream-8x.yaml "$in"/stream-16x.yaml 5
} | tee -a "$out/report.txt"

# Two threads against one, and against the machine's own ceiling for two processes
# (scripts/threads.py: one run, a two-thread run, two one-thread runs at once, alternating;
# with the hypervisor's steal time). Issue #13's two-thread target reads against this ceiling.
{
  echo
  echo "Two threads, against what this machine gives two independent processes (scripts/threads.py, ${THREAD_ROUNDS:-8} rounds):"
  echo
  N=${THREAD_ROUNDS:-8} python3 scripts/threads.py "$bin" \
    "k8s+helm corpus=$k8s" \
    "whole corpus=$k8s $corpus/haproxy $corpus/nginx" \
    "51 MB helm stream (8x)=- < $in/stream-8x.yaml" \
    "41 MB kubectl get -o yaml=$in/kubectl-4000.yaml"
} | tee -a "$out/report.txt"

# Where a one-thread run's time and memory go, phase by phase (scripts/phases.py: the table
# kubegap prints to stderr under KUBEGAP_PHASES, median of the rounds, inputs alternating).
{
  echo
  echo "Phases of a one-thread run (scripts/phases.py, KUBEGAP_PHASES, ${PHASE_ROUNDS:-5} rounds):"
  N=${PHASE_ROUNDS:-5} python3 scripts/phases.py "$bin" \
    "k8s+helm corpus=$k8s" \
    "51 MB helm stream (8x)=$in/stream-8x.yaml" \
    "20,000 small manifests=$in/small" \
    "haproxy.cfg, 300k lines=$in/haproxy-300k.cfg"
} | tee -a "$out/report.txt"

# Issue #13's "no super-linear shape" in instructions, which the host's hour does not move
# (scripts/instructions.py: each series' inputs under valgrind's cachegrind, one thread;
# about three minutes, so not with --quick or --memory).
if [ "$quick" = 0 ]; then
  {
    echo
    if command -v valgrind >/dev/null; then
      python3 scripts/instructions.py "$bin" \
        "helm stream=$in/stream-1x.yaml $in/stream-2x.yaml $in/stream-4x.yaml $in/stream-8x.yaml" \
        "copies of one release=$in/copies-1600.yaml $in/copies-3200.yaml" \
        "copies of an eight-object release=$in/release-copies-1000.yaml $in/release-copies-2000.yaml" \
        "apps named apart under one label=$in/app-apps-400.yaml $in/app-apps-800.yaml $in/app-apps-1600.yaml $in/app-apps-3200.yaml" \
        "the same, slow Ingresses=$in/app-apps-slow-200.yaml $in/app-apps-slow-400.yaml" \
        "the same, GKE Ingresses=$in/app-apps-gce-200.yaml $in/app-apps-gce-400.yaml" \
        "the same, Ingresses declaring a ping interval=$in/app-apps-ping-200.yaml $in/app-apps-ping-400.yaml" \
        "apps labelled alike=$in/same-labels-2000 $in/same-labels-4000" \
        "apps named alike=$in/same-names-2000 $in/same-names-4000" \
        "definitions in one List=$in/definitions-20000.yaml $in/definitions-40000.yaml" \
        "haproxy.cfg=$in/haproxy-300k.cfg $in/haproxy-1m.cfg"
    else
      echo "Instructions per step of a growing input: skipped, valgrind not found (apt-get install valgrind)."
    fi
  } | tee -a "$out/report.txt"
fi

# 5. Parse throughput into the tree, one thread (issue #13's 80 MB/s per core): kubegap's
# scanner as `kubegap lint` runs it, granit-parser into the same tree, granit-parser's events.
if [ "$memory" = 0 ]; then
  cargo build --release -p kubegap-core --example parse_bench
  {
    echo
    echo "Parse into the tree, CPU time of one thread (kubegap-core/examples/parse_bench.rs, median of 3 rounds):"
    for target in "$k8s" "$in/stream-8x.yaml"; do
      echo
      echo "$target:"
      # shellcheck disable=SC2086 # $k8s is two directories
      PARSE_ONLY=1 RAYON_NUM_THREADS=1 target/release/examples/parse_bench $target 3 | grep -v -e '^graph build' -e '^whole lint' | sed 's/^/    /'
    done
    # Issue #13's "lint over parse": the whole process on one thread against that parse,
    # alternating (scripts/lint_over_parse.py).
    echo
    echo "The whole CLI over a bare parse, one thread (scripts/lint_over_parse.py, ${PARSE_ROUNDS:-8} alternating rounds, CPU):"
    echo
    N=${PARSE_ROUNDS:-8} python3 scripts/lint_over_parse.py "$bin" target/release/examples/parse_bench \
      "k8s+helm corpus=$k8s" \
      "51 MB helm stream (8x)=$in/stream-8x.yaml" \
      "20,000 small manifests=$in/small"
  } | tee -a "$out/report.txt"
fi
