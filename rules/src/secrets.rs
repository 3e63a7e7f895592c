//! What each game keeps from whom, as test hooks: the knowledge the leak tests check, kept beside each engine.
//!
//! Every registered game implements [`Secrets`] (the `games!` macro of the registry refuses one that does not),
//! in its own `games/<game>/secrets.rs`, by reading its typed state. The generic tests use it through
//! [`crate::AnyGame`]: `rules/tests/secrets.rs` compares the views of hidden twins and requires every game's hooks
//! to find something to check, and the integration test `tests/tests/leaks.rs` checks every message a client
//! receives in real matches against the hidden orders, the RNG and the view secrets. No test names a game.
//!
//! The hooks are not used by the server; they cost nothing unless called.

use serde::Serialize;
use serde_json::Value;

use crate::model::{Game, Seat, Viewer};
use crate::rng::Rng;

/// A game's hidden information, described for the tests that look for it in what viewers receive.
///
/// Port every rule of the game's `docs/rules/*.md` that keeps something from a viewer into these methods: a
/// hidden order (a deck, a pile, a secret plan), a twin that changes only what is hidden, and the places of a
/// view where a secret would show.
pub trait Secrets: Game {
    /// The state's random generator, whose numbers are as secret as the seed; `None` for a game that draws
    /// everything at setup. `AnyGame::hidden_twins` adds a twin with another generator.
    fn rng_mut(&mut self) -> Option<&mut Rng>;

    /// The orders `viewer` may not learn (decks, piles below their top, other seats' secret plans), each item as
    /// the state writes it in JSON. A message leaks one when an array of it holds a run of the order too long to
    /// be a coincidence, or all of a [`HiddenOrder::whole`] order.
    fn hidden_orders(&self, viewer: Viewer) -> Vec<HiddenOrder>;

    /// Copies of this state that differ from it only in what viewers may not know (an order reversed, two
    /// face-down cards swapped, a card of a hand swapped with the top of the deck), made by cloning the state and
    /// changing its fields. Each viewer but [`Twin::known_to`] must get the very same view of the twin.
    fn hidden_twins(&self) -> Vec<Twin<Self>>;

    /// The places of `viewer`'s view (as JSON) where something this viewer may not see would show: a face-down
    /// card's number, another seat's hand, bag or secret commitment. See [`view_leaks`].
    fn view_secrets(&self, viewer: Viewer) -> Vec<ViewSecret>;
}

/// An order of hidden items (see [`Secrets::hidden_orders`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HiddenOrder {
    /// What it is, for messages: "draw pile", "seat 1's plan".
    pub name: String,
    /// The items in their hidden order, as JSON values.
    pub items: Vec<Value>,
    /// Whether the whole order in a row is a leak however likely by chance (a secret plan of a few cards, which
    /// no public array holds before its reveal); otherwise only runs past the checker's coincidence bound are.
    pub whole: bool,
}

impl HiddenOrder {
    /// An order of `items`, each written as JSON.
    pub fn of<T: Serialize>(
        name: impl Into<String>,
        items: impl IntoIterator<Item = T>,
        whole: bool,
    ) -> Self {
        HiddenOrder {
            name: name.into(),
            items: items.into_iter().map(|i| json(&i)).collect(),
            whole,
        }
    }
}

/// A copy of a state that differs only in hidden information (see [`Secrets::hidden_twins`]).
#[derive(Clone, Debug)]
pub struct Twin<G> {
    /// What differs, for messages: "the draw pile's order".
    pub what: String,
    pub state: G,
    /// The one seat that may know the difference (its own hand or plan), if any.
    pub known_to: Option<Seat>,
}

impl<G: Clone> Twin<G> {
    /// A twin of `state` changed by `change`, known to nobody.
    pub fn hidden(what: impl Into<String>, state: &G, change: impl FnOnce(&mut G)) -> Self {
        Twin::known_to(what, None, state, change)
    }

    /// A twin of `state` changed by `change`, known to `seat` (or to nobody).
    pub fn known_to(
        what: impl Into<String>,
        seat: Option<Seat>,
        state: &G,
        change: impl FnOnce(&mut G),
    ) -> Self {
        let mut state = state.clone();
        change(&mut state);
        Twin {
            what: what.into(),
            state,
            known_to: seat,
        }
    }
}

/// A place in a view where a secret would show (see [`Secrets::view_secrets`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ViewSecret {
    /// What the secret is, for messages: "face-down card 7 at cell 12".
    pub what: String,
    /// Where in the view, as a JSON pointer (RFC 6901): `/grid/2/0/number`.
    pub at: String,
    /// What the view may hold there.
    pub allowed: Allowed,
    /// The secret itself, as the state knows it (the tests plant it at `at` to see that it is found).
    pub secret: Value,
}

