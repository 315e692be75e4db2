//! What a recording leaves out: this machine's paths and the secrets that
//! pass through a session, replaced by placeholders as lines are written.
//!
//! The rules are plain byte scans (no regular expressions) over each line,
//! and pure: the machine's facts come in as a [`ProcessFacts`] value, read
//! from the process only by [`ProcessFacts::of_this_process`].

use std::borrow::Cow;
use std::fmt;

use super::format::{LineForm, line_form};

/// The facts about a process that the default rules redact: its home,
/// working and temporary directories, and its environment (of which only
/// the values of variables named like secrets are redacted).
///
/// Its `Debug` shows the directories and the environment's names, never
/// its values (credentials among them).
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProcessFacts {
    /// The home directory (`$HOME`).
    pub home: Option<String>,
    /// The working directory.
    pub cwd: Option<String>,
    /// The temporary directory (`$TMPDIR`, `/tmp`).
    pub temp_dir: Option<String>,
    /// Environment variables, name and value.
    pub env: Vec<(String, String)>,
}

impl fmt::Debug for ProcessFacts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.env.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("ProcessFacts")
            .field("home", &self.home)
            .field("cwd", &self.cwd)
            .field("temp_dir", &self.temp_dir)
            .field("env_names", &names)
            .finish()
    }
}

impl ProcessFacts {
    /// Facts given explicitly (tests, or a recording made for another
    /// process than this one).
    pub fn new(
        home: Option<String>,
        cwd: Option<String>,
        temp_dir: Option<String>,
        env: Vec<(String, String)>,
    ) -> Self {
        Self {
            home,
            cwd,
            temp_dir,
            env,
        }
    }

    /// This process's facts: `HOME` (`USERPROFILE` on Windows), the current
    /// directory, [`std::env::temp_dir`], and every environment variable
    /// whose name and value are UTF-8.
    pub fn of_this_process() -> Self {
        let text = |path: std::path::PathBuf| path.to_str().map(str::to_owned);
        let home = std::env::var("HOME")
            .ok()
            .or_else(|| std::env::var("USERPROFILE").ok());
        Self {
            home,
            cwd: std::env::current_dir().ok().and_then(text),
            temp_dir: text(std::env::temp_dir()),
            env: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }
}

/// Redaction rules, applied to every line and stderr text a
/// [`CassetteWriter`](super::CassetteWriter) writes.
///
/// The defaults ([`Redactions::defaults`]) replace
///
/// - the home, working and temporary directories with `$HOME`, `$CWD` and
///   `$TMPDIR` (a path only where it ends: `/home/al` is not replaced in
///   `/home/alice`; the longest first, so a working directory inside the
///   home directory is `$CWD`), and the working directory as the CLI names
///   its project folder (`-home-al-project`) with `$CWD_ENCODED`;
/// - Anthropic API keys (`sk-ant-…` → `sk-ant-[redacted]`);
/// - bearer tokens (`Bearer <token>` → `Bearer [redacted]`, for tokens of
///   8 or more characters with a digit, so prose is left alone);
/// - the values of environment variables whose names contain `KEY`,
///   `TOKEN`, `SECRET` or `PASSWORD` (→ `$NAME`), when the value is 8
///   bytes or longer and not a number: shorter values are too likely to
///   occur by chance for replacing them everywhere to be safe;
/// - in JSON lines, the string values of fields named like credentials
///   (`api_key`, `apiKey`, `x-api-key`, `authorization`, `password`,
///   `secret`, `client_secret`, `access_token`, `refresh_token`,
///   `auth_token`; compared without case, `_` or `-`) → `[redacted]`.
///
/// Users add rules with [`replace`](Self::replace), [`path`](Self::path),
/// [`env`](Self::env) and [`field`](Self::field). In a JSON line a value
/// is searched in its JSON-escaped form and the placeholder is escaped
/// alike, so a redacted JSON line stays JSON. Values written with other
/// escapes (`\/`, `\u00e9`) are not recognised, nor fields inside JSON
/// that is itself inside a string.
///
/// The header of a cassette lists the rules' names ([`rule_names`]),
/// never their values; so does `Debug`.
///
/// [`rule_names`]: Self::rule_names
#[derive(Clone, Default)]
pub struct Redactions {
    /// Longest `find` first.
    replacements: Vec<Replacement>,
    anthropic_keys: bool,
    bearer: bool,
    /// Normalised field names.
    fields: Vec<String>,
    names: Vec<String>,
}

impl fmt::Debug for Redactions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The values replaced are the secrets themselves: names only.
        f.debug_struct("Redactions")
            .field("rules", &self.names)
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
struct Replacement {
    find: String,
    /// `find` as it appears inside a JSON string.
    find_json: String,
    placeholder: String,
    placeholder_json: String,
    /// Only where the path ends (no name character follows).
    path: bool,
}

impl fmt::Debug for Replacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // What it finds may be a secret; what it puts there is not.
        f.debug_struct("Replacement")
            .field("placeholder", &self.placeholder)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// The field names redacted by default.
const DEFAULT_FIELDS: &[&str] = &[
    "api_key",
    "x-api-key",
    "authorization",
    "password",
    "secret",
    "client_secret",
    "access_token",
    "refresh_token",
    "auth_token",
];

/// Where a field's string value is replaced, this goes in its place.
const FIELD_PLACEHOLDER: &str = "[redacted]";

impl Redactions {
    /// No rules: lines are recorded as they are. For transcripts that were
    /// scrubbed already, and for benchmarks.
    pub fn none() -> Self {
        Self::default()
    }

