//! Text from strangers (issue 42, point 6), against the real server binary: every name (`create_lobby`,
//! `join_lobby`) and chat message with a bidirectional control, an invisible or line-breaking character, a byte
//! order mark or a tower of combining marks is refused with `bad_name` / `bad_chat` naming the code point, the
//! connection stays usable (a `ping` gets its `pong`), and nothing reaches the other people in the lobby; a name or
//! message typed in NFD comes back in NFC, and names and messages in other scripts and with emoji (a ZWJ family,
//! flags) come back exactly as sent.

use integration_tests::*;
use serde_json::Value;

const SERVER_BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");
const GAME: &str = "hide_and_eeek";

/// The texts the issue found accepted, each with the code point the refusal must name (if it names one).
fn hostile() -> Vec<(&'static str, String, Option<&'static str>)> {
    let zalgo = format!(
        "a{}",
        "\u{0301}\u{0316}\u{0330}"
            .repeat(11)
            .chars()
            .take(31)
            .collect::<String>()
    );
    vec![
        (
            "right-to-left override",
            "evil\u{202E}gpj.exe".into(),
            Some("U+202E"),
        ),
        (
            "left-to-right isolate",
            "\u{2066}Ann\u{2069} x".into(),
            Some("U+2066"),
        ),
        ("pop directional isolate", "Ann\u{2069} x".into(), Some("U+2069")),
        ("right-to-left mark", "Ann\u{200F}".into(), Some("U+200F")),
        (
            "only zero-width spaces",
            "\u{200B}\u{200B}\u{200B}".into(),
            Some("U+200B"),
        ),
        ("only Hangul fillers", "\u{3164}\u{3164}".into(), Some("U+3164")),
        ("line separator", "a\u{2028}b".into(), Some("U+2028")),
        ("paragraph separator", "a\u{2029}b".into(), Some("U+2029")),
        ("byte order mark", "\u{FEFF}Ann".into(), Some("U+FEFF")),
        ("31 stacked combining marks", zalgo, None),
    ]
}

/// Whether `client` is still served: a `ping` gets its `pong`.
async fn usable(client: &mut Client, why: &str) {
    let r = client.request(req::ping()).await;
    assert_eq!(r["type"], "pong", "the connection stays usable after {why}: {r}");
}

fn seat_name(lobby: &Value, seat: usize) -> Value {
    lobby["seats"][seat]["occupant"]["name"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_and_chat_are_refused_and_good_text_comes_back_in_nfc() {
    let db = TestDb::new("sqlite").await;
    let env = [
        ("RATE_LIMIT_BURST", "1000"),
        ("CHAT_BURST", "100"),
        ("BOT_DELAY_MS", "0"),
    ];
    let server = ServerProcess::start(SERVER_BINARY, &db, &env).await;
    let addr = server.addr;

    // A lobby whose host typed a decomposed name: it is kept (and shown to everyone) in NFC.
    let mut host = Client::hello(addr).await;
    let created = host.request(req::create_lobby(GAME, 3, "Jose\u{0301}")).await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let lobby = host.wait_push("lobby", |_| true).await;
    assert_eq!(seat_name(&lobby, 0), "José", "NFD in, NFC kept: {lobby}");

    // Every hostile name is refused, for a new lobby and for a seat in this one, with a code that says so.
    let mut stranger = Client::hello(addr).await;
    let mut accepted = Vec::new();
    for (why, name, code_point) in hostile() {
        for request in [req::create_lobby(GAME, 2, &name), req::join(&code, &name)] {
            let kind = request.kind();
            let r = stranger.request(request).await;
            if r["type"] != "error" {
                accepted.push(format!("{kind} with {why}"));
                // Out of the lobby again, to try the next one.
                let left = stranger.request(req::leave()).await;
                assert_eq!(left["type"], "ok", "{left}");
                continue;
            }
            assert_eq!(r["code"], "bad_name", "{kind} with {why}: {r}");
            let message = r["message"].as_str().unwrap();
            if let Some(u) = code_point {
                assert!(
                    message.contains(u),
                    "{kind} with {why}: the refusal names {u}: {r}"
                );
            }
            usable(&mut stranger, why).await;
        }
    }
    assert!(accepted.is_empty(), "hostile names accepted: {accepted:?}");

    // Good names in several scripts and with emoji take seats, exactly as sent (already NFC).
    let mut guest = Client::hello(addr).await;
    let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} Zoë";
    let joined = guest.request(req::join(&code, family)).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let lobby = host.wait_push("lobby", |l| !seat_name(l, 1).is_null()).await;
    assert_eq!(seat_name(&lobby, 1), family, "{lobby}");
    let mut third = Client::hello(addr).await;
    let flagged = "\u{1F1EF}\u{1F1F5} \u{674E}\u{5C0F}\u{9F99}";
    let joined = third.request(req::join(&code, flagged)).await;
    assert_eq!(joined["type"], "seated", "{joined}");
    let lobby = host.wait_push("lobby", |l| !seat_name(l, 2).is_null()).await;
    assert_eq!(seat_name(&lobby, 2), flagged, "{lobby}");
    for name in [
        "\u{0395}\u{03BB}\u{03AD}\u{03BD}\u{03B7}",
        "\u{092A}\u{094D}\u{0930}\u{093F}\u{092F}\u{093E}",
        "\u{0645}\u{062D}\u{0645}\u{062F}",
    ] {
        let mut c = Client::hello(addr).await;
        let r = c.request(req::create_lobby(GAME, 2, name)).await;
        assert_eq!(r["type"], "seated", "{name}: {r}");
        let lobby = c.wait_push("lobby", |_| true).await;
        assert_eq!(seat_name(&lobby, 0), name);
    }

    // Every hostile chat message is refused with `bad_chat` and reaches nobody.
    let mut accepted = Vec::new();
    for (why, text, code_point) in hostile() {
        let r = guest.request(req::chat(&text)).await;
        if r["type"] != "error" {
            accepted.push(why);
            continue;
        }
        assert_eq!(r["code"], "bad_chat", "chat with {why}: {r}");
        if let Some(u) = code_point {
            assert!(
                r["message"].as_str().unwrap().contains(u),
                "chat with {why} names {u}: {r}"
            );
        }
        usable(&mut guest, why).await;
    }
    assert!(
        accepted.is_empty(),
        "hostile chat messages accepted: {accepted:?}"
    );

    // Good messages go through: NFD comes back NFC, emoji come back as sent; the first message anyone hears is
    // the first good one (the refused ones were never sent).
    let r = guest.request(req::chat("cafe\u{0301}")).await;
    assert_eq!(r["type"], "ok", "{r}");
    let m = host.wait_push("chat_message", |_| true).await;
    assert_eq!(m["message"]["text"], "café", "{m}");
    assert_eq!(m["message"]["id"], 1, "refused messages were not sent: {m}");
    assert_eq!(m["message"]["name"], family);
    let emoji = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466} \u{1F3F3}\u{FE0F}\u{200D}\u{1F308} \u{1F1EB}\u{1F1F7}";
    let r = guest.request(req::chat(emoji)).await;
    assert_eq!(r["type"], "ok", "{r}");
    let m = host.wait_push("chat_message", |_| true).await;
    assert_eq!(m["message"]["text"], emoji, "{m}");

    assert!(server.terminate().await, "the server stops cleanly");
    db.drop_db().await;
}
