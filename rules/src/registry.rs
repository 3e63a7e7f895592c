//! The five games behind one enum (not `Box<dyn>`), with a JSON boundary for the server.
//!
//! The server stores configurations, actions and events as JSON and sends views as JSON; this module is the one
//! place that turns those into each engine's typed values and back. Adding a game is one line in `games!`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{
    Actor, Deadline, Event, Game, GameInfo, Millis, Outcome, RejectKind, Rejection, Seat, SetupError, Status,
    Viewer,
};
use crate::secrets::{HiddenOrder, Secrets, Twin, ViewSecret};

/// Reads a game's options from a JSON object (`null` for the defaults). Anything else is refused, a list too
/// (serde would read a list's items as the options in their declared order).
fn parse_config<C: serde::de::DeserializeOwned>(config: &Value) -> Result<C, SetupError> {
    let empty = Value::Object(Default::default());
    let config = match config {
        Value::Null => &empty,
        Value::Object(_) => config,
        other => {
            return Err(SetupError::BadOption {
                option: "options".into(),
                message: format!(
                    "must be a JSON object of option names and values (GET /api/games lists them), not {}",
                    json_kind(other)
                ),
            });
        }
    };
    json_write::plain::read(|| config).map_err(|refusal| SetupError::BadOption {
        option: if refusal.path.is_empty() {
            "options".into()
        } else {
            refusal.path
        },
        message: refusal.what,
    })
}

/// "a list", "a string", ...: what a JSON value is, for a refusal.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// What an action that is not one of the game's says.
fn not_an_action(why: impl std::fmt::Display) -> Rejection {
    Rejection {
        kind: RejectKind::IllegalAction,
        message: format!("not an action of this game: {why}"),
    }
}

/// Reads an action from JSON text: a JSON object (serde would read a list's items as the action's members in
/// order).
fn parse_action<A: serde::de::DeserializeOwned>(action: &str) -> Result<A, Rejection> {
    if !action.trim_start().starts_with('{') {
        let what = serde_json::from_str::<Value>(action).map_or("not JSON", |v| json_kind(&v));
        return Err(not_an_action(format_args!(
            "an action is a JSON object, not {what}"
        )));
    }
    json_write::plain::from_str(action).map_err(|refusal| {
        let refusal = match serde_json::from_str::<Value>(action) {
            Ok(value) => with_type_first::<A>(&value, refusal),
            Err(_) => refusal,
        };
        not_an_action(refusal)
    })
}

/// A refusal of an action that does not name the member at fault, said again from the action read with its
/// `type` first: serde reads an action whose `type` comes later from a copy, which loses the path.
fn with_type_first<A: serde::de::DeserializeOwned>(
    action: &Value,
    refusal: json_write::plain::Refusal,
) -> json_write::plain::Refusal {
    let Some(tag) = action.get("type").filter(|_| refusal.path.is_empty()) else {
        return refusal;
    };
    let mut text = format!("{{\"type\":{tag}");
    for (key, value) in action.as_object().into_iter().flatten() {
        if key != "type" {
            text += &format!(",{}:{value}", Value::from(key.as_str()));
        }
    }
    text.push('}');
    json_write::plain::from_str::<A>(&text).err().unwrap_or(refusal)
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("engine values serialise to JSON")
}

fn to_text<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("engine values serialise to JSON")
}

/// A typed value's JSON text by its generated writer (`json_write`): the same text as serde's, checked byte for
/// byte by `tests/random_sim.rs`.
fn written<T: json_write::WriteJson + ?Sized>(value: &T) -> Box<RawValue> {
    let mut size_hint = 96;
    json_write::to_raw_value(value, &mut size_hint)
}

