//! The game model shared by all five engines.
//!
//! An engine is a state machine: [`Game::new`] builds the state from a configuration, a player count and a seed;
//! [`Game::apply`] takes an action of an [`Actor`] at a time the caller supplies and either returns the events
//! that explain the change or a typed rejection that leaves the state untouched (check, then apply). Everything
//! a viewer may know is in [`Game::view`]; everything a seat may do is in [`Game::legal_actions`].

use std::fmt;

use serde::{Deserialize, Serialize, de::DeserializeOwned};

/// A seat at the table, numbered from 0 in turn order ("to the left" means `seat + 1`, wrapping).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    pub fn index(self) -> usize {
        self.0 as usize
    }
    /// The seat to the left of this one at a table of `players`.
    pub fn next(self, players: u8) -> Seat {
        Seat((self.0 + 1) % players)
    }
    /// All seats of a table of `players`, in turn order.
    pub fn all(players: u8) -> impl Iterator<Item = Seat> {
        (0..players).map(Seat)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// Milliseconds since the Unix epoch, always supplied by the caller. Engines compare and add times; they never
/// read a clock.
pub type Millis = u64;

/// Who performs an action.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    /// A player at a seat (a human or a bot sitting there).
    Seat(Seat),
    /// The server's clock, delivering the action of a [`Deadline`] that has come due.
    Clock,
}

impl Actor {
    /// This actor's JSON text, exactly serde's (`{"seat":N}` or `"clock"`), made once for every seat: the action
    /// log stores it with every action, and the server writes it for every action it commits.
    pub fn json_text(self) -> &'static str {
        static SEATS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
        match self {
            Actor::Seat(Seat(n)) => &SEATS
                .get_or_init(|| (0..=u8::MAX).map(|n| format!(r#"{{"seat":{n}}}"#)).collect())
                [usize::from(n)],
            Actor::Clock => r#""clock""#,
        }
    }
}

/// Who is looking.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    Seat(Seat),
    /// Anyone watching without a seat: sees only what is public.
    Spectator,
}

/// Who may see an event.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    Everyone,
    /// Only these seats (spectators never see such an event).
    Seats(Vec<Seat>),
}

impl Audience {
    pub fn only(seat: Seat) -> Self {
        Audience::Seats(vec![seat])
    }
    pub fn includes(&self, viewer: Viewer) -> bool {
        match (self, viewer) {
            (Audience::Everyone, _) => true,
            (Audience::Seats(seats), Viewer::Seat(s)) => seats.contains(&s),
            (Audience::Seats(_), Viewer::Spectator) => false,
        }
    }
}

/// An event together with who may see it. Engines put secret details (a card drawn into a hand) in events
/// addressed to the seats that may know them, and a redacted event to everyone else.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Event<E> {
    pub audience: Audience,
    pub body: E,
}

impl<E> Event<E> {
    pub fn public(body: E) -> Self {
        Event {
            audience: Audience::Everyone,
            body,
        }
    }
    pub fn to(seat: Seat, body: E) -> Self {
        Event {
            audience: Audience::only(seat),
            body,
        }
    }
}

/// Whose decision it is. Descriptive: the authority on who may act is [`Game::legal_actions`], which can also
/// list interrupts (an Eeek! claim on a face-up card) for seats that are not named here.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Status {
    /// One seat decides.
    Turn { seat: Seat },
    /// Several seats decide at once, independently. `secret`: a choice stays hidden from the others until the
    /// engine reveals it (Mountains out of Molehills' planning); otherwise each seat's progress is public as it
    /// happens (Quacks' brewing). `seats` are those still expected to act.
    Simultaneous { seats: Vec<Seat>, secret: bool },
    /// Any of `seats` may act and the first valid action received wins (the Eeek! claim); the race closes at the
    /// engine's deadline.
    Race { seats: Vec<Seat> },
    /// The game is over; see [`Game::outcome`].
    Over,
}

/// A time at which the engine wants to be woken, and the action the clock then performs.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Deadline<A> {
    pub at: Millis,
    pub action: A,
}

/// The broad class of a rejection; each engine's typed reason maps onto one of these, which the protocol turns
/// into a stable error code.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum RejectKind {
    /// The actor may not act now (another seat's turn, or already decided this step).
    NotYourTurn,
    /// The action is not legal in this state.
    IllegalAction,
    /// The game has ended.
    GameOver,
    /// A clock action before its deadline, or for a deadline that no longer exists.
    NotDue,
    /// The seat does not exist at this table.
    NoSuchSeat,
}

