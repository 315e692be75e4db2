//! The workspace's shape, checked: no two source files of a crate import
//! each other, directly or around a circle.
//!
//! A circle is a room whose door you cannot find: with one, no file of it
//! can be read first. Every crate under `crates/` and the suites' library
//! (`tests/src`) must read from its leaves up. A file "imports" another
//! when it names an item of it: in a `use`, or in a path in its code
//! (`crate::a::f()`, `super::T`, `child::g()`). A parent's `mod` and
//! `pub use` lines are its table of contents, not imports: they are left
//! out, so a parent that re-exports its children is not in a circle with
//! them, but one whose own code uses a child that uses it back is. Unit
//! tests (`#[cfg(test)] mod`) are read after the code and may use any of
//! the crate: they are left out too.
#![allow(clippy::unwrap_used)] // a test: fail loudly

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A source file and the module path it defines (`[]` for `lib.rs`).
struct File {
    path: PathBuf,
    module: Vec<String>,
    code: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            // Each binary is a crate of its own, with its own root.
            if path.file_name().is_some_and(|n| n != "bin") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("lib" | "main" | "mod")
    ) {
        parts.pop();
    }
    parts
}

/// The code without comments and string literals (their text could look
/// like a path).
fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            i += end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            i += end;
        } else if rest.starts_with("r#\"") || rest.starts_with("r\"") {
            let hashes = rest[1..].bytes().take_while(|b| *b == b'#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            let end = rest[body..]
                .find(&close)
                .map_or(rest.len(), |e| body + e + close.len());
            out.push_str("\"\"");
            i += end;
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() {
                match rest.as_bytes()[j] {
                    b'\\' => j += 2,
                    b'"' => break,
                    _ => j += 1,
                }
            }
            out.push_str("\"\"");
            i += (j + 1).min(rest.len());
        } else if rest.starts_with("'\\") {
            // An escaped character literal ('\'', '\"', '\u{..}').
            let end = rest
                .get(3..)
                .and_then(|r| r.find('\''))
                .map_or(rest.len(), |e| 3 + e + 1);
            out.push_str("' '");
            i += end;
        } else if rest.starts_with("'\"'") || rest.starts_with("'{'") || rest.starts_with("'}'") {
            out.push_str("' '");
            i += 3;
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Expands a use tree (`a::{b, c::{d as e, self}}`) into its paths, each
/// with the name it brings in.
fn expand(tree: &str) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    expand_into(tree, &mut Vec::new(), &mut out);
    out
}

fn expand_into(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    let tree = tree.trim();
    let segments = |text: &str| -> Vec<String> {
        text.split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    };
    match tree.find('{') {
        Some(open) if tree.ends_with('}') => {
            let len = prefix.len();
            prefix.extend(segments(&tree[..open]));
            let inner = &tree[open + 1..tree.len() - 1];
            let (mut depth, mut start) = (0, 0);
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand_into(&inner[start..i], prefix, out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            expand_into(&inner[start..], prefix, out);
            prefix.truncate(len);
        }
        _ => {
            let mut words = tree.split_whitespace();
            let Some(path) = words.next() else { return };
            let alias = match (words.next(), words.next()) {
                (Some("as"), Some(alias)) => Some(alias.to_owned()),
                _ => None,
            };
            let mut full = prefix.clone();
            full.extend(segments(path).into_iter().filter(|s| s != "self"));
            if let Some(last) = alias.or_else(|| full.last().cloned()) {
                out.push((full, last));
            }
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every path a file names, with the inline modules it is named from:
/// `(inline modules, path, the name it brings in if a re-export)`.
fn paths(
    code: &str,
    children: &BTreeSet<String>,
) -> Vec<(Vec<String>, Vec<String>, Option<String>)> {
    let mut out = Vec::new();
    // Inline modules around the position: name, depth, whether unit tests.
    let mut inline: Vec<(String, usize, bool)> = Vec::new();
    let mut depth = 0usize;
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (i, c) = chars[k];
        let boundary = i == 0 || !code[..i].ends_with(|p: char| is_ident(p) || p == ':');
        let here: Vec<String> = inline.iter().map(|(n, _, _)| n.clone()).collect();
        let in_tests = inline.iter().any(|(_, _, tests)| *tests);
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d, _)| *d == depth) {
                    inline.pop();
                }
            }
            _ if boundary && code[i..].starts_with("mod ") => {
                let rest = &code[i + 4..];
                let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
                if rest[name.len()..].trim_start().starts_with('{') {
                    // `#[cfg(test)]` anywhere among the attributes above it.
                    let before = code[..i].trim_end().trim_end_matches("pub").trim_end();
                    let attributes = before
                        .lines()
                        .rev()
                        .map(str::trim)
                        .take_while(|line| line.starts_with("#["));
                    let tests = attributes.into_iter().any(|line| line == "#[cfg(test)]");
                    inline.push((name, depth, tests));
                }
            }
            _ if in_tests => {}
            _ if boundary && code[i..].starts_with("use ") => {
                let end = code[i..].find(';').map_or(code.len(), |e| i + e);
                let before = code[..i].trim_end();
                let reexport = before.ends_with("pub") || before.ends_with(')');
                for (path, name) in expand(&code[i + 4..end]) {
                    out.push((here.clone(), path, reexport.then_some(name)));
                }
                while k < chars.len() && chars[k].0 < end {
                    k += 1;
                }
                continue;
            }
            _ if boundary && c.is_alphabetic() || c == '$' => {
                let word: String = code[i..]
                    .chars()
                    .skip(usize::from(c == '$'))
                    .take_while(|c| is_ident(*c))
                    .collect();
                let start = i + usize::from(c == '$');
                if code[start + word.len()..].starts_with("::")
                    && (matches!(word.as_str(), "crate" | "super" | "self")
                        || children.contains(&word))
                {
                    let path: Vec<String> = code[start..]
                        .split(|c: char| !(is_ident(c) || c == ':'))
                        .next()
                        .unwrap()
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect();
                    out.push((here.clone(), path, None));
                }
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// The file a path leads to from `module` (its file's module plus the
/// inline modules it is named from), following the root's re-exports.
fn resolve(
    module: &[String],
    path: &[String],
    files: &BTreeMap<Vec<String>, usize>,
    reexports: &BTreeMap<Vec<String>, Vec<String>>,
) -> Option<usize> {
    let mut absolute: Vec<String> = match path.first()?.as_str() {
        "crate" => path[1..].to_vec(),
        "self" => [module, &path[1..]].concat(),
        "super" => {
            let mut base = module.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            [base.as_slice(), rest].concat()
        }
        _ => [module, path].concat(),
    };
    for _ in 0..8 {
        let (len, file) = (0..=absolute.len())
            .rev()
            .find_map(|n| files.get(&absolute[..n]).map(|f| (n, *f)))?;
        match absolute.get(len) {
            Some(name) => {
                let mut key = absolute[..len].to_vec();
                key.push(name.clone());
                match reexports.get(&key) {
                    Some(target) => {
                        absolute = [target.as_slice(), &absolute[len + 1..]].concat();
                        continue;
                    }
                    None => return Some(file),
                }
            }
            None => return Some(file),
        }
    }
    None
}

/// The circles among one source directory's files, each as its files.
fn circles(src: &Path) -> Vec<Vec<PathBuf>> {
    let mut found = Vec::new();
    rust_files(src, &mut found);
    let files: Vec<File> = found
        .into_iter()
        .map(|path| File {
            module: module_of(src, &path),
            code: strip(&std::fs::read_to_string(&path).unwrap()),
            path,
        })
        .collect();
    let by_module: BTreeMap<Vec<String>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.module.clone(), i))
        .collect();
    let children = |module: &[String]| -> BTreeSet<String> {
        files
            .iter()
            .filter(|f| f.module.len() == module.len() + 1 && f.module.starts_with(module))
            .map(|f| f.module[module.len()].clone())
            .collect()
    };
    let named: Vec<_> = files
        .iter()
        .map(|f| paths(&f.code, &children(&f.module)))
        .collect();
    // Re-exports: `module::name` stands for the path it re-exports.
    let mut reexports = BTreeMap::new();
    for (file, paths) in files.iter().zip(&named) {
        for (inline, path, reexport) in paths {
            let Some(name) = reexport.as_ref().filter(|n| *n != "*" && inline.is_empty()) else {
                continue;
            };
            {
                let mut key = file.module.clone();
                key.push(name.clone());
                let absolute = match path[0].as_str() {
                    "crate" => path[1..].to_vec(),
                    "self" | "super" => continue,
                    _ if by_module.contains_key(&[file.module.as_slice(), &path[..1]].concat()) => {
                        [file.module.as_slice(), path].concat()
                    }
                    _ => continue,
                };
                if absolute != key {
                    reexports.insert(key, absolute);
                }
            }
        }
    }
    let mut edges = vec![BTreeSet::new(); files.len()];
    for (from, (file, paths)) in files.iter().zip(&named).enumerate() {
        for (inline, path, reexport) in paths {
            if reexport.is_some() {
                continue;
            }
            let module = [file.module.as_slice(), inline].concat();
            let first = path[0].as_str();
            let local = matches!(first, "crate" | "super" | "self")
                || by_module.contains_key(&[module.as_slice(), &path[..1]].concat());
            if !local {
                continue;
            }
            if let Some(to) = resolve(&module, path, &by_module, &reexports) {
                if to != from {
                    edges[from].insert(to);
                }
            }
        }
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            component
                .into_iter()
                .map(|i| files[i].path.clone())
                .collect()
        })
        .collect()
}

/// Tarjan's strongly connected components.
fn strongly_connected(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(index) if s.on_stack[w] => s.low[v] = s.low[v].min(index),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

fn source_dirs() -> Vec<PathBuf> {
    let root = root();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    dirs.push(root.join("tests/src"));
    dirs.sort();
    dirs
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let mut report = String::new();
    for src in source_dirs() {
        for circle in circles(&src) {
            let names: Vec<String> = circle
                .iter()
                .map(|p| p.strip_prefix(root()).unwrap_or(p).display().to_string())
                .collect();
            report.push_str(&format!("\n  {}", names.join(" <-> ")));
        }
    }
    assert!(report.is_empty(), "files that import each other:{report}");
}

#[test]
fn the_checker_sees_a_circle() {
    let dir = std::env::temp_dir().join(format!("claude-proto-shape-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "mod a;\nmod b;\npub use a::A;\n").unwrap();
    std::fs::write(dir.join("src/a.rs"), "use crate::b::B;\npub struct A(B);\n").unwrap();
    std::fs::write(
        dir.join("src/b.rs"),
        "pub struct B;\nfn f(_: &crate::A) {}\n",
    )
    .unwrap();
    let found = circles(&dir.join("src"));
    std::fs::write(
        dir.join("src/b.rs"),
        "pub struct B;\n// crate::A\nfn f() -> &'static str { \"crate::A\" }\n",
    )
    .unwrap();
    let none = circles(&dir.join("src"));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "a.rs and b.rs name each other");
    assert!(
        none.is_empty(),
        "comments and strings are not imports: {none:?}"
    );
}