/// The schema of what the server accepts from clients (serde's deserialising rules: defaults may be omitted).
fn accepted<T: schemars::JsonSchema>() -> schemars::Schema {
    schemars::generate::SchemaSettings::default()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// The schema of what the server sends (serde's serialising rules: every field it always writes is required).
fn produced<T: schemars::JsonSchema>() -> schemars::Schema {
    schemars::generate::SchemaSettings::default()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// The options schema with what the game's catalogue entry ([`GameInfo::options`], the source the engine checks
/// options against) says of each option: an integer's `minimum`, `maximum` and `default`, a boolean's or a
/// choice's `default`. The type alone would say only `0..=255` for a `u8`. Panics (in the schema tests) when an
/// option has no property in the schema or a property no option.
fn with_option_bounds(mut schema: schemars::Schema, info: &GameInfo) -> schemars::Schema {
    use crate::model::OptionKind;
    let properties = schema
        .as_object_mut()
        .and_then(|s| s.get_mut("properties"))
        .and_then(Value::as_object_mut);
    let Some(properties) = properties else {
        assert!(
            info.options.is_empty(),
            "{}: options without a properties schema",
            info.id
        );
        return schema;
    };
    assert_eq!(
        properties.len(),
        info.options.len(),
        "{}: every option property is in the catalogue, and only those",
        info.id
    );
    for option in &info.options {
        let property = properties
            .get_mut(option.key)
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| {
                panic!(
                    "{}: option `{}` is not in the options schema",
                    info.id, option.key
                )
            });
        match &option.kind {
            OptionKind::Integer { min, max, default } => {
                property.insert("minimum".into(), (*min).into());
                property.insert("maximum".into(), (*max).into());
                property.insert("default".into(), (*default).into());
            }
            OptionKind::Boolean { default } => {
                property.insert("default".into(), (*default).into());
            }
            OptionKind::Choice { default, .. } => {
                property.insert("default".into(), (*default).into());
            }
        }
    }
    schema
}

macro_rules! games {
    ($($variant:ident => $ty:ty),+ $(,)?) => {
        /// A game in progress, of any of the games the server hosts: the server's one door into the engines. An
        /// action goes in as JSON text; what comes out for the wire or the log (the applied action and its
        /// events, views, legal actions, the deadline's and a skip's action, the full state) comes out as JSON
        /// text, written once from the engine's typed values. Admin pages and tests parse values from that text
        /// (`crate::testkit::Parsed`).
        #[derive(Clone, Debug, Serialize, Deserialize)]
        #[serde(tag = "game", content = "state", rename_all = "snake_case")]
        pub enum AnyGame {
            $($variant(Box<$ty>)),+
        }

        /// Every hosted game, in the order `GET /api/games` lists them.
        pub fn catalogue() -> Vec<GameInfo> {
            vec![$(<$ty as Game>::info()),+]
        }

        /// Checks a JSON configuration of `game_id` and returns it with every default filled in.
        pub fn normalise_config(game_id: &str, config: &Value) -> Result<Value, SetupError> {
            $(
                if game_id == <$ty as Game>::info().id {
                    let config: <$ty as Game>::Config = parse_config(config)?;
                    return Ok(to_json(&config));
                }
            )+
            Err(SetupError::UnknownGame(game_id.to_string()))
        }

        /// The JSON Schemas (draft 2020-12) of every hosted game's options, actions, views and events, in
        /// catalogue order: what a client sends as `options` and `action`, and reads as `view` and `events`.
        pub fn schemas() -> Vec<GameSchemas> {
            vec![$(GameSchemas {
                id: <$ty as Game>::info().id,
                config: with_option_bounds(accepted::<<$ty as Game>::Config>(), &<$ty as Game>::info()),
                action: accepted::<<$ty as Game>::Action>(),
                view: produced::<<$ty as Game>::View<'static>>(),
                event: produced::<<$ty as Game>::Event>(),
            }),+]
        }

        /// The rules versions `game_id`'s engine replays, oldest to current (`None`: no such game).
        pub fn rules_versions(game_id: &str) -> Option<std::ops::RangeInclusive<u32>> {
            $(
                if game_id == <$ty as Game>::info().id {
                    return Some(<$ty as Game>::oldest_rules_version()..=<$ty as Game>::info().rules_version);
                }
            )+
            None
        }

        /// Calls `visitor` with the type of every hosted game, in catalogue order: how a test generic over
        /// `G: Game` (`testkit::random_playout`) runs for every game.
        pub fn visit_games<V: GameVisitor>(visitor: &mut V) {
            $(visitor.visit::<$ty>();)+
        }

        impl AnyGame {
            /// Sets up `game_id` from a JSON object of options (`null` or `{}` for the defaults) to play by the
            /// rules of `rules_version` (see `Game::new_at`; `None`: the current version). A stored match is
            /// rebuilt under the version it started with, then its log is [`AnyGame::replay`]ed.
            pub fn new(
                game_id: &str,
                rules_version: Option<u32>,
                config: &Value,
                players: u8,
                seed: u64,
            ) -> Result<AnyGame, SetupError> {
                $(
                    if game_id == <$ty as Game>::info().id {
                        let config: <$ty as Game>::Config = parse_config(config)?;
                        let version = rules_version.unwrap_or(<$ty as Game>::info().rules_version);
                        let game = <$ty as Game>::new_at(&config, players, seed, version)?;
                        return Ok(AnyGame::$variant(Box::new(game)));
                    }
                )+
                Err(SetupError::UnknownGame(game_id.to_string()))
            }

            /// This game's catalogue entry.
            pub fn info(&self) -> GameInfo {
                match self { $(AnyGame::$variant(_) => <$ty as Game>::info()),+ }
            }

            pub fn players(&self) -> u8 {
                match self { $(AnyGame::$variant(g) => g.players()),+ }
            }

            pub fn status(&self) -> Status {
                match self { $(AnyGame::$variant(g) => g.status()),+ }
            }

            pub fn outcome(&self) -> Option<Outcome> {
                match self { $(AnyGame::$variant(g) => g.outcome()),+ }
            }

            /// Applies an action given as JSON text, read straight into the engine's typed action. Text that is
            /// not an action of this game is refused like an illegal action. The action and each event body
            /// come back written once as JSON text from the engine's typed values: [`Applied::action`] is the
            /// canonical text of the action (the fields the engine knows, in its order), which the log stores.
            pub fn apply(&mut self, actor: Actor, action: &str, now: Millis) -> Result<Applied, Rejection> {
                match self { $(AnyGame::$variant(g) => apply_text(&mut **g, actor, action, now)),+ }
            }

            /// Applies a stored log (actions as the log keeps them) without writing anything: rebuilding a match
            /// from its setup or a snapshot, where nobody is told anything.
            pub fn replay<'a>(
                &mut self,
                log: impl IntoIterator<Item = (Actor, &'a str, Millis)>,
            ) -> Result<(), ReplayError> {
                match self { $(AnyGame::$variant(g) => replay_log(&mut **g, log)),+ }
            }

            /// Each of `viewers`' views as JSON text, in that order, written by the views' generated writer
            /// (`json_write::WriteJson`, serde's exact text) from one build of the view rebound from viewer to
            /// viewer (`Game::rebind_view`). Each is written into a buffer of `size_hint` bytes, which
            /// `json_write::to_raw_value` updates (the caller keeps it from call to call).
            pub fn views(&self, viewers: &[Viewer], size_hint: &mut usize) -> Vec<Box<RawValue>> {
                match self { $(AnyGame::$variant(g) => views_text(&**g, viewers, size_hint)),+ }
            }

            /// Whether every seat and the spectators see the same view now (see `Game::same_view_for_everyone`).
            pub fn same_view_for_everyone(&self) -> bool {
                match self { $(AnyGame::$variant(g) => g.same_view_for_everyone()),+ }
            }

            /// `seat`'s legal actions as the text of one JSON array, written into `buffer` in place of its last
            /// text (see [`json_write::Buffer`]; the caller compares it with the last list, or copies it out).
            pub fn legal_actions<'b>(&self, seat: Seat, buffer: &'b mut json_write::Buffer) -> &'b str {
                match self { $(AnyGame::$variant(g) => buffer.write(&g.legal_actions(seat))),+ }
            }

            /// When the engine wants the clock to act, with the clock's action as JSON text.
            pub fn deadline(&self) -> Option<Deadline<Box<RawValue>>> {
                match self {
                    $(AnyGame::$variant(g) => g.deadline().map(|d| Deadline { at: d.at, action: written(&d.action) })),+
                }
            }

            /// The passive action that skips `seat`'s current decision (see `Game::skip_action`), as JSON text,
            /// for games whose info says `can_skip`.
            pub fn skip_action(&self, seat: Seat) -> Option<Box<RawValue>> {
                match self { $(AnyGame::$variant(g) => g.skip_action(seat).map(|a| written(&a))),+ }
            }

            /// What a server bot playing `seat` does now (see `Game::bot_action`), as JSON text.
            pub fn bot_action(&self, seat: Seat, rng: &mut crate::rng::Rng) -> Option<Box<RawValue>> {
                match self { $(AnyGame::$variant(g) => g.bot_action(seat, rng).map(|a| written(&a))),+ }
            }

            /// Whether a bot or stand-in playing `seat` lets its legal actions pass for now (see `Game::bot_waits`).
            pub fn bot_waits(&self, seat: Seat) -> bool {
                match self { $(AnyGame::$variant(g) => g.bot_waits(seat)),+ }
            }

            /// When a bot or stand-in playing `seat` acts, if the game sets it (see `Game::bot_acts_at`).
            pub fn bot_acts_at(&self, seat: Seat) -> Option<Millis> {
                match self { $(AnyGame::$variant(g) => g.bot_acts_at(seat)),+ }
            }

            /// What the game keeps from its viewers, for the leak tests (see `crate::secrets`).
            pub fn secrets(&self) -> GameSecrets<'_> {
                GameSecrets(self)
            }
        }

        impl GameSecrets<'_> {
            /// The orders `viewer` may not learn (see `Secrets::hidden_orders`).
            pub fn hidden_orders(&self, viewer: Viewer) -> Vec<HiddenOrder> {
                match self.0 { $(AnyGame::$variant(g) => g.hidden_orders(viewer)),+ }
            }

            /// Copies of this game that differ only in what some viewer may not know, each with the seat that
            /// may know the difference: the game's own (`Secrets::hidden_twins`) and one with another random
            /// generator; none identical to this game.
            pub fn hidden_twins(&self) -> Vec<Twin<AnyGame>> {
                match self.0 {
                    $(AnyGame::$variant(g) => hidden_twins(&**g)
                        .into_iter()
                        .map(|t| Twin { what: t.what, state: AnyGame::$variant(Box::new(t.state)), known_to: t.known_to })
                        .collect()),+
                }
            }

            /// The places of `viewer`'s view where a secret would show (see `Secrets::view_secrets`).
            pub fn view_secrets(&self, viewer: Viewer) -> Vec<ViewSecret> {
                match self.0 { $(AnyGame::$variant(g) => g.view_secrets(viewer)),+ }
            }

            /// What `view` (`viewer`'s view as JSON, as received) shows that `viewer` may not see.
            pub fn view_leaks(&self, viewer: Viewer, view: &Value) -> Vec<String> {
                match self.0 { $(AnyGame::$variant(g) => crate::secrets::view_leaks(&**g, viewer, view)),+ }
            }

            /// The numbers of the game's random generator, as secret as the seed (empty for a game without one).
            pub fn rng_numbers(&self) -> Vec<u64> {
                match self.0 {
                    $(AnyGame::$variant(g) => (**g).clone().rng_mut().map(|r| crate::secrets::rng_numbers(r)).unwrap_or_default()),+
                }
            }
        }

        // Every hosted game describes its hidden information: a game without `Secrets` does not compile.
        const _: fn() = || {
            fn has_secrets<G: Secrets>() {}
            $(has_secrets::<$ty>();)+
        };
    };
}