impl RejectKind {
    pub fn code(self) -> &'static str {
        match self {
            RejectKind::NotYourTurn => "not_your_turn",
            RejectKind::IllegalAction => "illegal_action",
            RejectKind::GameOver => "game_over",
            RejectKind::NotDue => "not_due",
            RejectKind::NoSuchSeat => "no_such_seat",
        }
    }
}

/// A typed reason for refusing an action. Display gives the human message.
pub trait Reject: fmt::Display + fmt::Debug + Clone + PartialEq {
    fn kind(&self) -> RejectKind;
}

/// A rejection in a game-independent form, for the server and the wire.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Rejection {
    pub kind: RejectKind,
    pub message: String,
}

impl<R: Reject> From<R> for Rejection {
    fn from(r: R) -> Self {
        Rejection {
            kind: r.kind(),
            message: r.to_string(),
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.code(), self.message)
    }
}

/// A configuration that cannot start a game.
#[derive(
    Clone,
    Debug,
    PartialEq,
    Eq,
    thiserror::Error,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
pub enum SetupError {
    #[error("this game is for {min}-{max} players, not {got}")]
    PlayerCount { min: u8, max: u8, got: u8 },
    #[error("invalid option `{option}`: {message}")]
    BadOption { option: String, message: String },
    #[error("unknown game `{0}`")]
    UnknownGame(String),
    /// A match of an old rules version that this engine no longer replays (see [`Game::new_at`]).
    #[error("`{game}` replays rules versions {oldest} to {current}, not {version}")]
    RulesVersion {
        game: String,
        version: u32,
        oldest: u32,
        current: u32,
    },
}

/// The result of a finished game.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Outcome {
    /// Final score of each seat, by seat index.
    pub scores: Vec<i64>,
    /// Placing of each seat, by seat index: 1 is first; tied seats share a placing (1, 1, 3).
    pub placings: Vec<u8>,
    /// The seats placed first (several when the game's tie-breaks leave a shared victory).
    pub winners: Vec<Seat>,
}

impl Outcome {
    /// Builds an outcome from each seat's score and a ranking key that already includes the game's tie-breaks
    /// (greater is better; equal keys share a placing).
    pub fn ranked<K: Ord>(scores: Vec<i64>, keys: Vec<K>) -> Outcome {
        assert_eq!(scores.len(), keys.len());
        let placings: Vec<u8> = keys
            .iter()
            .map(|k| 1 + keys.iter().filter(|other| *other > k).count() as u8)
            .collect();
        let winners = placings
            .iter()
            .enumerate()
            .filter(|(_, p)| **p == 1)
            .map(|(i, _)| Seat(i as u8))
            .collect();
        Outcome {
            scores,
            placings,
            winners,
        }
    }
}

/// One option of a game's configuration, as `GET /api/games` and the lobby screen show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OptionSpec {
    pub key: &'static str,
    pub label: &'static str,
    #[serde(flatten)]
    pub kind: OptionKind,
    /// The table sizes at which the option changes anything (Molehills' grid for three players: 3 to 3); absent
    /// (`None`) when it applies at every size the game allows. A table of another size keeps the option's value
    /// but plays as if it were not there, so clients leave it out where they describe such a table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<PlayerCounts>,
}

impl OptionSpec {
    /// Whether the option changes anything at a table of `players` seats.
    pub fn applies_to(&self, players: u8) -> bool {
        self.players
            .is_none_or(|range| (range.min..=range.max).contains(&players))
    }
}

/// A range of table sizes, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlayerCounts {
    pub min: u8,
    pub max: u8,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OptionKind {
    Integer {
        min: i64,
        max: i64,
        default: i64,
    },
    Boolean {
        default: bool,
    },
    Choice {
        values: Vec<&'static str>,
        default: &'static str,
    },
}

/// What a client needs to know about a game before playing it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GameInfo {
    pub id: &'static str,
    pub name: &'static str,
    /// Bumped whenever a change to this engine would make a stored action log replay differently; a match
    /// replays only under the rules version it was started with.
    pub rules_version: u32,
    pub min_players: u8,
    pub max_players: u8,
    /// Whether an absent player's decisions may be skipped (the lobby's `skip` absence policy): then
    /// [`Game::skip_action`] names the passive choice for every decision of a seat.
    #[serde(default)]
    pub can_skip: bool,
    pub options: Vec<OptionSpec>,
}

