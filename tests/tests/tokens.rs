//! Tokens (issue 10, point 5): a full run of the real server binary with every log line at `trace` (several
//! seats, a spectator, a resume, wrong tokens, admin API calls with the admin token and with a seat token), then
//! no seat token and no admin token appears in the log or in any row of the database; seat tokens are 256-bit
//! hex strings, all distinct. (Randomness and the constant-time compare: unit tests in `server/src/secrets.rs`;
//! the admin token rule: `server/src/admin.rs`.)

use integration_tests::*;
use serde_json::json;

const GAME: &str = "hide_and_eeek";
const SERVER_BINARY: &str = env!("CARGO_BIN_EXE_server-under-test");
/// 32 hex digits: 128 bits, the least the server accepts.
const ADMIN_TOKEN: &str = "3f9c2a7be1d04856a9f1c3e7b2d4a6c8";

async fn admin(addr: std::net::SocketAddr, method: &str, path: &str, token: &str) -> u16 {
    let auth = format!("Bearer {token}");
    let body = (method == "POST").then_some(r#"{"by": "tester", "reason": "token test"}"#);
    http_request(addr, method, path, &[("Authorization", &auth)], body)
        .await
        .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_appears_in_any_log_line_or_database_row() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let log = std::env::temp_dir().join(format!("tabletop_tokens_{}_{backend}.log", std::process::id()));
        let env = [
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("BOT_DELAY_MS", "0"),
            ("RATE_LIMIT_BURST", "1000000"),
        ];
        let process = ServerProcess::start_logging(SERVER_BINARY, &db, &env, "trace", &log).await;
        let addr = process.addr;
        let (code, mut players) =
            start_match(addr, GAME, json!({"target": 3, "claim_window_ms": 1000}), 3, 3).await;
        let mut tokens: Vec<String> = players.iter().map(|p| p.token.clone()).collect();
        for t in &tokens {
            assert_eq!(t.len(), 64, "256 bits as hex: {t}");
            assert!(t.bytes().all(|b| b.is_ascii_hexdigit()));
        }
        let mut distinct = tokens.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), tokens.len());

        let mut spectator = Client::hello(addr).await;
        assert_eq!(
            spectator.request(req::spectate(&code)).await["type"],
            "spectating"
        );
        let played = play(&mut players, &Time::Real, 5, 6).await;
        let match_id = played.last_state["match_id"].as_str().unwrap().to_string();

        // A seat resumes on a new connection; a wrong token and another seat's token in the wrong lobby are refused.
        let mut again = Client::hello(addr).await;
        let resumed = again.request(req::resume_from(&code, &players[1].token, 1)).await;
        assert_eq!(resumed["type"], "resumed", "{resumed}");
        players[1].client = again;
        let mut stranger = Client::hello(addr).await;
        // The seat's token with its last digit changed (always a different token, whatever that digit was).
        let last = if players[0].token.ends_with('0') { '1' } else { '0' };
        let wrong = format!("{}{last}", &players[0].token[..63]);
        assert_ne!(wrong, players[0].token);
        let refused = stranger.request(req::resume(&code, &wrong)).await;
        assert_eq!(refused["code"], "unauthorized");
        tokens.push(wrong);

        // The admin API: with the admin token, without it, and with a seat token in its place.
        for path in [
            "/api/admin/matches".to_string(),
            format!("/api/admin/matches/{match_id}"),
            format!("/api/admin/matches/{match_id}/log"),
            format!("/api/admin/matches/{match_id}/view"),
            "/api/admin/audit".to_string(),
        ] {
            assert_eq!(admin(addr, "GET", &path, ADMIN_TOKEN).await, 200, "{path}");
            assert_eq!(admin(addr, "GET", &path, &players[0].token).await, 403, "{path}");
        }
        assert_eq!(
            http_request(addr, "GET", "/api/admin/matches", &[], None).await.0,
            401
        );

        // Play to the end, then an administrator aborts nothing but reads the result.
        let rest = play(&mut players, &Time::Real, 6, 10_000).await;
        assert_eq!(rest.last_state["status"]["kind"], "over");
        let result = format!("/api/admin/matches/{match_id}/result");
        assert_eq!(admin(addr, "GET", &result, ADMIN_TOKEN).await, 200);
        assert!(process.terminate().await, "clean exit");

        let text = std::fs::read_to_string(&log).expect("the server's log");
        // The capture works: trace-level lines are there, and lines of the libraries (every SQL statement sqlx
        // runs). (Not a line count: how many lines a run writes depends on how commits were grouped.)
        assert!(text.contains(" TRACE "), "trace-level lines are captured");
        assert!(text.contains("sqlx::query"), "the libraries' lines are captured");
        assert!(
            text.contains("match started"),
            "the server's own lines are captured"
        );
        assert!(text.contains("admin request with a wrong token refused"));
        tokens.push(ADMIN_TOKEN.to_string());
        for token in &tokens {
            for (n, line) in text.lines().enumerate() {
                assert!(
                    !line.contains(token.as_str()),
                    "a token in log line {}: {line}",
                    n + 1
                );
            }
        }
        // The database holds hashes, never the tokens.
        let rows = dump_tables(&db).await;
        assert!(
            rows.iter().any(|r| r.contains(&match_id)),
            "the dump reads the match's rows"
        );
        for token in &tokens {
            for row in &rows {
                assert!(!row.contains(token.as_str()), "a token in the database: {row}");
            }
        }
        // Nor anywhere in SQLite's files (freed pages, the write-ahead log).
        if let TestDb::Sqlite { dir, .. } = &db {
            for entry in std::fs::read_dir(dir.join("data")).unwrap() {
                let bytes = std::fs::read(entry.unwrap().path()).unwrap();
                for token in &tokens {
                    assert!(
                        !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                        "a token in a database file"
                    );
                }
            }
        }
        let _ = std::fs::remove_file(&log);
        db.drop_db().await;
    }
}
