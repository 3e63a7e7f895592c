//! Every registered game's server bot (`Game::bot_action`) is a real opponent: over seeded two-player games
//! against a uniformly random player, seated first in half of them and second in the other half, it wins alone
//! at least 80 % (issue 25). The figures are printed (`cargo test -p rules --test bots -- --nocapture`) and
//! reported in each game's rules page. Run one game with `-- <game id>` is not possible (one test visits them
//! all); set `BOTS_GAME=<game id>` to play only that game.

use rules::testkit::bot_match;
use rules::{Game, GameVisitor, Seat, Secrets};

/// Two-player games per game: half with the bot in seat 0, half in seat 1.
const GAMES: u64 = 200;
const MAX_STEPS: usize = 50_000;
/// The share of games the bot must win alone.
const MIN_WIN_RATE: f64 = 0.80;

struct Bots {
    only: Option<String>,
    results: Vec<(&'static str, u64, u64)>,
}

impl GameVisitor for Bots {
    fn visit<G: Game + Secrets>(&mut self) {
        let info = G::info();
        if self.only.as_deref().is_some_and(|id| id != info.id)
            || !(info.min_players..=info.max_players).contains(&2)
        {
            return;
        }
        let mut wins = 0;
        for game in 0..GAMES {
            let bot = Seat((game % 2) as u8);
            let bots = [bot == Seat(0), bot == Seat(1)];
            let end = bot_match::<G>(
                &G::Config::default(),
                0x25_0000 + game,
                0xb07 + game,
                &bots,
                MAX_STEPS,
            );
            let outcome = end.outcome().expect("a finished game has an outcome");
            if outcome.winners == [bot] {
                wins += 1;
            }
        }
        self.results.push((info.id, wins, GAMES));
    }
}

#[test]
fn every_games_bot_beats_a_random_player_in_at_least_80_percent_of_two_player_games() {
    let mut bots = Bots {
        only: std::env::var("BOTS_GAME").ok(),
        results: Vec::new(),
    };
    rules::visit_games(&mut bots);
    assert!(!bots.results.is_empty(), "no game was played");
    for (id, wins, games) in &bots.results {
        println!("{id}: the bot won {wins} of {games} two-player games against a random player");
    }
    let weak: Vec<_> = bots
        .results
        .iter()
        .filter(|(_, wins, games)| (*wins as f64) < MIN_WIN_RATE * *games as f64)
        .collect();
    assert!(weak.is_empty(), "bots below {MIN_WIN_RATE}: {weak:?}");
}
