//! Identifiers of control requests in both directions.

use std::fmt;

/// Identifies a control request this side sent, from
/// [`Session::send_control`](crate::Session::send_control) until its one
/// [`ControlOutcome`](crate::ControlOutcome).
///
/// Unique within a session; the wire id (`req_<n>_<hex>`) is
/// [`ControlOutcome::request_id`](crate::ControlOutcome).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub(crate) u64);

/// Identifies a control request the CLI sent, from its
/// [`Event::Request`](crate::Event::Request) until it is answered with
/// [`Session::respond`](crate::Session::respond), cancelled by the CLI, or
/// abandoned when the session ends.
///
/// Unique within a session even if the CLI reuses a wire id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IncomingId(pub(crate) u64);

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "outgoing request #{}", self.0)
    }
}

impl fmt::Display for IncomingId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "incoming request #{}", self.0)
    }
}

/// The wire id for our `n`th request: `req_<n>_<8 hex digits>`.
pub(crate) fn wire_request_id(n: u64, seed: u64) -> String {
    format!(
        "req_{n}_{:08x}",
        mix(seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)) as u32
    )
}

/// splitmix64 finaliser: spreads the bits so consecutive ids look unrelated.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_ids_are_distinct_and_shaped() {
        let a = wire_request_id(1, 7);
        let b = wire_request_id(2, 7);
        let c = wire_request_id(1, 8);
        assert!(a.starts_with("req_1_") && a.len() == "req_1_".len() + 8);
        assert_ne!(a, b);
        assert_ne!(a, c);
    }
}
