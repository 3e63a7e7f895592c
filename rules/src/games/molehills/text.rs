//! The view's JSON text written straight from the state (`Game::view_text`), without building a
//! [`MolehillsView`] and without serde: the server writes every seat's view and the spectators' after every
//! action, and serde's derived serialisation escapes every key and every enum name as it writes it (about 70 %
//! of the server's work per action in this game before). The text must be byte for byte what
//! `serde_json::to_string(&self.view(viewer))` writes: compact, members in declaration order, the same tags and
//! `snake_case` names. The registry's `json_text_is_the_same_value_as_the_value_path` and this game's
//! `view_text_is_serdes_text_of_the_view` check that through whole random games. A field added to a view type
//! must be added here too (those tests fail until it is).

use super::*;
use crate::json_text::{push_array, push_bool, push_number, push_small, push_viewer};

/// `"name"`, for the `snake_case` names serde writes for unit variants and tags (none needs escaping).
fn push_name(out: &mut String, name: &str) {
    out.push('"');
    out.push_str(name);
    out.push('"');
}

/// A [`Pos`]: `{"row":..,"col":..}`.
fn push_pos(out: &mut String, p: Pos) {
    out.push_str(r#"{"row":"#);
    push_small(out, p.row);
    out.push_str(r#","col":"#);
    push_small(out, p.col);
    out.push('}');
}

fn dir_name(d: Dir) -> &'static str {
    match d {
        Dir::North => "north",
        Dir::East => "east",
        Dir::South => "south",
        Dir::West => "west",
    }
}

fn turn_name(t: Turn) -> &'static str {
    match t {
        Turn::Left => "left",
        Turn::Right => "right",
        Turn::About => "about",
    }
}

