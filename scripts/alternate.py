#!/usr/bin/env python3
"""Alternating runs of shell commands, for comparing two builds or two thread counts.

    N=16 python3 scripts/alternate.py \
        "old2=OLD lint --threads 2 --format json - < stream.yaml" \
        "new2=NEW lint --threads 2 --format json - < stream.yaml"

Runs the commands one after the other, N times (A B A B ...), output to /dev/null, and prints
for each the median wall time (perf_counter), the median user, system and minor page faults
of the command (wait4: its shell and what it ran), its largest peak RSS, and the share of the
machine's CPU time that the hypervisor gave to other guests while the command ran (`steal` in
/proc/stat: on a VM, the one sign that a host busy elsewhere slowed a run; two threads suffer
from it more than one). With STEAL_MAX set (e.g. 0.02), the medians are also printed over
only the rounds in which no command ran above that share. Alternating keeps a host whose
speed drifts from favouring one command; compare ratios within one run, not seconds across
runs (docs/PERFORMANCE.md).
It is a benchmark helper, not a test.
"""
import os
import statistics
import subprocess
import sys
import time

from steal import cpu_times, share

N = int(os.environ.get("N", "6"))
STEAL_MAX = os.environ.get("STEAL_MAX")



cmds = [a.split("=", 1) for a in sys.argv[1:]]
if not cmds or any(len(c) != 2 for c in cmds):
    sys.exit(__doc__)
res = {label: [] for label, _ in cmds}
for _ in range(N):
    for label, cmd in cmds:
        c0 = cpu_times()
        t0 = time.perf_counter()
        child = subprocess.Popen(cmd, shell=True, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        # wait4: this command's own usage (its shell and what it ran), peak RSS included.
        _, _, r = os.wait4(child.pid, 0)
        child.returncode = 0
        t1 = time.perf_counter()
        c1 = cpu_times()
        steal = share(c0, c1)
        res[label].append((t1 - t0, r.ru_utime, r.ru_stime, r.ru_minflt, steal,
                           r.ru_maxrss / 1024))


def show(rows_of, title):
    if title:
        print(title)
    for label, rows in rows_of.items():
        wall, user, sys_, minflt, _, _ = (statistics.median(c) for c in zip(*rows))
        steal = statistics.mean(r[4] for r in rows)
        rss = max(r[5] for r in rows)
        print(f"{label:10s} wall {wall:.3f} user {user:.3f} sys {sys_:.3f} "
              f"cpu {user + sys_:.3f} minflt {minflt:.0f} steal {100 * steal:.1f}% "
              f"peak {rss:.0f} MiB")


show(res, None)
if STEAL_MAX is not None:
    quiet = [i for i in range(N) if all(res[label][i][4] <= float(STEAL_MAX) for label in res)]
    if quiet:
        show({label: [rows[i] for i in quiet] for label, rows in res.items()},
             f"rounds with no command above {float(STEAL_MAX):.0%} steal: {len(quiet)} of {N}")
    else:
        print(f"no round without a command above {float(STEAL_MAX):.0%} steal")
