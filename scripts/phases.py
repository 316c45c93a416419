#!/usr/bin/env python3
"""Where a run's time and memory go, phase by phase, from the table kubegap prints to stderr
when KUBEGAP_PHASES is set (kubegap-core/src/phases.rs).

    N=5 python3 scripts/phases.py BIN NAME=PATHS... [NAME=PATHS...]

    python3 scripts/phases.py target/release/kubegap \\
        "k8s+helm=../shared/corpus/k8s ../shared/corpus/helm" \\
        "51 MB stream=target/bench/inputs/stream-8x.yaml"

Each round runs `BIN lint --format json --threads 1 PATHS` once per input, the inputs in turn
(N rounds, default 5, after one untimed run of each for the page cache). Prints, per input,
the median of each phase's time, its share of the median total, and the median resident
memory at the end of the phase and at its highest so far (VmRSS, VmHWM), with the parts
timed inside a phase (`… of which`: the files opened and read, the definitions parsed during
the walk) below it; and the process's wall time, whose part outside the marks is the start
before `main` and the exit after the report. One thread, so that a phase's time is the work it does, not how it shares. A
benchmark helper, not a test: nothing fails on a number.
"""
import os
import statistics
import subprocess
import sys
import time

N = int(os.environ.get("N", "5"))
if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
    sys.exit(__doc__)
binary = sys.argv[1]
inputs = [a.split("=", 1) for a in sys.argv[2:]]
HEADER = "phase\tms\tshare\trss_mib\tpeak_mib"


def run(paths):
    """One run: its wall seconds and its phases as (name, ms, rss MiB, peak MiB)."""
    env = dict(os.environ, KUBEGAP_PHASES="1")
    start = time.perf_counter()
    proc = subprocess.run(
        [binary, "lint", "--format", "json", "--threads", "1", *paths],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.perf_counter() - start
    lines = proc.stderr.splitlines()
    if HEADER not in lines:
        sys.exit(f"no phase table in kubegap's stderr (exit {proc.returncode}):\n{proc.stderr}")
    phases = []
    for line in lines[lines.index(HEADER) + 1 :]:
        name, ms, _share, rss, peak = line.split("\t")
        number = lambda s: float(s) if s != "-" else float("nan")
        phases.append((name, float(ms), number(rss), number(peak)))
    return wall, phases


for _, args in inputs:
    run(args.split())  # the files into the page cache
runs = {name: [] for name, _ in inputs}
for _ in range(N):
    for name, args in inputs:
        runs[name].append(run(args.split()))

for name, _ in inputs:
    walls = [wall for wall, _ in runs[name]]
    names = [p[0] for p in runs[name][0][1]]
    if any([p[0] for p in phases] != names for _, phases in runs[name]):
        sys.exit(f"{name}: the runs did not mark the same phases")
    median = lambda k, i: statistics.median(phases[i][k] for _, phases in runs[name])
    ms = [median(1, i) for i in range(len(names))]
    # A part ("  of which …") is time inside the phase above it, not a phase of its own.
    part = [n.startswith("  of which ") for n in names]
    total = sum(m for m, p in zip(ms, part) if not p)
    # Per run: the time to its last mark, and the rest of its wall time.
    marked = [sum(p[1] for p, is_part in zip(phases, part) if not is_part) for _, phases in runs[name]]
    outside = statistics.median(w * 1000 - m for w, m in zip(walls, marked))
    wall = statistics.median(walls) * 1000
    print()
    print(f"{name}: process wall {wall:.1f} ms (median of {N}), {statistics.median(marked):.1f} ms to the last mark; shares of the phases' medians ({total:.1f} ms)")
    print()
    print("| phase | ms | share | RSS at its end | peak so far |")
    print("|---|---:|---:|---:|---:|")
    for i, phase in enumerate(names):
        share = ms[i] / total if total else 0.0
        if part[i]:
            print(f"| … {phase.strip()} | {ms[i]:.1f} | {share:.1%} | | |")
        else:
            print(f"| {phase} | {ms[i]:.1f} | {share:.1%} | {median(2, i):.1f} MiB | {median(3, i):.1f} MiB |")
    print(f"| start before `main`, exit after the report | {outside:.1f} | | | |", flush=True)