    /// The default rules (see the type's docs) for these facts.
    pub fn defaults(facts: &ProcessFacts) -> Self {
        let mut rules = Self::none();
        if let Some(home) = &facts.home {
            rules = rules.add_path("home", home, "$HOME");
        }
        if let Some(cwd) = &facts.cwd {
            rules = rules.add_path("cwd", cwd, "$CWD");
            if let Some(encoded) = encoded_dir(cwd) {
                rules = rules.add_path("cwd-encoded", &encoded, "$CWD_ENCODED");
            }
        }
        if let Some(tmp) = &facts.temp_dir {
            rules = rules.add_path("tmpdir", tmp, "$TMPDIR");
        }
        rules.anthropic_keys = true;
        rules.names.push("anthropic-key".into());
        rules.bearer = true;
        rules.names.push("bearer".into());
        let mut secrets: Vec<&(String, String)> = facts
            .env
            .iter()
            .filter(|(name, value)| is_secret_name(name) && is_redactable_value(value))
            .collect();
        secrets.sort();
        secrets.dedup();
        for (name, value) in secrets {
            rules = rules.env(name, value);
        }
        for field in DEFAULT_FIELDS {
            rules = rules.field(field);
        }
        rules
    }

    /// The default rules for this process
    /// ([`ProcessFacts::of_this_process`]), and the temporary directory's
    /// real path too when it is reached through a link (macOS's
    /// `/var/folders/…` is `/private/var/folders/…`).
    pub fn default_for_this_process() -> Self {
        let facts = ProcessFacts::of_this_process();
        let mut rules = Self::defaults(&facts);
        let real = |dir: &Option<String>| {
            let dir = dir.as_ref()?;
            let real = std::fs::canonicalize(dir).ok()?.to_str()?.to_owned();
            (real != trim_dir(dir)).then_some(real)
        };
        if let Some(real) = real(&facts.temp_dir) {
            rules = rules.add_path("tmpdir-real", &real, "$TMPDIR");
        }
        if let Some(real) = real(&facts.cwd) {
            rules = rules.add_path("cwd-real", &real, "$CWD");
        }
        rules
    }

    /// Also replaces every occurrence of `text` with `placeholder` (in
    /// lines and stderr). Its rule is named `replace:<placeholder>`. An
    /// empty `text` is ignored.
    #[must_use]
    pub fn replace(self, text: impl Into<String>, placeholder: impl Into<String>) -> Self {
        let placeholder = placeholder.into();
        let name = format!("replace:{placeholder}");
        self.add(name, text.into(), placeholder, false)
    }

    /// Also replaces the path `path` with `placeholder` where the path ends
    /// (not in a longer name: `/srv/app` is replaced in `/srv/app/x` but
    /// not in `/srv/apple`). Its rule is named `path:<placeholder>`. A
    /// trailing `/` is ignored; the root and empty paths are ignored.
    #[must_use]
    pub fn path(self, path: impl AsRef<str>, placeholder: impl Into<String>) -> Self {
        let placeholder = placeholder.into();
        let name = format!("path:{placeholder}");
        self.add_path(&name, path.as_ref(), &placeholder)
    }

    /// Also replaces the value of the environment variable `name` with
    /// `$NAME`, whatever its length. Its rule is named `env:NAME`.
    #[must_use]
    pub fn env(self, name: impl AsRef<str>, value: impl Into<String>) -> Self {
        let name = name.as_ref();
        self.add(
            format!("env:{name}"),
            value.into(),
            format!("${name}"),
            false,
        )
    }