games! {
    HideAndEeek => crate::games::hide_and_eeek::HideAndEeek,
    Molehills => crate::games::molehills::Molehills,
    NewYearPuzzle => crate::games::new_year_puzzle::NewYearPuzzle,
    Quacks => crate::games::quacks::Quacks,
    Hickory => crate::games::hickory::Hickory,
}

impl AnyGame {
    /// The whole state as JSON text, hidden information included: for admins and snapshots only, never for
    /// players. Written straight from the game (members in the engine's order), without building a tree: the
    /// server stores one as a snapshot every few dozen actions, and the tree and its printing were ~3 % of its
    /// instructions per action (docs/performance.md, "Measured reasons").
    pub fn full_state(&self) -> String {
        to_text(self)
    }

    /// Restores a game from [`AnyGame::full_state`]'s text.
    pub fn from_full_state(state: &str) -> Result<AnyGame, serde_json::Error> {
        serde_json::from_str(state)
    }
}

/// What a game keeps from its viewers ([`AnyGame::secrets`]): the hooks `rules/tests/secrets.rs` and the leak
/// tests use to check that no view, event or reply gives it away.
#[derive(Clone, Copy, Debug)]
pub struct GameSecrets<'a>(&'a AnyGame);

/// Applies an action given as JSON text and writes the action and each event body back as text (see
/// [`AnyGame::apply`]).
fn apply_text<G: Game>(game: &mut G, actor: Actor, action: &str, now: Millis) -> Result<Applied, Rejection> {
    let action: G::Action = parse_action(action)?;
    let events = game.apply(actor, &action, now).map_err(Rejection::from)?;
    Ok(Applied {
        action: written(&action),
        events: events
            .into_iter()
            .map(|e| Event {
                body: written(&e.body),
                audience: e.audience,
            })
            .collect(),
    })
}

