//! The start page (issue 26): the create button is in view without scrolling on a desktop (1280×800) and on a
//! phone (390×844), in English and after switching to Polish; the switch redraws the page at once, sets
//! `<html lang>`, is remembered across a reload, and leaves no English words from the page on it. Each game shows
//! its description, player count and play time. The lobby's "How to play" button opens the rules dialog, which
//! closes on Escape and gives focus back to the button.

mod common;

use common::{Browser, TestServer, browsers_available, test_dir, with_chromedriver};
use serde_json::json;

/// Whether the create button lies wholly inside the window, with the page not scrolled.
const BUTTON_IN_VIEW: &str = "(() => { const b = document.querySelector('button[data-key=create-submit]'); if (!b) return null; \
    const r = b.getBoundingClientRect(); \
    return { top: r.top, bottom: r.bottom, height: innerHeight, width: innerWidth, right: r.right, scrolled: scrollY, \
      inside: scrollY === 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth }; })()";

/// Words of the English page that must not remain once it speaks Polish.
const ENGLISH: &[&str] = &[
    "Start a new game",
    "Create the game",
    "Your name",
    "Players",
    "Game code",
    "Join a game",
    "Turn timer",
    "When a player is away",
    "Connected",
    "Watch instead",
    "Refresh the list",
    "about 20 minutes",
];

async fn check_start_page(page: &Browser, base: &str, what: &str) {
    page.goto(&format!("{base}/")).await;
    page.wait_for("the create form", "document.querySelector('#create-game option')")
        .await;
    page.wait_for(
        "the connection",
        "document.querySelector('#conn').dataset.status === 'open'",
    )
    .await;
    let placed = page.js(&format!("return {BUTTON_IN_VIEW};")).await;
    assert_eq!(
        placed["inside"],
        json!(true),
        "{what}: the create button is in view without scrolling: {placed}"
    );
    // Every game has its description and its facts (players and time) on the form.
    let games = page
        .js("return [...document.querySelectorAll('#create-game option')].map(o => o.value)")
        .await;
    for game in games.as_array().expect("the games") {
        let shown = page
            .js(&format!(
                "const s = document.querySelector('#create-game'); s.value = {game}; s.dispatchEvent(new Event('change')); \
                 return [document.querySelector('#create-about').innerText, document.querySelector('#create-facts').innerText];"
            ))
            .await;
        let about = shown[0].as_str().unwrap_or_default();
        let facts = shown[1].as_str().unwrap_or_default();
        assert!(about.len() > 40, "{what}: {game} has a description: {shown}");
        assert!(
            facts.chars().any(|c| c.is_ascii_digit()) && facts.contains('·'),
            "{what}: {game} shows its players and time: {shown}"
        );
        let placed = page.js(&format!("return {BUTTON_IN_VIEW};")).await;
        assert_eq!(
            placed["inside"],
            json!(true),
            "{what}: with {game} chosen the create button is in view: {placed}"
        );
    }
    page.js("const s = document.querySelector('#create-game'); s.value = 'hide_and_eeek'; s.dispatchEvent(new Event('change'));")
        .await;
}

async fn switch_to_polish(page: &Browser, base: &str, what: &str) {
    page.fill("#create-name", "Ania").await;
    page.js(
        "const s = document.querySelector('#lang'); s.value = 'pl'; s.dispatchEvent(new Event('change'));",
    )
    .await;
    page.wait_for("the page in Polish", "document.documentElement.lang === 'pl'")
        .await;
    let button = page.text("button[data-key=create-submit]").await;
    assert_eq!(
        button, "Utwórz grę",
        "{what}: the page is redrawn in Polish at once"
    );
    assert_eq!(
        page.js("return document.querySelector('#create-name').value")
            .await,
        json!("Ania"),
        "{what}: what was typed survives the switch"
    );
    let text = page.text("body").await;
    for english in ENGLISH {
        assert!(
            !text.contains(english),
            "{what}: '{english}' is still in English:\n{text}"
        );
    }
    assert!(
        text.contains("Czas na okrzyk Eeek!") && text.contains("1–30 sekund"),
        "{what}: the option is in Polish and in seconds:\n{text}"
    );
    // Remembered: a reload comes back in Polish, and the button is still in view.
    check_start_page(page, base, &format!("{what} after a reload")).await;
    assert_eq!(page.js("return document.documentElement.lang").await, json!("pl"));
    assert_eq!(page.text("button[data-key=create-submit]").await, "Utwórz grę");
    assert_eq!(page.text("#conn").await, "Połączono");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_button_in_view_and_languages_switch() {
    if !browsers_available("start_page") {
        return;
    }
    let server = TestServer::start_in(test_dir("start-page"), |_| {}).await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let desktop = Browser::open(&webdriver, "desktop", 1280, 800, false).await;
        // The window's outer size includes the browser's frame: make the page itself 1280×800.
        let inner = desktop.js("return [innerWidth, innerHeight]").await;
        let (w, h) = (inner[0].as_i64().unwrap(), inner[1].as_i64().unwrap());
        desktop
            .client
            .set_window_size((1280 + 1280 - w) as u32, (800 + 800 - h) as u32)
            .await
            .expect("the window resizes");
        check_start_page(&desktop, &base, "desktop").await;
        assert_eq!(
            desktop.js("return [innerWidth, innerHeight]").await,
            json!([1280, 800]),
            "the page is 1280×800"
        );
        desktop.shot("start-page-desktop-en").await;
        switch_to_polish(&desktop, &base, "desktop").await;
        desktop.shot("start-page-desktop-pl").await;

        // The lobby's "How to play": opens a dialog, Escape closes it and focus returns to the button.
        desktop.fill("#create-name", "Ania").await;
        desktop.click("button[data-key=create-submit]").await;
        desktop
            .wait_for("the lobby", "document.querySelector('#lobby-code')?.innerText")
            .await;
        desktop.click("button[data-key=rules-open]").await;
        desktop
            .wait_for(
                "the rules dialog",
                "document.querySelector('#rules-dialog')?.open",
            )
            .await;
        let title = desktop.text("#rules-h").await;
        assert!(
            title.starts_with("Jak grać: Hide and Eeek!"),
            "the dialog's title: {title}"
        );
        assert_eq!(
            desktop.js("return document.activeElement.dataset.key").await,
            json!("rules-close"),
            "focus moves into the dialog"
        );
        desktop
            .client
            .active_element()
            .await
            .unwrap()
            .send_keys("\u{e00c}")
            .await
            .unwrap();
        desktop
            .wait_for(
                "the dialog closed by Escape",
                "!document.querySelector('#rules-dialog').open",
            )
            .await;
        assert_eq!(
            desktop.js("return document.activeElement.dataset.key").await,
            json!("rules-open"),
            "focus goes back to the button"
        );
        desktop.shot("start-page-lobby-pl").await;
        desktop.close().await;

        let phone = Browser::open(&webdriver, "phone", 390, 844, true).await;
        check_start_page(&phone, &base, "phone").await;
        phone.shot("start-page-phone-en").await;
        switch_to_polish(&phone, &base, "phone").await;
        phone.shot("start-page-phone-pl").await;
        phone.close().await;
    })
    .await;
    server.finish().await;
}
