//! The server bot's strategy for this game (`Game::bot_action`), described in `docs/rules/hide-and-eeek.md`
//! ("Server bot"). It uses only what every seat sees: face-up cards, the tops of the scoring piles, this turn's
//! cards and the public list of numbers (never a face-down card, the draw pile or the engine's generator).
//!
//! - **Eeek! window** (version 2): it looks at the cards that just turned up like a person would: after a
//!   reaction time of 400-1200 ms it claims a card that shows the mouse, or misses it (15 % of the time) and
//!   passes; with no mouse to see it passes a little later. Time and miss are seeded from the moment (the window's
//!   opening time, the seat and the cards), so the server can schedule the bot (`Game::bot_acts_at`) and a replay
//!   needs nothing more than the log.
//! - **Late spotting** (version 3): between windows, each time the table changes, it notices a mouse still face up
//!   on the grid with a chance of `BOT_LATE_SPOTS_PERCENT` % (seeded from the moment: the seat, the card and the
//!   state of the turn) and claims it after the server's usual bot delay; otherwise it lets the chance pass
//!   (`Game::bot_waits`). It never claims a card without a mouse.
//! - **Move**: to the cell whose neighbours give the best chance of a first match (a face-up card is certain, a
//!   face-down one has the share of unseen numbers that match), then the most further chances.
//! - **Collect**: the card most likely to match; after `k` cards it goes on only while that chance beats
//!   `k / (k + 1)` (the expected cards kept by trying, `p * (k + 1)`, beat the `k` in hand), and stops at once
//!   when banking reaches the target.

use super::data::*;
use super::*;

/// A bot's reaction time to a card that just turned up, in milliseconds (min, max).
pub const BOT_REACTION_MS: (Millis, Millis) = (400, 1_200);
/// How often a bot spots a mouse that is there, in percent.
pub const BOT_SPOTS_PERCENT: u64 = 85;
/// How much longer a bot takes to decide there is no mouse than to see one.
pub const BOT_PASS_EXTRA_MS: Millis = 300;
/// Version 3: the chance, in percent, that a bot notices a mouse still face up each time the table changes.
pub const BOT_LATE_SPOTS_PERCENT: u64 = 10;