/// Applies a stored log without writing anything (see [`AnyGame::replay`]).
fn replay_log<'a, G: Game>(
    game: &mut G,
    log: impl IntoIterator<Item = (Actor, &'a str, Millis)>,
) -> Result<(), ReplayError> {
    for (index, (actor, action, at)) in log.into_iter().enumerate() {
        parse_action::<G::Action>(action)
            .and_then(|action| game.apply(actor, &action, at).map(drop).map_err(Rejection::from))
            .map_err(|rejection| ReplayError { index, rejection })?;
    }
    Ok(())
}

/// Each of `viewers`' views as JSON text, from one build of the view rebound from viewer to viewer (see
/// [`AnyGame::views`]).
fn views_text<G: Game>(game: &G, viewers: &[Viewer], size_hint: &mut usize) -> Vec<Box<RawValue>> {
    let Some((&first, rest)) = viewers.split_first() else {
        return Vec::new();
    };
    let mut view = game.view(first);
    // The members every viewer shares (`#[json(shared)]`), written for the first viewer and copied for the others.
    let mut shared = json_write::Shared::default();
    let mut texts = Vec::with_capacity(viewers.len());
    texts.push(json_write::to_raw_value_shared(&view, size_hint, &mut shared));
    for &viewer in rest {
        game.rebind_view(&mut view, viewer);
        texts.push(json_write::to_raw_value_shared(&view, size_hint, &mut shared));
    }
    texts
}

