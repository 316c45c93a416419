//! Durations as each product writes them, normalised to milliseconds.
//!
//! | product | format | a bare number means |
//! |---|---|---|
//! | ingress-nginx annotations and ConfigMap timeouts | quoted ints (`"3600"`; `"3600s"` is not read), nginx time for `worker-shutdown-timeout` (`240s`) | seconds |
//! | F5 NGINX IC `nginx.org/*` | nginx time (`60s`, `1h`) | seconds |
//! | haproxytech, haproxy-ingress, OpenShift route annotations | HAProxy time (`30m`, `1h`, `5000ms`) | milliseconds |
//! | OpenShift `tuningOptions`, `kubegap.io/*` | Go-style duration (`1h30m`, `25s`) | seconds |
//! | AWS attributes, GKE `timeoutSec`, pod grace | integers | seconds |
//! | Azure `azure-load-balancer-tcp-idle-timeout` | integer | **minutes** |
//!
//! (DOMAIN.md §4.0: "Unit normalisation is itself a source of bugs.")
//!
//! Every duration in the model is a [`Millis`], whatever the product wrote: the per-product
//! parsers below return it, controller and load-balancer settings are `Setting<Millis>`, nginx's
//! effective values and haproxy.cfg's `DurationValue::Ms` hold it, and the timeout chains hold
//! ranges of it (`chain::Range`, for Node.js's version-dependent default).
//!
//! ## One format in messages
//!
//! Every message prints durations with [`format_ms`], so one value reads the same in every rule:
//!
//! | value | printed |
//! |---|---|
//! | zero | `0s` |
//! | below one second | milliseconds: `500ms` |
//! | not a whole number of seconds | seconds with up to three decimals: `1.5s`, `3.6s` |
//! | whole seconds below 10 minutes | seconds: `5s`, `90s`, `240s` |
//! | 10 minutes or more | hours, minutes, seconds, zero parts left out: `10m`, `1h30m`, `24h`, `10m30s` |
//!
//! A value written `4m` in a config is printed `240s`; `1h30m`, written `5400s` or `90m`, is
//! printed `1h30m`. Days are printed as hours (`48h`), as Go and Kubernetes print them.

/// A duration in milliseconds: the one duration type of the model, whatever unit a product
/// writes. Printed with the one message format (its `Display` is [`format_ms`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Millis(pub u64);

impl Millis {
    /// Whole seconds.
    pub const fn from_secs(secs: u64) -> Millis {
        Millis(secs.saturating_mul(1000))
    }

    /// The number of milliseconds.
    pub const fn ms(self) -> u64 {
        self.0
    }

    /// The value in seconds, for JSON output (`kubegap chains --format json`).
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

impl std::fmt::Display for Millis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&format_ms(self.0))
    }
}

/// Formats milliseconds in the one message format (see the module documentation): `0s`,
/// `500ms`, `1.5s`, `240s`, `10m`, `1h30m`, `24h`.
pub fn format_ms(ms: u64) -> String {
    if ms == 0 {
        return "0s".to_string();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    if ms % 1000 != 0 {
        let text = format!("{}.{:03}", ms / 1000, ms % 1000);
        return format!("{}s", text.trim_end_matches('0'));
    }
    let secs = ms / 1000;
    if secs < 600 {
        return format!("{secs}s");
    }
    let mut out = String::new();
    for (n, unit) in [(secs / 3600, "h"), (secs / 60 % 60, "m"), (secs % 60, "s")] {
        if n > 0 {
            out.push_str(&format!("{n}{unit}"));
        }
    }
    out
}

/// Formats an optional timeout: `None` (no limit) is `infinite`.
pub fn format_timeout(ms: Option<Millis>) -> String {
    match ms {
        Some(ms) => ms.to_string(),
        None => "infinite".to_string(),
    }
}

/// A product's duration parser: text to milliseconds.
pub type Parser = fn(&str) -> Option<Millis>;

/// What a number without a unit means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BareUnit {
    /// HAProxy: milliseconds.
    Millis,
    /// nginx, Kubernetes, AWS, GKE: seconds.
    Seconds,
    /// Azure's idle timeout annotation: minutes.
    Minutes,
}

/// Longest accepted duration: 100 years (anything longer is not a timeout someone means).
const MAX_MS: u64 = 100 * 365 * 86_400_000;

