//! Engine throughput: complete random playouts of every game in `rules::catalogue()` at every seat count it
//! allows, measured three ways, all through `AnyGame` (so a new game is measured without naming it here).
//!
//! - `legal`: what an engine must do per action at the very least: `status()`, the legal actions of every seat
//!   that decides next, and `apply` of one of them (the clock's action when its deadline is due), with the legal
//!   actions and the deadline read back as `serde_json::Value`s from `AnyGame`'s text (`testkit::Parsed`).
//! - `server`: what the server's table does per action: clone the game, apply the JSON action, then the status
//!   and clocks once, every seat's view and legal actions serialised straight to JSON text (`views`,
//!   `legal_actions`), each event once (`apply`), the spectators' view once, and each viewer's push printed
//!   around them.
//!
//! Each iteration plays `PLAYOUTS` complete games (fixed seeds, so the number of actions is known in advance and
//! criterion reports actions per second as "elements"). Playouts per second = actions per second divided by the
//! mean actions per playout printed at the start of each group.
//!
//! Run: `cargo bench -p rules --bench engines` (add a filter such as `hide_and_eeek` to run one game).
//!
//! The engines are measured with the server's allocator (mimalloc): they run inside the server, and with glibc's
//! malloc and free ~30 % of Quacks' samples were the allocator (docs/performance.md, "Measured reasons").

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rules::testkit::Parsed;
use rules::{Actor, AnyGame, GameInfo, Millis, Rng, Seat, Status, Viewer};
use serde_json::Value;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Complete games per iteration.
const PLAYOUTS: u64 = 16;
const START: Millis = 1_700_000_000_000;

/// Seats expected to decide now, by the status (races and simultaneous steps name several).
fn deciders(status: &Status) -> &[Seat] {
    match status {
        Status::Turn { seat } => std::slice::from_ref(seat),
        Status::Simultaneous { seats, .. } | Status::Race { seats } => seats,
        Status::Over => &[],
    }
}

