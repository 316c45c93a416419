//! Pure reasoning about reloads, hard stops and idle budgets, over plain values.
//!
//! Every proxy that reloads by starting a new process (or new workers) and letting the old one
//! drain has the same shape: a *deadline* after which the old process quits and cuts whatever
//! connections it still holds (HAProxy `hard-stop-after`, haproxy-ingress `timeout-stop`,
//! ingress-nginx `worker-shutdown-timeout`, OpenShift's `hard-stop-after` annotation), and an
//! optional *close spread* that closes those connections over a window instead of all at once
//! (HAProxy `close-spread-time`, haproxy-ingress `close-sessions-duration`). These functions
//! hold that reasoning once, so the haproxy.cfg rules and the controller rules give the same
//! answer with the same thresholds. Nothing here knows about spans, files or objects.
//! `crate::haproxy::logic` re-exports the functions the haproxy.cfg rules use.
//!
//! Units: [`Millis`], the model's one duration type. A timeout of `None` means "no limit".
//! Facts: `../shared/research/DOMAIN.md` §0, §2.1, §2.2, §2.4, rules R01, R02, R09, R16, R18.

use crate::value::duration::Millis;

/// A timeout at or above this (5 minutes) keeps connections around long enough to matter at
/// reload; it is also the threshold above which a timeout annotation is a sign of a long-lived
/// route (DOMAIN.md §4.0).
pub const LONG_LIVED_MS: Millis = Millis(5 * 60_000);

/// Margin the pod's `terminationGracePeriodSeconds` needs above a proxy's shutdown deadline so
/// the kubelet does not SIGKILL the draining process (DOMAIN.md R18: deadline + 30 s; the
/// ingress-nginx chart pairs 240 s with 300 s).
pub const GRACE_MARGIN_MS: Millis = Millis(30_000);

/// Without a declared session lifetime, a cap on a WebSocket's *total* lifetime below this
/// (1 hour) is reported: the ingress-nginx WebSocket guide asks for "a value higher than one
/// hour (3600)", and HAProxy's documented tunnel example is `1h`.
pub const MIN_WEBSOCKET_LIFETIME_MS: Millis = Millis(3_600_000);

/// Whether a timeout (`None` = no limit) is long enough to count as long-lived.
pub fn is_long_lived(timeout_ms: Option<Millis>) -> bool {
    match timeout_ms {
        Some(ms) => ms >= LONG_LIVED_MS,
        None => true,
    }
}

/// Whether a connection allowed to stay open (or idle) for `timeout_ms` can outlive a reload
/// deadline: the deadline, not the timeout, is then its real maximum lifetime across reloads.
pub fn outlives(timeout_ms: Option<Millis>, deadline_ms: Millis) -> bool {
    match timeout_ms {
        Some(ms) => ms > deadline_ms,
        None => true,
    }
}

/// Whether a close spread (`None` = not set or `infinite`) starts closing before the hard stop.
pub fn spread_before_hard_stop(spread_ms: Option<Millis>, hard_stop_ms: Millis) -> bool {
    spread_ms.is_some_and(|s| s < hard_stop_ms)
}

/// Why the connections left at a hard stop are all closed at the same instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpreadGap {
    /// No close spread is configured.
    Missing,
    /// A spread is configured but is not shorter than the hard stop, so it never starts.
    NotBeforeDeadline,
    /// The spread needs something that is absent (HAProxy ≥ 2.6 for `close-spread-time`;
    /// `--track-old-instances` for haproxy-ingress `close-sessions-duration`).
    Inert,
}

/// Whether a hard stop closes every remaining connection at once (a reconnect herd).
///
/// `hard_stop_ms`: the deadline, `None` when there is none (then nothing is cut).
/// `spread_ms`: the close spread, `None` when unset. `spread_possible`: whether the spread can
/// take effect at all (the product version supports it, its prerequisites are set).
pub fn close_spread_gap(
    hard_stop_ms: Option<Millis>,
    spread_ms: Option<Millis>,
    spread_possible: bool,
) -> Option<SpreadGap> {
    let hard_stop = hard_stop_ms?;
    match spread_ms {
        None => Some(SpreadGap::Missing),
        Some(_) if !spread_possible => Some(SpreadGap::Inert),
        Some(s) if s >= hard_stop => Some(SpreadGap::NotBeforeDeadline),
        Some(_) => None,
    }
}

