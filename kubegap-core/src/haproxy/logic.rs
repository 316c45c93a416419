//! Pure reasoning about reloads and timeouts over plain values (milliseconds, names, words).
//!
//! Nothing here knows about spans or sections, so controller rules (haproxytech ConfigMaps,
//! haproxy-ingress keys, OpenShift IngressControllers) can reuse the same thresholds and
//! wording as the haproxy.cfg rules. A timeout of `None` means "no limit".

use std::cmp::Ordering;
use std::net::IpAddr;

use crate::config::Version;
use crate::value::duration::Millis;

// The reload reasoning shared with the controller rules lives in `crate::reload`; it is
// re-exported here so the haproxy.cfg rules keep calling `logic::…`.
pub use crate::reload::{
    is_long_lived, outlives, restarts_at_first_server, spread_before_hard_stop, LONG_LIVED_MS,
};

/// Without a hard stop, tunnel or client timeouts at or above this (10 minutes) pin old
/// processes (DOMAIN.md R03).
pub const NO_DEADLINE_TIMEOUT_MS: Millis = Millis(10 * 60_000);

/// Without a hard stop, an HTTP keep-alive idle timeout at or above this (60 s) keeps clients
/// on the old process and its stale server list (seed 002).
pub const NO_DEADLINE_KEEP_ALIVE_MS: Millis = Millis(60_000);

/// A worst-case connect stall above this (10 s) is reported (DOMAIN.md R11).
pub const RETRY_STALL_LIMIT_MS: Millis = Millis(10_000);

/// HAProxy's built-in `retries` (`CONN_RETRIES` in include/haproxy/defaults.h).
pub const DEFAULT_RETRIES: u64 = 3;

/// HAProxy's built-in `balance` algorithm.
pub const DEFAULT_BALANCE: &str = "roundrobin";

/// HAProxy's built-in proxy `mode`.
pub const DEFAULT_MODE: &str = "tcp";

/// Minimum number of servers for a static order to make round-robin restarts visible.
pub const STATIC_ORDER_MIN_SERVERS: usize = 4;

/// Checked servers from which a reload without server-state file is worth a note.
pub const MANY_CHECKED_SERVERS: usize = 10;

/// Worst case before a request gets an answer when the chosen server does not accept
/// connections: `(retries + 1) × timeout connect`.
pub fn retry_stall_ms(retries: u64, connect_ms: Millis) -> Millis {
    Millis(retries.saturating_add(1).saturating_mul(connect_ms.0))
}

/// Whether a bare number (read by HAProxy as milliseconds) was likely meant as seconds or is
/// suspiciously small: below 1000, or a multiple of a minute that is not a round number of
/// seconds in milliseconds (`3600`, `1800`, `86400`, but not `30000` or `1500`).
pub fn bare_number_is_suspicious(n: u64) -> bool {
    n != 0 && (n < 1000 || (n % 60 == 0 && n % 500 != 0))
}

/// Whether a sample fetch reads the request's `Upgrade` header: `hdr(upgrade)`,
/// `req.hdr(Upgrade)`, `hdr_beg(upgrade)`, `req.fhdr(upgrade),lower`, ...
pub fn is_upgrade_fetch(fetch: &str) -> bool {
    let fetch = fetch.to_ascii_lowercase();
    let fetch = fetch.split(',').next().unwrap_or("");
    let Some(open) = fetch.find('(') else {
        return false;
    };
    let (name, args) = fetch.split_at(open);
    let name = name.strip_prefix("req.").unwrap_or(name);
    let header_fetch = name.starts_with("hdr") || name.starts_with("fhdr");
    let header = args
        .trim_start_matches('(')
        .split([',', ')'])
        .next()
        .unwrap_or("");
    header_fetch && header == "upgrade"
}

