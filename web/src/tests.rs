use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::*;

fn static_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("static")
}

fn files_under(dir: &Path, prefix: &str, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("web/static is readable") {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().expect("file names are UTF-8");
        let rel = format!("{prefix}{name}");
        if entry.file_type().unwrap().is_dir() {
            files_under(&entry.path(), &format!("{rel}/"), out);
        } else {
            out.insert(rel);
        }
    }
}

#[test]
fn every_file_under_static_is_embedded_and_nothing_else() {
    let mut on_disk = BTreeSet::new();
    files_under(&static_dir(), "", &mut on_disk);
    let embedded: BTreeSet<String> = ASSETS.iter().map(|a| a.path.to_string()).collect();
    assert_eq!(embedded.len(), ASSETS.len(), "an asset is listed twice");
    let missing: Vec<_> = on_disk.difference(&embedded).collect();
    assert!(
        missing.is_empty(),
        "add these files to `assets!` in web/src/lib.rs: {missing:?}"
    );
    // The reverse cannot happen (include_bytes! would not compile), but say so plainly if it ever does.
    assert_eq!(on_disk, embedded);
    for a in ASSETS {
        assert_eq!(
            a.bytes,
            std::fs::read(static_dir().join(a.path)).unwrap().as_slice(),
            "{} is embedded as on disk",
            a.path
        );
        assert_ne!(
            a.content_type, "application/octet-stream",
            "{} has a known type",
            a.path
        );
    }
}

#[test]
fn paths_resolve_like_a_web_server() {
    assert_eq!(asset("/").unwrap().path, "index.html");
    assert_eq!(asset("").unwrap().path, "index.html");
    assert_eq!(asset("/index.html").unwrap().path, "index.html");
    assert_eq!(
        asset("/js/app.js").unwrap().content_type,
        "text/javascript; charset=utf-8"
    );
    assert_eq!(
        asset("style.css").unwrap().content_type,
        "text/css; charset=utf-8"
    );
    assert!(asset("/nope.js").is_none());
    assert!(asset("/../Cargo.toml").is_none());
    assert!(asset("/js/../index.html").is_none());
}

/// Every reference from one embedded text file to another, as (referencing file, resolved path).
fn references() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for a in ASSETS {
        let text = match std::str::from_utf8(a.bytes) {
            Ok(t) => t,
            Err(_) => continue,
        };
        let targets: Vec<String> = if a.path.ends_with(".html") {
            quoted_after(text, &["src=", "href="])
        } else if a.path.ends_with(".js") {
            quoted_after(text, &["from ", "import(", "import "])
                .into_iter()
                .filter(|t| t.starts_with('.') || t.starts_with('/') || t.contains("://"))
                .collect()
        } else if a.path.ends_with(".css") {
            quoted_after(text, &["url("])
        } else {
            Vec::new()
        };
        for target in targets {
            out.push((a.path.to_string(), target));
        }
    }
    out
}

/// The quoted strings that directly follow any of `markers` (optionally after `(`), e.g. `src="x.js"`.
fn quoted_after(text: &str, markers: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for marker in markers {
        let mut rest = text;
        while let Some(i) = rest.find(marker) {
            rest = &rest[i + marker.len()..];
            let trimmed = rest.trim_start_matches(['(', ' ']);
            let Some(quote) = trimmed.chars().next().filter(|c| matches!(c, '"' | '\'' | '`')) else {
                continue;
            };
            if let Some(end) = trimmed[1..].find(quote) {
                found.push(trimmed[1..1 + end].to_string());
            }
        }
    }
    found
}

fn resolve(from: &str, target: &str) -> Option<String> {
    let target = target.split(['#', '?']).next().unwrap_or("");
    let mut parts: Vec<&str> = if let Some(abs) = target.strip_prefix('/') {
        return Some(if abs.is_empty() {
            "index.html".into()
        } else {
            abs.into()
        });
    } else {
        from.split('/').collect()
    };
    parts.pop();
    for seg in target.split('/') {
        match seg {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

#[test]
fn every_reference_points_at_an_embedded_file_and_nothing_leaves_the_server() {
    let refs = references();
    // The test must see the references it checks: index.html loads the stylesheet and the app module.
    let loaded = |from: &str, path: &str| {
        refs.iter()
            .any(|(f, t)| f == from && resolve(f, t).as_deref() == Some(path))
    };
    assert!(loaded("index.html", "style.css"), "{refs:?}");
    assert!(loaded("index.html", "js/app.js"), "{refs:?}");
    assert!(loaded("js/app.js", "js/games/index.js"), "{refs:?}");
    assert!(loaded("js/games/generic.js", "js/ui.js"), "{refs:?}");
    for (from, target) in refs {
        assert!(
            !target.contains("://") && !target.starts_with("//"),
            "{from} loads {target} from elsewhere: the client must work offline"
        );
        if target.is_empty() || target.starts_with('#') || target.starts_with("data:") {
            continue;
        }
        let resolved =
            resolve(&from, &target).unwrap_or_else(|| panic!("{from}: {target} leaves web/static"));
        assert!(
            asset(&resolved).is_some(),
            "{from} references {target} ({resolved}), which is not embedded"
        );
    }
}

#[test]
fn resolve_follows_relative_paths() {
    assert_eq!(
        resolve("js/games/generic.js", "../ui.js").as_deref(),
        Some("js/ui.js")
    );
    assert_eq!(
        resolve("js/app.js", "./games/index.js").as_deref(),
        Some("js/games/index.js")
    );
    assert_eq!(resolve("index.html", "js/app.js").as_deref(), Some("js/app.js"));
    assert_eq!(
        resolve("index.html", "/style.css?v=1").as_deref(),
        Some("style.css")
    );
    assert_eq!(resolve("index.html", "../x").as_deref(), None);
}

#[test]
fn every_game_screen_file_is_registered_in_the_screen_index() {
    // The registry of dedicated screens names only game ids; the generic screen needs none. Check the registry
    // module lists the screens it imports, so a screen file cannot be added without being reachable.
    let index = std::str::from_utf8(asset("js/games/index.js").unwrap().bytes).unwrap();
    for a in ASSETS
        .iter()
        .filter(|a| a.path.starts_with("js/games/") && a.path != "js/games/index.js")
    {
        let module = a.path.trim_start_matches("js/games/");
        assert!(
            index.contains(&format!("./{module}")),
            "js/games/index.js does not import {module}"
        );
    }
}

#[test]
fn the_quacks_pot_track_drawn_by_the_client_is_the_engines() {
    use rules::games::quacks::data::POT_TRACK;
    let js = std::str::from_utf8(asset("js/games/quacks.js").unwrap().bytes).unwrap();
    let start = js.find("POT_TRACK = [").expect("quacks.js defines POT_TRACK") + "POT_TRACK = ".len();
    let end = start + js[start..].find("];").unwrap() + 1;
    let drawn: Vec<Vec<u8>> = serde_json::from_str(&js[start..end]).expect("POT_TRACK is a JSON array");
    let engine: Vec<Vec<u8>> = POT_TRACK
        .iter()
        .map(|s| vec![s.coins, s.points, u8::from(s.ruby)])
        .collect();
    assert_eq!(
        drawn, engine,
        "copy POT_TRACK from rules/src/games/quacks/data.rs into quacks.js"
    );
}