/// Plays one game to its end with random legal actions; returns the number of actions applied.
fn playout(game_id: &str, players: u8, seed: u64) -> u64 {
    let mut game = AnyGame::new(game_id, None, &Value::Null, players, seed).expect("setup");
    let mut driver = Rng::from_seed(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut now = START;
    let mut actions = 0;
    let mut movers: Vec<(Seat, Vec<Value>)> = Vec::new();
    loop {
        let status = game.status();
        if status == Status::Over {
            return actions;
        }
        movers.clear();
        for &seat in deciders(&status) {
            let legal = game.legal_values(seat);
            if !legal.is_empty() {
                movers.push((seat, legal));
            }
        }
        let deadline = game.deadline_value();
        let take_clock = match &deadline {
            Some(d) => movers.is_empty() || (d.at <= now && driver.below(2) == 0),
            None => false,
        };
        let (actor, action) = if take_clock {
            let d = deadline.expect("deadline");
            now = now.max(d.at);
            (Actor::Clock, d.action)
        } else {
            assert!(!movers.is_empty(), "stalled at {status:?}");
            let (seat, legal) = &movers[driver.index(movers.len())];
            (Actor::Seat(*seat), legal[driver.index(legal.len())].clone())
        };
        black_box(
            game.apply_value(actor, &action, now)
                .expect("listed actions are accepted"),
        );
        actions += 1;
        now += driver.below(3_000);
    }
}

/// One viewer's push in the shape the server writes it (serde writes the protocol's `StateUpdate`, embedding
/// these texts as they are), without the few strings and numbers that cost nothing.
fn push_text(
    view: &str,
    legal_actions: &str,
    events: &[&str],
    status: &Status,
    deadline: Option<Millis>,
) -> String {
    let events_len: usize = events.iter().map(|e| e.len() + 1).sum();
    let mut out = String::with_capacity(view.len() + legal_actions.len() + events_len + 128);
    out.push_str(r#"{"type":"state","legal_actions":"#);
    out.push_str(legal_actions);
    out.push_str(r#","status":"#);
    out.push_str(&serde_json::to_string(status).expect("serialises"));
    out.push_str(r#","deadline":"#);
    out.push_str(&serde_json::to_string(&deadline).expect("serialises"));
    out.push_str(r#","events":["#);
    for (i, event) in events.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(event);
    }
    out.push_str(r#"],"view":"#);
    out.push_str(view);
    out.push('}');
    out
}

/// The server's per-action work through `AnyGame`: clone, apply JSON, then every viewer's view and legal actions
/// as JSON text.
fn playout_server(game_id: &str, players: u8, seed: u64) -> u64 {
    let mut game = AnyGame::new(game_id, None, &Value::Null, players, seed).expect("setup");
    let mut driver = Rng::from_seed(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut now = START;
    let mut actions = 0;
    // The table's size hints for views and legal actions (`Table::text_sizes`).
    let mut view_size = 0;
    let mut legal = json_write::Buffer::default();
    loop {
        let status = game.status();
        if status == Status::Over {
            return actions;
        }
        let movers: Vec<(Seat, Vec<Value>)> = deciders(&status)
            .iter()
            .map(|&s| (s, game.legal_values(s)))
            .filter(|(_, l)| !l.is_empty())
            .collect();
        let deadline = game.deadline_value();
        let take_clock = match &deadline {
            Some(d) => movers.is_empty() || (d.at <= now && driver.below(2) == 0),
            None => false,
        };
        let (actor, action) = if take_clock {
            let d = deadline.expect("deadline");
            now = now.max(d.at);
            (Actor::Clock, d.action)
        } else {
            let (seat, legal) = &movers[driver.index(movers.len())];
            (Actor::Seat(*seat), legal[driver.index(legal.len())].clone())
        };
        let mut next = game.clone();
        actions += 1;
        {
            // As the table does: each event written once as text, shared by the pushes that carry it.
            let events = next
                .apply(actor, &action.to_string(), now)
                .expect("listed actions are accepted")
                .events;
            game = next;
            let status = game.status();
            let deadline = game.deadline().map(|d| d.at);
            let viewers: Vec<Viewer> = [Viewer::Spectator]
                .into_iter()
                .chain(Seat::all(players).map(Viewer::Seat))
                .collect();
            let views = game.views(&viewers, &mut view_size);
            for (i, &v) in viewers
                .iter()
                .enumerate()
                .skip(1)
                .chain([(0, &Viewer::Spectator)])
            {
                let legal = match v {
                    Viewer::Seat(s) => game.legal_actions(s, &mut legal),
                    Viewer::Spectator => "[]",
                };
                let visible: Vec<&str> = events
                    .iter()
                    .filter(|e| e.audience.includes(v))
                    .map(|e| e.body.get())
                    .collect();
                black_box(push_text(views[i].get(), legal, &visible, &status, deadline));
            }
            now += driver.below(3_000);
        }
    }
}

fn bench_game(c: &mut Criterion, info: &GameInfo, players: u8) {
    let id = info.id;
    let seeds = 1..=PLAYOUTS;
    let total: u64 = seeds.clone().map(|s| playout(id, players, s)).sum();
    eprintln!(
        "{id} {players}p: {PLAYOUTS} playouts, {total} actions, {:.1} actions per playout",
        total as f64 / PLAYOUTS as f64
    );
    let mut group = c.benchmark_group(format!("{id}/{players}p"));
    group.throughput(Throughput::Elements(total));
    group.bench_function("legal", |b| {
        b.iter(|| seeds.clone().map(|s| playout(id, players, s)).sum::<u64>())
    });
    group.bench_function("server", |b| {
        b.iter(|| {
            let actions = seeds.clone().map(|s| playout_server(id, players, s)).sum::<u64>();
            // Both drivers play the very same games (checked here, not up front, so that a filtered run does not
            // pay for every game's JSON playouts).
            assert_eq!(actions, total, "the drivers play the same games");
            actions
        })
    });
    group.finish();
}

/// Every hosted game at every seat count it allows, fewest first.
fn engines(c: &mut Criterion) {
    for info in rules::catalogue() {
        for players in info.min_players..=info.max_players {
            bench_game(c, &info, players);
        }
    }
}

criterion_group! {
    name = benches;
    // Short runs: the machine is small and shared; the spread is reported by criterion.
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = engines
}
criterion_main!(benches);
