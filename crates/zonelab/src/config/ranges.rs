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

/// `value` a finite number in `lo..=hi`, or an error naming the field.
pub(crate) fn within_f64(field: &str, value: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
    if value.is_finite() && (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::field(
            field,
            format!("{value} must be a number between {lo} and {hi}"),
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
