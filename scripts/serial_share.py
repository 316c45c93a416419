#!/usr/bin/env python3
"""The serial share of a kubegap run, from a profile of a one-thread run.

    perf record -F 999 --call-graph dwarf -o perf.data \
        target/release/kubegap lint --threads 1 --format json PATH... > /dev/null
    perf script -i perf.data | python3 scripts/serial_share.py

A sample counts as parallel when its stack is inside a rayon parallel iterator or join
(`bridge_producer_consumer`, `join_context`, `par_extend`) or a worker of the parallel
directory walk (`ignore::walk::Worker`): that work is split across threads when there are
several. Everything else (the walk, sorting, building the graph, controllers and
chains, output) runs on one thread whatever the thread count. By Amdahl's law a serial share s
caps the speed-up of two threads at 1 / (s + (1 - s) / 2).
"""
import sys

PARALLEL = ("bridge_producer_consumer", "join_context", "par_extend", "ignore::walk::Worker")

samples = parallel = 0
stack = []


def flush():
    global samples, parallel
    if stack:
        samples += 1
        if any(marker in frame for frame in stack for marker in PARALLEL):
            parallel += 1
    stack.clear()


for line in sys.stdin:
    if not line.strip():
        flush()
    elif line.startswith((" ", "\t")):
        stack.append(line)
    else:
        flush()
flush()
if samples == 0:
    sys.exit("no samples")
serial = 1 - parallel / samples
print(f"{samples} samples: {parallel / samples:.1%} parallel, {serial:.1%} serial; "
      f"two threads at most {1 / (serial + (1 - serial) / 2):.2f}x one")
