//! No import cycles between the client's modules: reads `static/js/**/*.js`, takes every module each one imports
//! (`import ... from "./x.js"`, `import "./x.js"`, `export ... from "./x.js"`, `import("./x.js")`) and fails on a
//! cycle, however long. A module that needs something of one that imports it is handed it instead (as
//! `initLobby` and `initFriends` are by `app.js`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The relative module paths a module's text imports, in the order written.
fn imports(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let quoted = |s: &str| -> Option<String> {
        let s = s.trim_start();
        let quote = s.chars().next().filter(|c| matches!(c, '"' | '\''))?;
        let end = s[1..].find(quote)?;
        Some(s[1..1 + end].to_string())
    };
    // Static imports and re-exports: a statement that starts a line with `import` or `export` and names a module
    // after `from` (or straight after `import`) before its `;`.
    for start in std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)) {
        let rest = &text[start..];
        let is_import =
            rest.starts_with("import ") || rest.starts_with("import{") || rest.starts_with("import\"");
        if !is_import && !rest.starts_with("export ") {
            continue;
        }
        let statement = &rest[..rest.find(';').unwrap_or(rest.len())];
        if let Some(i) = statement.rfind(" from") {
            found.extend(quoted(&statement[i + " from".len()..]));
        } else if is_import {
            found.extend(quoted(&statement["import".len()..]));
        }
    }
    // Dynamic imports.
    for (i, _) in text.match_indices("import(") {
        found.extend(quoted(&text[i + "import(".len()..]));
    }
    found.retain(|p| p.starts_with("./") || p.starts_with("../"));
    found
}

/// `target` imported from the module at `from` (both relative to `static/js`).
fn resolve(from: &str, target: &str) -> String {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for segment in target.split('/') {
        match segment {
            "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// A cycle of the import graph (module -> the modules it imports), if it has one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[start..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

fn js_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            js_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "js") {
            out.push(path);
        }
    }
}

#[test]
fn client_modules_have_no_import_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("static/js");
    let mut files = Vec::new();
    js_files(&root, &mut files);
    let mut graph = BTreeMap::new();
    for file in files {
        let name = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).unwrap();
        let targets: BTreeSet<String> = imports(&text).iter().map(|t| resolve(&name, t)).collect();
        for target in &targets {
            assert!(
                root.join(target).is_file(),
                "{name} imports {target}, which does not exist"
            );
        }
        graph.insert(name, targets);
    }
    // The test must see the imports it checks.
    assert!(graph["app.js"].contains("lobby.js"), "{graph:?}");
    assert!(graph["games/generic.js"].contains("ui.js"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle in web/static/js: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_checker_reads_every_form_of_import_and_finds_cycles() {
    let text = "import { a,\n  b } from \"./a.js\";\nimport * as s from './s.js';\nimport \"./side.js\";\n\
                export { x } from \"../up.js\";\nimport w from \"https://elsewhere/w.js\";\n\
                const m = () => import(\"./lazy.js\");\n// import { no } from \"./comment.js\" mid-line is not a statement\n";
    assert_eq!(
        imports(text),
        ["./a.js", "./s.js", "./side.js", "../up.js", "./lazy.js"]
    );
    assert_eq!(resolve("games/quacks.js", "../ui.js"), "ui.js");
    assert_eq!(resolve("app.js", "./games/index.js"), "games/index.js");
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])).map(|c| c.len()),
        Some(4)
    );
    assert_eq!(find_cycle(&graph(&[("a", "b"), ("a", "c"), ("b", "c")])), None);
}
