#!/usr/bin/env python3
"""Alternating runs of shell commands, for comparing two builds or two thread counts.

    N=16 python3 scripts/alternate.py \
        "old2=OLD lint --threads 2 --format json - < stream.yaml" \
        "new2=NEW lint --threads 2 --format json - < stream.yaml"

Runs the commands one after the other, N times (A B A B ...), output to /dev/null, and prints
for each the median wall time (perf_counter) and the median user, system and minor page
faults of the child (getrusage). Alternating keeps a host whose speed drifts from favouring
one command; compare ratios within one run, not seconds across runs (docs/PERFORMANCE.md).
It is a benchmark helper, not a test.
"""
import os
import resource
import statistics
import subprocess
import sys
import time

N = int(os.environ.get("N", "6"))
cmds = [a.split("=", 1) for a in sys.argv[1:]]
if not cmds or any(len(c) != 2 for c in cmds):
    sys.exit(__doc__)
res = {label: [] for label, _ in cmds}
for _ in range(N):
    for label, cmd in cmds:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t1 = time.perf_counter()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[label].append((t1 - t0, r1.ru_utime - r0.ru_utime,
                           r1.ru_stime - r0.ru_stime, r1.ru_minflt - r0.ru_minflt))
for label, rows in res.items():
    wall, user, sys_, minflt = (statistics.median(c) for c in zip(*rows))
    print(f"{label:10s} wall {wall:.3f} user {user:.3f} sys {sys_:.3f} "
          f"cpu {user + sys_:.3f} minflt {minflt:.0f}")
