#!/usr/bin/env python3
"""Issue #13's doubling check, with a precise clock: `kubegap lint --threads 1 --format json -`
over each stream, ROUNDS rounds alternating the sizes (1x 2x 4x ... 1x 2x 4x ...), CPU time
(user + system) and peak RSS of each run from wait4(2) (microseconds; /usr/bin/time's CPU has
10 ms resolution, too coarse for the 1x stream). Prints the medians and each doubling's ratio,
then the CPU split into user and system time with the minor page faults: on a virtual machine
whose host backs fresh pages slowly, system time (mostly page faults, linear in the memory
touched) varies several-fold from run to run, so the split shows which part grows.

    python3 scripts/doubling.py BIN STREAM_1x STREAM_2x ... [ROUNDS]
"""
import os
import statistics
import sys

args = sys.argv[1:]
rounds = int(args.pop()) if args and args[-1].isdigit() else 5
binary, streams = args[0], args[1:]
cpu = {s: [] for s in streams}
rss = {s: [] for s in streams}
user = {s: [] for s in streams}
system = {s: [] for s in streams}
faults = {s: [] for s in streams}
for _ in range(rounds):
    for s in streams:
        pid = os.fork()
        if pid == 0:
            os.dup2(os.open(s, os.O_RDONLY), 0)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execv(binary, [binary, "lint", "--threads", "1", "--format", "json", "-"])
        _, _, usage = os.wait4(pid, 0)
        cpu[s].append(usage.ru_utime + usage.ru_stime)
        rss[s].append(usage.ru_maxrss * 1024)
        user[s].append(usage.ru_utime)
        system[s].append(usage.ru_stime)
        faults[s].append(usage.ru_minflt)
print(f"Doubling check, precise clock (scripts/doubling.py: 1 thread, median of {rounds} alternating rounds, CPU from wait4):")
print()
print("| stream | input | CPU | peak RSS | RSS / input | CPU x | RSS x |")
print("|---|---:|---:|---:|---:|---:|---:|")
prev = None
for s in streams:
    c, r = statistics.median(cpu[s]), statistics.median(rss[s])
    size = os.path.getsize(s)
    step = f"{c / prev[0]:.3f} | {r / prev[1]:.3f}" if prev else " | "
    print(f"| {os.path.basename(s)} | {size / 1e6:.1f} MB | {c:.3f} s | {r / 2**20:.1f} MiB | {r / size:.2f} | {step} |")
    prev = (c, r)
print()
print("| stream | user | system | minor faults | user x | system x | faults x |")
print("|---|---:|---:|---:|---:|---:|---:|")
prev = None
for s in streams:
    m = (statistics.median(user[s]), statistics.median(system[s]), statistics.median(faults[s]))
    step = " | ".join(f"{a / b:.3f}" for a, b in zip(m, prev)) if prev else " | | "
    print(f"| {os.path.basename(s)} | {m[0]:.3f} s | {m[1]:.3f} s | {m[2]:,.0f} | {step} |")
    prev = m
