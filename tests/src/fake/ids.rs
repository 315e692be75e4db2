//! Identifiers and timestamps shaped like the real CLI's.
//!
//! The fake does not need unpredictable ids, only distinct ones: a
//! splitmix64 generator seeded from the process id and the clock is enough.

use std::time::{SystemTime, UNIX_EPOCH};

/// A small non-cryptographic generator for ids.
pub(crate) struct Ids {
    state: u64,
}

impl Ids {
    pub(crate) fn new() -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Ids {
            state: nanos ^ (u64::from(std::process::id()) << 32) ^ 0x9e37_79b9_7f4a_7c15,
        }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A version-4-looking UUID (`xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`).
    pub(crate) fn uuid(&mut self) -> String {
        let a = self.next();
        let b = self.next();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0x0fff,
            0x8000 | ((b >> 48) & 0x3fff),
            b & 0xffff_ffff_ffff
        )
    }

    /// `n` lowercase hex digits.
    pub(crate) fn hex(&mut self, n: usize) -> String {
        let mut out = String::with_capacity(n + 16);
        while out.len() < n {
            out.push_str(&format!("{:016x}", self.next()));
        }
        out.truncate(n);
        out
    }

    /// A Messages API message id (`msg_fake_…`).
    pub(crate) fn message_id(&mut self) -> String {
        format!("msg_fake_{}", self.hex(20))
    }

    /// A tool-use id (`toolu_fake_…`).
    pub(crate) fn tool_use_id(&mut self) -> String {
        format!("toolu_fake_{}", self.hex(20))
    }

    /// An HTTP request id (`req_fake_…`).
    pub(crate) fn request_id(&mut self) -> String {
        format!("req_fake_{}", self.hex(12))
    }
}

/// The current time as `2026-11-22T00:12:05.865Z`.
pub(crate) fn timestamp() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs();
    let millis = since.subsec_millis();
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian
/// (H. Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn uuid_shape() {
        let mut ids = Ids::new();
        let u = ids.uuid();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
    }
}
