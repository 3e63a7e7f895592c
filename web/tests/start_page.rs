//! The start page (issue 26, issue 44): the five games lead the page (picture, name, players, a few lines, "How to
//! play" and "Create a table"), the first game's "Create a table" is in view without scrolling on a desktop
//! (1280×800) and on a phone (390×844), and each game's "Create a table" brings the create form with that game
//! chosen and its create button into view, in English and after switching to Polish; the switch redraws the page at
//! once, sets `<html lang>`, is remembered across a reload, and leaves no English words from the page on it. Each
//! game shows its description, player count and play time. The lobby's "How to play" button opens the rules dialog,
//! which closes on Escape and gives focus back to the button. Issue 44: "How to play" opens every game's rules with
//! no lobby created and gives focus back to the card's button (also after a redraw under the dialog); an invitation link names the game and who invites (the join page's heading, the page title,
//! the host's share text); the open-games list and the lobby leave out an option that does not apply to the
//! table's seat count (Molehills' grid for three players on a two-seat table) and show it on a three-seat one.

mod common;

use common::{Browser, TestServer, browsers_available, test_dir, with_chromedriver};
use serde_json::json;

/// Whether the create button lies wholly inside the window (`unscrolled`: with the page not scrolled).
fn in_view(selector: &str, unscrolled: bool) -> String {
    format!(
        "(() => {{ const b = document.querySelector({sel}); if (!b) return null; \
         const r = b.getBoundingClientRect(); \
         return {{ top: r.top, bottom: r.bottom, height: innerHeight, width: innerWidth, right: r.right, scrolled: scrollY, \
           inside: {scroll} r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth }}; }})()",
        sel = json!(selector),
        scroll = if unscrolled { "scrollY === 0 &&" } else { "" },
    )
}

