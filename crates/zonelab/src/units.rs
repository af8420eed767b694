//! Human units in configuration files: byte sizes ("4KiB", "64MiB") and extents that may also be
//! given in zones ("16z") or as a share of the device ("50%"). Durations are [`crate::time`]'s.
//!
//! Sizes follow fio's default `kb_base=1024`: "k", "KB" and "KiB" all mean 1024 bytes, and so
//! on through fio's suffixes up to "e" (EiB, 2^60 bytes).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub const MIB: u64 = 1 << 20;

fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let number: f64 = text[..end].parse().ok()?;
    Some((number, text[end..].trim()))
}

/// Parses "4096", "4k", "4KiB", "1.5GiB", "1EiB" into bytes (binary multiples, like fio: k, m,
/// g, t, p, e).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let bad =
        || format!("`{text}` is not a size; write e.g. 4096, \"4KiB\", \"64MiB\" or \"1GiB\"");
    let (number, unit) = split_number(text).ok_or_else(bad)?;
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        "p" | "pb" | "pib" => 50,
        "e" | "eb" | "eib" => 60,
        _ => return Err(bad()),
    };
    let too_large = || format!("`{text}` is more than 2^64 - 1 bytes");
    // Whole numbers exactly (an f64 would round 2^64 - 1 up to 2^64 and saturate).
    let digits = &text.trim()[..text.trim().len() - unit.len()].trim();
    if let Ok(n) = digits.parse::<u64>() {
        return n
            .checked_shl(shift)
            .filter(|b| b >> shift == n)
            .ok_or_else(too_large);
    }
    let bytes = number * (1u64 << shift) as f64;
    if bytes.fract() != 0.0 {
        return Err(format!("`{text}` is not a whole number of bytes"));
    }
    if bytes >= 18_446_744_073_709_551_616.0 {
        return Err(too_large());
    }
    Ok(bytes as u64)
}

fn format_bytes(bytes: u64) -> String {
    for (shift, unit) in [
        (60, "EiB"),
        (50, "PiB"),
        (40, "TiB"),
        (30, "GiB"),
        (20, "MiB"),
        (10, "KiB"),
    ] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

/// An integer or a string in TOML.
pub(crate) enum IntOrText {
    Int(i128),
    Text(String),
}

impl IntOrText {
    /// Reads an integer or a string; anything else is refused with `expected` (what the field
    /// takes, e.g. "a size such as 4096 or \"4KiB\"") in the message.
    pub(crate) fn read<'de, D: Deserializer<'de>>(
        d: D,
        expected: &'static str,
    ) -> Result<Self, D::Error> {
        struct V(&'static str);
        impl serde::de::Visitor<'_> for V {
            type Value = IntOrText;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(self.0)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<IntOrText, E> {
                Ok(IntOrText::Int(v as i128))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<IntOrText, E> {
                Ok(IntOrText::Int(v as i128))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<IntOrText, E> {
                Ok(IntOrText::Text(v.to_string()))
            }
        }
        d.deserialize_any(V(expected))
    }
}

/// A byte count written as an integer or with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match IntOrText::read(d, "a size: a number of bytes or a string such as \"4KiB\"")? {
            IntOrText::Int(n) if n < 0 => Err(serde::de::Error::custom(format!(
                "{n} is negative; a size must be at least 0"
            ))),
            IntOrText::Int(n) => u64::try_from(n)
                .map(Bytes)
                .map_err(|_| serde::de::Error::custom(format!("{n} is too large for a size"))),
            IntOrText::Text(t) => parse_bytes(&t).map(Bytes).map_err(serde::de::Error::custom),
        }
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_bytes(self.0))
    }
}

/// Where a job starts or how much it covers: bytes, whole zones ("16z"), or a share ("50%").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Extent {
    Bytes(u64),
    Zones(u64),
    Percent(f64),
}

impl Extent {
    /// Resolves to bytes on a namespace of `total_bytes` with zones of `zone_bytes`.
    pub fn to_bytes(self, zone_bytes: u64, total_bytes: u64) -> u64 {
        match self {
            Extent::Bytes(b) => b,
            Extent::Zones(z) => z.saturating_mul(zone_bytes),
            Extent::Percent(p) => ((total_bytes as f64) * p / 100.0) as u64,
        }
    }
}

