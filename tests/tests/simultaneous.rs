//! The `version` guard in simultaneous play (issue 28): an action is refused as `stale_version` only when the
//! acting seat's own options changed after the version it was chosen on, never because another seat made an
//! independent move in between.
//!
//! Every seat of a 4-seat Quacks and Molehills match is its own task on its own connection and acts the moment it
//! may, sending the version of the state it acted on. Afterwards each refusal is checked against the states that
//! seat received: its options really had changed since (or it had acted itself); and each acceptance likewise:
//! its options had not changed since.

use std::collections::BTreeMap;

use integration_tests::*;
use rules::Rng;
use serde_json::{Value, json};

/// What one seat did: for each action, the version it acted on and the server's reply; and every state it saw.
struct SeatRecord {
    seat: u8,
    acted: Vec<(u64, Value)>,
    states: Vec<Value>,
}

/// Plays for one seat until the match is over: whenever the newest state it has lists actions, it sends one of
/// them at once with that state's version. It never acts twice on one state, nor on a state older than its own
/// last accepted action (whose result it has not seen yet: that would be a truly stale action).
async fn play_seat(mut player: Player, seed: u64) -> SeatRecord {
    let mut rng = Rng::from_seed(seed);
    let mut acted = Vec::new();
    let (mut last_acted_on, mut floor) = (None, 0);
    loop {
        let state = player.client.state.clone().expect("a state");
        if state["status"]["kind"] == "over" {
            break;
        }
        let version = state["version"].as_u64().unwrap();
        let legal = state["legal_actions"].as_array().unwrap().clone();
        if legal.is_empty() || version < floor || last_acted_on == Some(version) {
            // Wait for the next push (nothing of ours is in flight, so it is not a reply).
            let push = player.client.read().await.expect("the connection stays open");
            assert!(push.get("re").is_none(), "{push}");
            continue;
        }
        let action = legal[rng.index(legal.len())].clone();
        last_acted_on = Some(version);
        let reply = player.client.request(req::action(&action, version)).await;
        if reply["type"] == "accepted" {
            floor = reply["version"].as_u64().unwrap();
        }
        acted.push((version, reply));
    }
    SeatRecord {
        seat: player.seat,
        acted,
        states: player.client.states,
    }
}

