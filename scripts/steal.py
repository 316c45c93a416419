"""The hypervisor's steal time, for the benchmark helpers (scripts/alternate.py,
scripts/threads.py): on a VM, the one visible sign that the host gave the machine's CPUs to
other guests during a run."""


def cpu_times():
    """(all CPU time, steal time) of the machine, in clock ticks (None where unreadable)."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]
        return sum(ticks), ticks[7]
    except (OSError, ValueError, IndexError):
        return None


def share(before, after):
    """The share of the machine's CPU time stolen between two `cpu_times()` readings."""
    if not before or not after:
        return 0.0
    return (after[1] - before[1]) / max(1, after[0] - before[0])
