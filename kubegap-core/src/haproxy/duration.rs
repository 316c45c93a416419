//! HAProxy time values: `<digits>[us|ms|s|m|h|d]`, a bare number meaning milliseconds.
//!
//! The grammar follows HAProxy's `parse_time_err()` (src/tools.c): digits, then at most one
//! unit, nothing after it; values are rounded up to the millisecond; results of 2^31 ms or more
//! are an overflow. `infinite` is accepted only where the caller allows it
//! (`close-spread-time`), and `${VAR}` values stay symbolic.

use crate::source::Span;
use crate::value::duration::Millis;

/// HAProxy rejects time values at or above 2^31 - 1 ms (about 24.8 days).
pub const MAX_MS: u64 = 0x7fff_ffff;

/// The unit a time value was written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// `us`, microseconds (rounded up to the millisecond).
    Micros,
    /// `ms`.
    Millis,
    /// `s`.
    Seconds,
    /// `m`.
    Minutes,
    /// `h`.
    Hours,
    /// `d`.
    Days,
}

impl TimeUnit {
    /// The suffix as written.
    pub fn suffix(self) -> &'static str {
        match self {
            TimeUnit::Micros => "us",
            TimeUnit::Millis => "ms",
            TimeUnit::Seconds => "s",
            TimeUnit::Minutes => "m",
            TimeUnit::Hours => "h",
            TimeUnit::Days => "d",
        }
    }
}

/// The normalised value of a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurationValue {
    /// A finite value in milliseconds. `0` is kept as written (for timeouts it means "no
    /// timeout"; see [`Duration::is_unlimited`]).
    Ms(Millis),
    /// The keyword `infinite`.
    Infinite,
    /// An environment variable (`"${VAR}"`): unknown until HAProxy starts.
    Symbolic,
}

/// A time value as written in the file: normalised value, original text, span, unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duration {
    /// The normalised value.
    pub value: DurationValue,
    /// The text as HAProxy reads it (quotes removed).
    pub text: String,
    /// Where it is written.
    pub span: Span,
    /// The unit, `None` for a bare number (milliseconds), `infinite` or a variable.
    pub unit: Option<TimeUnit>,
}

impl Duration {
    /// The value, if finite and known.
    pub fn ms(&self) -> Option<Millis> {
        match self.value {
            DurationValue::Ms(ms) => Some(ms),
            _ => None,
        }
    }

    /// Whether the value is a bare number (no unit): HAProxy reads it as milliseconds.
    pub fn is_bare_number(&self) -> bool {
        self.unit.is_none() && matches!(self.value, DurationValue::Ms(_))
    }

    /// Whether, used as a timeout, this value means "never": `infinite`, or `0`, which HAProxy
    /// turns into an eternal tick.
    pub fn is_unlimited(&self) -> bool {
        matches!(
            self.value,
            DurationValue::Infinite | DurationValue::Ms(Millis(0))
        )
    }

    /// As a timeout, when known: `Some(Some(ms))` for a finite limit, `Some(None)` for no
    /// limit (`0` or `infinite`), `None` for a variable.
    pub fn limit(&self) -> Option<Option<Millis>> {
        match self.value {
            DurationValue::Ms(Millis(0)) | DurationValue::Infinite => Some(None),
            DurationValue::Ms(ms) => Some(Some(ms)),
            DurationValue::Symbolic => None,
        }
    }
}

/// Why a time value is invalid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DurationError {
    /// Empty, or not starting with a digit.
    NotANumber,
    /// An unknown unit or characters after the unit.
    BadUnit,
    /// 2^31 ms or more.
    Overflow,
    /// A valid time followed by other characters (`1min`, `10sec`): HAProxy 2.6 reads the
    /// valid part with a warning ("will be reported as an error in next versions").
    Trailing {
        /// The value of the valid part.
        value: DurationValue,
        /// Its unit.
        unit: Option<TimeUnit>,
    },
}

impl DurationError {
    /// A lowercase description for messages.
    pub fn describe(&self) -> &'static str {
        match self {
            DurationError::NotANumber => "a time must start with a number",
            DurationError::BadUnit => "the unit must be one of us, ms, s, m, h, d",
            DurationError::Overflow => {
                "the time is too large (HAProxy's limit is 2^31 ms, about 24.8 days)"
            }
            DurationError::Trailing { .. } => "characters follow the unit; HAProxy 2.6 ignores them with a warning, newer versions reject them (units are us, ms, s, m, h, d)",
        }
    }
}