    /// Also replaces the string values of JSON fields named `name`
    /// (compared without case, `_` or `-`: `api_key` also covers `apiKey`
    /// and `API-KEY`) with `[redacted]`. Its rule is named `field:<name>`.
    #[must_use]
    pub fn field(mut self, name: impl AsRef<str>) -> Self {
        let name = name.as_ref();
        let normal = normalise_field(name.as_bytes());
        if !normal.is_empty() && !self.fields.contains(&normal) {
            self.fields.push(normal);
            self.names.push(format!("field:{name}"));
        }
        self
    }

    /// The names of the rules, in the order they were added (what a
    /// cassette's header lists).
    pub fn rule_names(&self) -> &[String] {
        &self.names
    }

    /// `line` (a line without its newline) with every rule applied. A line
    /// that is JSON is redacted as JSON (values escaped, fields replaced)
    /// and stays JSON.
    pub fn redact_line<'a>(&self, line: &'a [u8]) -> Cow<'a, [u8]> {
        let json = matches!(line_form(line), LineForm::Json);
        self.apply(line, json)
    }

    /// `text` (stderr, say) with every rule that applies to plain text.
    pub fn redact_text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self.apply(text.as_bytes(), false) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            // Every rule replaces whole UTF-8 sequences with UTF-8 text.
            Cow::Owned(bytes) => Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()),
        }
    }

    fn apply<'a>(&self, line: &'a [u8], json: bool) -> Cow<'a, [u8]> {
        let mut out = Cow::Borrowed(line);
        for rule in &self.replacements {
            let (find, with) = if json {
                (&rule.find_json, &rule.placeholder_json)
            } else {
                (&rule.find, &rule.placeholder)
            };
            if let Some(new) = replace_all(&out, find.as_bytes(), with.as_bytes(), rule.path) {
                out = Cow::Owned(new);
            }
        }
        if self.anthropic_keys {
            if let Some(new) = redact_anthropic_keys(&out) {
                out = Cow::Owned(new);
            }
        }
        if self.bearer {
            if let Some(new) = redact_bearer(&out) {
                out = Cow::Owned(new);
            }
        }
        if json && !self.fields.is_empty() {
            if let Some(new) = redact_fields(&out, &self.fields) {
                out = Cow::Owned(new);
            }
        }
        out
    }

    fn add_path(self, name: &str, path: &str, placeholder: &str) -> Self {
        let path = trim_dir(path);
        if path.len() < 2 {
            return self;
        }
        self.add(
            name.to_owned(),
            path.to_owned(),
            placeholder.to_owned(),
            true,
        )
    }

    fn add(mut self, name: String, find: String, placeholder: String, path: bool) -> Self {
        if find.is_empty() {
            return self;
        }
        let rule = Replacement {
            find_json: json_escaped(&find),
            find,
            placeholder_json: json_escaped(&placeholder),
            placeholder,
            path,
        };
        // Longest first, so that a value inside another (the working
        // directory inside the home directory) is replaced as the longer.
        let at = self
            .replacements
            .iter()
            .position(|r| r.find.len() < rule.find.len())
            .unwrap_or(self.replacements.len());
        self.replacements.insert(at, rule);
        if !self.names.contains(&name) {
            self.names.push(name);
        }
        self
    }
}

/// A directory as the CLI names its project folder (`/home/al/project` →
/// `-home-al-project`); `None` for the root.
pub(super) fn encoded_dir(dir: &str) -> Option<String> {
    let trimmed = trim_dir(dir);
    (trimmed.len() >= 2).then(|| {
        trimmed
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect()
    })
}

fn trim_dir(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() { path } else { trimmed }
}

fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD"]
        .iter()
        .any(|word| upper.contains(word))
}

fn is_redactable_value(value: &str) -> bool {
    value.len() >= 8 && !value.bytes().all(|b| b.is_ascii_digit())
}

