//! Range checks shared by every config section: each refuses a value outside its range with an
//! error naming the field.

use super::ConfigError;
use crate::time::Duration;

/// `value` lies in `lo..=hi`, or an error naming the field and the range.
pub(crate) fn within(field: &str, value: u64, lo: u64, hi: u64) -> Result<(), ConfigError> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::field(
            field,
            format!("{value} must be between {lo} and {hi}"),
        ))
    }
}

/// A number as a message shows it: as written when it is exact, in scientific notation past
/// 2^53, where a binary float no longer holds every integer (2^63-1 given for a share was
/// echoed as 9223372036854776000, digits nobody wrote: issue 36).
pub fn number(value: f64) -> String {
    if value.is_finite() && value.abs() >= (1u64 << 53) as f64 {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

/// `value` a finite number in `lo..=hi`, or an error naming the field.
pub(crate) fn within_f64(field: &str, value: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
    if value.is_finite() && (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::field(
            field,
            format!("{} must be a number between {lo} and {hi}", number(value)),
        ))
    }
}

/// `value`, when given, at most `max`, or an error naming the field.
pub(crate) fn at_most(
    field: &str,
    value: Option<Duration>,
    max: Duration,
) -> Result<(), ConfigError> {
    match value {
        Some(d) if d > max => Err(ConfigError::field(field, format!("must be at most {max}"))),
        _ => Ok(()),
    }
}