/// What a view may hold where a [`ViewSecret`] would show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allowed {
    /// Nothing: no member there at all.
    Absent,
    /// No member, or `null`: a hidden value is `null`, never an empty list or a zero that would read as a real
    /// value (docs/protocol.md, "Hidden values").
    Null,
}

impl Allowed {
    /// Whether `found` (what the view holds at the place, if anything) is allowed.
    pub fn allows(self, found: Option<&Value>) -> bool {
        match (self, found) {
            (_, None) => true,
            (Allowed::Absent, Some(_)) => false,
            (Allowed::Null, Some(Value::Null)) => true,
            (Allowed::Null, Some(_)) => false,
        }
    }
}

impl ViewSecret {
    pub fn new(
        what: impl Into<String>,
        at: impl Into<String>,
        allowed: Allowed,
        secret: impl Serialize,
    ) -> Self {
        ViewSecret {
            what: what.into(),
            at: at.into(),
            allowed,
            secret: json(&secret),
        }
    }

    /// Whether `view` shows this secret.
    pub fn shown_in(&self, view: &Value) -> bool {
        !self.allowed.allows(view.pointer(&self.at))
    }

    /// `view` with this secret put where it must not be (for the tests of the checks): the secret itself, or a
    /// list holding it where the secret alone would pass for nothing (a `null`).
    pub fn planted_in(&self, view: &Value) -> Value {
        let mut view = view.clone();
        let (parent, member) = self.at.rsplit_once('/').expect("a JSON pointer below the root");
        let value = if self.allowed.allows(Some(&self.secret)) {
            Value::Array(vec![self.secret.clone()])
        } else {
            self.secret.clone()
        };
        match view.pointer_mut(parent) {
            Some(Value::Object(map)) => {
                map.insert(member.replace("~1", "/").replace("~0", "~"), value);
            }
            Some(Value::Array(items)) => {
                let i: usize = member.parse().expect("an array index");
                if i < items.len() {
                    items[i] = value;
                }
            }
            _ => {}
        }
        view
    }
}

/// Everything `viewer`'s `view` (as JSON, as received over the wire) shows of what `viewer` may not see in
/// `game`, one message per secret found.
pub fn view_leaks<G: Secrets>(game: &G, viewer: Viewer, view: &Value) -> Vec<String> {
    game.view_secrets(viewer)
        .into_iter()
        .filter(|s| s.shown_in(view))
        .map(|s| format!("{} (at {})", s.what, s.at))
        .collect()
}

/// The numbers of a random generator's state (as secret as the seed).
pub fn rng_numbers(rng: &Rng) -> Vec<u64> {
    json(rng)["s"]
        .as_array()
        .map(|s| s.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// The seats of a table of `players` other than `viewer`'s: whose hidden things `viewer` may not see.
pub fn others(players: u8, viewer: Viewer) -> impl Iterator<Item = Seat> {
    Seat::all(players).filter(move |s| viewer != Viewer::Seat(*s))
}

fn json<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).expect("game values serialise to JSON")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn allowed_tells_nothing_from_something() {
        assert!(Allowed::Absent.allows(None));
        assert!(!Allowed::Absent.allows(Some(&Value::Null)));
        assert!(Allowed::Null.allows(Some(&Value::Null)));
        assert!(!Allowed::Null.allows(Some(&json!([]))));
        assert!(!Allowed::Null.allows(Some(&json!(0))));
        assert!(!Allowed::Null.allows(Some(&json!([1]))));
    }

    #[test]
    fn a_planted_secret_is_shown() {
        let view =
            json!({"grid": [[{"face_up": false}, {"face_up": true, "number": 3}]], "hands": [[], null]});
        let number = ViewSecret::new("face-down card 9", "/grid/0/0/number", Allowed::Absent, 9);
        assert!(!number.shown_in(&view));
        assert!(number.shown_in(&number.planted_in(&view)));
        // An empty list where a hidden hand should be `null` reads as an empty hand: it counts as shown.
        let hand = ViewSecret::new("seat 0's hand", "/hands/0", Allowed::Null, json!([]));
        assert!(hand.shown_in(&view));
        let bag = ViewSecret::new("seat 1's bag", "/hands/1", Allowed::Null, json!(null));
        assert!(bag.shown_in(&bag.planted_in(&view)));
    }
}
