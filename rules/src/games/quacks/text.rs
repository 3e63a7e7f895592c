//! Quacks' view written as JSON text straight from the state (`Game::view_text`), without building a
//! [`QuacksView`] and without serde: the server writes every seat's view and the spectators' after every action,
//! and serde's derived serialisation of a view (hundreds of chips, each an object of escaped keys) was most of
//! the cost of an action.
//!
//! The text must be exactly serde's text of [`Quacks::view`]: compact, members in the declaration order of
//! [`QuacksView`] and [`PlayerView`], enums by their serde names. The registry's
//! `json_text_is_the_same_value_as_the_value_path` and this game's own tests compare the two through whole random
//! games for every viewer; a member added to the view must be added here too. Small or rarely present members
//! (the card, a pending decision, a commitment, the outcome) go through serde.

use super::*;
use crate::json_text::{push_array, push_bool, push_number, push_serde, push_small, push_viewer};

/// A colour by its serde name (`rename_all = "snake_case"`).
pub(super) fn colour_name(colour: Colour) -> &'static str {
    match colour {
        Colour::White => "white",
        Colour::Orange => "orange",
        Colour::Green => "green",
        Colour::Blue => "blue",
        Colour::Red => "red",
        Colour::Yellow => "yellow",
        Colour::Purple => "purple",
        Colour::Black => "black",
    }
}

/// A brewing state by its serde name.
pub(super) fn brew_name(brew: Brew) -> &'static str {
    match brew {
        Brew::Brewing => "brewing",
        Brew::Stopped => "stopped",
        Brew::Exploded => "exploded",
    }
}

/// An evaluation step by its serde name.
pub(super) fn shop_name(shop: Shop) -> &'static str {
    match shop {
        Shop::Idle => "idle",
        Shop::PointsOrBuying => "points_or_buying",
        Shop::Buying => "buying",
        Shop::Spending => "spending",
        Shop::Done => "done",
    }
}