/// Whether an ACL (its words after the name: fetch, flags, values) matches WebSocket upgrades:
/// an `Upgrade` header fetch whose values mention `websocket`, or that has no value (`-m found`).
pub fn is_websocket_acl(words: &[&str]) -> bool {
    let Some((fetch, rest)) = words.split_first() else {
        return false;
    };
    if !is_upgrade_fetch(fetch) {
        return false;
    }
    let mut values = Vec::new();
    let mut skip_next = false;
    for word in rest {
        if skip_next {
            skip_next = false;
            continue;
        }
        match *word {
            "-m" | "-f" | "-M" => skip_next = true,
            w if w.starts_with('-') => {}
            w => values.push(w),
        }
    }
    // `hdr_cnt(upgrade) gt 0` and friends test for presence, like `-m found`.
    let presence = matches!(values.first(), Some(&("gt" | "ge" | "eq" | "lt" | "le")));
    values.is_empty()
        || presence
        || values
            .iter()
            .any(|v| v.to_ascii_lowercase().contains("websocket"))
}

/// Compares names the way people sort them: digit runs by value (`srv2 < srv10`).
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let db = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let na = trim_zeros(&a[..da]);
                let nb = trim_zeros(&b[..db]);
                let ord = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
                if ord != Ordering::Equal {
                    return ord;
                }
                a = &a[da..];
                b = &b[db..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let zeros = digits.iter().take_while(|c| **c == b'0').count();
    &digits[zeros..]
}

/// Whether items are strictly ascending under `cmp`.
pub fn strictly_ascending<T>(items: &[T], cmp: impl Fn(&T, &T) -> Ordering) -> bool {
    items
        .windows(2)
        .all(|w| cmp(&w[0], &w[1]) == Ordering::Less)
}

/// Whether server names are in ascending natural order (`srv1, srv2, …, srv10`).
pub fn names_ascending(names: &[&str]) -> bool {
    strictly_ascending(names, |a, b| natural_cmp(a, b))
}

/// Whether server addresses are all IP literals in ascending order.
pub fn addresses_ascending(hosts: &[&str]) -> bool {
    let ips: Option<Vec<IpAddr>> = hosts.iter().map(|h| h.parse().ok()).collect();
    ips.is_some_and(|ips| strictly_ascending(&ips, Ord::cmp))
}

/// `a`, `a and b`, `a, b and c`, `a, b, c and 2 more`: a list for messages.
pub fn enumerate(items: &[String]) -> String {
    const SHOWN: usize = 3;
    match items {
        [] => String::new(),
        [one] => one.clone(),
        _ if items.len() <= SHOWN => {
            let (last, rest) = items
                .split_last()
                .map_or((&items[0], &items[..0]), |(l, r)| (l, r));
            format!("{} and {last}", rest.join(", "))
        }
        _ => format!(
            "{} and {} more",
            items[..SHOWN].join(", "),
            items.len() - SHOWN
        ),
    }
}

/// Evaluates a `.if` condition for a HAProxy version: `version_atleast(X)`,
/// `version_before(X)`, numbers, `!`, `&&` and `||` (without parentheses). `None` when it
/// cannot be known statically (features, environment, unknown version).
pub fn eval_condition(expr: &str, version: Option<&Version>) -> Option<bool> {
    let mut any: Option<bool> = Some(false);
    for alternative in expr.split("||") {
        let mut all: Option<bool> = Some(true);
        for term in alternative.split("&&") {
            let value = eval_term(term.trim(), version);
            all = match (all, value) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
        }
        any = match (any, all) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        };
    }
    any
}