/// Parses a time as HAProxy does. `allow_infinite` accepts the keyword `infinite`.
///
/// Text containing `$` (an environment variable) is [`DurationValue::Symbolic`].
pub fn parse_time(
    text: &str,
    allow_infinite: bool,
) -> Result<(DurationValue, Option<TimeUnit>), DurationError> {
    if text.contains('$') {
        return Ok((DurationValue::Symbolic, None));
    }
    if allow_infinite && text == "infinite" {
        return Ok((DurationValue::Infinite, None));
    }
    let digits_end = text
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(text.len());
    if digits_end == 0 {
        return Err(DurationError::NotANumber);
    }
    let mut value: u64 = 0;
    for b in text[..digits_end].bytes() {
        value = value.saturating_mul(10).saturating_add(u64::from(b - b'0'));
    }
    let suffix = &text[digits_end..];
    // The unit the suffix starts with, as HAProxy's parser reads it.
    let (unit, unit_len) = if suffix.is_empty() {
        (None, 0)
    } else if suffix.starts_with("us") {
        (Some(TimeUnit::Micros), 2)
    } else if suffix.starts_with("ms") {
        (Some(TimeUnit::Millis), 2)
    } else if suffix.starts_with('s') {
        (Some(TimeUnit::Seconds), 1)
    } else if suffix.starts_with('m') {
        (Some(TimeUnit::Minutes), 1)
    } else if suffix.starts_with('h') {
        (Some(TimeUnit::Hours), 1)
    } else if suffix.starts_with('d') {
        (Some(TimeUnit::Days), 1)
    } else {
        return Err(DurationError::BadUnit);
    };
    let ms = match unit {
        None | Some(TimeUnit::Millis) => value,
        Some(TimeUnit::Micros) => value.div_ceil(1000),
        Some(TimeUnit::Seconds) => value.saturating_mul(1000),
        Some(TimeUnit::Minutes) => value.saturating_mul(60_000),
        Some(TimeUnit::Hours) => value.saturating_mul(3_600_000),
        Some(TimeUnit::Days) => value.saturating_mul(86_400_000),
    };
    if ms >= MAX_MS {
        return Err(DurationError::Overflow);
    }
    if suffix.len() > unit_len {
        return Err(DurationError::Trailing {
            value: DurationValue::Ms(Millis(ms)),
            unit,
        });
    }
    Ok((DurationValue::Ms(Millis(ms)), unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str) -> Option<u64> {
        match parse_time(text, true) {
            Ok((DurationValue::Ms(ms), _)) => Some(ms.ms()),
            _ => None,
        }
    }

    #[test]
    fn units() {
        assert_eq!(ms("3600"), Some(3600));
        assert_eq!(ms("3600ms"), Some(3600));
        assert_eq!(ms("50s"), Some(50_000));
        assert_eq!(ms("30m"), Some(1_800_000));
        assert_eq!(ms("1h"), Some(3_600_000));
        assert_eq!(ms("1d"), Some(86_400_000));
        assert_eq!(ms("1500us"), Some(2));
        assert_eq!(ms("1us"), Some(1));
        assert_eq!(ms("0"), Some(0));
    }

    #[test]
    fn errors() {
        assert_eq!(parse_time("", false), Err(DurationError::NotANumber));
        assert_eq!(parse_time("s", false), Err(DurationError::NotANumber));
        assert_eq!(parse_time("-1s", false), Err(DurationError::NotANumber));
        assert_eq!(parse_time("10 s", false), Err(DurationError::BadUnit));
        assert_eq!(parse_time("10x", false), Err(DurationError::BadUnit));
        assert_eq!(
            parse_time("1min", false),
            Err(DurationError::Trailing {
                value: DurationValue::Ms(Millis(60_000)),
                unit: Some(TimeUnit::Minutes)
            })
        );
        assert_eq!(parse_time("1.5s", false), Err(DurationError::BadUnit));
        assert!(matches!(
            parse_time("10sec", false),
            Err(DurationError::Trailing { .. })
        ));
        assert_eq!(parse_time("25d", false), Err(DurationError::Overflow));
        assert_eq!(
            parse_time("99999999999999999999999999h", false),
            Err(DurationError::Overflow)
        );
        assert_eq!(
            parse_time("infinite", false),
            Err(DurationError::NotANumber)
        );
        assert_eq!(
            parse_time("infinite", true),
            Ok((DurationValue::Infinite, None))
        );
    }

    #[test]
    fn variables_stay_symbolic() {
        assert_eq!(
            parse_time("${HAPROXY_TEST_TIMEOUT-5s}", false),
            Ok((DurationValue::Symbolic, None))
        );
    }
}
