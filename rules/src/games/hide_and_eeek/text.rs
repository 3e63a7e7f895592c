//! The JSON text the server writes after every action, written by hand straight from the state: the view
//! (`Game::view_text`), each seat's legal actions (`Game::legal_actions_text`), the action as the log keeps it
//! (`Game::action_text`) and each event (`Game::event_text`).
//!
//! Every text must be byte for byte serde's text of the typed value (members in declaration order, compact, the
//! same tag and rename rules): the registry's `json_text_is_the_same_value_as_the_value_path` checks all four
//! through whole random games, for every seat at every step, and this game's `texts_are_serdes_text` checks every
//! event, roll, step and claim window it builds. The cells and the actions on the grid are serde's own text, made
//! once ([`cell_texts`], [`action_texts`]); the keys are constant text and the numbers are written by hand. Serde's
//! derived path escapes every key as it writes it and goes through its map serialiser for the tagged members:
//! the legal actions, the action and events, and the view's small members were ~10,000 of the server's ~79,000
//! instructions per accepted action (callgrind; docs/performance.md, sections 11 and 14).

use super::*;
use crate::json_text::{
    push_array, push_bool, push_number, push_optional, push_seat, push_serde, push_small,
};

/// Appends a cell's text: constant on the grid, serde's derived text off it (only a malformed action names one).
fn push_cell(out: &mut String, cell: Cell) {
    if cell.on_grid() {
        out.push_str(cell_texts()[cell.index()].get());
    } else {
        push_serde(out, &cell);
    }
}

/// Appends an action's text (see [`action_texts`]).
fn push_action(out: &mut String, action: &Action) {
    match action_index(action) {
        Some(i) => out.push_str(action_texts()[i].get()),
        None => push_serde(out, action),
    }
}

/// An action's JSON text, as serde writes it.
pub(super) fn action_json_text(action: &Action) -> String {
    match action_index(action) {
        Some(i) => action_texts()[i].get().to_owned(),
        None => serde_json::to_string(action).expect("plain data serialises to JSON"),
    }
}