/// An action applied by [`AnyGame::apply`], as JSON text: serde's exact text of the engine's typed values.
#[derive(Debug)]
pub struct Applied {
    /// The action as the engine read it, written back from its typed value: what the action log stores. Reading
    /// it gives the same action again.
    pub action: Box<RawValue>,
    /// The events, each body written once.
    pub events: Vec<Event<Box<RawValue>>>,
}

/// One game's wire types as JSON Schemas, from [`schemas`]. Each is a standalone root schema: `config`
/// and `action` as the server accepts them, `view` and `event` as it writes them.
#[derive(Clone, Debug, Serialize)]
pub struct GameSchemas {
    pub id: &'static str,
    /// The lobby options (`create_lobby.options`; the `lobby` push shows them with defaults filled in).
    pub config: schemars::Schema,
    /// One action, as listed in `legal_actions` and sent back in an `action` request.
    pub action: schemars::Schema,
    /// A viewer's view (`state.view`), the same type for seats and spectators.
    pub view: schemars::Schema,
    /// One event body (an element of `state.events`).
    pub event: schemars::Schema,
}

/// A stored log that does not replay (a corrupted log, or rules changed without a new rules version): the
/// first action the engine refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("action {index} of the log was refused: {rejection}")]
pub struct ReplayError {
    pub index: usize,
    pub rejection: Rejection,
}