/// Parses `3600`, `"240s"`, `30m`, `1h30m`, `1.5h`, `500ms`, `100us` into milliseconds
/// (rounded up). A number without a unit is read with `bare`. `None` when it is not a duration.
pub fn parse(text: &str, bare: BareUnit) -> Option<u64> {
    let text = unquote(text);
    if text.is_empty() || text.len() > 64 {
        return None;
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        let n: u64 = text.parse().ok()?;
        let factor = match bare {
            BareUnit::Millis => 1,
            BareUnit::Seconds => 1000,
            BareUnit::Minutes => 60_000,
        };
        return n.checked_mul(factor).filter(|ms| *ms <= MAX_MS);
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut total_us: u128 = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let number = &text[start..i];
        if number.is_empty() || number.matches('.').count() > 1 {
            return None;
        }
        let unit_start = i;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        let unit_us: u128 = match &text[unit_start..i] {
            "us" | "µs" => 1,
            "ms" => 1000,
            "s" => 1_000_000,
            "m" => 60_000_000,
            "h" => 3_600_000_000,
            "d" => 86_400_000_000,
            "w" => 7 * 86_400_000_000,
            _ => return None,
        };
        let (int, frac) = number.split_once('.').unwrap_or((number, ""));
        let int: u128 = if int.is_empty() { 0 } else { int.parse().ok()? };
        let mut value = int.checked_mul(unit_us)?;
        if !frac.is_empty() {
            let digits = frac.len().min(9) as u32;
            let frac_n: u128 = frac[..digits as usize].parse().ok()?;
            value = value.checked_add(frac_n * unit_us / 10u128.pow(digits))?;
        }
        total_us = total_us.checked_add(value)?;
    }
    let ms = total_us.div_ceil(1000);
    u64::try_from(ms).ok().filter(|ms| *ms <= MAX_MS)
}

/// nginx time, as nginx itself reads it (ingress-nginx `worker-shutdown-timeout`, which is
/// written into nginx.conf verbatim; F5 NGINX IC `nginx.org/*` timeouts): the nginx parser's
/// own [`crate::nginx::parse_time`]. A bare number is seconds.
pub fn nginx(text: &str) -> Option<Millis> {
    let text = unquote(text);
    crate::nginx::parse_time(text)
}

/// ingress-nginx integer seconds (`proxy-read-timeout`, `proxy-send-timeout`,
/// `upstream-keepalive-timeout`, `keep-alive`, as ConfigMap keys or annotations): the
/// controller parses them as integers, and a value with a unit (`"3600s"`) is not read.
pub fn ingress_nginx_int(text: &str) -> Option<Millis> {
    seconds(text)
}

/// HAProxy time (haproxytech, haproxy-ingress, OpenShift route annotations): these controllers
/// copy the value into haproxy.cfg, so it is read by the haproxy.cfg parser's own
/// [`crate::haproxy::duration::parse_time`] (bare numbers are milliseconds; `us`, `ms`, `s`,
/// `m`, `h`, `d`; 2^31 ms at most). `None` for anything HAProxy would reject or warn about.
pub fn haproxy(text: &str) -> Option<Millis> {
    use crate::haproxy::duration::{parse_time, DurationValue};
    let text = unquote(text);
    match parse_time(text, false) {
        Ok((DurationValue::Ms(ms), _)) => Some(ms),
        _ => None,
    }
}

/// Go-style durations (OpenShift `tuningOptions`) and declared `kubegap.io/*` values; a bare
/// number is read as seconds.
pub fn go(text: &str) -> Option<Millis> {
    parse(text, BareUnit::Seconds).map(Millis)
}

/// `kubegap.io/*` declarations and `.kubegap.yaml` durations: Go-style (`1m30s`, `90s`,
/// `1.5h`, `500ms`); a bare number, also a decimal one (`0.5`), is seconds.
pub fn declared(text: &str) -> Option<Millis> {
    decimal(unquote(text), "s").or_else(|| go(text))
}

/// A plain decimal number (`5`, `2.5`, no sign, no exponent) in `unit` (`s`, `ms`), as an
/// application server's flag writes it; rounded up to the millisecond like every other
/// duration. `None` for anything else.
pub fn decimal(text: &str, unit: &str) -> Option<Millis> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.bytes().any(|b| b.is_ascii_digit());
    if !plain {
        return None;
    }
    parse(&format!("{text}{unit}"), BareUnit::Seconds).map(Millis)
}

/// Whole seconds (AWS attributes, GKE `timeoutSec`, `terminationGracePeriodSeconds`).
pub fn seconds(text: &str) -> Option<Millis> {
    whole_number(text, BareUnit::Seconds).map(Millis)
}

/// Azure's idle timeout annotation: whole minutes.
pub fn azure_minutes(text: &str) -> Option<Millis> {
    whole_number(text, BareUnit::Minutes).map(Millis)
}