/// The text as it appears between the quotes of a JSON string.
fn json_escaped(text: &str) -> String {
    let quoted = serde_json::Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

fn normalise_field(name: &[u8]) -> String {
    name.iter()
        .filter(|b| **b != b'_' && **b != b'-')
        .map(|b| b.to_ascii_lowercase() as char)
        .collect()
}

/// The first `needle` in `hay` at or after `from`.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let first = *needle.first()?;
    let mut at = from;
    while at + needle.len() <= hay.len() {
        let offset = hay[at..=hay.len() - needle.len()]
            .iter()
            .position(|b| *b == first)?;
        at += offset;
        if hay[at..].starts_with(needle) {
            return Some(at);
        }
        at += 1;
    }
    None
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// `hay` with every `find` replaced by `with` (for a path, only where no
/// name character follows); `None` when there is none.
fn replace_all(hay: &[u8], find_: &[u8], with: &[u8], path: bool) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut from = 0;
    while let Some(at) = find(hay, find_, from) {
        let end = at + find_.len();
        if path && hay.get(end).is_some_and(|b| is_name_byte(*b)) {
            from = at + 1;
            continue;
        }
        let buf = out.get_or_insert_with(|| Vec::with_capacity(hay.len()));
        buf.extend_from_slice(&hay[copied..at]);
        buf.extend_from_slice(with);
        copied = end;
        from = end;
    }
    let mut buf = out?;
    buf.extend_from_slice(&hay[copied..]);
    Some(buf)
}

/// Replaces the spans `(start, end)` of `hay` with `with`.
fn splice(hay: &[u8], spans: &[(usize, usize)], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut copied = 0;
    for &(start, end) in spans {
        out.extend_from_slice(&hay[copied..start]);
        out.extend_from_slice(with);
        copied = end;
    }
    out.extend_from_slice(&hay[copied..]);
    out
}

fn redact_anthropic_keys(hay: &[u8]) -> Option<Vec<u8>> {
    const PREFIX: &[u8] = b"sk-ant-";
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(at) = find(hay, PREFIX, from) {
        let start = at + PREFIX.len();
        let len = hay[start..]
            .iter()
            .take_while(|b| is_name_byte(**b))
            .count();
        if len > 0 {
            spans.push((start, start + len));
        }
        from = start + len;
    }
    (!spans.is_empty()).then(|| splice(hay, &spans, FIELD_PLACEHOLDER.as_bytes()))
}

fn redact_bearer(hay: &[u8]) -> Option<Vec<u8>> {
    fn token_byte(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
    }
    let mut spans = Vec::new();
    for prefix in [&b"Bearer "[..], b"bearer "] {
        let mut from = 0;
        while let Some(at) = find(hay, prefix, from) {
            let start = at + prefix.len();
            let mut len = hay[start..].iter().take_while(|b| token_byte(**b)).count();
            len += hay[start + len..]
                .iter()
                .take_while(|b| **b == b'=')
                .count();
            let token = &hay[start..start + len];
            if len >= 8 && token.iter().any(u8::is_ascii_digit) {
                spans.push((start, start + len));
                from = start + len;
            } else {
                // Not a token (prose, or the prefix again: `Bearer Bearer
                // <token>`): the real one may start inside what was read.
                from = at + 1;
            }
        }
    }
    spans.sort_unstable();
    (!spans.is_empty()).then(|| splice(hay, &spans, FIELD_PLACEHOLDER.as_bytes()))
}

