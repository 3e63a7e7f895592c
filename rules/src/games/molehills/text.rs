//! The JSON text the server writes after every action, written by hand straight from the state and without
//! serde: each viewer's view (`Game::view_text`, without building a [`MolehillsView`]), each seat's legal actions
//! (`Game::legal_actions_text`), the action as the log keeps it (`Game::action_text`) and each event
//! (`Game::event_text`). Serde's derived serialisation escapes every key and every enum name as it writes it and
//! goes through its map serialiser for the tagged enums: the view was about 70 % of the server's work per action
//! in this game before it was written here, and the legal actions (24 plans a seat while planning), action and
//! events another ~14,500 instructions per action at 4 seats (engines bench, `server` path, callgrind: 111,817 ->
//! 97,311; 3 seats 86,779 -> 74,278; 2 seats 60,663 -> 50,352).
//!
//! Every text must be byte for byte serde's text of the typed value (`serde_json::to_string`): compact, members in
//! declaration order, the same tags and `snake_case` names. The registry's
//! `json_text_is_the_same_value_as_the_value_path` checks all four through whole random games, and this game's
//! `view_text_is_serdes_text_of_the_view` and `texts_are_serdes_text` check the view, every action and event
//! variant and the legal actions of whole games. While planning, the orders of a hand are written as
//! [`each_permutation`] finds them, without a list per order; the other lists from the typed actions. A field
//! added to one of these types must be added here too (those tests fail until it is).

use super::*;
use crate::json_text::{push_array, push_bool, push_name, push_number, push_small, push_viewer};

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

/// A [`CardView`] of the card `id` of the deck.
fn push_card(out: &mut String, id: CardId) {
    push_card_view(out, id, card_of(id));
}