/// The text of a chip, `{"colour":"white","value":1}`, between `$pre` and `$post`, for every colour (by
/// `Colour as usize`, its declaration order) and the values 0-4 (every chip in the box is worth 1 to 4): written
/// at compile time, so that a chip costs one copy instead of five pieces.
macro_rules! chip_texts {
    ($pre:literal, $post:literal) => {
        chip_texts!($pre, $post; "white", "orange", "green", "blue", "red", "yellow", "purple", "black")
    };
    ($pre:literal, $post:literal; $($colour:literal),*) => {
        [$([
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":0}"#, $post),
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":1}"#, $post),
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":2}"#, $post),
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":3}"#, $post),
            concat!($pre, r#"{"colour":""#, $colour, r#"","value":4}"#, $post),
        ]),*]
    };
}

/// Texts of every chip a view can show, by colour and value.
type ChipTexts = [[&'static str; 5]; Colour::ALL.len()];

/// `{"colour":"white","value":1}`
const CHIP: ChipTexts = chip_texts!("", "");
/// A [`ChipCount`] up to its count: `{"chip":{"colour":"white","value":1},"count":`
const CHIP_COUNT: ChipTexts = chip_texts!(r#"{"chip":"#, r#","count":"#);
/// A [`Placed`] up to its space: `{"chip":{"colour":"white","value":1},"space":`
const PLACED: ChipTexts = chip_texts!(r#"{"chip":"#, r#","space":"#);

/// The text of `chip` in `texts`, if its value is in the table (always, for the chips in the box).
fn chip_text(texts: &ChipTexts, chip: Chip) -> Option<&'static str> {
    texts[chip.colour as usize].get(usize::from(chip.value)).copied()
}

/// `{"colour":"white","value":1}`
pub(super) fn push_chip(out: &mut String, chip: Chip) {
    match chip_text(&CHIP, chip) {
        Some(text) => out.push_str(text),
        None => {
            out.push_str(r#"{"colour":""#);
            out.push_str(colour_name(chip.colour));
            out.push_str(r#"","value":"#);
            push_number(out, chip.value);
            out.push('}');
        }
    }
}

/// `{"chip":{...},"count":4}`
pub(super) fn push_chip_count(out: &mut String, c: ChipCount) {
    match chip_text(&CHIP_COUNT, c.chip) {
        Some(text) => out.push_str(text),
        None => {
            out.push_str(r#"{"chip":"#);
            push_chip(out, c.chip);
            out.push_str(r#","count":"#);
        }
    }
    push_small(out, c.count);
    out.push('}');
}

/// `{"chip":{...},"space":12}`
pub(super) fn push_placed(out: &mut String, placed: &Placed) {
    match chip_text(&PLACED, placed.chip) {
        Some(text) => out.push_str(text),
        None => {
            out.push_str(r#"{"chip":"#);
            push_chip(out, placed.chip);
            out.push_str(r#","space":"#);
        }
    }
    push_small(out, placed.space);
    out.push('}');
}

/// The counts of the chips in `a` and `b` together, as [`counts`] lists them.
fn push_counts(out: &mut String, a: &[Chip], b: &[Chip]) {
    out.push('[');
    let mut first = true;
    for_each_count(a, b, |c| {
        if !first {
            out.push(',');
        }
        first = false;
        push_chip_count(out, c);
    });
    out.push(']');
}

impl Quacks {
    /// `viewer`'s view as serde would write [`Game::view`]'s value.
    pub(super) fn view_json_text(&self, viewer: Viewer) -> String {
        // Room for the largest views of random games (about 1250 bytes and 750 a player), so that the text is
        // seldom copied as it grows.
        let mut out = String::with_capacity(1536 + 1024 * self.players.len());
        out.push_str(r#"{"viewer":"#);
        push_viewer(&mut out, viewer);
        out.push_str(r#","round":"#);
        push_small(&mut out, self.round);
        out.push_str(r#","rounds":"#);
        push_small(&mut out, ROUNDS);
        out.push_str(r#","start_player":"#);
        push_small(&mut out, self.start_player.0);
        out.push_str(r#","phase":""#);
        out.push_str(self.phase.name());
        out.push_str(r#"","card":"#);
        push_serde(&mut out, &self.card);
        out.push_str(r#","cards_left":"#);
        push_number(&mut out, self.deck.len());
        out.push_str(r#","white_limit":"#);
        push_small(&mut out, self.white_limit());
        out.push_str(r#","books":"#);
        push_array(
            &mut out,
            Colour::ALL.into_iter().filter(|c| self.book_open(*c)),
            |out, colour| {
                out.push('"');
                out.push_str(colour_name(colour));
                out.push('"');
            },
        );
        out.push_str(r#","supply":"#);
        push_array(&mut out, &self.supply, |out, &(chip, count)| {
            push_chip_count(out, ChipCount { chip, count })
        });
        out.push_str(r#","players":"#);
        push_array(&mut out, self.players.iter().enumerate(), |out, (i, p)| {
            self.push_player(out, Seat(i as u8), p, viewer == Viewer::Seat(Seat(i as u8)))
        });
        out.push_str(r#","outcome":"#);
        match self.outcome() {
            Some(outcome) => push_serde(&mut out, &outcome),
            None => out.push_str("null"),
        }
        out.push('}');
        out
    }

    /// One [`PlayerView`]; `own`: the viewer sits at `seat` (and may see the hidden members).
    fn push_player(&self, out: &mut String, seat: Seat, p: &Player, own: bool) {
        out.push_str(r#"{"seat":"#);
        push_small(out, seat.0);
        out.push_str(r#","score":"#);
        push_small(out, p.score);
        out.push_str(r#","rubies":"#);
        push_small(out, p.rubies);
        out.push_str(r#","droplet":"#);
        push_small(out, p.droplet);
        out.push_str(r#","rat_tails":"#);
        push_small(out, p.rat_tails);
        out.push_str(r#","rat_space":"#);
        push_small(out, p.start_space());
        out.push_str(r#","flask_full":"#);
        push_bool(out, p.flask_full);
        out.push_str(r#","pot":"#);
        push_array(out, &p.pot, push_placed);
        out.push_str(r#","whites":"#);
        push_small(out, p.whites);
        out.push_str(r#","brew":""#);
        out.push_str(brew_name(p.brew));
        out.push_str(r#"","scoring_space":"#);
        push_small(out, p.scoring_space_now());
        out.push_str(r#","not_in_pot":"#);
        push_counts(out, &p.bag, &p.aside);
        out.push_str(r#","looking_at_count":"#);
        push_number(out, p.aside.len());
        // The hidden members: the chips looked at, the bag and the round-9 commitment, to their owner only.
        out.push_str(r#","looking_at":"#);
        if own {
            push_array(out, &p.aside, |out, chip| push_chip(out, *chip));
        } else {
            out.push_str("null");
        }
        out.push_str(r#","bag":"#);
        if own {
            push_counts(out, &p.bag, &[]);
        } else {
            out.push_str("null");
        }
        out.push_str(r#","deciding":"#);
        match &p.pending {
            Some(pending) => push_serde(out, pending),
            None => out.push_str("null"),
        }
        out.push_str(r#","committed":"#);
        push_bool(out, p.commitment.is_some());
        out.push_str(r#","commitment":"#);
        match p.commitment {
            Some(commitment) if own => push_serde(out, &commitment),
            _ => out.push_str("null"),
        }
        out.push_str(r#","shop":""#);
        out.push_str(shop_name(p.shop));
        out.push_str(r#"","coins":"#);
        push_small(out, p.coins);
        out.push('}');
    }
}
