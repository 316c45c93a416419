#!/usr/bin/env python3
"""The whole CLI against a bare parse of the same files into the tree (issue #13's "lint over
parse" target), alternating the two so that a drifting host moves both alike.

    N=8 python3 scripts/lint_over_parse.py BIN PARSE_BENCH NAME=PATHS... [NAME=PATHS...]

    python3 scripts/lint_over_parse.py target/release/kubegap \\
        target/release/examples/parse_bench \\
        "k8s+helm=../shared/corpus/k8s ../shared/corpus/helm" \\
        "51 MB stream=target/bench/inputs/stream-8x.yaml"

For each input, N rounds (default 8) of two commands, alternating:
  lint   `BIN lint --format json --threads 1 PATHS`: CPU time (user + system) of the whole
         process, from wait4 (reading the files, decoding, parse, graph, controllers, chains,
         every rule, the sort, the output, start and exit);
  parse  `PARSE_ONLY=1 RAYON_NUM_THREADS=1 PARSE_BENCH PATHS 1`: CPU time of the thread that
         parses the files, already in memory, into the same tree (its "yaml parse CPU time").
Prints the medians and their ratio, with the hypervisor's steal time during the runs. A
benchmark helper, not a test: nothing fails on a number.
"""
import os
import re
import statistics
import subprocess
import sys

from steal import cpu_times, share

N = int(os.environ.get("N", "8"))
if len(sys.argv) < 4 or any("=" not in a for a in sys.argv[3:]):
    sys.exit(__doc__)
binary, parse_bench = sys.argv[1], sys.argv[2]
inputs = [a.split("=", 1) for a in sys.argv[3:]]
PARSE_CPU = re.compile(r"yaml parse CPU time:\s+([0-9.]+) s")


def lint_cpu(paths):
    """CPU seconds of one `lint --threads 1` process, from wait4."""
    proc = subprocess.Popen(
        [binary, "lint", "--format", "json", "--threads", "1", *paths],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime


def parse_cpu(paths):
    """CPU seconds of the parsing thread of one `parse_bench` round."""
    env = dict(os.environ, PARSE_ONLY="1", RAYON_NUM_THREADS="1")
    out = subprocess.run(
        [parse_bench, *paths, "1"], env=env, capture_output=True, text=True, check=True
    ).stdout
    m = PARSE_CPU.search(out)
    if not m:
        sys.exit(f"no parse CPU time in parse_bench's output:\n{out}")
    return float(m.group(1))


print("| input | lint CPU (1 thread) | parse CPU (1 thread) | lint / parse | steal |")
print("|---|---:|---:|---:|---:|")
for name, args in inputs:
    paths = args.split()
    lint_cpu(paths)  # the files into the page cache
    lints, parses = [], []
    c0 = cpu_times()
    for _ in range(N):
        lints.append(lint_cpu(paths))
        parses.append(parse_cpu(paths))
    steal = share(c0, cpu_times())
    lint, parse = statistics.median(lints), statistics.median(parses)
    print(f"| {name} | {lint:.3f} s | {parse:.3f} s | {lint / parse:.2f}x | {steal:.1%} |",
          flush=True)