impl GameInfo {
    /// Refuses a table size outside this game's player counts.
    pub fn check_players(&self, players: u8) -> Result<(), SetupError> {
        if (self.min_players..=self.max_players).contains(&players) {
            Ok(())
        } else {
            Err(SetupError::PlayerCount {
                min: self.min_players,
                max: self.max_players,
                got: players,
            })
        }
    }
}

/// A rules engine. Implementations are pure: no I/O, no clock, no global randomness; all chance comes from the
/// state's own [`crate::rng::Rng`], seeded at [`Game::new`]. Hence `(config, players, seed, actions)` always
/// yields the same state and events.
pub trait Game: Clone + fmt::Debug + Serialize + DeserializeOwned {
    /// The options a lobby may set. Parsed from JSON with unknown fields refused; missing ones take defaults.
    type Config: Clone + fmt::Debug + Default + Serialize + DeserializeOwned;
    /// A decision, in the very form clients send: every value of [`Game::legal_actions`] can be sent back as is.
    type Action: Clone + fmt::Debug + PartialEq + Serialize + DeserializeOwned + json_write::WriteJson;
    /// Something that happened, for clients to animate and explain the change.
    type Event: Clone + fmt::Debug + PartialEq + Serialize + DeserializeOwned + json_write::WriteJson;
    /// What one viewer may know of the state, borrowing from it where that saves a copy. Written once per
    /// change straight into the text the server sends by the writer `#[derive(json_write::WriteJson)]`
    /// generates (serde's exact text, checked through random games by `rules/tests/random_sim.rs`); its JSON
    /// Schema is generated from `View<'static>`.
    type View<'a>: Serialize + json_write::WriteJson
    where
        Self: 'a;
    /// Why an action was refused.
    type Reject: Reject;

    fn info() -> GameInfo;

    /// Sets up a game. Fails on a bad player count or option.
    fn new(config: &Self::Config, players: u8, seed: u64) -> Result<Self, SetupError>;

    fn players(&self) -> u8;

    fn status(&self) -> Status;

    /// Every action `seat` may take now; empty when it has nothing to decide. Finite and in a stable order.
    fn legal_actions(&self, seat: Seat) -> Vec<Self::Action>;

    /// Checks the action and, only if it is legal, applies it. On `Err` the state is exactly as before.
    fn apply(
        &mut self,
        actor: Actor,
        action: &Self::Action,
        now: Millis,
    ) -> Result<Vec<Event<Self::Event>>, Self::Reject>;

    /// The state as `viewer` may see it: no face-down card, hidden hand, bag order, seed or secret choice that
    /// this viewer may not know.
    fn view(&self, viewer: Viewer) -> Self::View<'_>;