/// Appends a [`Roll`]: `{"steps":S,"arrow":A,"category":C}`.
fn push_roll(out: &mut String, roll: &Roll) {
    out.push_str(r#"{"steps":"#);
    push_small(out, roll.steps);
    out.push_str(match roll.arrow {
        Arrow::Up => r#","arrow":"up","category":"#,
        Arrow::Down => r#","arrow":"down","category":"#,
    });
    out.push_str(match roll.category {
        Category::Higher => r#""higher"}"#,
        Category::Lower => r#""lower"}"#,
        Category::Odd => r#""odd"}"#,
        Category::Even => r#""even"}"#,
    });
}

/// Appends a [`TurnStep`] (internally tagged by `step`; a collected card is the pair `[cell, number]`).
fn push_step(out: &mut String, step: &TurnStep) {
    match step {
        TurnStep::Move => out.push_str(r#"{"step":"move"}"#),
        TurnStep::Collect { collected } => {
            out.push_str(r#"{"step":"collect","collected":"#);
            push_array(out, collected, |out, &(cell, number)| {
                out.push('[');
                push_cell(out, cell);
                out.push(',');
                push_small(out, number);
                out.push(']');
            });
            out.push('}');
        }
    }
}

/// Appends the claim window, or `null`.
fn push_race(out: &mut String, race: Option<&Race>) {
    let Some(race) = race else {
        out.push_str("null");
        return;
    };
    out.push_str(r#"{"cell":"#);
    push_cell(out, race.cell);
    out.push_str(r#","closes_at":"#);
    push_number(out, race.closes_at);
    out.push_str(r#","during_turn":"#);
    push_bool(out, race.during_turn);
    out.push('}');
}

/// An event's JSON text (internally tagged by `type`), as serde writes it.
pub(super) fn event_json_text(event: &EventBody) -> String {
    let mut text = String::with_capacity(128);
    let out = &mut text;
    match event {
        EventBody::TurnStarted { seat, roll, extra } => {
            out.push_str(r#"{"type":"turn_started","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","roll":"#);
            push_roll(out, roll);
            out.push_str(r#","extra":"#);
            push_bool(out, *extra);
        }
        EventBody::Moved { seat, from, to } => {
            out.push_str(r#"{"type":"moved","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","from":"#);
            push_cell(out, *from);
            out.push_str(r#","to":"#);
            push_cell(out, *to);
        }
        EventBody::Chosen {
            seat,
            cell,
            number,
            matched,
        } => {
            out.push_str(r#"{"type":"chosen","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","cell":"#);
            push_cell(out, *cell);
            out.push_str(r#","number":"#);
            push_small(out, *number);
            out.push_str(r#","matched":"#);
            match matched {
                Some(matched) => push_bool(out, *matched),
                None => out.push_str("null"),
            }
        }
        EventBody::RaceOpened {
            cell,
            number,
            closes_at,
        } => {
            out.push_str(r#"{"type":"race_opened","cell":"#);
            push_cell(out, *cell);
            out.push_str(r#","number":"#);
            push_small(out, *number);
            out.push_str(r#","closes_at":"#);
            push_number(out, *closes_at);
        }
        EventBody::RaceClosed { cell } => {
            out.push_str(r#"{"type":"race_closed","cell":"#);
            push_cell(out, *cell);
        }
        EventBody::Claimed { seat, cell, number } => {
            out.push_str(r#"{"type":"claimed","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","cell":"#);
            push_cell(out, *cell);
            out.push_str(r#","number":"#);
            push_small(out, *number);
        }
        EventBody::Banked {
            seat,
            cards,
            pile_size,
        } => {
            out.push_str(r#"{"type":"banked","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","cards":"#);
            push_array(out, cards, |out, &n| push_small(out, n));
            out.push_str(r#","pile_size":"#);
            push_number(out, *pile_size);
        }
        EventBody::Lost { seat, cards } => {
            out.push_str(r#"{"type":"lost","seat":"#);
            push_seat(out, *seat);
            out.push_str(r#","cards":"#);
            push_array(out, cards, |out, &n| push_small(out, n));
        }
        EventBody::Refilled {
            cell,
            face_up,
            number,
        } => {
            out.push_str(r#"{"type":"refilled","cell":"#);
            push_cell(out, *cell);
            out.push_str(r#","face_up":"#);
            push_bool(out, *face_up);
            out.push_str(r#","number":"#);
            push_optional(out, *number);
        }
        EventBody::LeftInGrid { cell, face_up } => {
            out.push_str(r#"{"type":"left_in_grid","cell":"#);
            push_cell(out, *cell);
            out.push_str(r#","face_up":"#);
            push_bool(out, *face_up);
        }
        EventBody::ExtraTurn { seat } => {
            out.push_str(r#"{"type":"extra_turn","seat":"#);
            push_seat(out, *seat);
        }
        EventBody::GameOver { winners } => {
            out.push_str(r#"{"type":"game_over","winners":"#);
            push_array(out, winners, |out, &seat| push_seat(out, seat));
        }
    }
    out.push('}');
    text
}

impl HideAndEeek {
    /// `seat`'s legal actions as the JSON text of one array, each action as its constant text, written as
    /// [`HideAndEeek::each_legal_action`] finds them (no list of typed actions built).
    pub(super) fn legal_actions_json_text(&self, seat: Seat) -> String {
        // Room for the longest lists without growing: up to ~24 moves of ~38 bytes.
        let mut out = String::with_capacity(1024);
        out.push('[');
        self.each_legal_action(seat, |action| {
            if out.len() > 1 {
                out.push(',');
            }
            push_action(&mut out, &action);
        });
        out.push(']');
        out
    }

    /// The JSON text of [`Game::view`] exactly as serde's derived serialisation of [`View`] writes it, written
    /// member by member straight from the state, without building the view: the keys and the grid's cells as
    /// constant text, numbers by hand. The server writes a view after every action, and building the view and its
    /// derived serialisation, which escapes every key, were ~10 % of the server's instructions
    /// (docs/performance.md, section 13). Every viewer's view is the same.
    pub(super) fn view_json_text(&self) -> String {
        let mut out = String::with_capacity(2048);
        out.push_str(r#"{"players":"#);
        push_number(&mut out, self.players);
        out.push_str(r#","target":"#);
        push_number(&mut out, self.config.target);
        out.push_str(r#","grid":["#);
        for row in 0..GRID_SIZE {
            if row > 0 {
                out.push(',');
            }
            out.push('[');
            for col in 0..GRID_SIZE {
                if col > 0 {
                    out.push(',');
                }
                out.push_str(cell_json(&self.cell_view(Cell { row, col })).get());
            }
            out.push(']');
        }
        out.push_str(r#"],"mouse":"#);
        push_cell(&mut out, self.mouse);
        out.push_str(r#","draw_pile":"#);
        push_number(&mut out, self.draw_pile.len());
        out.push_str(r#","piles":["#);
        for (i, pile) in self.piles.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(r#"{"cards":"#);
            push_number(&mut out, pile.len());
            out.push_str(r#","top":"#);
            push_optional(&mut out, pile.last().copied());
            out.push('}');
        }
        out.push_str(r#"],"turn":"#);
        push_number(&mut out, self.turn.0);
        out.push_str(r#","roll":"#);
        push_roll(&mut out, &self.roll);
        out.push_str(r#","step":"#);
        push_step(&mut out, &self.step);
        out.push_str(r#","race":"#);
        push_race(&mut out, self.race.as_ref());
        out.push_str(r#","owed_turns":"#);
        push_array(&mut out, &self.owed_turns, |out, seat| push_number(out, seat.0));
        out.push_str(r#","baseline":"#);
        push_optional(&mut out, self.shown_baseline());
        out.push_str(r#","over":"#);
        push_bool(&mut out, self.over);
        out.push('}');
        out
    }
}
