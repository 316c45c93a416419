//! Where a run's time and memory go: a timestamp and the process's resident memory at the end
//! of each phase of a run, recorded only when [`enable`]d (the CLI does when `KUBEGAP_PHASES`
//! is set; `scripts/phases.py` and `docs/PERFORMANCE.md` read what it prints).
//!
//! The record is the process's, not a run's: two runs in one process at once would mix their
//! marks, so only a process that runs one lint at a time (the CLI, a benchmark) enables it.
//! Disabled, a mark is one relaxed atomic load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static ENABLED: AtomicBool = AtomicBool::new(false);
static MARKS: Mutex<Option<Record>> = Mutex::new(None);

struct Record {
    start: Instant,
    marks: Vec<Mark>,
    /// Time [`within`] parts since the last mark, by name, in the order first met.
    parts: Vec<(&'static str, Duration)>,
}

/// The end of one phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The phase that ended here.
    pub phase: &'static str,
    /// Time from [`enable`] to the end of the phase.
    pub at: Duration,
    /// Resident memory at the end of the phase, in KiB (`VmRSS`; `None` where the system
    /// does not say).
    pub rss_kib: Option<u64>,
    /// The highest resident memory so far, in KiB (`VmHWM`).
    pub peak_kib: Option<u64>,
    /// Time spent in parts of the phase ([`within`]), summed over the threads that ran them.
    pub parts: Vec<(&'static str, Duration)>,
}

/// Starts recording: the time of this call is the start of the first phase. A second call
/// starts again.
pub fn enable() {
    if let Ok(mut marks) = MARKS.lock() {
        *marks = Some(Record {
            start: Instant::now(),
            marks: Vec::new(),
            parts: Vec::new(),
        });
        ENABLED.store(true, Ordering::Release);
    }
}

/// Whether marks are being recorded.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Ends the phase `phase` now (nothing unless [`enable`]d).
#[inline]
pub fn mark(phase: &'static str) {
    if enabled() {
        record(phase);
    }
}

#[cold]
fn record(phase: &'static str) {
    // Read before the lock: the memory of this phase, not of the wait.
    let (rss_kib, peak_kib) = memory();
    if let Ok(mut guard) = MARKS.lock() {
        if let Some(record) = guard.as_mut() {
            let at = record.start.elapsed();
            let parts = std::mem::take(&mut record.parts);
            record.marks.push(Mark {
                phase,
                at,
                rss_kib,
                peak_kib,
                parts,
            });
        }
    }
}

/// Runs `f`, its time counted as the part `part` of the phase it runs in (nothing but `f`
/// unless [`enable`]d): a step inside a phase, run on any thread, whose share the phase's
/// time alone would not show (the definitions the walk parses while it reads).
#[inline]
pub fn within<T>(part: &'static str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let start = Instant::now();
    let out = f();
    add(part, start.elapsed());
    out
}

#[cold]
fn add(part: &'static str, spent: Duration) {
    if let Ok(mut guard) = MARKS.lock() {
        if let Some(record) = guard.as_mut() {
            match record.parts.iter_mut().find(|(name, _)| *name == part) {
                Some((_, total)) => *total += spent,
                None => record.parts.push((part, spent)),
            }
        }
    }
}

/// Stops recording and returns the marks, in the order they were made.
pub fn take() -> Vec<Mark> {
    ENABLED.store(false, Ordering::Release);
    MARKS
        .lock()
        .ok()
        .and_then(|mut guard| guard.take())
        .map(|record| record.marks)
        .unwrap_or_default()
}

/// The resident memory now and at its highest, in KiB, from `/proc/self/status` (Linux).
fn memory() -> (Option<u64>, Option<u64>) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return (None, None);
    };
    (field_kib(&status, "VmRSS:"), field_kib(&status, "VmHWM:"))
}

/// The value of a `Name:   1234 kB` line of `/proc/self/status`.
fn field_kib(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(name))?;
    line[name.len()..]
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()
}

/// The marks as a table, one phase a line: its name, its time and share of the time up to the
/// last mark, the resident memory at its end and the highest so far (MiB), each part of it
/// ([`within`]) on a line of its own below it, its name after `  of which `. Tab-separated
/// after a header line, so that a script can read it.
pub fn table(marks: &[Mark]) -> String {
    let total = marks.last().map_or(Duration::ZERO, |m| m.at);
    let mib =
        |kib: Option<u64>| kib.map_or("-".to_string(), |k| format!("{:.1}", k as f64 / 1024.0));
    let mut out = String::from("phase\tms\tshare\trss_mib\tpeak_mib\n");
    let share = |spent: Duration| {
        if total.is_zero() {
            0.0
        } else {
            spent.as_secs_f64() / total.as_secs_f64() * 100.0
        }
    };
    let mut before = Duration::ZERO;
    for m in marks {
        let spent = m.at.saturating_sub(before);
        before = m.at;
        out.push_str(&format!(
            "{}\t{:.3}\t{:.1}%\t{}\t{}\n",
            m.phase,
            spent.as_secs_f64() * 1000.0,
            share(spent),
            mib(m.rss_kib),
            mib(m.peak_kib),
        ));
        for (part, spent) in &m.parts {
            out.push_str(&format!(
                "  of which {part}\t{:.3}\t{:.1}%\t-\t-\n",
                spent.as_secs_f64() * 1000.0,
                share(*spent),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_are_read_in_kib() {
        let status = "Name:\tkubegap\nVmHWM:\t   40960 kB\nVmRSS:\t   20480 kB\nThreads:\t3\n";
        assert_eq!(field_kib(status, "VmRSS:"), Some(20480));
        assert_eq!(field_kib(status, "VmHWM:"), Some(40960));
        assert_eq!(field_kib(status, "VmSwap:"), None);
        assert_eq!(field_kib("VmRSS:\tlots kB\n", "VmRSS:"), None);
    }

    #[test]
    fn a_table_gives_each_phase_its_own_time_and_share() {
        let mark = |phase, ms, rss, peak| Mark {
            phase,
            at: Duration::from_millis(ms),
            rss_kib: rss,
            peak_kib: peak,
            parts: Vec::new(),
        };
        let mut read = mark("read", 10, Some(1024), Some(2048));
        read.parts = vec![("decode", Duration::from_millis(4))];
        let marks = [
            read,
            mark("parse", 40, Some(3072), Some(3072)),
            mark("rules", 50, None, None),
        ];
        assert_eq!(
            table(&marks),
            "phase\tms\tshare\trss_mib\tpeak_mib\n\
             read\t10.000\t20.0%\t1.0\t2.0\n\
             \x20 of which decode\t4.000\t8.0%\t-\t-\n\
             parse\t30.000\t60.0%\t3.0\t3.0\n\
             rules\t10.000\t20.0%\t-\t-\n"
        );
        assert_eq!(table(&[]), "phase\tms\tshare\trss_mib\tpeak_mib\n");
    }
}
