//! Bus timestamps: stored as fixed-width RFC 3339 UTC text with
//! microseconds (`2026-11-30T16:05:53.123456Z`), so that text order is time
//! order and `since` filters are index range scans.

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};

use crate::error::{AppError, Result};

pub(crate) fn stored(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

pub(crate) fn now() -> DateTime<Utc> {
    // Microseconds are what is stored: round-trip exactly.
    let now = Utc::now();
    DateTime::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
}

pub(crate) fn parse_stored(text: &str) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
        })
}

/// A `since` filter as clients write it: RFC 3339 / ISO 8601 with an offset
/// (`2026-11-30T10:00:00Z`, `…+01:00`), without one (read as UTC), or a
/// bare date (its midnight, UTC).
pub fn parse_since(text: &str) -> Result<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, format) {
            return Ok(t.and_utc());
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        && let Some(t) = d.and_hms_opt(0, 0, 0)
    {
        return Ok(t.and_utc());
    }
    Err(AppError::invalid_field(
        "since",
        "invalid_time",
        format!("since must be an ISO 8601 time such as 2026-11-30T10:00:00Z, not '{text}'"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_accepts_the_iso_forms_clients_send_and_refuses_the_rest() {
        let z = parse_since("2026-11-30T10:00:00Z").unwrap();
        assert_eq!(parse_since("2026-11-30T11:00:00+01:00").unwrap(), z);
        assert_eq!(parse_since("2026-11-30T10:00:00").unwrap(), z);
        assert_eq!(parse_since("2026-11-30T10:00").unwrap(), z);
        assert_eq!(
            parse_since("2026-11-30").unwrap(),
            parse_since("2026-11-30T00:00:00Z").unwrap()
        );
        for bad in ["yesterday", "", "2026-13-01", "30/11/2026"] {
            let err = parse_since(bad).unwrap_err();
            assert_eq!(err.field(), Some("since"), "{bad}");
        }
    }

    #[test]
    fn stored_times_sort_as_text_in_time_order() {
        let a = parse_since("2026-11-30T10:00:00.9Z").unwrap();
        let b = parse_since("2026-11-30T10:00:01Z").unwrap();
        assert!(stored(a) < stored(b));
        assert_eq!(stored(b), "2026-11-30T10:00:01.000000Z");
        assert_eq!(parse_stored(&stored(a)).unwrap(), a);
    }
}
