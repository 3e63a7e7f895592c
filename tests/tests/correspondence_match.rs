//! Issue 47's acceptance, end to end: a whole match of The Quacks of Quedlinburg played by correspondence (a day a
//! move), each player away from the table between turns and called back by its own webhook. A player comes to the
//! table (`resume` with its seat token) only when its webhook says `your_turn`, plays every decision it has, and
//! leaves (its page hidden, then closed) once it has none (at the start, when all are at the table, the first to
//! play stays until the others have). Checked: the match ends with every action made that
//! way; every time a seat began to decide while away exactly one `your_turn` reached it, for that moment, with an
//! id of its own, and none while it was at the table; each player hears of the match's end once. On every backend.

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use integration_tests::webhook_receiver::Receiver;
use integration_tests::*;
use protocol::{ActedBy, StallPolicy};
use serde_json::{Value, json};
use server::Clock;

const DAY: u64 = 86_400_000;
/// The manual clock moves this much before every action, so that each notice's `at` names the action that
/// caused it.
const STEP_MS: u64 = 10_000;
/// A player stops brewing once it has drawn this many chips in a round (the first legal action is `draw`).
const DRAWS: u32 = 3;

fn config() -> server::Config {
    let mut config = test_config();
    config.notify_allow_private = true;
    // Presence stays `connected` however the manual clock moves: only a hidden page or no connection is away.
    config.idle_after_ms = 365 * DAY;
    config
}

/// One player: its seat token, its webhook, its connection while it is at the table.
struct Player {
    token: String,
    hook: Receiver,
    client: Option<Client>,
    /// Chips drawn this round (reset when it stops).
    draws: u32,
}

/// The match as the test follows it.
struct Match {
    code: String,
    players: Vec<Player>,
    /// The latest state, as the acting player saw it.
    state: Value,
    /// Seats told (or about to be told) of their turn, in order, with the clock's time of the action that did it.
    called: VecDeque<(usize, u64)>,
    /// How many times a seat started deciding while at the table (not called).
    at_the_table: u32,
    actions: u64,
}

impl Match {
    /// The action `seat` plays: `stop` once it has drawn [`DRAWS`] chips while brewing, otherwise the first legal
    /// one.
    fn choose(&mut self, seat: usize, state: &Value) -> Value {
        let legal = state["legal_actions"].as_array().unwrap();
        let stop = json!({"type": "stop"});
        let player = &mut self.players[seat];
        if !legal.contains(&stop) {
            // Not brewing (or a choice before the first draw): the next brew counts from zero.
            player.draws = 0;
        }
        let action = if player.draws >= DRAWS && legal.contains(&stop) {
            stop.clone()
        } else {
            legal[0].clone()
        };
        if action == stop {
            player.draws = 0;
        } else if action["type"] == "draw" {
            player.draws += 1;
        }
        action
    }

    /// `seat` plays until it has no decision left; every seat that starts deciding meanwhile and is not at the
    /// table is owed a `your_turn`.
    async fn play_all(&mut self, seat: usize, clock: &server::ManualClock) {
        loop {
            let version = self.state["version"].as_u64().unwrap();
            let own = self.players[seat]
                .client
                .as_mut()
                .expect("at the table")
                .wait_version(version)
                .await;
            if own["status"]["kind"] == "over" || !deciding(&own).contains(&(seat as u64)) {
                self.state = own;
                return;
            }
            let action = self.choose(seat, &own);
            clock.advance(STEP_MS);
            let client = self.players[seat].client.as_mut().unwrap();
            let r = client.request(req::action(&action, version)).await;
            assert_eq!(r["type"], "accepted", "{action} -> {r}");
            assert_eq!(r["version"], version + 1, "only the players act");
            let next = client.wait_version(version + 1).await;
            self.actions += 1;
            let before: BTreeSet<u64> = deciding(&self.state).into_iter().collect();
            let after: BTreeSet<u64> = deciding(&next).into_iter().collect();
            for s in after.difference(&before) {
                let s = *s as usize;
                if self.players[s].client.is_none() {
                    self.called.push_back((s, clock.now()));
                } else {
                    self.at_the_table += 1;
                }
            }
            self.state = next;
        }
    }

    /// `seat` leaves the table: its page hidden (the table has it away before anything else happens), then closed.
    async fn leave(&mut self, seat: usize) {
        let mut client = self.players[seat].client.take().expect("at the table");
        let r = client.request(req::presence(true)).await;
        assert_eq!(r["type"], "ok", "{r}");
        client.close().await;
    }

    /// `seat` comes back to the table with its seat token.
    async fn come_back(&mut self, addr: std::net::SocketAddr, seat: usize) {
        let mut client = Client::hello(addr).await;
        let r = client
            .request(req::resume(&self.code, &self.players[seat].token))
            .await;
        assert_eq!(r["type"], "resumed", "{r}");
        client.wait_version(self.state["version"].as_u64().unwrap()).await;
        self.players[seat].client = Some(client);
    }
}