/// A [`CardView`]: the id, then the card's members flattened into the same object (its `kind` tag first).
fn push_card_view(out: &mut String, id: CardId, card: Card) {
    out.push_str(r#"{"id":"#);
    push_small(out, id);
    match card {
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

fn push_card_views(out: &mut String, cards: &[CardView]) {
    push_array(out, cards, |out, c| push_card_view(out, c.id, c.card));
}

/// `{"type":"plan","order":[..]}`
fn push_plan(out: &mut String, order: &[CardId]) {
    out.push_str(r#"{"type":"plan","order":"#);
    push_array(out, order, |out, id| push_small(out, *id));
    out.push('}');
}

/// A [`MolehillsAction`] (internally tagged by `type`).
fn push_action(out: &mut String, action: &MolehillsAction) {
    match action {
        MolehillsAction::PlaceMole { at, facing } => {
            out.push_str(r#"{"type":"place_mole","at":"#);
            push_pos(out, *at);
            out.push_str(r#","facing":"#);
            push_name(out, dir_name(*facing));
        }
        MolehillsAction::Pick { card } => {
            out.push_str(r#"{"type":"pick","card":"#);
            push_small(out, *card);
        }
        MolehillsAction::Plan { order } => return push_plan(out, order),
        MolehillsAction::MoveThenTurn => out.push_str(r#"{"type":"move_then_turn""#),
        MolehillsAction::TurnThenMove => out.push_str(r#"{"type":"turn_then_move""#),
        MolehillsAction::PlaceRock { at } => {
            out.push_str(r#"{"type":"place_rock","at":"#);
            push_pos(out, *at);
        }
        MolehillsAction::ChooseToken { token } => {
            out.push_str(r#"{"type":"choose_token","token":"#);
            push_small(out, *token);
        }
    }
    out.push('}');
}

/// An action's JSON text, as serde writes it.
pub(super) fn action_json_text(action: &MolehillsAction) -> String {
    let mut out = String::with_capacity(64);
    push_action(&mut out, action);
    out
}

/// An [`Obstacle`] (internally tagged by `obstacle`).
fn push_obstacle(out: &mut String, obstacle: Obstacle) {
    match obstacle {
        Obstacle::Edge => out.push_str(r#"{"obstacle":"edge"}"#),
        Obstacle::Rock => out.push_str(r#"{"obstacle":"rock"}"#),
        Obstacle::Mole { seat } => {
            out.push_str(r#"{"obstacle":"mole","seat":"#);
            push_small(out, seat.0);
            out.push('}');
        }
    }
}

/// A [`Fall`]: `{"piece":n,"to":{..}}` or `{"piece":n,"to":null}`.
fn push_fall(out: &mut String, fall: &Fall) {
    out.push_str(r#"{"piece":"#);
    push_small(out, fall.piece.0);
    out.push_str(r#","to":"#);
    match fall.to {
        Some(to) => push_pos(out, to),
        None => out.push_str("null"),
    }
    out.push('}');
}

fn push_scores(out: &mut String, scores: &[i64]) {
    push_array(out, scores, |out, n| push_number(out, *n));
}

/// An event's JSON text (internally tagged by `type`), as serde writes it.
pub(super) fn event_json_text(event: &MolehillsEvent) -> String {
    use MolehillsEvent as E;
    let mut text = String::with_capacity(128);
    let out = &mut text;
    match event {
        E::TurnOrder { round, order } => {
            out.push_str(r#"{"type":"turn_order","round":"#);
            push_small(out, *round);
            out.push_str(r#","order":"#);
            push_seats(out, order);
        }
        E::MolePlaced { seat, at, facing } => {
            out.push_str(r#"{"type":"mole_placed","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","at":"#);
            push_pos(out, *at);
            out.push_str(r#","facing":"#);
            push_name(out, dir_name(*facing));
        }
        E::RoundStarted { round, max_height } => {
            out.push_str(r#"{"type":"round_started","round":"#);
            push_small(out, *round);
            out.push_str(r#","max_height":"#);
            push_small(out, *max_height);
        }
        E::Dealt { cards } => {
            out.push_str(r#"{"type":"dealt","cards":"#);
            push_card_views(out, cards);
        }
        E::Picked { seat, card } => {
            out.push_str(r#"{"type":"picked","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","card":"#);
            push_card_view(out, card.id, card.card);
        }
        E::Discarded { cards } => {
            out.push_str(r#"{"type":"discarded","cards":"#);
            push_card_views(out, cards);
        }
        E::Ready { seat } => {
            out.push_str(r#"{"type":"ready","seat":"#);
            push_small(out, seat.0);
        }
        E::Planned { seat, order } => {
            out.push_str(r#"{"type":"planned","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","order":"#);
            push_card_views(out, order);
        }
        E::Revealed { seat, card } => {
            out.push_str(r#"{"type":"revealed","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","card":"#);
            push_card_view(out, card.id, card.card);
        }
        E::Turned { seat, facing } => {
            out.push_str(r#"{"type":"turned","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","facing":"#);
            push_name(out, dir_name(*facing));
        }
        E::Moved { seat, to } => {
            out.push_str(r#"{"type":"moved","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","to":"#);
            push_pos(out, *to);
        }
        E::Blocked { seat, by } => {
            out.push_str(r#"{"type":"blocked","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","by":"#);
            push_obstacle(out, *by);
        }
        E::PiecePushed { seat, at, height } => {
            out.push_str(r#"{"type":"piece_pushed","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","at":"#);
            push_pos(out, *at);
            out.push_str(r#","height":"#);
            push_small(out, *height);
        }
        E::OutOfPieces { seat } => {
            out.push_str(r#"{"type":"out_of_pieces","seat":"#);
            push_small(out, seat.0);
        }
        E::Toppled { at, toward, falls } => {
            out.push_str(r#"{"type":"toppled","at":"#);
            push_pos(out, *at);
            out.push_str(r#","toward":"#);
            push_name(out, dir_name(*toward));
            out.push_str(r#","falls":"#);
            push_array(out, falls, push_fall);
        }
        E::RockRolled { seat, roll } => {
            out.push_str(r#"{"type":"rock_rolled","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","roll":"#);
            push_small(out, *roll);
        }
        E::RockPlaced { seat, at } => {
            out.push_str(r#"{"type":"rock_placed","seat":"#);
            push_small(out, seat.0);
            out.push_str(r#","at":"#);
            push_pos(out, *at);
        }
        E::RockOutOfReach { seat } => {
            out.push_str(r#"{"type":"rock_out_of_reach","seat":"#);
            push_small(out, seat.0);
        }
        E::RoundScored {
            round,
            points,
            tops,
            totals,
        } => {
            out.push_str(r#"{"type":"round_scored","round":"#);
            push_small(out, *round);
            out.push_str(r#","points":"#);
            push_scores(out, points);
            out.push_str(r#","tops":"#);
            push_array(out, tops, |out, n| push_small(out, *n));
            out.push_str(r#","totals":"#);
            push_scores(out, totals);
        }
        E::KingOfTheHill { seat } => {
            out.push_str(r#"{"type":"king_of_the_hill","seat":"#);
            push_small(out, seat.0);
        }
        E::GameOver { totals, placings } => {
            out.push_str(r#"{"type":"game_over","totals":"#);
            push_scores(out, totals);
            out.push_str(r#","placings":"#);
            push_array(out, placings, |out, n| push_small(out, *n));
        }
    }
    out.push('}');
    text
}

impl Molehills {
    /// `seat`'s legal actions as the JSON text of one array, as serde writes [`Game::legal_actions`]. While
    /// planning, every order of the hand (24 for four cards) is written as [`each_permutation`] finds it, without
    /// a list per order; the other lists (a few actions) are written from the typed actions.
    pub(super) fn legal_actions_json_text(&self, seat: Seat) -> String {
        let planning = seat.0 < self.players && self.phase == Phase::Planning;
        if !planning {
            let legal = self.legal_actions(seat);
            let mut out = String::with_capacity(24 + 48 * legal.len());
            push_array(&mut out, &legal, push_action);
            return out;
        }
        if self.plans[seat.index()].is_some() {
            return "[]".to_owned();
        }
        // Room for every order of a full hand: 24 of up to ~40 bytes.
        let mut out = String::with_capacity(1024);
        out.push('[');
        each_permutation(&self.hands[seat.index()], |order| {
            if out.len() > 1 {
                out.push(',');
            }
            push_plan(&mut out, order);
        });
        out.push(']');
        out
    }
}
