//! The tool-argument schema checker
//! (`claude_proto_adapter::json_schema::check`) with an arbitrary schema
//! and an arbitrary value: it never panics, and it ends (its depth, step
//! and pattern-size bounds hold whatever either holds; a hang is a
//! libFuzzer timeout).
//!
//! Input layout: `[schema JSON] 0x00 [value JSON]`; an input that is not
//! two JSON values is skipped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(2, |b| *b == 0);
    let (Some(schema), Some(value)) = (parts.next(), parts.next()) else {
        return;
    };
    let (Ok(schema), Ok(value)) = (
        serde_json::from_slice::<Value>(schema),
        serde_json::from_slice::<Value>(value),
    ) else {
        return;
    };
    if let Err(mismatch) = claude_proto_adapter::json_schema::check(&schema, &value) {
        // The message is always something to show.
        assert!(!mismatch.message.is_empty());
        let _ = mismatch.to_string();
    }
});