    /// Makes `view`, which this same state built for another viewer, `viewer`'s view: what `self.view(viewer)`
    /// gives. The server writes every viewer's view of one change from one build this way. The default builds
    /// afresh; a game whose viewers' views differ in a few members sets only those and keeps the rest; a member
    /// marked `#[json(shared)]` in the view's type is written for the first viewer and its text copied for the
    /// others (`json_write::Shared`), so it must be the same for every viewer. `rules/tests/random_sim.rs` checks at every step of random games of
    /// every game that the rebound view writes `self.view(viewer)`'s text.
    fn rebind_view<'a>(&'a self, view: &mut Self::View<'a>, viewer: Viewer) {
        *view = self.view(viewer);
    }

    /// Whether every viewer, each seat and the spectators, is shown the same view now: nothing in the state is
    /// known to one seat and not to another. The server then builds one view per change and shares it instead
    /// of one per viewer. The default, `false`, is always safe; a `rules` test checks at every step of random
    /// games of every game that `true` is only said of views that are in fact the same.
    fn same_view_for_everyone(&self) -> bool {
        false
    }

    /// What a server bot playing `seat` does now: the game's own strategy, which plays to win and is simple
    /// enough to explain in the game's rules page (`docs/rules/<game>.md` says how it plays and how often it
    /// beats a uniformly random player, measured by `rules/tests/bots.rs`). One of `legal_actions(seat)`, or
    /// `None` when that list is empty or [`Game::bot_waits`]. All chance comes from `rng` (the table's), so the
    /// bot is deterministic given it; the engine's own generator is never touched.
    fn bot_action(&self, seat: Seat, rng: &mut crate::rng::Rng) -> Option<Self::Action>;

    /// Whether a server bot (or a stand-in) playing `seat` lets its legal actions pass for now: they are only
    /// interrupts it may take but need not (Hide and Eeek!'s late claims on face-up cards, listed for every seat
    /// between windows). The server then does not wake it and `bot_action` is `None`; it is asked again after the
    /// next change. The default: a bot acts whenever it has legal actions.
    fn bot_waits(&self, seat: Seat) -> bool {
        let _ = seat;
        false
    }

    /// When a server bot (or a stand-in) playing `seat` acts, if the game sets the moment itself: a human-like
    /// reaction time in a race (Hide and Eeek!'s bots spot a mouse some 400-1200 ms after the card turns up,
    /// instead of after the server's generic bot delay). `None`, the default: the server's usual bot delay after
    /// the last change. Derived from the state alone (the server re-arms its timer from it after a restart).
    fn bot_acts_at(&self, seat: Seat) -> Option<Millis> {
        let _ = seat;
        None
    }

    /// When the engine wants the clock to act, if at all.
    fn deadline(&self) -> Option<Deadline<Self::Action>>;

    /// The result, once [`Game::status`] is [`Status::Over`].
    fn outcome(&self) -> Option<Outcome>;

    /// The action that skips `seat`'s current decision for an absent player: the passive choice the rules offer
    /// (stop, decline, buy nothing). `None` when the seat has nothing to decide. A game whose
    /// [`GameInfo::can_skip`] is true returns one of its `legal_actions` whenever that list is not empty; the
    /// others keep this default and cannot be skipped.
    fn skip_action(&self, seat: Seat) -> Option<Self::Action> {
        let _ = seat;
        None
    }

    /// The oldest rules version whose matches this engine still replays; [`GameInfo::rules_version`] is the
    /// newest. The default, equal to `rules_version`, keeps no older behaviour.
    fn oldest_rules_version() -> u32 {
        Self::info().rules_version
    }

    /// Sets up a game that plays by the rules of `rules_version`: a stored match replays under the version it
    /// started with, new matches start at [`GameInfo::rules_version`]. The default accepts only the current
    /// version (and calls [`Game::new`]).
    ///
    /// How a rules change keeps old matches replaying (`rules/tests/golden.rs` fails until it is done): bump
    /// `rules_version` in [`Game::info`]; keep the old behaviour where it differs, chosen by a version the state
    /// remembers (a new state field with a serde default of the old version, so snapshots written before it
    /// read as the old version); override this method to accept every version from
    /// [`Game::oldest_rules_version`] (overridden too) to the current one and store it in the state; and record
    /// the new version's golden replay (`UPDATE_GOLDEN=1 cargo test -p rules --test golden`), keeping the old
    /// version's. A version nobody must replay any more is dropped by raising `oldest_rules_version` and
    /// deleting its golden file.
    fn new_at(config: &Self::Config, players: u8, seed: u64, rules_version: u32) -> Result<Self, SetupError> {
        let info = Self::info();
        if rules_version != info.rules_version {
            return Err(SetupError::RulesVersion {
                game: info.id.to_string(),
                version: rules_version,
                oldest: Self::oldest_rules_version(),
                current: info.rules_version,
            });
        }
        Self::new(config, players, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranked_shares_placings_on_equal_keys() {
        let o = Outcome::ranked(vec![10, 12, 12, 3], vec![(10, 0), (12, 1), (12, 1), (3, 0)]);
        assert_eq!(o.placings, vec![3, 1, 1, 4]);
        assert_eq!(o.winners, vec![Seat(1), Seat(2)]);
        let o = Outcome::ranked(vec![12, 12], vec![(12, 2), (12, 1)]);
        assert_eq!(o.placings, vec![1, 2]);
        assert_eq!(o.winners, vec![Seat(0)]);
    }

    #[test]
    fn audience_filters_viewers() {
        let a = Audience::only(Seat(1));
        assert!(a.includes(Viewer::Seat(Seat(1))));
        assert!(!a.includes(Viewer::Seat(Seat(0))));
        assert!(!a.includes(Viewer::Spectator));
        assert!(Audience::Everyone.includes(Viewer::Spectator));
    }

    #[test]
    fn an_actors_text_is_serdes_text() {
        let actors = (0..=u8::MAX).map(|n| Actor::Seat(Seat(n))).chain([Actor::Clock]);
        for actor in actors {
            assert_eq!(actor.json_text(), serde_json::to_string(&actor).unwrap());
        }
    }
}
