#!/usr/bin/env python3
"""Two threads against one, and against what this machine gives two processes.

    N=16 python3 scripts/threads.py BIN NAME=ARGS... [NAME=ARGS...]

    python3 scripts/threads.py target/release/kubegap \\
        "whole corpus=../shared/corpus/k8s ../shared/corpus/helm ../shared/corpus/haproxy ../shared/corpus/nginx" \\
        "51 MB stream=- < target/bench/inputs/stream-8x.yaml"

For each input, N rounds (default 8) of three commands, alternating:
  one   `BIN lint --format json --threads 1 ARGS`
  two   `BIN lint --format json --threads 2 ARGS`
  pair  two `--threads 1` runs started together (two independent processes; the wall time of
        the pair is that of its slower run)
and prints the median wall times, the two-thread speedup (one / two), the machine's ceiling
for this work (2 x one / pair: two processes that share nothing but the machine; below 2x
when the two cores share a physical core, caches or memory bandwidth, or the host gives them
to other guests), and the share of that ceiling two threads reach. The steal time the
hypervisor reported during the runs (/proc/stat) is printed beside each. A benchmark helper,
not a test: nothing fails on a number.
"""
import os
import statistics
import subprocess
import sys
import time

from steal import cpu_times, share

N = int(os.environ.get("N", "8"))
if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
    sys.exit(__doc__)
binary = sys.argv[1]
inputs = [a.split("=", 1) for a in sys.argv[2:]]



def timed(cmd):
    """Wall time and steal share of a shell command, output to /dev/null."""
    c0 = cpu_times()
    t0 = time.perf_counter()
    subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    c1 = cpu_times()
    steal = share(c0, c1)
    return wall, steal


print(f"| input | 1 thread | 2 threads | two 1-thread runs at once | 2 threads / 1 | "
      f"machine's ceiling | share of it | steal |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for name, args in inputs:
    lint = f"{binary} lint --format json"
    cmds = {
        "one": f"{lint} --threads 1 {args}",
        "two": f"{lint} --threads 2 {args}",
        "pair": f"{lint} --threads 1 {args} & {lint} --threads 1 {args}; wait",
    }
    subprocess.run(cmds["one"], shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    res = {k: [] for k in cmds}
    for _ in range(N):
        for k, cmd in cmds.items():
            res[k].append(timed(cmd))
    one, two, pair = (statistics.median(w for w, _ in res[k]) for k in ("one", "two", "pair"))
    steal = statistics.mean(s for k in res for _, s in res[k])
    speedup = one / two
    ceiling = 2 * one / pair
    print(f"| {name} | {one:.3f} s | {two:.3f} s | {pair:.3f} s | {speedup:.2f}x | "
          f"{ceiling:.2f}x | {speedup / ceiling:.0%} | {steal:.1%} |", flush=True)