/// FNV-1a over `values`: the bot's seeded chance, from the state alone.
fn mix(values: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for x in values {
        for b in x.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Version 3: the face-up mouse card `seat`'s bot notices now, between windows, if any.
pub(super) fn late_spot(game: &HideAndEeek, seat: Seat) -> Option<Cell> {
    if !game.v3() || game.over || game.look.is_some() || game.late_claimed.contains(&seat) {
        return None;
    }
    let step = match &game.step {
        TurnStep::Move => 0,
        TurnStep::Collect { collected } => 1 + collected.len() as u64,
    };
    game.face_up_cells().find(|&cell| {
        let number = game.card_at(cell).map_or(0, |c| c.number);
        let h = mix([
            u64::from(seat.0),
            u64::from(number),
            u64::from(game.turn.0),
            u64::from(game.mouse.row) << 8 | u64::from(game.mouse.col),
            step,
            game.draw_pile.len() as u64,
            game.piles.iter().map(|p| p.len() as u64).sum(),
        ]);
        shows_mouse(number) && (h >> 24) % 100 < BOT_LATE_SPOTS_PERCENT
    })
}

/// Version 3: the bot has only late claims it does not make now (it is not the active player, or it is between
/// windows with nothing it spotted).
pub(super) fn waits(game: &HideAndEeek, seat: Seat) -> bool {
    game.v3() && game.look.is_none() && seat != game.turn && late_spot(game, seat).is_none()
}

/// The bot's answer to the open window: when (absolute time) and what (a claim on a cell, or `None` to pass).
pub(super) fn window_answer(game: &HideAndEeek, seat: Seat) -> Option<(Millis, Option<Cell>)> {
    let look = game.unanswered_look(seat)?;
    let mut mouse = None;
    let mut seen = vec![look.opened_at, u64::from(seat.0)];
    for &cell in &look.cells {
        let number = game.card_at(cell).map_or(0, |c| c.number);
        seen.push(u64::from(number) << 16 | u64::from(cell.row) << 8 | u64::from(cell.col));
        if mouse.is_none() && shows_mouse(number) {
            mouse = Some(cell);
        }
    }
    let h = mix(seen);
    let (lo, hi) = BOT_REACTION_MS;
    let reaction = lo + (h >> 8) % (hi - lo + 1);
    let spots = (h >> 40) % 100 < BOT_SPOTS_PERCENT;
    Some(match mouse {
        Some(cell) if spots => (look.opened_at + reaction, Some(cell)),
        _ => (look.opened_at + reaction + BOT_PASS_EXTRA_MS, None),
    })
}

/// The numbers nobody at the table can see now: the cards a face-down card may be.
fn unseen(game: &HideAndEeek) -> Vec<u8> {
    let mut seen = [false; CARD_COUNT + 1];
    for card in game.grid.iter().flatten().filter(|c| c.face_up) {
        seen[usize::from(card.number)] = true;
    }
    for pile in &game.piles {
        if let Some(&top) = pile.last() {
            seen[usize::from(top)] = true;
        }
    }
    if let TurnStep::Collect { collected } = &game.step {
        for &(_, n) in collected {
            seen[usize::from(n)] = true;
        }
    }
    (FIRST_CARD..=LAST_CARD)
        .filter(|&n| !seen[usize::from(n)])
        .collect()
}

/// The chance that the card at `cell` matches the category against `baseline`.
fn chance(game: &HideAndEeek, cell: Cell, baseline: u8, pool: &[u8]) -> f64 {
    let category = game.roll.category;
    match game.card_at(cell) {
        None => 0.0,
        Some(card) if card.face_up => f64::from(u8::from(category.accepts(card.number, baseline))),
        Some(_) if pool.is_empty() => 0.0,
        Some(_) => pool.iter().filter(|&&n| category.accepts(n, baseline)).count() as f64 / pool.len() as f64,
    }
}

pub(super) fn bot_action(
    game: &HideAndEeek,
    seat: Seat,
    rng: &mut Rng,
) -> Option<<HideAndEeek as Game>::Action> {
    let legal = game.legal_actions(seat);
    if legal.is_empty() {
        return None;
    }
    if game.v2() && game.look.is_some() {
        let (_, claim) = window_answer(game, seat)?;
        let action = claim.map_or(Action::Pass, |cell| Action::Eeek { cell });
        return Some(action).filter(|a| legal.contains(a));
    }
    if let Some(cell) = late_spot(game, seat) {
        return Some(Action::Eeek { cell });
    }
    if waits(game, seat) {
        return None;
    }
    // Version 1: every face-up mouse card is flagged; claim it.
    if let Some(claim) = legal
        .iter()
        .find(|a| !game.v2() && matches!(a, Action::Eeek { .. }))
    {
        return Some(claim.clone());
    }
    let pool = unseen(game);
    let baseline = game.baseline().unwrap_or(0);
    let choice = match &game.step {
        TurnStep::Move => best_by(&legal, rng, |a| match a {
            Action::Move { to } => {
                let mut chances: Vec<f64> = to
                    .neighbours()
                    .filter(|&c| game.card_at(c).is_some() && c != game.mouse)
                    .map(|c| chance(game, c, baseline, &pool))
                    .collect();
                chances.sort_by(|a, b| b.total_cmp(a));
                chances.first().copied().unwrap_or(0.0) + 0.1 * chances.iter().skip(1).sum::<f64>()
            }
            _ => f64::MIN,
        }),
        TurnStep::Collect { collected } => {
            let k = collected.len();
            let target = usize::from(game.config.target);
            if k > 0 && game.piles[seat.index()].len() + k >= target && legal.contains(&Action::Stop) {
                return Some(Action::Stop);
            }
            let best = best_by(&legal, rng, |a| match a {
                Action::Choose { cell } => chance(game, *cell, baseline, &pool),
                _ => f64::MIN,
            });
            match best {
                Some(Action::Choose { cell }) if k > 0 => {
                    let p = chance(game, cell, baseline, &pool);
                    if p * (k as f64 + 1.0) > k as f64 {
                        Some(Action::Choose { cell })
                    } else {
                        Some(Action::Stop)
                    }
                }
                other => other,
            }
        }
    };
    choice
        .filter(|a| legal.contains(a))
        .or_else(|| crate::bot::random_legal(game, seat, rng))
}

/// The action with the highest score; ties broken at random.
fn best_by(actions: &[Action], rng: &mut Rng, score: impl Fn(&Action) -> f64) -> Option<Action> {
    let scored: Vec<(f64, &Action)> = actions.iter().map(|a| (score(a), a)).collect();
    let top = scored.iter().map(|s| s.0).fold(f64::MIN, f64::max);
    let best: Vec<&Action> = scored.iter().filter(|s| s.0 >= top - 1e-9).map(|s| s.1).collect();
    if best.is_empty() || top == f64::MIN {
        return None;
    }
    Some(best[rng.index(best.len())].clone())
}
