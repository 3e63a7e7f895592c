//! Names and chat text from strangers on the page (issue 42): the page shows every name and message exactly as
//! the server keeps it, as text. No module of the client puts a string on the page as markup (no `innerHTML`,
//! `outerHTML`, `insertAdjacentHTML` or `document.write`); and, run with Node over the real modules
//! (`tests/text/names.mjs`, a fake document), `h` puts a name (markup, right-to-left, an emoji family) in one text
//! node holding exactly it, and a `bad_name` / `bad_chat` refusal shows the server's reason (which character).

use std::path::{Path, PathBuf};
use std::process::Command;

fn find_program(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

fn scripts(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            scripts(&path, out);
        } else if path.extension().is_some_and(|e| e == "js" || e == "mjs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_puts_a_string_on_the_page_as_markup() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("static");
    let mut files = Vec::new();
    scripts(&root, &mut files);
    assert!(files.len() > 10, "the client's modules were found: {files:?}");
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for sink in [
                "innerHTML",
                "outerHTML",
                "insertAdjacentHTML",
                "document.write",
                "createContextualFragment",
            ] {
                if line.contains(sink) {
                    found.push(format!("{}:{}: {sink}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "text from strangers must reach the page through textContent or text nodes (`h`), never markup: {found:?}"
    );
}

#[test]
fn names_are_text_nodes_and_refusals_say_which_character() {
    let Some(node) = find_program("node") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must provide node for the names check"
        );
        eprintln!("node is not installed: the names check is skipped");
        return;
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(node)
        .arg(root.join("tests/text/names.mjs"))
        .arg(root.join("static/js"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the check prints its report ({e}): {stdout}\n{stderr}"));
    let problems = report["problems"].as_array().expect("a list of problems");
    assert!(
        problems.is_empty() && output.status.success(),
        "names or refusals are shown wrongly:\n{}",
        problems
            .iter()
            .map(|p| p.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