/// A spread written as a percentage of the hard stop (haproxy-ingress `close-sessions-duration:
/// 50%`), in milliseconds. `None` for a percentage outside 0–100.
pub fn percent_of(hard_stop_ms: Millis, percent: u64) -> Option<Millis> {
    (percent <= 100).then(|| Millis(hard_stop_ms.0.saturating_mul(percent) / 100))
}

/// Whether a balance algorithm starts again from the first server of the list after every
/// reload: HAProxy `roundrobin`, `static-rr`, `first`; ingress-nginx `round_robin`.
pub fn restarts_at_first_server(algorithm: &str) -> bool {
    matches!(
        algorithm.trim(),
        "roundrobin" | "static-rr" | "first" | "round_robin"
    )
}

/// Whether a pod's termination grace period lets a proxy finish its shutdown deadline plus
/// [`GRACE_MARGIN_MS`] before the kubelet kills it.
pub fn grace_covers_shutdown(grace_ms: Millis, shutdown_ms: Millis) -> bool {
    grace_ms.0 >= shutdown_ms.0.saturating_add(GRACE_MARGIN_MS.0)
}

/// Whether an idle timeout survives a keep-alive ping every `ping_ms`: the idle timeout must be
/// strictly longer than the interval (equal values race: mattermost/docs#8929).
pub fn idle_survives_ping(idle_ms: Millis, ping_ms: Millis) -> bool {
    idle_ms > ping_ms
}

/// Whether a cap on a connection's total lifetime cuts sessions: below the declared session
/// lifetime, or below [`MIN_WEBSOCKET_LIFETIME_MS`] when none is declared.
pub fn lifetime_cap_cuts(cap_ms: Millis, declared_lifetime_ms: Option<Millis>) -> bool {
    cap_ms < declared_lifetime_ms.unwrap_or(MIN_WEBSOCKET_LIFETIME_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines() {
        assert!(outlives(Some(Millis(3_600_000)), Millis(240_000)));
        assert!(!outlives(Some(Millis(240_000)), Millis(240_000)));
        assert!(outlives(None, Millis(240_000)));
        assert!(is_long_lived(Some(Millis(300_000))));
        assert!(!is_long_lived(Some(Millis(60_000))));
        assert!(is_long_lived(None));
    }

    #[test]
    fn spreads() {
        assert_eq!(close_spread_gap(None, None, true), None);
        assert_eq!(
            close_spread_gap(Some(Millis(600_000)), None, true),
            Some(SpreadGap::Missing)
        );
        assert_eq!(
            close_spread_gap(Some(Millis(600_000)), Some(Millis(300_000)), false),
            Some(SpreadGap::Inert)
        );
        assert_eq!(
            close_spread_gap(Some(Millis(600_000)), Some(Millis(600_000)), true),
            Some(SpreadGap::NotBeforeDeadline)
        );
        assert_eq!(
            close_spread_gap(Some(Millis(600_000)), Some(Millis(300_000)), true),
            None
        );
        assert!(spread_before_hard_stop(Some(Millis(1)), Millis(2)));
        assert!(!spread_before_hard_stop(None, Millis(2)));
        assert_eq!(percent_of(Millis(600_000), 50), Some(Millis(300_000)));
        assert_eq!(percent_of(Millis(600_000), 150), None);
    }

    #[test]
    fn balance_and_grace() {
        assert!(restarts_at_first_server("roundrobin"));
        assert!(restarts_at_first_server("round_robin"));
        assert!(!restarts_at_first_server("random(Millis(2))"));
        assert!(!restarts_at_first_server("ewma"));
        assert!(grace_covers_shutdown(Millis(300_000), Millis(240_000)));
        assert!(!grace_covers_shutdown(Millis(260_000), Millis(240_000)));
        assert!(idle_survives_ping(Millis(60_000), Millis(30_000)));
        assert!(!idle_survives_ping(Millis(60_000), Millis(60_000)));
        assert!(lifetime_cap_cuts(Millis(30_000), None));
        assert!(!lifetime_cap_cuts(Millis(86_400_000), None));
        assert!(lifetime_cap_cuts(
            Millis(3_600_000),
            Some(Millis(28_800_000))
        ));
    }
}