fn eval_term(term: &str, version: Option<&Version>) -> Option<bool> {
    if let Some(rest) = term.strip_prefix('!') {
        return eval_term(rest.trim_start(), version).map(|v| !v);
    }
    if !term.is_empty() && term.bytes().all(|b| b.is_ascii_digit()) {
        return Some(term.bytes().any(|b| b != b'0'));
    }
    let call = |name: &str| {
        term.strip_prefix(name)
            .and_then(|r| r.strip_prefix('('))
            .and_then(|r| r.strip_suffix(')'))
    };
    if let Some(arg) = call("version_atleast") {
        let want = Version::parse(arg)?;
        return version.map(|v| v >= &want);
    }
    if let Some(arg) = call("version_before") {
        let want = Version::parse(arg)?;
        return version.map(|v| v < &want);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        assert!(is_long_lived(None));
        assert!(is_long_lived(Some(Millis(3_600_000))));
        assert!(!is_long_lived(Some(Millis(50_000))));
        assert!(outlives(Some(Millis(3_600_000)), Millis(1_800_000)));
        assert!(!outlives(Some(Millis(1_800_000)), Millis(1_800_000)));
        assert!(spread_before_hard_stop(
            Some(Millis(60_000)),
            Millis(1_800_000)
        ));
        assert!(!spread_before_hard_stop(None, Millis(1_800_000)));
        assert!(!spread_before_hard_stop(
            Some(Millis(1_800_000)),
            Millis(1_800_000)
        ));
        assert_eq!(retry_stall_ms(3, Millis(5000)), Millis(20_000));
    }

    #[test]
    fn suspicious_bare_numbers() {
        assert!(bare_number_is_suspicious(3600));
        assert!(bare_number_is_suspicious(1800));
        assert!(bare_number_is_suspicious(86_400));
        assert!(bare_number_is_suspicious(30));
        assert!(bare_number_is_suspicious(500));
        assert!(!bare_number_is_suspicious(0));
        assert!(!bare_number_is_suspicious(5000));
        assert!(!bare_number_is_suspicious(30_000));
        assert!(!bare_number_is_suspicious(1500));
        assert!(!bare_number_is_suspicious(50_000));
    }

    #[test]
    fn websocket_acls() {
        assert!(is_websocket_acl(&["hdr(Upgrade)", "-i", "WebSocket"]));
        assert!(is_websocket_acl(&["req.hdr(upgrade),lower", "websocket"]));
        assert!(is_websocket_acl(&["hdr_beg(upgrade)", "-i", "websocket"]));
        assert!(is_websocket_acl(&["hdr(upgrade)", "-m", "found"]));
        assert!(is_websocket_acl(&["hdr_cnt(Upgrade)", "gt", "0"]));
        assert!(!is_websocket_acl(&["hdr(connection)", "-i", "upgrade"]));
        assert!(!is_websocket_acl(&["hdr(upgrade)", "-i", "h2c"]));
        assert!(!is_websocket_acl(&["path_beg", "/ws"]));
    }

    #[test]
    fn orders() {
        assert!(names_ascending(&["srv1", "srv2", "srv3", "srv10"]));
        assert!(!names_ascending(&["srv2", "srv1", "srv3", "srv4"]));
        assert!(addresses_ascending(&[
            "10.0.0.2",
            "10.0.0.3",
            "10.0.0.10",
            "10.0.1.1"
        ]));
        assert!(!addresses_ascending(&["10.0.0.2", "10.0.0.1"]));
        assert!(!addresses_ascending(&["a.example", "b.example"]));
        assert_eq!(natural_cmp("a01", "a1"), Ordering::Equal);
    }

    #[test]
    fn lists() {
        let items: Vec<String> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(enumerate(&items[..1]), "a");
        assert_eq!(enumerate(&items[..2]), "a and b");
        assert_eq!(enumerate(&items[..3]), "a, b and c");
        assert_eq!(enumerate(&items), "a, b, c and 2 more");
    }

    #[test]
    fn conditions() {
        let v26 = Version::parse("2.6").unwrap();
        assert_eq!(
            eval_condition("version_atleast(2.4)", Some(&v26)),
            Some(true)
        );
        assert_eq!(
            eval_condition("version_atleast(2.8)", Some(&v26)),
            Some(false)
        );
        assert_eq!(
            eval_condition("version_before(2.8)", Some(&v26)),
            Some(true)
        );
        assert_eq!(eval_condition("version_atleast(2.4)", None), None);
        assert_eq!(eval_condition("0", None), Some(false));
        assert_eq!(eval_condition("!0", None), Some(true));
        assert_eq!(eval_condition("feature(THREAD)", None), None);
        assert_eq!(eval_condition("feature(THREAD) && 0", None), Some(false));
        assert_eq!(eval_condition("feature(THREAD) || 1", None), Some(true));
    }
}
