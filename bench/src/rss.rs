//! Resident memory of this process, from `/proc/self/status` (Linux; `None`
//! elsewhere).

/// Current resident set size in bytes (`VmRSS`).
pub fn current() -> Option<u64> {
    field("VmRSS:")
}

/// Peak resident set size in bytes (`VmHWM`).
pub fn peak() -> Option<u64> {
    field("VmHWM:")
}

/// Resets the peak to the current size (`/proc/self/clear_refs` with `5`),
/// so a later [`peak`] covers only what follows. `false` if unsupported.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn field(name: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}
