//! The page's words: one catalogue per language (`static/js/lang/*.js`), and every string the page shows taken
//! from them.
//!
//! - `every_language_has_every_key` runs `tests/i18n/check_catalogues.mjs` with Node over the real catalogue
//!   modules: it fails when a key is missing from a language, when a language has a key English lacks, when a
//!   placeholder set differs from English's, or when a plural entry lacks a form the language needs.
//! - `page_strings_go_through_the_catalogue` reads the client's modules and fails on a string literal or template
//!   literal with words in it that reaches the page without `t(...)`: a child of `h(...)`, the value of a
//!   `textContent`/`title`/`placeholder`/`aria-label`/`alt`/`label`/`text` property, or an argument of
//!   `notify`/`announce`. The few literals that are meant to be shown as they are sit in `ALLOWED`, each with
//!   its reason.
//! - `every_error_code_has_words` fails when the protocol has an error code (the published schema's `ErrorCode`)
//!   that `static/js/words.js` does not list or the English catalogue has no `errors.<code>` for.

use std::path::{Path, PathBuf};
use std::process::Command;

fn static_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("static")
}

fn find_program(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

#[test]
fn every_language_has_every_key() {
    let Some(node) = find_program("node") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must provide node for the catalogue check"
        );
        eprintln!("node is not installed: the catalogue check is skipped");
        return;
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/i18n/check_catalogues.mjs");
    let output = Command::new(node)
        .arg(&script)
        .arg(static_dir().join("js/lang"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the check prints its report ({e}): {stdout}\n{stderr}"));
    let problems = report["problems"].as_array().expect("a list of problems");
    assert!(
        problems.is_empty() && output.status.success(),
        "the catalogues disagree:\n{}",
        problems
            .iter()
            .map(|p| p.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        report["keys"].as_u64().unwrap_or(0) > 100,
        "the English catalogue is read: {report}"
    );
}

/// Literals that reach the page as they are, by file and text.
const ALLOWED: &[(&str, &str)] = &[
    // Each screen's `title` in its module's export names the screen for developers; the page shows the game's
    // title from the catalogue (`lobby.game.<id>.name`).
    ("games/generic.js", "Generic screen"),
    ("games/hickory.js", "Hickory Dickory"),
    ("games/hide_and_eeek.js", "Hide and Eeek!"),
    ("games/molehills.js", "Mountains out of Molehills"),
    ("games/new_year_puzzle.js", "New Year Picture Puzzle"),
    ("games/quacks.js", "The Quacks of Quedlinburg"),
    // The language switch names each language in its own words, whatever the page's language.
    ("app.js", "English"),
    ("app.js", "Română"),
    ("app.js", "Polski"),
    ("app.js", "Español"),
    ("app.js", "Italiano"),
];

/// Files that are not the players' page: the operators' admin page stays in English (issue 26), and the
/// catalogues themselves are the words.
fn skipped(relative: &str) -> bool {
    relative == "admin.js" || relative.starts_with("lang/")
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// A name or keyword.
    Word(String),
    /// A string literal or one text part of a template literal (its `${...}` parts are lexed as code, between
    /// a `(` and a `)`). `continued`: a part after a `${...}`; `open`: a `${...}` follows.
    Text {
        text: String,
        line: usize,
        continued: bool,
        open: bool,
    },
    Punct(char),
}

/// A small JavaScript lexer: enough to find string literals and the calls and properties around them, skipping
/// comments and regular expression literals.
fn lex(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut line = 1;
    // Stack of open template literals: the brace depth at which each `${` was opened.
    let mut templates: Vec<usize> = Vec::new();
    let mut braces = 0usize;
    let regex_may_start = |tokens: &Vec<Token>| match tokens.last() {
        None => true,
        Some(Token::Punct(c)) => !matches!(c, ')' | ']' | '}'),
        Some(Token::Word(w)) => matches!(
            w.as_str(),
            "return" | "typeof" | "case" | "in" | "of" | "delete" | "void" | "throw" | "new"
        ),
        Some(Token::Text { .. }) => false,
    };
    // Reads a template literal's text from `i` (after the backtick or the closing brace of a `${`) up to its end
    // or to the next `${`.
    fn template_part(chars: &[char], i: &mut usize, line: &mut usize) -> (String, bool) {
        let mut text = String::new();
        while *i < chars.len() {
            let c = chars[*i];
            if c == '\\' {
                text.push(chars.get(*i + 1).copied().unwrap_or(' '));
                *i += 2;
                continue;
            }
            if c == '`' {
                *i += 1;
                return (text, true);
            }
            if c == '$' && chars.get(*i + 1) == Some(&'{') {
                *i += 2;
                return (text, false);
            }
            if c == '\n' {
                *line += 1;
            }
            text.push(c);
            *i += 1;
        }
        (text, true)
    }
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                if chars[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
        } else if c == '/' && regex_may_start(&tokens) {
            // A regular expression literal: skip it (a `/` inside a class does not end it).
            i += 1;
            let mut in_class = false;
            while i < chars.len() {
                match chars[i] {
                    '\\' => i += 1,
                    '[' => in_class = true,
                    ']' => in_class = false,
                    '/' if !in_class => break,
                    '\n' => break,
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            while i < chars.len() && chars[i].is_ascii_alphabetic() {
                i += 1;
            }
            tokens.push(Token::Word("regex".into()));
        } else if c == '"' || c == '\'' {
            let quote = c;
            let start_line = line;
            let mut text = String::new();
            i += 1;
            while i < chars.len() && chars[i] != quote {
                if chars[i] == '\\' {
                    i += 1;
                }
                text.push(chars[i]);
                i += 1;
            }
            i += 1;
            tokens.push(Token::Text {
                text,
                line: start_line,
                continued: false,
                open: false,
            });
        } else if c == '`' {
            i += 1;
            let start_line = line;
            let (text, ended) = template_part(&chars, &mut i, &mut line);
            tokens.push(Token::Text {
                text,
                line: start_line,
                continued: false,
                open: !ended,
            });
            if !ended {
                templates.push(braces);
                tokens.push(Token::Punct('('));
            }
        } else if c == '}' && templates.last() == Some(&braces) {
            // The end of a `${...}`: the template's text goes on.
            templates.pop();
            tokens.push(Token::Punct(')'));
            i += 1;
            let start_line = line;
            let (text, ended) = template_part(&chars, &mut i, &mut line);
            tokens.push(Token::Text {
                text,
                line: start_line,
                continued: true,
                open: !ended,
            });
            if !ended {
                templates.push(braces);
                tokens.push(Token::Punct('('));
            }
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$') {
                i += 1;
            }
            tokens.push(Token::Word(chars[start..i].iter().collect()));
        } else {
            if c == '{' {
                braces += 1;
            } else if c == '}' {
                braces = braces.saturating_sub(1);
            }
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    tokens
}

/// Whether a text holds words a player would read (two letters in a row), rather than punctuation, numbers,
/// symbols or spacing.
fn has_words(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars
        .windows(2)
        .any(|w| w[0].is_alphabetic() && w[1].is_alphabetic())
}

/// Properties and attributes whose value is shown to the player (or read out to them).
const SHOWN_PROPERTIES: &[&str] = &[
    "textContent",
    "innerText",
    "title",
    "placeholder",
    "aria-label",
    "ariaLabel",
    "alt",
    "label",
    "text",
    "aria-valuetext",
];

/// Functions whose arguments are shown to the player as they are.
const SHOWN_CALLS: &[&str] = &["notify", "announce"];

/// The texts of one module that reach the page without `t(...)`: (line, text).
fn untranslated(source: &str) -> Vec<(usize, String)> {
    let tokens = lex(source);
    // One frame per open bracket: for a call, its name and which argument is being read.
    struct Frame {
        call: Option<String>,
        argument: usize,
    }
    let mut frames: Vec<Frame> = Vec::new();
    let mut found = Vec::new();
    // Whether each open template literal reaches the page (decided at its first part, for all its parts).
    let mut templates: Vec<bool> = Vec::new();
    for (k, token) in tokens.iter().enumerate() {
        match token {
            Token::Punct('(') => {
                let call = match k.checked_sub(1).map(|j| &tokens[j]) {
                    Some(Token::Word(w)) => Some(w.clone()),
                    _ => None,
                };
                frames.push(Frame { call, argument: 0 });
            }
            Token::Punct('[') | Token::Punct('{') => frames.push(Frame {
                call: None,
                argument: 0,
            }),
            Token::Punct(')') | Token::Punct(']') | Token::Punct('}') => {
                frames.pop();
            }
            Token::Punct(',') => {
                if let Some(frame) = frames.last_mut() {
                    frame.argument += 1;
                }
            }
            Token::Text {
                text,
                line,
                continued,
                open,
            } => {
                let shown = if *continued {
                    let shown = templates.last().copied().unwrap_or(false);
                    if !open {
                        templates.pop();
                    }
                    shown
                } else {
                    let open_frames: Vec<(Option<String>, usize)> =
                        frames.iter().map(|f| (f.call.clone(), f.argument)).collect();
                    let shown = reaches_page(&tokens, k, &open_frames);
                    if *open {
                        templates.push(shown);
                    }
                    shown
                };
                if shown && has_words(text) {
                    found.push((*line, text.clone()));
                }
            }
            _ => {}
        }
    }
    found
}

/// Whether the literal at `k` reaches the page: `frames` are the open brackets around it (innermost last), each
/// with the name of the call it opens, if any, and which of its arguments is being read.
fn reaches_page(tokens: &[Token], k: usize, frames: &[(Option<String>, usize)]) -> bool {
    let before = |back: usize| k.checked_sub(back).map(|j| &tokens[j]);
    let after = tokens.get(k + 1);
    // A literal compared with something (`kind === "bot"`) is a value, never shown.
    let compared = matches!(before(1), Some(Token::Punct('=')))
        && matches!(before(2), Some(Token::Punct('=' | '!')))
        || matches!(after, Some(Token::Punct('=' | '!')));
    if compared {
        return false;
    }
    let frame = frames.last();
    // A child of h(tag, attrs, ...children).
    let h_child = frame.is_some_and(|(call, argument)| call.as_deref() == Some("h") && *argument >= 2);
    // The message of notify(text, ...) or announce(text).
    let shown_call = frame.is_some_and(|(call, argument)| {
        *argument == 0 && call.as_deref().is_some_and(|c| SHOWN_CALLS.contains(&c))
    });
    // `name: "text"`, `"name": "text"`, `.name = "text"`, through ternaries and `||` fallbacks.
    let mut back = 1;
    while let Some(Token::Punct(p)) = before(back) {
        if matches!(p, '?' | '|') {
            back += 1;
            continue;
        }
        break;
    }
    let property = match (before(back), before(back + 1)) {
        (Some(Token::Punct(':' | '=')), Some(Token::Word(name) | Token::Text { text: name, .. })) => {
            SHOWN_PROPERTIES.contains(&name.as_str())
        }
        _ => false,
    };
    h_child || shown_call || property
}

fn modules(dir: &Path, prefix: &str, out: &mut Vec<(String, PathBuf)>) {
    for entry in std::fs::read_dir(dir).expect("the client's folder is readable") {
        let path = entry.expect("a folder entry").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            modules(&path, &format!("{prefix}{name}/"), out);
        } else if name.ends_with(".js") {
            out.push((format!("{prefix}{name}"), path));
        }
    }
}

#[test]
fn page_strings_go_through_the_catalogue() {
    let mut files = Vec::new();
    modules(&static_dir().join("js"), "", &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut scanned = 0;
    for (relative, path) in &files {
        if skipped(relative) {
            continue;
        }
        scanned += 1;
        let source = std::fs::read_to_string(path).expect("a module is readable");
        for (line, text) in untranslated(&source) {
            if ALLOWED
                .iter()
                .any(|(file, allowed)| relative.ends_with(file) && *allowed == text)
            {
                continue;
            }
            problems.push(format!("js/{relative}:{line}: {text:?}"));
        }
    }
    assert!(scanned >= 10, "the client's modules are read ({scanned})");
    assert!(
        problems.is_empty(),
        "{} page strings do not come from the catalogue (use t(key) with the key in every lang/*.js):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_scan_finds_untranslated_strings() {
    // The heuristic itself: what it must catch, and what it must let through.
    let caught = untranslated(
        r#"
        h("p", { class: "hint" }, "Waiting for a player");
        h("button", { title: "Close the panel" }, t("rules.close"));
        el.textContent = `Seat ${n} is free`;
        notify("Could not copy");
        h("span", {}, ok ? "yes please" : t("common.no"));
        "#,
    );
    let texts: Vec<&str> = caught.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Waiting for a player",
            "Close the panel",
            "Seat ",
            " is free",
            "Could not copy",
            "yes please"
        ]
    );
    let passed = untranslated(
        r#"
        h("svg:text", { class: "seat-label", "data-key": "play-again", x: "12" }, String(n + 1));
        h("p", {}, t("lobby.share", { link: h("a", { href: `#join=${code}` }, link) }));
        el.textContent = ` ${min}–${max}`;
        const re = /don't "match" this/g;
        h("span", {}, "×", " · ");
        "#,
    );
    assert!(passed.is_empty(), "only page words are caught: {passed:?}");
}

#[test]
fn every_error_code_has_words() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("docs/schema/server_message.json")).expect("the published schema"),
    )
    .expect("the schema is JSON");
    let codes: Vec<&str> = schema["$defs"]["ErrorCode"]["oneOf"]
        .as_array()
        .expect("ErrorCode is a list of constants")
        .iter()
        .map(|c| c["const"].as_str().expect("a code"))
        .collect();
    assert!(codes.len() > 20, "the codes were read: {codes:?}");
    let words = std::fs::read_to_string(static_dir().join("js/words.js")).unwrap();
    let english = std::fs::read_to_string(static_dir().join("js/lang/en.js")).unwrap();
    let missing: Vec<&str> = codes
        .iter()
        .copied()
        .filter(|code| {
            !words.contains(&format!("\"{code}\",")) || !english.contains(&format!("\"errors.{code}\":"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "error codes without words on the page (list them in js/words.js and give them `errors.<code>` in every \
         catalogue): {missing:?}"
    );
}
