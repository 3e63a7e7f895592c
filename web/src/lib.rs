//! The browser client, embedded in the server binary: plain HTML, CSS and ES modules under `web/static/`, with no
//! build step, no CDN and no external fonts (the server runs offline). The server mounts [`asset`] at `/`.
//!
//! Architecture invariant: every file under `web/static/` is listed in [`ASSETS`] (a test walks the directory),
//! and every file the client references (`src`/`href` in HTML, `import` in JS, `url()` in CSS) is embedded.

/// One embedded file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Asset {
    /// The path under `web/static/`, without a leading slash (`index.html`, `js/app.js`).
    pub path: &'static str,
    pub bytes: &'static [u8],
    pub content_type: &'static str,
}

/// The `Cache-Control` value to serve assets with: file names carry no content hash, so browsers revalidate.
pub const CACHE_CONTROL: &str = "no-cache";

macro_rules! assets {
    ($($path:literal),+ $(,)?) => {
        /// Every embedded file.
        pub const ASSETS: &[Asset] = &[
            $(Asset {
                path: $path,
                bytes: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/static/", $path)),
                content_type: content_type($path),
            }),+
        ];
    };
}

assets! {
    "index.html",
    "style.css",
    "favicon.svg",
    "js/app.js",
    "js/net.js",
    "js/lobby.js",
    "js/ui.js",
    "js/words.js",
    "js/store.js",
    "js/friends.js",
    "js/i18n.js",
    "js/help.js",
    "js/info_tip.js",
    "js/away.js",
    "js/notify.js",
    "js/inbox.js",
    "js/lang/en.js",
    "js/lang/ro.js",
    "js/lang/pl.js",
    "js/lang/es.js",
    "js/lang/it.js",
    "js/games/index.js",
    "js/games/generic.js",
    "js/games/hide_and_eeek.js",
    "js/games/new_year_puzzle.js",
    "js/games/molehills.js",
    "js/games/quacks.js",
    "js/games/hickory.js",
    "js/table_tips.js",
    "new-year.svg",
    "admin.html",
    "admin.css",
    "js/admin.js",
    "sw.js",
}

/// The content type for a file name, from its extension.
pub const fn content_type(path: &str) -> &'static str {
    let bytes = path.as_bytes();
    if ends_with(bytes, b".html") {
        "text/html; charset=utf-8"
    } else if ends_with(bytes, b".css") {
        "text/css; charset=utf-8"
    } else if ends_with(bytes, b".js") {
        "text/javascript; charset=utf-8"
    } else if ends_with(bytes, b".svg") {
        "image/svg+xml"
    } else if ends_with(bytes, b".png") {
        "image/png"
    } else if ends_with(bytes, b".json") {
        "application/json"
    } else {
        "application/octet-stream"
    }
}

const fn ends_with(s: &[u8], suffix: &[u8]) -> bool {
    if suffix.len() > s.len() {
        return false;
    }
    let offset = s.len() - suffix.len();
    let mut i = 0;
    while i < suffix.len() {
        if s[offset + i] != suffix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The asset for a request path: `/` and the empty path give `index.html`; a leading slash is ignored. `None` for
/// anything not embedded (including any path with `..`), so the caller answers 404.
pub fn asset(path: &str) -> Option<&'static Asset> {
    let path = path.strip_prefix('/').unwrap_or(path);
    let path = if path.is_empty() { "index.html" } else { path };
    ASSETS.iter().find(|a| a.path == path)
}

#[cfg(test)]
mod tests;