/// Words of the English page that must not remain once it speaks Polish.
const ENGLISH: &[&str] = &[
    "Pick a game",
    "Create a table",
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
    // The games lead the page: their panel comes first, and the first game's "Create a table" is in view.
    assert_eq!(
        page.js("return document.querySelector('#main .home').firstElementChild.id || document.querySelector('#main .home').firstElementChild.className")
            .await,
        json!("panel games-panel"),
        "{what}: the games come first"
    );
    let placed = page
        .js(&format!(
            "return {};",
            in_view(".game-card button[data-key^=create-]", true)
        ))
        .await;
    assert_eq!(
        placed["inside"],
        json!(true),
        "{what}: the first game's 'Create a table' is in view without scrolling: {placed}"
    );
    // Every game has its card and, through its "Create a table", the form with it chosen: description and facts
    // (players and time) on the form, and the form's create button in view.
    let games = page
        .js("return [...document.querySelectorAll('#create-game option')].map(o => o.value)")
        .await;
    for game in games.as_array().expect("the games") {
        let game = game.as_str().expect("a game id");
        let card = page
            .js(&format!(
                "const c = document.querySelector('.game-card[data-game={game}]'); \
                 return c && [c.querySelector('h2').innerText, c.querySelector('.game-facts').innerText, c.querySelector('.game-about').innerText];"
            ))
            .await;
        assert!(card.is_array(), "{what}: {game} has a card");
        page.click(&format!(
            ".game-card[data-game={game}] button[data-key=create-{game}]"
        ))
        .await;
        let shown = page
            .js("return [document.querySelector('#create-game').value, document.querySelector('#create-about').innerText, document.querySelector('#create-facts').innerText];")
            .await;
        assert_eq!(
            shown[0],
            json!(game),
            "{what}: {game}'s card chooses it in the form"
        );
        let about = shown[1].as_str().unwrap_or_default();
        let facts = shown[2].as_str().unwrap_or_default();
        assert!(about.len() > 40, "{what}: {game} has a description: {shown}");
        assert!(
            facts.chars().any(|c| c.is_ascii_digit()) && facts.contains('·'),
            "{what}: {game} shows its players and time: {shown}"
        );
        assert_eq!(card[1], json!(facts), "{what}: {game}'s card has the same facts");
        let placed = page
            .js(&format!(
                "return {};",
                in_view("button[data-key=create-submit]", false)
            ))
            .await;
        assert_eq!(
            placed["inside"],
            json!(true),
            "{what}: with {game} chosen the create button is in view: {placed}"
        );
    }
    page.js("const s = document.querySelector('#create-game'); s.value = 'hide_and_eeek'; s.dispatchEvent(new Event('change')); scrollTo(0, 0);")
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

/// The molehills lobby `page` (on the start page) creates with `seats` seats as `name`, listed publicly; its code.
async fn listed_molehills(page: &Browser, base: &str, name: &str, seats: u8) -> String {
    page.goto(&format!("{base}/")).await;
    page.wait_for(
        "the games and the connection",
        "document.querySelector('.game-card[data-game=molehills]') && document.querySelector('#conn').dataset.status === 'open'",
    )
    .await;
    page.click(".game-card[data-game=molehills] button[data-key=create-molehills]")
        .await;
    assert_eq!(
        page.js("return document.querySelector('#create-game').value")
            .await,
        json!("molehills"),
        "{name}: 'Create a table' chose Molehills"
    );
    // The grid for three players is hidden at two seats and shown at three.
    let hidden_at = |n: u8| {
        format!(
            "const s = document.querySelector('#create-seats'); s.value = '{n}'; s.dispatchEvent(new Event('input')); \
             return document.querySelector('[data-option=three_player_grid]').hidden;"
        )
    };
    assert_eq!(
        page.js(&hidden_at(2)).await,
        json!(true),
        "{name}: no grid choice at 2 seats"
    );
    assert_eq!(
        page.js(&hidden_at(3)).await,
        json!(false),
        "{name}: the grid choice at 3 seats"
    );
    page.js(&hidden_at(seats)).await;
    page.fill("#create-name", name).await;
    page.click("button[data-key=create-submit]").await;
    page.wait_for("the lobby", "document.querySelector('#lobby-code')?.innerText")
        .await;
    page.click("#host-listed").await;
    page.wait_for("the lobby listed", "window.tabletop.lobby?.listed === true")
        .await;
    page.js("return window.tabletop.lobby.code")
        .await
        .as_str()
        .expect("a code")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_lead_invitations_name_game_and_host_and_options_apply() {
    if !browsers_available("start_page") {
        return;
    }
    let server = TestServer::start_in(test_dir("start-page-games"), |_| {}).await;
    let base = server.base_url();
    with_chromedriver(move |webdriver| async move {
        let ann = Browser::open(&webdriver, "ann", 1280, 800, false).await;
        ann.goto(&format!("{base}/")).await;
        ann.wait_for("the game cards", "document.querySelectorAll('.game-card').length >= 5")
            .await;
        let games = ann
            .js("return [...document.querySelectorAll('.game-card')].map(c => c.dataset.game)")
            .await;
        assert_eq!(
            games.as_array().map(Vec::len),
            Some(5),
            "the five games lead the page: {games}"
        );
        // Each game: its own picture, and "How to play" opening its rules with no lobby created.
        for game in games.as_array().unwrap() {
            let game = game.as_str().unwrap();
            let card = format!(".game-card[data-game={game}]");
            ann.wait_for(
                &format!("{game}'s picture"),
                &format!(
                    "(() => {{ const p = document.querySelector('{card} .game-picture'); const img = p?.querySelector('img'); \
                     return p && p.querySelector('svg, img') && (!img || (img.complete && img.naturalWidth > 0)); }})()"
                ),
            )
            .await;
            let title = ann.text(&format!("{card} h2")).await;
            ann.click(&format!("{card} button[data-key=rules-open-{game}]"))
                .await;
            ann.wait_for(
                &format!("{game}'s rules"),
                "document.querySelector('#rules-dialog')?.open",
            )
            .await;
            let heading = ann.text("#rules-h").await;
            assert!(heading.contains(&title), "{game}: the rules of {title}: {heading}");
            let body = ann.text("#rules-dialog .rules-body").await;
            assert!(body.len() > 100, "{game}: the rules say something: {body}");
            ann.click("#rules-dialog button[data-key=rules-close]").await;
            ann.wait_for("the dialog closed", "!document.querySelector('#rules-dialog').open")
                .await;
            assert_eq!(
                ann.js("return document.activeElement.dataset.key").await,
                json!(format!("rules-open-{game}")),
                "{game}: focus goes back to the card's button"
            );
            assert_eq!(
                ann.js("return [window.tabletop.session, location.hash]").await,
                json!([null, ""]),
                "{game}: reading the rules created nothing"
            );
        }
        ann.shot("start-page-games").await;
        // The page redrawn under the open dialog (here by a change of language): Escape still gives focus back to
        // the card's button, the one drawn anew.
        ann.click(".game-card[data-game=molehills] button[data-key=rules-open-molehills]")
            .await;
        ann.wait_for("the rules", "document.querySelector('#rules-dialog')?.open")
            .await;
        ann.js("const s = document.querySelector('#lang'); s.value = 'pl'; s.dispatchEvent(new Event('change'));")
            .await;
        ann.wait_for("the page in Polish", "document.documentElement.lang === 'pl'")
            .await;
        ann.client
            .active_element()
            .await
            .unwrap()
            .send_keys("\u{e00c}")
            .await
            .unwrap();
        ann.wait_for("the dialog closed by Escape", "!document.querySelector('#rules-dialog').open")
            .await;
        assert_eq!(
            ann.js("return [document.activeElement.dataset.key, document.activeElement.isConnected]")
                .await,
            json!(["rules-open-molehills", true]),
            "focus goes back to the redrawn button"
        );
        ann.js("const s = document.querySelector('#lang'); s.value = 'en'; s.dispatchEvent(new Event('change'));")
            .await;
        ann.wait_for("the page in English", "document.documentElement.lang === 'en'")
            .await;

        // Ann's two-seat Molehills table and Bo's three-seat one, both listed.
        let two = listed_molehills(&ann, &base, "Ann", 2).await;
        let invite = "Ann invites you to play Mountains out of Molehills (1 of 2 seats free)";
        assert_eq!(ann.text("#invitation").await, invite, "the host's share text");
        let lobby_line = ann.text(".lobby .hint").await;
        assert!(
            !lobby_line.contains("Board for three players"),
            "a two-seat lobby leaves out the grid for three: {lobby_line}"
        );
        let bo = Browser::open(&webdriver, "bo", 1280, 800, false).await;
        let three = listed_molehills(&bo, &base, "Bo", 3).await;

        // Cy sees both in the open games: the grid for three only on the three-seat table.
        let cy = Browser::open(&webdriver, "cy", 1280, 800, false).await;
        cy.goto(&format!("{base}/")).await;
        for code in [&two, &three] {
            cy.wait_for(
                "the open games",
                &format!("document.querySelector('.open-game[data-code=\"{code}\"]')"),
            )
            .await;
        }
        let two_line = cy.text(&format!(".open-game[data-code=\"{two}\"]")).await;
        let three_line = cy.text(&format!(".open-game[data-code=\"{three}\"]")).await;
        assert!(
            !two_line.contains("Board for three players"),
            "a two-seat table shows no option for three: {two_line}"
        );
        assert!(
            three_line.contains("Board for three players"),
            "a three-seat table shows its grid: {three_line}"
        );
        cy.js("document.querySelector('#open-games').scrollIntoView()")
            .await;
        cy.shot("start-page-open-games").await;

        // Cy opens Ann's link: the page and its title say who invites to what.
        cy.click(&format!("a[data-key=\"open-join-{two}\"]")).await;
        cy.wait_for(
            "the invitation",
            "document.querySelector('[data-key=invitation]')",
        )
        .await;
        assert_eq!(cy.text("[data-key=invitation]").await, invite, "the joining page's heading");
        assert_eq!(cy.js("return document.title").await, json!(invite), "the page title");
        // In Polish too.
        cy.js("const s = document.querySelector('#lang'); s.value = 'pl'; s.dispatchEvent(new Event('change'));")
            .await;
        let polish = "Ann zaprasza cię do gry Z kretowiska góry (wolne miejsca: 1 z 2)";
        cy.wait_for("the invitation in Polish", &format!("document.title === {}", json!(polish)))
            .await;
        assert_eq!(cy.text("[data-key=invitation]").await, polish);
        cy.shot("start-page-invitation").await;
        for page in [ann, bo, cy] {
            page.close().await;
        }
    })
    .await;
    server.finish().await;
}