// ---- Hidden twins and generic visits (issue 29).

/// `game`'s own hidden twins, and one with another random generator, without any twin identical to `game`.
fn hidden_twins<G: Secrets>(game: &G) -> Vec<Twin<G>> {
    let mut twins = game.hidden_twins();
    if let Some(rng) = game.clone().rng_mut() {
        let other = crate::rng::Rng::from_seed(rng.clone().next_u64() ^ 0x5ec2_e75e_ec2e_75e0);
        twins.push(Twin::hidden("the random generator", game, |g| {
            if let Some(rng) = g.rng_mut() {
                *rng = other;
            }
        }));
    }
    let original = to_text(game);
    twins.retain(|t| to_text(&t.state) != original);
    twins
}

/// Something done for each hosted game's type (see [`visit_games`]): a test written once, generic over
/// the engine, that runs for every registered game.
pub trait GameVisitor {
    fn visit<G: Game + Secrets>(&mut self);
}

#[cfg(test)]
mod skip_tests {
    use super::*;
    use crate::testkit::Parsed;

    /// A game that says `can_skip` names a legal skip for every seat with a decision, and a match in which every
    /// seat is skipped from the start still ends; the other games name none.
    #[test]
    fn skippable_games_always_name_a_legal_skip_and_end_when_everyone_is_skipped() {
        let mut skippable = 0;
        for info in catalogue() {
            for players in info.min_players..=info.max_players {
                let mut game =
                    AnyGame::new(info.id, None, &Value::Null, players, 7 + u64::from(players)).unwrap();
                let mut now = 1_000;
                let mut steps = 0;
                while !matches!(game.status(), Status::Over) {
                    assert!(
                        steps < 20_000,
                        "{} does not end when every seat is skipped",
                        info.id
                    );
                    let seats: Vec<Seat> = Seat::all(players)
                        .filter(|s| !game.legal_values(*s).is_empty())
                        .collect();
                    if !info.can_skip {
                        for seat in &seats {
                            assert_eq!(game.skip_value(*seat), None, "{} cannot skip", info.id);
                        }
                        break;
                    }
                    if seats.is_empty() {
                        let deadline = game.deadline().expect("no seat decides, so the clock must");
                        now = now.max(deadline.at);
                        game.apply(Actor::Clock, deadline.action.get(), now).unwrap();
                        continue;
                    }
                    let seat = seats[0];
                    let skip = game.skip_value(seat).expect("a skippable game names a skip");
                    assert!(
                        game.legal_values(seat).contains(&skip),
                        "{}: {skip} is not legal",
                        info.id
                    );
                    game.apply(Actor::Seat(seat), &skip.to_string(), now).unwrap();
                    now += 10;
                    steps += 1;
                }
                if info.can_skip {
                    skippable += 1;
                    assert!(game.outcome().is_some());
                }
            }
        }
        assert!(skippable > 0, "at least one game can be skipped");
    }
}