/// A [`CardView`]: the id, then the card's members flattened into the same object (its `kind` tag first).
fn push_card(out: &mut String, id: CardId) {
    out.push_str(r#"{"id":"#);
    push_small(out, id);
    match card_of(id) {
        Card::Move { steps } => {
            out.push_str(r#","kind":"move","steps":"#);
            push_small(out, steps);
        }
        Card::Turn { turn } => {
            out.push_str(r#","kind":"turn","turn":"#);
            push_name(out, turn_name(turn));
        }
        Card::MoveTurn { steps, turn } => {
            out.push_str(r#","kind":"move_turn","steps":"#);
            push_small(out, steps);
            out.push_str(r#","turn":"#);
            push_name(out, turn_name(turn));
        }
        Card::Rock => out.push_str(r#","kind":"rock""#),
    }
    out.push('}');
}

fn push_cards(out: &mut String, ids: &[CardId]) {
    push_array(out, ids, |out, id| push_card(out, *id));
}

fn push_seats(out: &mut String, seats: &[Seat]) {
    push_array(out, seats, |out, seat| push_small(out, seat.0));
}

/// An `Option<Mole>`: `null` or `{"at":{..},"facing":".."}`.
fn push_mole(out: &mut String, mole: Option<Mole>) {
    match mole {
        None => out.push_str("null"),
        Some(mole) => {
            out.push_str(r#"{"at":"#);
            push_pos(out, mole.at);
            out.push_str(r#","facing":"#);
            push_name(out, dir_name(mole.facing));
            out.push('}');
        }
    }
}

/// A [`Pending`] decision (internally tagged by `decision`).
fn push_pending(out: &mut String, pending: &Pending) {
    match pending {
        Pending::MoveTurn { seat, card } => {
            out.push_str(r#"{"decision":"move_turn","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","card":"#);
            push_small(out, *card);
        }
        Pending::Rock {
            seat,
            card,
            roll,
            spaces,
        } => {
            out.push_str(r#"{"decision":"rock","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","card":"#);
            push_small(out, *card);
            out.push_str(r#","roll":"#);
            push_small(out, *roll);
            out.push_str(r#","spaces":"#);
            push_array(out, spaces, |out, p| push_pos(out, *p));
        }
    }
    out.push('}');
}

/// The [`Phase`] (internally tagged by `phase`).
fn push_phase(out: &mut String, phase: &Phase) {
    match phase {
        Phase::PlaceMoles { placed } => {
            out.push_str(r#"{"phase":"place_moles","placed":"#);
            push_small(out, *placed);
        }
        Phase::Draft { picks } => {
            out.push_str(r#"{"phase":"draft","picks":"#);
            push_small(out, *picks);
        }
        Phase::Planning => out.push_str(r#"{"phase":"planning""#),
        Phase::Resolving { card, turn, pending } => {
            out.push_str(r#"{"phase":"resolving","card":"#);
            push_small(out, *card);
            out.push_str(r#","turn":"#);
            push_small(out, *turn);
            out.push_str(r#","pending":"#);
            match pending {
                Some(pending) => push_pending(out, pending),
                None => out.push_str("null"),
            }
        }
        Phase::KingOfTheHill { chooser } => {
            out.push_str(r#"{"phase":"king_of_the_hill","chooser":"#);
            push_small(out, chooser.0);
        }
        Phase::Over => out.push_str(r#"{"phase":"over""#),
    }
    out.push('}');
}

impl Molehills {
    /// `viewer`'s view as serde would write [`Game::view`]'s value, member by member from the state. What a
    /// viewer may see is decided exactly as in `view`: a seat's `cards` only in its own view, `your_stack` only
    /// for a seat of this table.
    pub(super) fn view_json_text(&self, viewer: Viewer) -> String {
        let tokens = self.tokens();
        // Room for the whole view at once, so that it is not copied as it grows (an estimate, not a limit): up to
        // 48 bytes a card shown (the viewer's hand and stack at most twice `HAND_SIZE`), 8 a space, 220 a player.
        let shown_cards =
            self.display.len() + self.revealed.iter().map(Vec::len).sum::<usize>() + 2 * HAND_SIZE;
        let mut out = String::with_capacity(320 + 48 * shown_cards + 8 * self.stacks.len() + 220 * self.n());
        out.push_str(r#"{"viewer":"#);
        push_viewer(&mut out, viewer);
        out.push_str(r#","grid":"#);
        push_small(&mut out, self.grid);
        out.push_str(r#","round":"#);
        push_small(&mut out, self.round);
        out.push_str(r#","rounds":"#);
        push_small(&mut out, ROUNDS);
        out.push_str(r#","max_height":"#);
        push_small(&mut out, self.max_height() as u8);
        out.push_str(r#","phase":"#);
        push_phase(&mut out, &self.phase);
        out.push_str(r#","turn_order":"#);
        push_seats(&mut out, &self.order);
        out.push_str(r#","players":"#);
        push_array(&mut out, Seat::all(self.players), |out, seat| {
            let s = seat.index();
            out.push_str(r#"{"seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","token":"#);
            push_small(out, tokens[s]);
            out.push_str(r#","mole":"#);
            push_mole(out, self.moles[s]);
            out.push_str(r#","supply":"#);
            push_small(out, self.supply[s]);
            out.push_str(r#","score":"#);
            push_number(out, self.round_scores.iter().map(|r| r[s]).sum::<i64>());
            out.push_str(r#","round_scores":"#);
            push_array(out, &self.round_scores, |out, r| push_number(out, r[s]));
            out.push_str(r#","cards":"#);
            // A hand is hidden from everyone but its owner.
            let cards: &[CardId] = if viewer == Viewer::Seat(seat) {
                &self.hands[s]
            } else {
                &[]
            };
            push_cards(out, cards);
            out.push_str(r#","hand_size":"#);
            push_number(out, self.hands[s].len());
            out.push_str(r#","planned":"#);
            push_bool(out, self.plans[s].is_some());
            out.push_str(r#","revealed":"#);
            push_cards(out, &self.revealed[s]);
            out.push('}');
        });
        out.push_str(r#","rock":"#);
        match self.rock {
            Some(p) => push_pos(&mut out, p),
            None => out.push_str("null"),
        }
        out.push_str(r#","surface":"#);
        push_array(&mut out, &self.stacks, |out, stack| push_seats(out, stack));
        out.push_str(r#","display":"#);
        push_cards(&mut out, &self.display);
        out.push_str(r#","deck_size":"#);
        push_number(&mut out, self.deck.len());
        out.push_str(r#","discard_size":"#);
        push_number(&mut out, self.discard.len());
        out.push_str(r#","your_stack":"#);
        // A programmed stack is secret: only its own seat sees it.
        match self.own_plan(viewer) {
            Some(plan) => push_cards(&mut out, plan),
            None => out.push_str("null"),
        }
        out.push('}');
        out
    }
}
