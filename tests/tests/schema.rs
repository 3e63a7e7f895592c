//! `GET /api/schema` serves the protocol's JSON Schemas, the same document as `docs/schema/` is generated from.

use integration_tests::{TestDb, TestServer, http_get, test_config};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schema_is_served() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (status, body) = http_get(server.addr, "/api/schema").await;
    assert_eq!(status, 200);
    let served: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(served, protocol::schema::document());
    assert_eq!(served["protocol_version"], protocol::PROTOCOL_VERSION);
    for game in rules::catalogue() {
        for part in ["config", "action", "view", "event"] {
            assert!(served["games"][game.id][part].is_object(), "{} {part}", game.id);
        }
    }
    server.stop().await;
    db.drop_db().await;
}