/// A value as written in an annotation or ConfigMap, without surrounding blanks and quotes.
fn unquote(text: &str) -> &str {
    text.trim().trim_matches(['"', '\'']).trim()
}

/// A number without a unit, read in `unit`; `None` for anything else (`"60s"` included).
fn whole_number(text: &str, unit: BareUnit) -> Option<u64> {
    let text = unquote(text);
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    parse(text, unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(
            nginx("3600"),
            Some(crate::value::duration::Millis(3_600_000))
        );
        assert_eq!(
            nginx("\"240s\""),
            Some(crate::value::duration::Millis(240_000))
        );
        assert_eq!(nginx("10m"), Some(crate::value::duration::Millis(600_000)));
        assert_eq!(
            nginx("1h30m"),
            Some(crate::value::duration::Millis(5_400_000))
        );
        assert_eq!(
            ingress_nginx_int("\"3600\""),
            Some(crate::value::duration::Millis(3_600_000))
        );
        assert_eq!(ingress_nginx_int("3600s"), None);
        assert_eq!(haproxy("3600"), Some(crate::value::duration::Millis(3600)));
        assert_eq!(
            haproxy("30m"),
            Some(crate::value::duration::Millis(1_800_000))
        );
        assert_eq!(
            haproxy("1h"),
            Some(crate::value::duration::Millis(3_600_000))
        );
        assert_eq!(
            haproxy("5000ms"),
            Some(crate::value::duration::Millis(5000))
        );
        assert_eq!(haproxy("100us"), Some(crate::value::duration::Millis(1)));
        assert_eq!(go("1h30m"), Some(crate::value::duration::Millis(5_400_000)));
        assert_eq!(go("1.5h"), Some(crate::value::duration::Millis(5_400_000)));
        assert_eq!(go("25s"), Some(crate::value::duration::Millis(25_000)));
        assert_eq!(seconds("60"), Some(crate::value::duration::Millis(60_000)));
        assert_eq!(seconds("60s"), None);
        assert_eq!(
            azure_minutes("4"),
            Some(crate::value::duration::Millis(240_000))
        );
        assert_eq!(azure_minutes("4m"), None);
        assert_eq!(nginx(""), None);
        assert_eq!(nginx("abc"), None);
        assert_eq!(nginx("10x"), None);
        assert_eq!(nginx("-5"), None);
        assert_eq!(nginx("99999999999999999999"), None);
        assert_eq!(haproxy("1.2.3s"), None);
        assert_eq!(haproxy("1h30m"), None, "HAProxy takes one unit only");
        assert_eq!(haproxy("30days"), None);
        assert_eq!(haproxy("${TIMEOUT}"), None);
        assert_eq!(declared("1m30s"), Some(Millis(90_000)));
        assert_eq!(declared("90s"), Some(Millis(90_000)));
        assert_eq!(declared("90"), Some(Millis(90_000)));
        assert_eq!(declared("\"0.5\""), Some(Millis(500)));
        assert_eq!(declared("500ms"), Some(Millis(500)));
        assert_eq!(declared("-5s"), None);
        assert_eq!(decimal("2.5", "s"), Some(Millis(2500)));
        assert_eq!(decimal("1500", "ms"), Some(Millis(1500)));
        assert_eq!(decimal("0.0001", "s"), Some(Millis(1)));
        for bad in ["-5", "inf", "NaN", "1e3", ".", "", "5s"] {
            assert_eq!(decimal(bad, "s"), None, "{bad}");
        }
    }

    #[test]
    fn one_format() {
        assert_eq!(format_ms(0), "0s");
        assert_eq!(format_ms(500), "500ms");
        assert_eq!(format_ms(1500), "1.5s");
        assert_eq!(format_ms(3600), "3.6s");
        assert_eq!(format_ms(50_000), "50s");
        assert_eq!(format_ms(90_000), "90s");
        assert_eq!(format_ms(240_000), "240s");
        assert_eq!(format_ms(599_000), "599s");
        assert_eq!(format_ms(600_000), "10m");
        assert_eq!(format_ms(630_000), "10m30s");
        assert_eq!(format_ms(1_800_000), "30m");
        assert_eq!(format_ms(3_600_000), "1h");
        assert_eq!(format_ms(5_400_000), "1h30m");
        assert_eq!(format_ms(86_400_000), "24h");
        assert_eq!(format_timeout(None), "infinite");
        assert_eq!(Millis::from_secs(120).to_string(), "120s");
        assert_eq!(Millis(5_400_000).to_string(), "1h30m");
    }
}