/// Creates a correspondence lobby of Quacks for `seats` players (a day a move, up to three), starts it, and
/// subscribes every seat's own webhook.
async fn start(server: &TestServer, seats: u8) -> Match {
    let pace = req::correspondence(DAY, 3 * DAY, StallPolicy::Bot);
    let mut host = server.client().await;
    let created = host
        .request(req::create_lobby("quacks", seats, "Host").pace(pace))
        .await;
    assert_eq!(created["type"], "seated", "{created}");
    let code = created["code"].as_str().unwrap().to_string();
    let mut joined = vec![(host, created)];
    for i in 1..seats {
        let mut c = server.client().await;
        let r = c.request(req::join(&code, &format!("P{i}"))).await;
        assert_eq!(r["type"], "seated", "{r}");
        assert_eq!(r["seat"], i);
        joined.push((c, r));
    }
    assert_eq!(joined[0].0.request(req::start()).await["type"], "ok");
    let mut players = Vec::new();
    for (mut client, seated) in joined {
        let hook = Receiver::start().await;
        let r = client.request(req::notify_webhook(&hook.url)).await;
        assert_eq!(r["type"], "notify_endpoints", "{r}");
        client.wait_version(0).await;
        players.push(Player {
            token: seated["seat_token"].as_str().unwrap().to_string(),
            hook,
            client: Some(client),
            draws: 0,
        });
    }
    let state = players[0].client.as_ref().unwrap().state.clone().unwrap();
    Match {
        code,
        players,
        state,
        called: VecDeque::new(),
        at_the_table: 0,
        actions: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_quacks_match_by_correspondence_each_player_called_back_by_its_webhook() {
    for backend in backends() {
        let db = TestDb::new(backend).await;
        let server = TestServer::start(&db, config()).await;
        let mut m = start(&server, 3).await;
        assert_eq!(m.state["status"]["kind"], "simultaneous", "{}", m.state);
        // At the start everyone is at the table: each plays what it has, then leaves; seat 0 stays (its page
        // showing) until the others have played, so the buying that the last brewer's stop opens finds it at the
        // table: it is not called, and plays there before it leaves.
        for seat in 0..m.players.len() {
            m.play_all(seat, &server.clock).await;
            if seat > 0 {
                m.leave(seat).await;
            }
        }
        assert!(m.at_the_table > 0, "seat 0 started deciding at the table");
        m.play_all(0, &server.clock).await;
        m.leave(0).await;
        let mut ids = BTreeSet::new();
        let mut sessions = 0;
        while m.state["status"]["kind"] != "over" {
            let (seat, at) = m
                .called
                .pop_front()
                .unwrap_or_else(|| panic!("nobody to call, and the match is not over: {}", m.state));
            let told = m.players[seat].hook.next().await;
            assert_eq!(told.body["kind"], "your_turn", "seat {seat}: {:?}", told.body);
            assert_eq!(told.body["table"], m.code.as_str());
            assert_eq!(
                told.body["at"], at,
                "seat {seat}: the notice of the action that called it"
            );
            assert!(
                ids.insert(told.body["id"].as_str().unwrap().to_string()),
                "a repeat: {:?}",
                told.body
            );
            m.come_back(server.addr, seat).await;
            m.play_all(seat, &server.clock).await;
            m.leave(seat).await;
            sessions += 1;
        }
        assert!(m.called.is_empty(), "called after the end: {:?}", m.called);
        assert!(sessions >= 9, "at least a call a round: {sessions}");

        // The match is over and stored so, with every action a player's own.
        let match_id = m.state["match_id"].as_str().unwrap().to_string();
        let store = db.store().await;
        let status = store.match_status(&match_id).await.unwrap().unwrap();
        assert_eq!(status.status, "finished");
        assert!(store.result(&match_id).await.unwrap().is_some());
        let log = store.action_log(&match_id).await.unwrap();
        assert_eq!(log.len() as u64, m.actions);
        assert!(log.iter().all(|e| e.by == ActedBy::Player), "only players acted");
        // Each player hears of the end once, and nothing else is left: no turn told twice or while at the table.
        for _ in 0..100 {
            if store.outbox_len().await.unwrap() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(store.outbox_len().await.unwrap(), 0, "every notice delivered");
        store.close().await;
        for (seat, p) in m.players.iter_mut().enumerate() {
            let over = p.hook.next().await;
            assert_eq!(over.body["kind"], "match_over", "seat {seat}: {:?}", over.body);
            assert!(ids.insert(over.body["id"].as_str().unwrap().to_string()));
            if let Some(more) = p.hook.within(Duration::from_millis(300)).await {
                panic!("seat {seat} was told more: {:?}", more.body);
            }
        }
        server.stop().await;
        db.drop_db().await;
    }
}
