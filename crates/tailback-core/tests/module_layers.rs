//! The top-level modules of `crates/tailback-core/src` form layers (`docs/architecture.md`):
//! a module may use the modules below it, never one above, so their imports have no cycle.
//! An edge A -> B is a `use crate::B…` (grouped, `pub use` included) or a path `crate::B::…` in
//! the code of A, outside comments, strings and what follows `#[cfg(test)]`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::Path;

/// For each module, the modules it uses, with the files that use them.
type Edges = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// The code of `text` up to its first `#[cfg(test)]`, with comments removed and string and
/// character literals emptied.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r'
            && (i == 0 || !ident(chars[i - 1]))
            && matches!(next, Some('"' | '#'))
            && chars[i + 1..].iter().find(|&&c| c != '#') == Some(&'"')
        {
            // A raw string: r"…", r#"…"#.
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            let close: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            let body = i + 2 + hashes;
            let rest: String = chars[body..].iter().collect();
            let end = rest.find(&close).map_or(rest.len(), |e| e + close.len());
            i = body + rest[..end].chars().count();
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && next == Some('\\') {
            // An escaped character literal: '\n', '\'', '\u{…}'.
            i += 3;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The first path segment of each tree a `use` names after `crate::` (`tree` runs to the `;`).
fn use_roots(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(group) = tree.strip_prefix('{') else {
        let end = tree.find(|c: char| !(c.is_alphanumeric() || c == '_'));
        return vec![tree[..end.unwrap_or(tree.len())].to_string()];
    };
    let group = group.strip_suffix('}').unwrap_or(group);
    let (mut depth, mut start, mut roots) = (0, 0, Vec::new());
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                roots.extend(use_roots(&group[start..at]));
                start = at + 1;
            }
            _ => {}
        }
    }
    roots.extend(use_roots(&group[start..]));
    roots.retain(|r| !r.is_empty());
    roots
}

/// The top-level names the code of `text` uses: the roots of its `use crate::…` trees and the
/// first segment of its paths `crate::NAME::…`.
fn used_names(text: &str) -> BTreeSet<String> {
    let code = code(text);
    let mut names = BTreeSet::new();
    let starts_path = |at: usize| {
        at == 0 || {
            let before = code[..at].chars().next_back().unwrap_or(' ');
            !(before.is_alphanumeric() || before == '_' || before == ':')
        }
    };
    for (at, _) in code.match_indices("crate::") {
        if !starts_path(at) {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let before = code[..at].trim_end();
        let in_use = before.ends_with("use")
            && before[..before.len() - 3]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if in_use {
            let tree = &rest[..rest.find(';').unwrap_or(rest.len())];
            names.extend(use_roots(tree));
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if rest[end..].starts_with("::") {
                names.insert(rest[..end].to_string());
            }
        }
    }
    names
}

/// Every `.rs` file under `dir`, as (path relative to `root`, text).
fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("the source directory is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = path.strip_prefix(root).expect("under the root");
            let text = fs::read_to_string(&path).expect("a source file is readable");
            out.push((name.to_string_lossy().replace('\\', "/"), text));
        }
    }
}

/// The edges between the top-level modules of the files (path relative to `src`, text).
fn edges(files: &[(String, String)]) -> Edges {
    let module = |path: &str| {
        let first = path.split('/').next().unwrap_or(path);
        first.strip_suffix(".rs").unwrap_or(first).to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|(path, _)| module(path)).collect();
    let mut edges = Edges::new();
    for (path, text) in files {
        let from = module(path);
        if from == "lib" || from == "main" {
            continue;
        }
        for to in used_names(text) {
            if to != from && modules.contains(&to) {
                let files = edges
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_default();
                files.insert(path.clone());
            }
        }
    }
    edges
}

/// The shortest cycle of the graph, if it has one.
fn shortest_cycle(edges: &Edges) -> Option<Vec<String>> {
    let mut best: Option<Vec<String>> = None;
    for start in edges.keys() {
        // Breadth-first from `start` until it is reached again.
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([start.as_str()]);
        let mut closing = None;
        while let Some(at) = queue.pop_front() {
            for to in edges.get(at).into_iter().flat_map(|m| m.keys()) {
                if to == start {
                    closing = Some(at);
                    break;
                }
                if !parent.contains_key(to.as_str()) {
                    parent.insert(to.as_str(), at);
                    queue.push_back(to.as_str());
                }
            }
            if closing.is_some() {
                break;
            }
        }
        let Some(mut at) = closing else { continue };
        let mut cycle = vec![at.to_string()];
        while at != start {
            at = parent[at];
            cycle.push(at.to_string());
        }
        cycle.reverse();
        if best.as_ref().is_none_or(|b| cycle.len() < b.len()) {
            best = Some(cycle);
        }
    }
    best
}

/// The cycle as text: each edge with the files that make it.
fn describe(cycle: &[String], edges: &Edges) -> String {
    let mut text = format!("{} -> {}", cycle.join(" -> "), cycle[0]);
    for (i, from) in cycle.iter().enumerate() {
        let to = &cycle[(i + 1) % cycle.len()];
        let files: Vec<&str> = edges[from][to].iter().map(String::as_str).collect();
        text.push_str(&format!("\n  {from} -> {to}: {}", files.join(", ")));
    }
    text
}

#[test]
fn top_level_modules_have_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let edges = edges(&files);
    // The parser sees the crate's imports (the simulation builds on the configuration).
    assert!(
        edges["sim"].contains_key("config"),
        "no edge sim -> config found"
    );
    if let Some(cycle) = shortest_cycle(&edges) {
        panic!(
            "the top-level modules import each other in a cycle (move the shared items to the \
             lower module):\n{}",
            describe(&cycle, &edges)
        );
    }
}

#[test]
fn the_parser_finds_uses_and_paths_outside_comments_and_tests() {
    let sample = r##"//! Links to crate::doc::Item in a doc comment.
use crate::alpha::A;
pub use crate::{
    beta::B,
    gamma,
    delta::{D1, D2},
};
pub(crate) use crate::epsilon as eps;
// use crate::zeta::Z;
/* crate::eta::E /* nested */ crate::eta::F */
fn f() -> u32 {
    let s = "crate::theta::T"; let quote = '"'; let esc = '\''; let raw = r#"crate::theta::U"#;
    crate::iota::go(quote, s, raw);
    <crate::kappa::K as Trait>::value() + $crate::lambda::L + mycrate::mu::M
}
#[cfg(test)]
mod tests {
    use crate::nu::N;
}
"##;
    let names: Vec<String> = used_names(sample).into_iter().collect();
    let expected = [
        "alpha", "beta", "delta", "epsilon", "gamma", "iota", "kappa", "lambda",
    ];
    assert_eq!(names, expected);

    let files = [
        ("a.rs".to_string(), "use crate::b::B;".to_string()),
        ("b/mod.rs".to_string(), "mod x;".to_string()),
        ("b/x.rs".to_string(), "fn f() { crate::a::g() }".to_string()),
        ("c.rs".to_string(), "use crate::{a, b};".to_string()),
    ];
    let edges = edges(&files);
    let cycle = shortest_cycle(&edges).expect("a -> b -> a is a cycle");
    assert_eq!(
        describe(&cycle, &edges),
        "a -> b -> a\n  a -> b: a.rs\n  b -> a: b/x.rs"
    );
}
