//! The JSON text the server writes after every action, written by hand straight from the state: each viewer's
//! view (`Game::view_text`), the seat to act's legal actions (`Game::legal_actions_text`), the action as the log
//! keeps it (`Game::action_text`) and each event (`Game::event_text`).
//!
//! Every text must be byte for byte serde's compact text of the typed value (members in declaration order, the
//! same tags, snake_case renames and `null`s). The registry's `json_text_is_the_same_value_as_the_value_path`
//! checks all four through random games of every seat count; this game's `view_text_is_serdes_text_of_the_view`
//! checks the view for every viewer at every step of whole random games, and `texts_are_serdes_text` every event
//! and action variant, every reward kind and every reward card on top of the pile. The keys and the reward kinds
//! are constant text and the numbers are written by hand; the only text with a free-form string, the reward card
//! on top of the pile (its printed name), is serde's own text of the static card, made once ([`card_texts`]).
//!
//! Serde's derived path escapes every key as it writes it, and the view was built (its vectors cloned) before
//! being written: writing all four by hand took the engines bench's `server` path from ~150,200 to ~83,200
//! instructions per action at 3 seats and from ~168,400 to ~90,200 at 4 (callgrind).
//!
//! The view shows what [`Game::view`] shows and nothing more: a face-down position is `null`, whatever card lies
//! there, and of the reward pile only its size and its top card. The hidden-information test
//! (`no_view_or_event_tells_a_face_down_card_or_the_pile_order`) also compares these written views between twin
//! states that differ only in what nobody may know.

use std::sync::OnceLock;

use super::*;
use crate::json_text::{push_array, push_bool, push_number, push_seat, push_small};

/// A reward kind's text: its snake_case name, quoted, as serde writes it.
pub(super) fn reward_text(reward: Reward) -> &'static str {
    match reward {
        Reward::Confetti => r#""confetti""#,
        Reward::Sparkler => r#""sparkler""#,
        Reward::MarzipanPig => r#""marzipan_pig""#,
        Reward::Fireworks => r#""fireworks""#,
        Reward::ChampagneToast => r#""champagne_toast""#,
        Reward::MidnightKiss => r#""midnight_kiss""#,
        Reward::BrokenGlass => r#""broken_glass""#,
        Reward::Overslept => r#""overslept""#,
        Reward::Hangover => r#""hangover""#,
        Reward::SnowedIn => r#""snowed_in""#,
        Reward::ChimneySweep => r#""chimney_sweep""#,
        Reward::StarrySky => r#""starry_sky""#,
        Reward::SnowballFight => r#""snowball_fight""#,
        Reward::PuzzleMaster => r#""puzzle_master""#,
        Reward::MidnightChime => r#""midnight_chime""#,
        Reward::LuckyHorseshoe => r#""lucky_horseshoe""#,
        Reward::HardFrost => r#""hard_frost""#,
        Reward::WaxFortune => r#""wax_fortune""#,
        Reward::Resolution => r#""resolution""#,
    }
}

/// Serde's text of each kind's [`RewardCard`] (its line of [`data::REWARDS`]), indexed by the kind's declaration
/// order; made once. The card holds its printed name, which the writer leaves to serde's escaping.
fn card_texts() -> &'static [Box<str>] {
    static TEXTS: OnceLock<Vec<Box<str>>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let mut texts = vec![Box::<str>::default(); data::REWARDS.len()];
        for card in data::REWARDS {
            texts[card.reward as usize] = serde_json::to_string(card)
                .expect("plain data serialises to JSON")
                .into_boxed_str();
        }
        texts
    })
}

/// Serde's text of `reward`'s card (see [`card_texts`]).
pub(super) fn card_text(reward: Reward) -> &'static str {
    &card_texts()[reward as usize]
}

/// Appends an optional seat: the seat's number, or `null`.
fn push_optional_seat(out: &mut String, seat: Option<Seat>) {
    match seat {
        Some(seat) => push_seat(out, seat),
        None => out.push_str("null"),
    }
}