fn parse_extent(text: &str) -> Result<Extent, String> {
    let t = text.trim();
    if let Some(p) = t.strip_suffix('%') {
        let p: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a percentage"))?;
        if !(0.0..=100.0).contains(&p) {
            return Err(format!("`{text}` must be between 0% and 100%"));
        }
        return Ok(Extent::Percent(p));
    }
    for suffix in ["zones", "zone", "z"] {
        if let Some(n) = t.strip_suffix(suffix) {
            let n: u64 = n.trim().parse().map_err(|_| {
                format!("`{text}` is not a whole number of zones; write e.g. \"16z\"")
            })?;
            return Ok(Extent::Zones(n));
        }
    }
    parse_bytes(t).map(Extent::Bytes)
}

impl<'de> Deserialize<'de> for Extent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let expected = "an offset or size: bytes, or a string such as \"1GiB\", \"16z\" or \"50%\"";
        match IntOrText::read(d, expected)? {
            IntOrText::Int(n) if n < 0 => Err(serde::de::Error::custom(format!(
                "{n} is negative; an offset or size must be at least 0"
            ))),
            IntOrText::Int(n) => u64::try_from(n).map(Extent::Bytes).map_err(|_| {
                serde::de::Error::custom(format!("{n} is too large for an offset or size"))
            }),
            IntOrText::Text(t) => parse_extent(&t).map_err(serde::de::Error::custom),
        }
    }
}

impl Serialize for Extent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Extent::Bytes(b) => s.serialize_str(&format_bytes(*b)),
            Extent::Zones(z) => s.serialize_str(&format!("{z}z")),
            Extent::Percent(p) => s.serialize_str(&format!("{p}%")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_like_fio() {
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("4k"), Ok(4096));
        assert_eq!(parse_bytes("4KiB"), Ok(4096));
        assert_eq!(parse_bytes("64MiB"), Ok(64 << 20));
        assert_eq!(parse_bytes("1.5GiB"), Ok(3 << 29));
        assert!(parse_bytes("4 parsecs").is_err());
        assert!(parse_bytes("-4k").is_err());
        assert!(parse_bytes("0.5b").is_err());
        // Regression: 2^64 was accepted as 2^64 - 1.
        assert_eq!(parse_bytes("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_bytes("18446744073709551616").is_err());
        assert!(parse_bytes("18446744073709551616.0").is_err());
        assert!(parse_bytes("16777216TiB").is_err());
        assert_eq!(parse_bytes("16777215TiB"), Ok(16_777_215 << 40));
    }

    /// Regression: `1EiB` (2^60, which fits in 64 bits) was not a size; fio takes the "p" and
    /// "e" suffixes too.
    #[test]
    fn one_exbibyte_was_not_a_size() {
        assert_eq!(parse_bytes("1EiB"), Ok(1 << 60));
        assert_eq!(parse_bytes("1e"), Ok(1 << 60));
        assert_eq!(parse_bytes("15EB"), Ok(15 << 60));
        assert_eq!(parse_bytes("1PiB"), Ok(1 << 50));
        assert_eq!(parse_bytes("2p"), Ok(2 << 50));
        assert_eq!(parse_bytes("0.5EiB"), Ok(1 << 59));
        assert!(parse_bytes("16EiB").is_err(), "2^64 does not fit");
        assert!(parse_bytes("16.0EiB").is_err());
        assert_eq!(format_bytes(1 << 60), "1EiB");
        assert_eq!(format_bytes(3 << 50), "3PiB");
        assert_eq!(format_bytes((1 << 50) + (1 << 40)), "1025TiB");
    }

    #[test]
    fn extents_in_zones_and_percent() {
        assert_eq!(parse_extent("16z"), Ok(Extent::Zones(16)));
        assert_eq!(parse_extent("50%"), Ok(Extent::Percent(50.0)));
        assert!(parse_extent("150%").is_err());
        assert_eq!(Extent::Zones(2).to_bytes(10, 100), 20);
        assert_eq!(Extent::Percent(50.0).to_bytes(10, 100), 50);
    }
}