/// Plays a match of `game` with 4 human seats acting concurrently and checks every reply; returns how many
/// actions were accepted although another seat's action had been applied after the state they were chosen on
/// (each of which the guard of one global version refused).
async fn concurrent_match(game: &str, seed: u64) -> usize {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let (_code, players) = start_match(server.addr, game, json!({}), 4, 4).await;
    let tasks: Vec<_> = players
        .into_iter()
        .enumerate()
        .map(|(i, p)| tokio::spawn(play_seat(p, seed * 10 + i as u64)))
        .collect();
    let mut overtaken = 0;
    let mut accepted = 0;
    for task in tasks {
        let record = tokio::time::timeout(std::time::Duration::from_secs(600), task)
            .await
            .expect("the match ends")
            .unwrap();
        // This seat's legal actions at every version (it sees every change: it stays connected throughout).
        let legal: BTreeMap<u64, Value> = record
            .states
            .iter()
            .map(|s| (s["version"].as_u64().unwrap(), s["legal_actions"].clone()))
            .collect();
        let last = *legal.keys().last().unwrap();
        assert_eq!(
            legal.len() as u64,
            last + 1,
            "seat {} missed a state",
            record.seat
        );
        let own: Vec<u64> = record
            .acted
            .iter()
            .filter_map(|(_, r)| r["version"].as_u64().filter(|_| r["type"] == "accepted"))
            .collect();
        // Whether this seat's options changed at `version` (or it acted itself there).
        let changed_at = |version: u64| own.contains(&version) || legal[&version] != legal[&(version - 1)];
        for (v, reply) in &record.acted {
            match (reply["type"].as_str(), reply["code"].as_str()) {
                (Some("accepted"), _) => {
                    let w = reply["version"].as_u64().unwrap();
                    // Nothing that touched this seat happened between the state it chose on and its action.
                    assert!(
                        (v + 1..w).all(|u| !changed_at(u)),
                        "{game}: seat {} acted on {v}, accepted as {w}, but its options changed in between",
                        record.seat
                    );
                    if w > v + 1 {
                        overtaken += 1;
                    }
                    accepted += 1;
                }
                (Some("error"), Some("stale_version")) => {
                    let message = reply["message"].as_str().unwrap();
                    let c: u64 = message
                        .strip_prefix("your seat's options changed at version ")
                        .and_then(|rest| rest.split(',').next())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or_else(|| panic!("{game}: an unexpected stale refusal: {reply}"));
                    assert!(
                        c > *v && changed_at(c),
                        "{game}: seat {} refused as stale at {v} though its options were unchanged: {reply}",
                        record.seat
                    );
                }
                _ => panic!("{game}: seat {} acting on {v}: {reply}", record.seat),
            }
        }
        assert_eq!(record.states.last().unwrap()["status"]["kind"], "over");
    }
    assert!(accepted > 50, "{game}: only {accepted} actions were accepted");
    server.stop().await;
    db.drop_db().await;
    overtaken
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_seats_brewing_at_once_in_quacks_are_not_refused_for_each_others_moves() {
    let overtaken = concurrent_match("quacks", 1).await;
    eprintln!("quacks: {overtaken} actions accepted after another seat's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_seats_planning_at_once_in_molehills_are_not_refused_for_each_others_moves() {
    let overtaken = concurrent_match("molehills", 2).await;
    eprintln!("molehills: {overtaken} actions accepted after another seat's");
}

/// The same guard, step by step: in a simultaneous step of Quacks, a seat's action chosen before another seat's
/// independent move is accepted; an action chosen before the seat's own last move, or on a version not reached,
/// is refused as stale.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_an_action_chosen_before_the_seat_s_own_options_changed_is_stale() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let time = Time::Manual(server.clock.clone());
    let (_code, mut players) = start_match(server.addr, "quacks", json!({}), 4, 4).await;
    let mut independent = 0;
    for round in 0..40u64 {
        // A state where seat 0 and another seat may both act.
        play_until(&mut players, &time, round, 10_000, |s| {
            s["status"]["kind"] == "simultaneous" && !s["legal_actions"].as_array().unwrap().is_empty()
        })
        .await;
        let v = players[0].client.state.as_ref().unwrap()["version"]
            .as_u64()
            .unwrap();
        let Some(b) = (1..4).find(|&i| {
            let s = players[i].client.state.as_ref().unwrap();
            !s["legal_actions"].as_array().unwrap().is_empty()
        }) else {
            // Only seat 0 is left to decide here: one action moves the match on.
            let a = players[0].client.state.as_ref().unwrap()["legal_actions"][0].clone();
            assert_eq!(
                players[0].client.request(req::action(&a, v)).await["type"],
                "accepted"
            );
            for p in players.iter_mut() {
                p.client.wait_version(v + 1).await;
            }
            continue;
        };
        let a_action = players[0].client.state.as_ref().unwrap()["legal_actions"][0].clone();
        let b_before = players[b].client.state.as_ref().unwrap()["legal_actions"].clone();
        let b_action = b_before[0].clone();
        let r = players[0].client.request(req::action(&a_action, v)).await;
        assert_eq!(r["type"], "accepted", "{r}");
        assert_eq!(r["version"], v + 1);
        // Seat 0 acted: anything it chose on version v is stale now, even if its options read the same.
        let again = players[0].client.request(req::action(&a_action, v)).await;
        assert_eq!(again["code"], "stale_version", "{again}");
        assert!(
            again["message"]
                .as_str()
                .unwrap()
                .contains(&format!("changed at version {}", v + 1)),
            "{again}"
        );
        // A version not reached yet is refused too.
        let ahead = players[0].client.request(req::action(&a_action, v + 5)).await;
        assert_eq!(ahead["code"], "stale_version", "{ahead}");
        // Seat b chose on version v; seat 0's move came in between.
        let b_now = players[b].client.wait_version(v + 1).await["legal_actions"].clone();
        let r = players[b].client.request(req::action(&b_action, v)).await;
        let reached = if b_now == b_before {
            assert_eq!(r["type"], "accepted", "seat {b}'s options did not change: {r}");
            assert_eq!(r["version"], v + 2);
            independent += 1;
            v + 2
        } else {
            assert_eq!(r["code"], "stale_version", "seat {b}'s options changed: {r}");
            v + 1
        };
        for p in players.iter_mut() {
            p.client.wait_version(reached).await;
        }
        if independent >= 3 || players[0].client.state.as_ref().unwrap()["status"]["kind"] == "over" {
            break;
        }
    }
    assert!(
        independent >= 3,
        "only {independent} independent moves were tried"
    );
    server.stop().await;
    db.drop_db().await;
}

/// In a turn game a seat's options change when the turn passes on and again when it comes back, even if they
/// read the same: an action chosen on its previous turn is stale.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_from_a_seat_s_previous_turn_is_stale() {
    let db = TestDb::new("sqlite").await;
    let server = TestServer::start(&db, test_config()).await;
    let time = Time::Manual(server.clock.clone());
    let (_code, mut players) = start_match(server.addr, "new_year_puzzle", json!({}), 2, 2).await;
    let begins = players[0].client.wait_version(0).await["status"]["seat"]
        .as_u64()
        .unwrap() as usize;
    let s = players[begins].client.wait_version(0).await;
    let first = s["legal_actions"][0].clone();
    // Play until that seat's turn comes back round after the other's.
    let passed = std::cell::Cell::new(false);
    play_until(&mut players, &time, 3, 10_000, |s| {
        passed.set(passed.get() || s["status"]["seat"] != begins);
        passed.get() && s["status"]["seat"] == begins
    })
    .await;
    assert!(passed.get());
    let r = players[begins].client.request(req::action(&first, 0)).await;
    assert_eq!(r["code"], "stale_version", "{r}");
    server.stop().await;
    db.drop_db().await;
}
