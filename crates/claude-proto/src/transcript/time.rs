//! The ISO 8601 timestamps transcripts carry, to and from milliseconds
//! since the Unix epoch, without a clock or a time-zone database.

/// Milliseconds since the epoch of an ISO 8601 date-time such as the CLI
/// writes (`2026-01-02T03:04:05.678Z`); also a `±hh:mm` offset, a fraction
/// of any length (cut to microseconds) or none, and no zone (read as UTC).
/// `None` if it is not such a date-time.
///
/// The value is computed as the Python SDK computes it (seconds as a
/// float, times 1000, truncated), so both give the same `created_at` to
/// the millisecond.
pub fn parse_iso_millis(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(digits).ok()?.parse().ok()
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut i = 19;
    let mut micros = 0;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        let mut end = start;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        if end == start {
            return None;
        }
        let kept = &text[start..end.min(start + 6)];
        micros = kept.parse::<i64>().ok()? * 10_i64.pow(6 - kept.len() as u32);
        i = end;
    }
    let offset_seconds = match &b[i..] {
        [] | [b'Z'] => 0,
        [sign @ (b'+' | b'-'), ..] if b.len() == i + 6 && b[i + 3] == b':' => {
            let (h, m) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if h > 23 || m > 59 {
                return None;
            }
            let seconds = h * 3600 + m * 60;
            if *sign == b'+' { seconds } else { -seconds }
        }
        _ => return None,
    };
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - offset_seconds;
    let total_micros = seconds.checked_mul(1_000_000)?.checked_add(micros)?;
    // Python: `int(dt.timestamp() * 1000)`, with `timestamp()` a correctly
    // rounded division of whole microseconds.
    Some(((total_micros as f64 / 1e6) * 1000.0) as i64)
}

/// `millis` since the epoch as the CLI writes timestamps:
/// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn format_iso_millis(millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let in_day = millis.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clis_timestamps_parse_as_python_reads_them() {
        assert_eq!(parse_iso_millis("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            parse_iso_millis("2025-01-01T00:00:00.123Z"),
            Some(1_735_689_600_123)
        );
        // Python's float arithmetic gives one millisecond less here.
        assert_eq!(
            parse_iso_millis("1987-03-23T05:50:58.971Z"),
            Some(543_477_058_970)
        );
        assert_eq!(
            parse_iso_millis("2025-01-01T01:00:00+01:00"),
            Some(1_735_689_600_000)
        );
        assert_eq!(parse_iso_millis("2024-02-30T00:00:00Z"), None);
        assert_eq!(parse_iso_millis("yesterday"), None);
        assert_eq!(parse_iso_millis("2025-01-01T00:00:00.Z"), None);
    }

    #[test]
    fn formatting_round_trips() {
        for millis in [0, 1_735_689_600_123, 951_782_400_000, -1] {
            let text = format_iso_millis(millis);
            assert_eq!(
                parse_iso_millis(&text).map(|m| m / 10),
                Some(millis / 10),
                "{text}"
            );
        }
        assert_eq!(
            format_iso_millis(1_735_689_600_123),
            "2025-01-01T00:00:00.123Z"
        );
    }
}
