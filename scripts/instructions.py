#!/usr/bin/env python3
"""Issue #13's "no super-linear shape", counted in instructions: `kubegap lint --threads 1
--format json` over each input of a series of growing inputs, under valgrind's cachegrind
without its cache simulation (`--cache-sim=no`: it only counts the instructions the process
runs in user space), and the ratio of each step's instructions to its input's.

Time on this machine's host moves with how it backs fresh pages (a run over 4,000 apps took 2.3
to 2.5 times the CPU of 2,000 in one hour, every phase alike, the per-file parse too); the
count of instructions does not, so a step whose instructions grow faster than its input is work
that grows faster than the input, whatever the hour. System time (page faults, reads) is not
counted: `doubling.py` measures it.

    python3 scripts/instructions.py BIN "NAME=INPUT INPUT ..." ...

Each argument is one series, its inputs in growing order (a file or a directory; a directory's
size is the size of the files under it). Needs valgrind (Debian: `apt-get install valgrind`).
"""
import os
import re
import subprocess
import sys

binary, series = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]


def size(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(
        os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files
    )


def instructions(path):
    run = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         binary, "lint", "--threads", "1", "--format", "json", path],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if not found:
        sys.exit(f"no instruction count from valgrind for {path}:\n{run.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


print("Instructions per step of a growing input (scripts/instructions.py: 1 thread, user space, "
      "valgrind --tool=cachegrind --cache-sim=no):")
print()
print("| series | input | size | instructions | input x | instructions x | per input byte x |")
print("|---|---|---:|---:|---:|---:|---:|")
worst = []
for name, inputs in series:
    before = None
    for path in inputs.split():
        n, count = size(path), instructions(path)
        cells = ["", "", ""]
        if before:
            grow, more = n / before[0], count / before[1]
            cells = [f"x{grow:.2f}", f"x{more:.3f}", f"x{more / grow:.3f}"]
            worst.append((more / grow, name, os.path.basename(path.rstrip("/"))))
        print(f"| {name} | {os.path.basename(path.rstrip('/'))} | {n / 1e6:.1f} MB | "
              f"{count / 1e6:,.0f} M | " + " | ".join(cells) + " |")
        before = (n, count)
if worst:
    top = max(worst)
    print()
    print(f"Largest step: instructions x{top[0]:.3f} per input byte ({top[1]}, up to {top[2]}); "
          "1.000 is linear.")