/// Replaces the string values of the named fields of a JSON line. A scan of
/// the line's strings: a string followed by `:` is a key.
fn redact_fields(json: &[u8], fields: &[String]) -> Option<Vec<u8>> {
    /// The index of the closing quote of the string whose opening quote is
    /// at `open`.
    fn string_end(json: &[u8], open: usize) -> Option<usize> {
        let mut i = open + 1;
        while i < json.len() {
            match json[i] {
                b'\\' => i += 2,
                b'"' => return Some(i),
                _ => i += 1,
            }
        }
        None
    }
    fn skip_space(json: &[u8], mut i: usize) -> usize {
        while json.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        i
    }
    let mut spans = Vec::new();
    let mut i = 0;
    while i < json.len() {
        if json[i] != b'"' {
            i += 1;
            continue;
        }
        let end = string_end(json, i)?;
        let colon = skip_space(json, end + 1);
        if json.get(colon) != Some(&b':') {
            i = end + 1;
            continue;
        }
        let key = &json[i + 1..end];
        let value = skip_space(json, colon + 1);
        if key.len() <= 64
            && json.get(value) == Some(&b'"')
            && fields.contains(&normalise_field(key))
        {
            let value_end = string_end(json, value)?;
            if &json[value + 1..value_end] != FIELD_PLACEHOLDER.as_bytes() {
                spans.push((value + 1, value_end));
            }
            i = value_end + 1;
        } else {
            i = colon + 1;
        }
    }
    (!spans.is_empty()).then(|| splice(json, &spans, FIELD_PLACEHOLDER.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> ProcessFacts {
        ProcessFacts::new(
            Some("/home/alice".into()),
            Some("/home/alice/proj".into()),
            Some("/tmp/".into()),
            vec![
                ("GITHUB_TOKEN".into(), "ghp_SENTINEL123456".into()),
                ("MAX_OUTPUT_TOKENS".into(), "32000".into()),
                ("SHORT_KEY".into(), "abc".into()),
                ("PATH".into(), "/usr/bin:/bin".into()),
            ],
        )
    }

    fn redact(rules: &Redactions, line: &str) -> String {
        String::from_utf8(rules.redact_line(line.as_bytes()).into_owned()).expect("UTF-8")
    }

    #[test]
    fn paths_longest_first_and_only_where_they_end() {
        let rules = Redactions::defaults(&facts());
        assert_eq!(
            redact(
                &rules,
                r#"{"cwd":"/home/alice/proj","f":"/home/alice/.claude/x","g":"/home/alice2","t":"/tmp/a","u":"/tmpx"}"#
            ),
            r#"{"cwd":"$CWD","f":"$HOME/.claude/x","g":"/home/alice2","t":"$TMPDIR/a","u":"/tmpx"}"#
        );
        assert_eq!(
            redact(&rules, "see /home/alice/projects/-home-alice-proj/a.jsonl"),
            "see $HOME/projects/$CWD_ENCODED/a.jsonl"
        );
    }

    #[test]
    fn env_secrets_only_when_named_so_and_long_enough() {
        let rules = Redactions::defaults(&facts());
        assert!(rules.rule_names().contains(&"env:GITHUB_TOKEN".to_string()));
        assert!(!rules.rule_names().iter().any(|n| n.contains("MAX_OUTPUT")));
        assert!(!rules.rule_names().iter().any(|n| n.contains("SHORT_KEY")));
        assert_eq!(
            redact(&rules, "token ghp_SENTINEL123456 max 32000 abc"),
            "token $GITHUB_TOKEN max 32000 abc"
        );
    }

    #[test]
    fn anthropic_keys_and_bearer_tokens() {
        let rules = Redactions::defaults(&ProcessFacts::default());
        assert_eq!(
            redact(
                &rules,
                r#"{"h":"Bearer abc.DEF-123_x==","k":"sk-ant-api03-Zz9_-q","p":"Bearer of news"}"#
            ),
            r#"{"h":"Bearer [redacted]","k":"sk-ant-[redacted]","p":"Bearer of news"}"#
        );
        let once = redact(&rules, "sk-ant-api03-xyz");
        assert_eq!(redact(&rules, &once), once, "idempotent");
    }

    #[test]
    fn fields_by_normalised_name_string_values_only() {
        let rules = Redactions::defaults(&ProcessFacts::default()).field("sessionToken");
        assert_eq!(
            redact(
                &rules,
                r#"{"apiKey" : "v1","n":{"API-KEY":"v2","password":null},"session_token":"v3","text":"\"api_key\":\"x\"","x":["api_key"]}"#
            ),
            r#"{"apiKey" : "[redacted]","n":{"API-KEY":"[redacted]","password":null},"session_token":"[redacted]","text":"\"api_key\":\"x\"","x":["api_key"]}"#
        );
        // Not JSON: no field scan.
        assert_eq!(redact(&rules, r#"{"api_key":"v1""#), r#"{"api_key":"v1""#);
    }

    #[test]
    fn user_values_are_escaped_in_json() {
        let rules = Redactions::none().replace("a\"b", "<q\"uote>");
        assert_eq!(
            redact(&rules, r#"{"s":"xa\"by"}"#),
            r#"{"s":"x<q\"uote>y"}"#
        );
        assert_eq!(redact(&rules, "plain a\"b"), "plain <q\"uote>");
        assert_eq!(rules.rule_names(), ["replace:<q\"uote>"]);
    }

    #[test]
    fn nothing_to_redact_borrows() {
        let rules = Redactions::defaults(&facts());
        assert!(matches!(rules.redact_line(b"{\"a\":1}"), Cow::Borrowed(_)));
        assert!(matches!(rules.redact_text("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn root_and_empty_paths_are_ignored() {
        let rules = Redactions::defaults(&ProcessFacts::new(
            Some("/".into()),
            Some(String::new()),
            None,
            vec![],
        ));
        assert_eq!(redact(&rules, "/usr/bin"), "/usr/bin");
        assert!(!rules.rule_names().iter().any(|n| n == "home" || n == "cwd"));
    }
}
