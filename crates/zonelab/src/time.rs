//! Simulated time: integer nanoseconds, as an instant on the simulation's clock and as a
//! duration. The clock starts at zero when a device is built; nothing here reads the wall clock.
//!
//! `Duration` is also how configuration files write times ("500ms", "20us", "1h"): a bare
//! integer is refused so a unit is never guessed.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// A point on the simulated clock, in nanoseconds since the device was built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

/// A span of simulated time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(u64);

impl Instant {
    pub const ZERO: Instant = Instant(0);
    /// Later than any time a run reaches: "never".
    pub const NEVER: Instant = Instant(u64::MAX);

    pub const fn from_ns(ns: u64) -> Self {
        Instant(ns)
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    /// Time since `earlier`, or zero if `earlier` is later.
    pub fn since(self, earlier: Instant) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);

    pub const fn from_ns(ns: u64) -> Self {
        Duration(ns)
    }
    pub const fn from_us(us: u64) -> Self {
        Duration(us * NS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> Self {
        Duration(ms * NS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * NS_PER_S)
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
    /// Time to move `bytes` over a link of `rate_mb_s` megabytes (10^6 B) per second: 1 MB/s is
    /// one byte per microsecond, so this is `bytes * 1000 / rate`.
    #[inline]
    pub fn transfer(bytes: u64, rate_mb_s: u64) -> Duration {
        Duration(bytes * NS_PER_US / rate_mb_s)
    }
}

/// A link's rate with the transfer time of the last size asked remembered: requests of one size
/// follow each other on hot paths, and this saves a division for each.
#[derive(Clone, Copy, Debug)]
pub struct Rate {
    mb_s: u64,
    last_bytes: u64,
    last: Duration,
}

impl Rate {
    pub fn new(mb_s: u64) -> Self {
        Rate {
            mb_s,
            last_bytes: 0,
            last: Duration::ZERO,
        }
    }

    /// [`Duration::transfer`] of `bytes` at this rate.
    #[inline]
    pub fn transfer(&mut self, bytes: u64) -> Duration {
        if bytes != self.last_bytes {
            self.last_bytes = bytes;
            self.last = Duration::transfer(bytes, self.mb_s);
        }
        self.last
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    #[inline]
    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(d.0))
    }
}

impl AddAssign<Duration> for Instant {
    #[inline]
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;
    #[inline]
    fn sub(self, d: Duration) -> Instant {
        Instant(self.0 - d.0)
    }
}

/// `later - earlier`; panics if `earlier` is later (use [`Instant::since`] when it may be).
impl Sub<Instant> for Instant {
    type Output = Duration;
    #[inline]
    fn sub(self, earlier: Instant) -> Duration {
        Duration(self.0 - earlier.0)
    }
}

impl Add for Duration {
    type Output = Duration;
    #[inline]
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}

impl AddAssign for Duration {
    #[inline]
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub for Duration {
    type Output = Duration;
    #[inline]
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0 - d.0)
    }
}

impl SubAssign for Duration {
    #[inline]
    fn sub_assign(&mut self, d: Duration) {
        self.0 -= d.0;
    }
}

impl std::iter::Sum for Duration {
    fn sum<I: Iterator<Item = Duration>>(iter: I) -> Duration {
        iter.fold(Duration::ZERO, |a, b| a + b)
    }
}

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.secs_f64())
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_duration(self.0))
    }
}

/// Instants serialize as integer nanoseconds (results files).
impl Serialize for Instant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Instant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        u64::deserialize(d).map(Instant)
    }
}

