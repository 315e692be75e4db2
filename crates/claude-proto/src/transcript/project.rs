//! How the CLI names a project's directory under `projects/`, and the
//! session ids it names transcripts by.

/// The longest project key the CLI writes before it truncates and appends
/// a hash (file systems limit one path component to 255 bytes).
pub const MAX_PROJECT_KEY_LEN: usize = 200;

/// The project key the CLI derives from a working directory: every UTF-16
/// code unit that is not an ASCII letter or digit becomes `-`; a result
/// longer than [`MAX_PROJECT_KEY_LEN`] is cut to that length and followed
/// by `-` and a hash of the whole path.
///
/// The CLI works on JavaScript strings, so a character outside the Basic
/// Multilingual Plane (an emoji) counts as two units and gives `--`; the
/// Python SDK counts it once. We follow the CLI. `path` should already be
/// canonical (absolute, symlinks resolved, NFC): the process crate's
/// `sessions::project_key_for_directory` does that.
///
/// For keys over the limit the CLI built with Bun hashes with `Bun.hash`,
/// not the djb2-style hash written here (the one the SDKs compute), so the
/// suffix may differ: look such directories up with
/// [`is_truncated_key_of`] as the SDKs do.
pub fn project_key(path: &str) -> String {
    let mut key = String::with_capacity(path.len());
    for unit in path.encode_utf16() {
        let ascii_alphanumeric = u8::try_from(unit).is_ok_and(|b| b.is_ascii_alphanumeric());
        key.push(if ascii_alphanumeric {
            char::from(unit as u8)
        } else {
            '-'
        });
    }
    if key.len() <= MAX_PROJECT_KEY_LEN {
        return key;
    }
    // Every character of `key` is ASCII, so byte length is UTF-16 length.
    key.truncate(MAX_PROJECT_KEY_LEN);
    key.push('-');
    key.push_str(&simple_hash(path));
    key
}

/// A Windows path as the CLI and Python's `os.path.realpath` give it:
/// `\\?\C:\x` is `C:\x`, `\\?\UNC\server\share` is
/// `\\server\share`. `std::fs::canonicalize` returns these verbatim
/// forms on Windows; the CLI's project key has no room for them (the
/// key of `C:\x` is `C--x`). Other paths are returned as they are. Pure:
/// call it on what `canonicalize` gave before keying or comparing a path
/// with the CLI's.
pub fn without_verbatim_prefix(path: &str) -> std::borrow::Cow<'_, str> {
    if let Some(unc) = path.strip_prefix(r"\\?\UNC\") {
        return format!(r"\\{unc}").into();
    }
    match path.strip_prefix(r"\\?\") {
        // Only a drive path: other verbatim forms have no plain spelling.
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => rest.into(),
        _ => path.into(),
    }
}

/// Whether `dir_name` is the directory of a long `path` whose hash suffix
/// was computed differently: the same first [`MAX_PROJECT_KEY_LEN`]
/// characters, then `-`. Always `false` for paths whose key is not
/// truncated, where only an exact match counts.
pub fn is_truncated_key_of(dir_name: &str, path: &str) -> bool {
    let key = project_key(path);
    key.len() > MAX_PROJECT_KEY_LEN
        && dir_name.len() > MAX_PROJECT_KEY_LEN + 1
        && dir_name.as_bytes()[..=MAX_PROJECT_KEY_LEN] == key.as_bytes()[..=MAX_PROJECT_KEY_LEN]
}

/// The SDKs' 32-bit string hash (`h = h * 31 + unit` over UTF-16 code
/// units, wrapping, then the absolute value in base 36).
fn simple_hash(s: &str) -> String {
    let mut h: i32 = 0;
    for unit in s.encode_utf16() {
        h = h
            .wrapping_shl(5)
            .wrapping_sub(h)
            .wrapping_add(i32::from(unit));
    }
    let mut n = i64::from(h).unsigned_abs();
    if n == 0 {
        return "0".to_owned();
    }
    let mut digits = Vec::new();
    while n > 0 {
        digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize]);
        n /= 36;
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

/// Whether `id` is a UUID in the 8-4-4-4-12 hex form (either case): the
/// only names the CLI gives session transcripts, and the only ids the
/// session functions accept, so that an id can never walk out of a
/// project directory.
pub fn is_uuid(id: &str) -> bool {
    let bytes = id.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, &b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `canonicalize` gives on Windows, as the CLI keys it.
    #[test]
    fn a_windows_verbatim_path_is_keyed_as_the_cli_keys_it() {
        let plain = without_verbatim_prefix(r"\\?\C:\Users\me\proj");
        assert_eq!(plain, r"C:\Users\me\proj");
        assert_eq!(project_key(&plain), "C--Users-me-proj");
        assert_eq!(
            without_verbatim_prefix(r"\\?\UNC\server\share\proj"),
            r"\\server\share\proj"
        );
        assert_eq!(without_verbatim_prefix(r"C:\proj"), r"C:\proj");
        assert_eq!(without_verbatim_prefix("/private/var/x"), "/private/var/x");
        // A verbatim form with no plain spelling stays as it is.
        assert_eq!(
            without_verbatim_prefix(r"\\?\Volume{1234}\proj"),
            r"\\?\Volume{1234}\proj"
        );
    }

    #[test]
    fn short_paths_map_each_utf16_unit_to_one_character() {
        assert_eq!(project_key("/home/u/my_proj.x"), "-home-u-my-proj-x");
        assert_eq!(project_key("/tmp/caf\u{e9}"), "-tmp-caf-");
        // One emoji is two UTF-16 units, as in the CLI.
        assert_eq!(project_key("/a/\u{1f600}"), "-a---");
    }

    #[test]
    fn long_paths_are_cut_and_hashed() {
        let path = format!("/{}", "x".repeat(300));
        let key = project_key(&path);
        assert_eq!(&key[..MAX_PROJECT_KEY_LEN], &project_key(&path)[..200]);
        assert_eq!(key.as_bytes()[MAX_PROJECT_KEY_LEN], b'-');
        assert!(key.len() > 201);
        assert!(is_truncated_key_of(
            &format!("{}-otherhash", &key[..200]),
            &path
        ));
        assert!(!is_truncated_key_of("-tmp", "/tmp"));
    }

    #[test]
    fn the_hash_is_the_sdks() {
        // Values computed with the Python SDK's `_simple_hash`.
        assert_eq!(simple_hash(""), "0");
        assert_eq!(simple_hash("a"), "2p");
        assert_eq!(simple_hash("hello"), "1n1e4y");
    }

    #[test]
    fn uuids_are_recognised_strictly() {
        assert!(is_uuid("550e8400-e29b-41d4-a716-446655440000"));
        assert!(is_uuid("550E8400-E29B-41D4-A716-446655440000"));
        assert!(!is_uuid("550e8400e29b41d4a716446655440000"));
        assert!(!is_uuid("../../../etc/passwd-aaaa-aaaa-aaaaaaaaaa"));
        assert!(!is_uuid("550e8400-e29b-41d4-a716-44665544000g"));
    }
}