/// Appends an action's text (internally tagged by `type`).
fn push_action(out: &mut String, action: &PuzzleAction) {
    match action {
        PuzzleAction::Reveal { position } => {
            out.push_str(r#"{"type":"reveal","position":"#);
            push_small(out, *position);
            out.push('}');
        }
        PuzzleAction::Stop => out.push_str(r#"{"type":"stop"}"#),
    }
}

/// An action's JSON text, as serde writes it.
pub(super) fn action_json_text(action: &PuzzleAction) -> String {
    // The longest, `{"type":"reveal","position":255}`, is 32 bytes.
    let mut out = String::with_capacity(32);
    push_action(&mut out, action);
    out
}

/// Appends `{"seat":S,"reward":R` (without the closing brace), the members [`Pending`] and several events share.
fn push_seat_and_reward(out: &mut String, seat: Seat, reward: Reward) {
    out.push_str(r#""seat":"#);
    push_seat(out, seat);
    out.push_str(r#","reward":"#);
    out.push_str(reward_text(reward));
}

/// An event's JSON text (internally tagged by `type`), as serde writes it.
pub(super) fn event_json_text(event: &PuzzleEvent) -> String {
    // Room for every event without growing: the longest are a bonus that changes five seats' scores
    // (~60 bytes + ~25 a change) and the scores at the end (~25 bytes + up to 20 a score).
    let capacity = match event {
        PuzzleEvent::Bonus { changes, .. } => 80 + 32 * changes.len(),
        PuzzleEvent::GameOver { scores } => 32 + 21 * scores.len(),
        _ => 80,
    };
    let mut text = String::with_capacity(capacity);
    let out = &mut text;
    match event {
        PuzzleEvent::Failed { seat, position, card } => {
            out.push_str(r#"{"type":"failed","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","position":"#);
            push_small(out, *position);
            out.push_str(r#","card":"#);
            push_small(out, *card);
        }
        PuzzleEvent::Placed {
            seat,
            from,
            card,
            swapped,
        } => {
            out.push_str(r#"{"type":"placed","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","from":"#);
            push_small(out, *from);
            out.push_str(r#","card":"#);
            push_small(out, *card);
            out.push_str(r#","swapped":"#);
            push_bool(out, *swapped);
        }
        PuzzleEvent::RewardDrawn { seat, reward, points } => {
            out.push_str(r#"{"type":"reward_drawn","#);
            push_seat_and_reward(out, *seat, *reward);
            out.push_str(r#","points":"#);
            push_number(out, *points);
        }
        PuzzleEvent::PileEmpty { seat, points } => {
            out.push_str(r#"{"type":"pile_empty","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","points":"#);
            push_number(out, *points);
        }
        PuzzleEvent::Bonus {
            seat,
            reward,
            met,
            changes,
        } => {
            out.push_str(r#"{"type":"bonus","#);
            push_seat_and_reward(out, *seat, *reward);
            out.push_str(r#","met":"#);
            push_bool(out, *met);
            out.push_str(r#","changes":"#);
            push_array(out, changes, |out, change| {
                out.push_str(r#"{"seat":"#);
                push_seat(out, change.seat);
                out.push_str(r#","delta":"#);
                push_number(out, change.delta);
                out.push('}');
            });
        }
        PuzzleEvent::BonusPending { seat, reward } => {
            out.push_str(r#"{"type":"bonus_pending","#);
            push_seat_and_reward(out, *seat, *reward);
        }
        PuzzleEvent::BonusLapsed { seat, reward } => {
            out.push_str(r#"{"type":"bonus_lapsed","#);
            push_seat_and_reward(out, *seat, *reward);
        }
        PuzzleEvent::ExtraMove { seat } => {
            out.push_str(r#"{"type":"extra_move","seat":"#);
            push_seat(out, *seat);
        }
        PuzzleEvent::Stopped { seat } => {
            out.push_str(r#"{"type":"stopped","seat":"#);
            push_seat(out, *seat);
        }
        PuzzleEvent::TurnPassed { seat } => {
            out.push_str(r#"{"type":"turn_passed","seat":"#);
            push_seat(out, *seat);
        }
        PuzzleEvent::GameOver { scores } => {
            out.push_str(r#"{"type":"game_over","scores":"#);
            push_array(out, scores, |out, &score| push_number(out, score));
        }
    }
    out.push('}');
    text
}

/// Appends an [`Outcome`]: `{"scores":[..],"placings":[..],"winners":[..]}`.
fn push_outcome(out: &mut String, outcome: &Outcome) {
    out.push_str(r#"{"scores":"#);
    push_array(out, &outcome.scores, |out, &score| push_number(out, score));
    out.push_str(r#","placings":"#);
    push_array(out, &outcome.placings, |out, &placing| push_small(out, placing));
    out.push_str(r#","winners":"#);
    push_array(out, &outcome.winners, |out, &seat| push_seat(out, seat));
    out.push('}');
}

impl NewYearPuzzle {
    /// `seat`'s legal actions as the JSON text of one array, in [`Game::legal_actions`]' order (every face-down
    /// position, then `stop` on an extra move), without building the list of typed actions.
    pub(super) fn legal_actions_json_text(&self, seat: Seat) -> String {
        if self.over || seat != self.turn {
            return String::from("[]");
        }
        // Exactly the room needed when the positions have two digits: `{"type":"reveal","position":NN}` and
        // its comma are 32 bytes; `{"type":"stop"}` 16 more; the brackets.
        let reveals = self.face_up.iter().filter(|up| !**up).count();
        let mut out = String::with_capacity(32 * reveals + 18);
        out.push('[');
        for (position, &up) in (0u8..).zip(&self.face_up) {
            if !up {
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(r#"{"type":"reveal","position":"#);
                push_small(&mut out, position);
                out.push('}');
            }
        }
        if self.extra_move {
            if out.len() > 1 {
                out.push(',');
            }
            out.push_str(r#"{"type":"stop"}"#);
        }
        out.push(']');
        out
    }

    /// The JSON text of [`Game::view`] for `viewer` exactly as serde's derived serialisation of [`PuzzleView`]
    /// writes it, member by member straight from the state, without building the view: a face-down position is
    /// `null`, and of the pile only the top card and the size are shown.
    pub(super) fn view_json_text(&self, viewer: Viewer) -> String {
        let top = self.pile.last().map(|&top| card_text(top));
        let seats = self.scores.len();
        let held: usize = self.rewards.iter().map(Vec::len).sum();
        // Room for the whole view without growing (~700 to ~1,200 bytes in random games): 170 for the keys and the small members,
        // at most five a position of the board, the top card's text, 12 a seat for its score, placements and
        // brackets, 18 a reward kind held (the longest is 17 with its comma), 40 a waiting condition, and the
        // outcome at the end (~40 and 10 a seat).
        let outcome = if self.over { 40 + 10 * seats } else { 0 };
        let mut out = String::with_capacity(
            170 + 5 * self.board.len()
                + top.map_or(0, str::len)
                + 12 * seats
                + 18 * held
                + 40 * self.pending.len()
                + outcome,
        );
        out.push_str(r#"{"you":"#);
        push_optional_seat(
            &mut out,
            match viewer {
                Viewer::Seat(seat) => Some(seat),
                Viewer::Spectator => None,
            },
        );
        out.push_str(r#","players":"#);
        push_small(&mut out, self.players);
        out.push_str(r#","turn":"#);
        push_optional_seat(&mut out, (!self.over).then_some(self.turn));
        out.push_str(r#","extra_move":"#);
        push_bool(&mut out, self.extra_move);
        out.push_str(r#","board":"#);
        push_array(
            &mut out,
            self.board.iter().zip(&self.face_up),
            |out, (&card, &up)| {
                // Only a face-up card is shown; a face-down one is `null` whatever it is.
                if up {
                    push_small(out, card);
                } else {
                    out.push_str("null");
                }
            },
        );
        out.push_str(r#","face_down":"#);
        push_number(&mut out, self.face_down_count());
        out.push_str(r#","pile_top":"#);
        out.push_str(top.unwrap_or("null"));
        out.push_str(r#","pile_left":"#);
        push_number(&mut out, self.pile.len());
        out.push_str(r#","scores":"#);
        push_array(&mut out, &self.scores, |out, &score| push_number(out, score));
        out.push_str(r#","placed":"#);
        push_array(&mut out, &self.placed, |out, &placed| push_small(out, placed));
        out.push_str(r#","rewards":"#);
        push_array(&mut out, &self.rewards, |out, rewards| {
            push_array(out, rewards, |out, &reward| out.push_str(reward_text(reward)));
        });
        out.push_str(r#","pending":"#);
        push_array(&mut out, &self.pending, |out, pending| {
            out.push('{');
            push_seat_and_reward(out, pending.seat, pending.reward);
            out.push('}');
        });
        out.push_str(r#","outcome":"#);
        match self.outcome() {
            Some(outcome) => push_outcome(&mut out, &outcome),
            None => out.push_str("null"),
        }
        out.push('}');
        out
    }
}
