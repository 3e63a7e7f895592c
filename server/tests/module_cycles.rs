//! No import cycles between the server's modules: reads `server/src/**/*.rs`, builds the graph of the module paths
//! the code names, and fails on a cycle, naming the uses that make it.
//!
//! The rule (what counts as a real cycle):
//! - A module is a file (`src/a/b.rs` is `a::b`; `lib.rs` is the crate root; `main.rs` is another crate and is
//!   skipped) or an inline `mod x { ... }`. A use is any path the code names through `crate::`, `super::` or
//!   `self::`, or through a child module's name (`use chat::Friends` in `table.rs`), in `use` lines and in
//!   expressions alike. It goes to the longest known module that prefixes the path (`crate::table::view_json` is a
//!   use of `table`). Comments and string literals are ignored.
//! - Test modules (`#[cfg(test)] mod x`, inline or in a file of their own) are left out: nothing names them, so
//!   their uses can close no cycle of the code they test, and a test may set up whatever it needs
//!   (`connection`'s tests build a `Config`, which names `connection::ConnectionLimits`).
//! - A module and the modules inside it are one unit: a child sees its parent's private items by design, which is
//!   how one type's `impl` spans several files (`table.rs` holds `Table`, `table/play.rs` adds methods to it). So a
//!   use between a module and one of its own ancestors (`super::Table` in `table/play.rs`, `chat::Friends` in
//!   `table.rs`) is no dependency between units and never makes a cycle.
//! - Every other use is a dependency between the two sibling units under the modules' nearest common ancestor
//!   that contain them: `table::host` naming `hub::check_absence` is `table` -> `hub`; `table::host` naming
//!   `table::absence` is `host` -> `absence` inside `table`. At every level these sibling dependencies must form
//!   no cycle: `hub` -> `table` and `table::host` -> `hub` is one (hub <-> table), whatever the chain's length.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type ModPath = Vec<String>;

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The identifiers, `::` and punctuation of Rust source, each with its line; comments, string and character
/// literals and lifetimes are dropped.
fn tokens(src: &str) -> Vec<(Token, usize)> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let skip_string = |mut i: usize, line: &mut usize| -> usize {
        // s[i] is the opening quote; returns the index after the closing quote.
        i += 1;
        while i < s.len() && s[i] != '"' {
            if s[i] == '\\' {
                i += 1;
            }
            if s.get(i) == Some(&'\n') {
                *line += 1;
            }
            i += 1;
        }
        i + 1
    };
    while i < s.len() {
        let c = s[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && s.get(i + 1) == Some(&'/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && s.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            loop {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if s[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(i, &mut line);
        } else if (c == 'r' || (c == 'b' && s.get(i + 1) == Some(&'r')))
            && s[i + 1 + usize::from(c == 'b')..].iter().find(|&&c| c != '#') == Some(&'"')
            && (i == 0 || !is_ident_char(s[i - 1]))
        {
            // A raw string: r"..." or r#"..."#.
            i += 1 + usize::from(c == 'b');
            let mut hashes = 0;
            while s[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if s[i] == '"' && (0..hashes).all(|k| s.get(i + 1 + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                if s[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
        } else if c == 'b' && s.get(i + 1) == Some(&'"') && (i == 0 || !is_ident_char(s[i - 1])) {
            i = skip_string(i + 1, &mut line);
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if s.get(i + 1) == Some(&'\\') {
                i += 3;
                while s[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if s.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < s.len() && is_ident_char(s[i]) {
                    i += 1;
                }
            }
        } else if is_ident_char(c) {
            let start = i;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            out.push((Token::Ident(s[start..i].iter().collect()), line));
        } else if c == ':' && s.get(i + 1) == Some(&':') {
            out.push((Token::PathSep, line));
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push((Token::Punct(c), line));
            }
            i += 1;
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// One path named in a module: the module it is named in, the path's segments, the line.
struct Use {
    from: ModPath,
    path: Vec<String>,
    line: usize,
}

/// Reads a use tree (`a::{b, c::d}`, `a::*`, `a as b`) starting at `i`, pushing each full path to `out`; returns
/// the index after it.
fn use_tree(
    t: &[(Token, usize)],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, usize)>,
) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match &t[i].0 {
            Token::PathSep => i += 1,
            Token::Ident(name) if name == "as" => {
                i += 2;
                break;
            }
            Token::Ident(name) => {
                path.push(name.clone());
                i += 1;
            }
            Token::Punct('{') => {
                i += 1;
                while t[i].0 != Token::Punct('}') {
                    i = use_tree(t, i, &path, out);
                    if t[i].0 == Token::Punct(',') {
                        i += 1;
                    }
                }
                return i + 1;
            }
            Token::Punct('*') => {
                i += 1;
                break;
            }
            _ => break,
        }
    }
    out.push((path, t[i.saturating_sub(1)].1));
    i
}

/// Whether the tokens before `i` (a `mod`, perhaps after `pub(..)`) are `#[cfg(test)]`.
fn after_cfg_test(t: &[(Token, usize)], mut i: usize) -> bool {
    while i > 0
        && (matches!(&t[i - 1].0, Token::Ident(w) if w == "pub" || w == "crate" || w == "super")
            || matches!(t[i - 1].0, Token::Punct('(' | ')')))
    {
        i -= 1;
    }
    let want = ["#", "[", "cfg", "(", "test", ")", "]"];
    i >= want.len()
        && t[i - want.len()..i]
            .iter()
            .zip(want)
            .all(|((tok, _), w)| match tok {
                Token::Ident(x) => x == w,
                Token::Punct(c) => c.to_string() == w,
                Token::PathSep => false,
            })
}

/// The uses of one file whose module is `module`, the inline modules it declares, and the test modules it
/// declares (inline or in files).
fn uses_of_file(
    module: &ModPath,
    src: &str,
    uses: &mut Vec<Use>,
    modules: &mut BTreeSet<ModPath>,
    tests: &mut BTreeSet<ModPath>,
) {
    let t = tokens(src);
    // The inline modules open at this point, with the brace depth that closes each.
    let mut stack: Vec<(ModPath, usize)> = vec![(module.clone(), 0)];
    let mut depth = 0;
    let mut i = 0;
    while i < t.len() {
        let current = stack.last().unwrap().0.clone();
        let preceded_by_sep = i > 0 && t[i - 1].0 == Token::PathSep;
        match &t[i].0 {
            Token::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Token::Punct('}') => {
                if stack.len() > 1 && stack.last().unwrap().1 == depth {
                    stack.pop();
                }
                depth -= 1;
                i += 1;
            }
            Token::Ident(kw) if kw == "mod" && matches!(t.get(i + 2), Some((Token::Punct(';'), _))) => {
                if let Token::Ident(name) = &t[i + 1].0
                    && after_cfg_test(&t, i)
                {
                    let mut child = current.clone();
                    child.push(name.clone());
                    tests.insert(child);
                }
                i += 3;
            }
            Token::Ident(kw) if kw == "mod" && matches!(t.get(i + 2), Some((Token::Punct('{'), _))) => {
                let Token::Ident(name) = &t[i + 1].0 else {
                    panic!("mod without a name")
                };
                let mut inner = current.clone();
                inner.push(name.clone());
                modules.insert(inner.clone());
                if after_cfg_test(&t, i) {
                    tests.insert(inner.clone());
                }
                depth += 1;
                stack.push((inner, depth));
                i += 3;
            }
            Token::Ident(kw) if kw == "use" && !preceded_by_sep => {
                let mut paths = Vec::new();
                i = use_tree(&t, i + 1, &[], &mut paths);
                uses.extend(paths.into_iter().map(|(path, line)| Use {
                    from: current.clone(),
                    path,
                    line,
                }));
            }
            Token::Ident(first) if !preceded_by_sep => {
                let line = t[i].1;
                let mut path = vec![first.clone()];
                i += 1;
                while let (Some((Token::PathSep, _)), Some((Token::Ident(next), _))) =
                    (t.get(i), t.get(i + 1))
                {
                    path.push(next.clone());
                    i += 2;
                }
                if path.len() > 1 {
                    uses.push(Use {
                        from: current.clone(),
                        path,
                        line,
                    });
                }
            }
            _ => i += 1,
        }
    }
}

/// The module a path names, if it names one of this crate's: the longest known module prefixing it.
fn resolve(from: &ModPath, path: &[String], modules: &BTreeSet<ModPath>) -> Option<ModPath> {
    let mut abs: ModPath = match path[0].as_str() {
        "crate" => vec![],
        "self" => from.clone(),
        "super" => from.clone(),
        _ => {
            // A path through a child module's name (`chat::Friends` in `table`); anything else is another crate
            // or a local item.
            let mut child = from.clone();
            child.push(path[0].clone());
            if !modules.contains(&child) {
                return None;
            }
            from.clone()
        }
    };
    let mut rest = path;
    while let Some(first) = rest.first() {
        match first.as_str() {
            "crate" | "self" => {}
            "super" => {
                abs.pop();
            }
            _ => break,
        }
        rest = &rest[1..];
    }
    abs.extend(rest.iter().cloned());
    (0..=abs.len())
        .rev()
        .map(|n| abs[..n].to_vec())
        .find(|m| modules.contains(m))
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn show(m: &[String]) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// The sibling dependencies (from, to) with, for each, the uses that make it.
fn sibling_graph(src: &Path) -> BTreeMap<(ModPath, ModPath), Vec<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut modules = BTreeSet::new();
    let mut per_file = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap().with_extension("");
        let mut module: ModPath = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
        match module.last().map(String::as_str) {
            Some("main") if module.len() == 1 => continue,
            Some("lib") if module.len() == 1 => module.clear(),
            Some("mod") => {
                module.pop();
            }
            _ => {}
        }
        modules.insert(module.clone());
        per_file.push((file, module));
    }
    let mut uses = Vec::new();
    let mut where_from = Vec::new();
    let mut tests = BTreeSet::new();
    for (file, module) in &per_file {
        let before = uses.len();
        uses_of_file(
            module,
            &std::fs::read_to_string(file).unwrap(),
            &mut uses,
            &mut modules,
            &mut tests,
        );
        where_from.extend(std::iter::repeat_n(file.clone(), uses.len() - before));
    }
    let mut graph: BTreeMap<(ModPath, ModPath), Vec<String>> = BTreeMap::new();
    for (u, file) in uses.iter().zip(where_from) {
        if tests.iter().any(|t| u.from.starts_with(t)) {
            continue;
        }
        let Some(to) = resolve(&u.from, &u.path, &modules) else {
            continue;
        };
        if to.starts_with(&u.from) || u.from.starts_with(&to) {
            continue; // Within one unit: a module and its own ancestor.
        }
        let common = u.from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        let key = (u.from[..=common].to_vec(), to[..=common].to_vec());
        graph.entry(key).or_default().push(format!(
            "{}:{} names {}",
            file.strip_prefix(src.parent().unwrap()).unwrap().display(),
            u.line,
            u.path.join("::")
        ));
    }
    graph
}

/// A cycle of the graph, if it has one.
fn find_cycle(edges: &BTreeSet<(ModPath, ModPath)>) -> Option<Vec<ModPath>> {
    fn visit(
        node: &ModPath,
        edges: &BTreeSet<(ModPath, ModPath)>,
        state: &mut BTreeMap<ModPath, bool>,
        stack: &mut Vec<ModPath>,
    ) -> Option<Vec<ModPath>> {
        match state.get(node) {
            Some(true) => return None,
            Some(false) => {
                let start = stack.iter().position(|n| n == node).unwrap();
                let mut cycle = stack[start..].to_vec();
                cycle.push(node.clone());
                return Some(cycle);
            }
            None => {}
        }
        state.insert(node.clone(), false);
        stack.push(node.clone());
        for (_, to) in edges.iter().filter(|(from, _)| from == node) {
            if let Some(cycle) = visit(to, edges, state, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        state.insert(node.clone(), true);
        None
    }
    let mut state = BTreeMap::new();
    for (from, _) in edges {
        if let Some(cycle) = visit(from, edges, &mut state, &mut Vec::new()) {
            return Some(cycle);
        }
    }
    None
}

#[test]
fn server_modules_have_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = sibling_graph(&src);
    let mut edges: BTreeSet<_> = graph.keys().cloned().collect();
    assert!(
        edges.contains(&(vec!["hub".into()], vec!["table".into()])),
        "the graph sees hub's uses of table"
    );
    // Every cycle is reported: each found one loses its last edge and the search goes on.
    let mut message = String::new();
    while let Some(cycle) = find_cycle(&edges) {
        message.push_str(&format!(
            "import cycle: {}\n",
            cycle.iter().map(|m| show(m)).collect::<Vec<_>>().join(" -> ")
        ));
        for pair in cycle.windows(2) {
            for why in &graph[&(pair[0].clone(), pair[1].clone())] {
                message.push_str(&format!("  {} -> {}: {why}\n", show(&pair[0]), show(&pair[1])));
            }
        }
        let last = cycle.len() - 1;
        edges.remove(&(cycle[last - 1].clone(), cycle[last].clone()));
    }
    assert!(message.is_empty(), "{message}");
}

/// The checker itself: it finds a cycle through a chain and through `super::`, and it ignores a child's use of its
/// parent, comments and strings.
#[test]
fn the_checker_finds_cycles_and_only_cycles() {
    let dir = std::env::temp_dir().join(format!("module_cycles_{}", std::process::id()));
    let write = |files: &[(&str, &str)]| {
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let graph = sibling_graph(&dir);
        find_cycle(&graph.keys().cloned().collect()).map(|c| c.iter().map(|m| show(m)).collect::<Vec<_>>())
    };
    let lib = "mod a; mod b; mod c; mod t;";
    // a -> b -> c -> a, through a use tree, an expression path and a `super::` path of a child.
    let chain = write(&[
        ("lib.rs", lib),
        ("a.rs", "use crate::{x::Y, b::{self, B}};"),
        ("b.rs", "fn f() { crate::c::g(); }"),
        ("c.rs", "mod inner { fn g() { super::super::a::h(); } }"),
        ("t.rs", ""),
    ]);
    assert_eq!(chain.unwrap().len(), 4, "a -> b -> c -> a");
    // hub <-> table through table's child: a cycle.
    let through_child = write(&[
        ("lib.rs", lib),
        ("a.rs", "use crate::t::T;"),
        ("t.rs", "mod host; pub struct T;"),
        ("t/host.rs", "use crate::a::check; use super::T;"),
    ]);
    assert!(through_child.is_some());
    // A child using its parent and the parent using the child: one unit, no cycle; comments, strings, lifetimes
    // and character literals name nothing.
    let fine = write(&[
        ("lib.rs", lib),
        (
            "a.rs",
            "use crate::b::B; // crate::c::C\n/* crate::c::D */ const S: &str = \"crate::c::E\";",
        ),
        (
            "b.rs",
            "fn f<'a>(x: &'a str) -> char { let _ = r#\"crate::a::A\"#; '\"' }",
        ),
        ("c.rs", "use crate::{a::A, b::B}; fn f() -> char { '{' }"),
        ("t.rs", "mod host; use host::H; pub struct T;"),
        (
            "t/host.rs",
            "use super::T; pub struct H; #[cfg(test)] mod tests { use super::super::T; }",
        ),
    ]);
    assert_eq!(fine, None);
    // A test module's uses close no cycle, inline or in a file; the same use in the code does.
    let test_uses = |b: &str, b_tests: Option<&str>| {
        let mut files = vec![("lib.rs", lib), ("a.rs", "use crate::b::B;"), ("b.rs", b)];
        files.extend(b_tests.map(|text| ("b/tests.rs", text)));
        write(&files)
    };
    assert_eq!(
        test_uses("#[cfg(test)]\nmod tests { use crate::a::A; }", None),
        None
    );
    assert_eq!(
        test_uses("#[cfg(test)] pub(crate) mod tests;", Some("use crate::a::A;")),
        None
    );
    assert!(test_uses("mod tests;", Some("use crate::a::A;")).is_some());
    assert!(test_uses("fn f() { crate::a::g() }", None).is_some());
    let _ = std::fs::remove_dir_all(&dir);
}