/// Parses "10s", "500ms", "20us", "100ns", "2m", "1h" into nanoseconds.
pub fn parse_duration_ns(text: &str) -> Result<u64, String> {
    let bad =
        || format!("`{text}` is not a duration; write e.g. \"500ms\", \"10s\", \"20us\" or \"1h\"");
    let t = text.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let number: f64 = t[..end].parse().map_err(|_| bad())?;
    let scale = match t[end..].trim() {
        "ns" => 1,
        "us" => NS_PER_US,
        "ms" => NS_PER_MS,
        "s" => NS_PER_S,
        "m" | "min" => 60 * NS_PER_S,
        "h" => 3600 * NS_PER_S,
        _ => return Err(bad()),
    };
    let too_long = || format!("`{text}` is more than 2^64 - 1 nanoseconds");
    // Whole numbers exactly (an f64 rounds counts of nanoseconds above 2^53).
    if let Ok(n) = t[..end].parse::<u64>() {
        return n.checked_mul(scale).ok_or_else(too_long);
    }
    let ns = number * scale as f64;
    if ns >= u64::MAX as f64 {
        return Err(too_long());
    }
    if ns.fract() != 0.0 {
        return Err(format!("`{text}` is not a whole number of nanoseconds"));
    }
    Ok(ns as u64)
}

pub fn format_duration(ns: u64) -> String {
    for (scale, unit) in [(NS_PER_S, "s"), (NS_PER_MS, "ms"), (NS_PER_US, "us")] {
        if ns >= scale && ns.is_multiple_of(scale) {
            return format!("{}{unit}", ns / scale);
        }
    }
    format!("{ns}ns")
}

/// Durations in configuration files carry a unit; bare integers are refused. Binary formats
/// (device state files) hold integer nanoseconds.
impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if !d.is_human_readable() {
            return u64::deserialize(d).map(Duration);
        }
        let expected = "a duration: a string such as \"500ms\", \"10s\" or \"20us\"";
        match crate::units::IntOrText::read(d, expected)? {
            crate::units::IntOrText::Int(n) => Err(serde::de::Error::custom(format!(
                "{n} has no unit; write e.g. \"{n}s\" or \"{n}ms\""
            ))),
            crate::units::IntOrText::Text(t) => parse_duration_ns(&t)
                .map(Duration)
                .map_err(serde::de::Error::custom),
        }
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !s.is_human_readable() {
            return s.serialize_u64(self.0);
        }
        s.serialize_str(&format_duration(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_units() {
        assert_eq!(parse_duration_ns("500ms"), Ok(500 * NS_PER_MS));
        assert_eq!(parse_duration_ns("2m"), Ok(120 * NS_PER_S));
        assert_eq!(parse_duration_ns("20us"), Ok(20_000));
        assert!(parse_duration_ns("10").is_err());
        assert!(parse_duration_ns("99999999999h").is_err());
        assert_eq!(format_duration(1500 * NS_PER_US), "1500us");
    }

    /// Regression: durations went through an f64, so a count of nanoseconds above 2^53 (104
    /// days) was rounded: "31536000000000001ns" read as a year exactly, past the runtime
    /// bound's check, and a resolved config could not give back every duration it held.
    #[test]
    fn durations_above_2_pow_53_ns_were_rounded() {
        assert_eq!(
            parse_duration_ns("31536000000000001ns"),
            Ok(31_536_000_000_000_001)
        );
        assert_eq!(parse_duration_ns("18446744073709551615ns"), Ok(u64::MAX));
        assert!(parse_duration_ns("18446744073709551616ns").is_err());
        assert!(
            parse_duration_ns("5124096h").is_err(),
            "2^64 ns is 5124095.6 h"
        );
        assert_eq!(
            parse_duration_ns("5124095h"),
            Ok(5_124_095 * 3600 * NS_PER_S)
        );
        assert_eq!(parse_duration_ns("1.5s"), Ok(1_500_000_000));
        assert!(parse_duration_ns("0.5ns").is_err());
        for ns in [(1u64 << 53) + 1, u64::MAX, 31_536_000_000_000_001] {
            assert_eq!(parse_duration_ns(&format_duration(ns)), Ok(ns));
        }
    }

    #[test]
    fn instants_and_durations_compose() {
        let t = Instant::from_ns(100) + Duration::from_ns(50);
        assert_eq!(t.ns(), 150);
        assert_eq!(t - Instant::from_ns(100), Duration::from_ns(50));
        assert_eq!(Instant::from_ns(10).since(t), Duration::ZERO);
        assert_eq!(Instant::NEVER + Duration::from_secs(1), Instant::NEVER);
        // 4 KiB at 800 MB/s = 5.12 us.
        assert_eq!(Duration::transfer(4096, 800), Duration::from_ns(5120));
    }
}
