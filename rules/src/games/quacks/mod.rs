//! The Quacks of Quedlinburg (Schmidt Spiele, 2018): base game with ingredient set 1, 2-4 players, 9 rounds.
//!
//! A round is: reveal a fortune-teller card (purple: carried out at once, possibly with a choice per player;
//! blue: in force for the round), place the rat stones (from round 2), brew (simultaneous: every player draws
//! from their own bag at their own pace; in round 9 in lockstep), then evaluate (bonus die, chip actions,
//! rubies, points, buying, spending rubies). All components are data in [`data`]; the decisions the published
//! rules leave open are recorded in `docs/rules/quacks.md`.
//!
//! Hidden information: the chips a seat is looking at before placing one (crow skull, Strong Ingredient, An
//! Opportunistic Moment) are told to that seat only; in round 9 each seat's "draw or stop" stays secret until
//! the stir. A bag is a multiset with no order: the next chip is chosen by the state's [`Rng`] at the moment of
//! the draw, so no view can contain it. The contents of each bag are public knowledge (every chip a player
//! owns was bought or gained in the open), except while some of them are being looked at in secret.

mod bot;
mod brewing;
pub mod data;
mod legal;
mod round;
mod scoring;
mod secrets;
#[cfg(test)]
mod tests;
mod turn;
mod view;

use serde::{Deserialize, Serialize};

pub use self::view::*;
use data::*;
pub use data::{Card, CardKind, Chip, ChipPrice, Colour, DieFace};

use crate::model::{
    Actor, Deadline, Event, Game, GameInfo, Millis, OptionKind, OptionSpec, Outcome, Reject, RejectKind,
    Seat, SetupError, Status, Viewer,
};
use crate::rng::Rng;

/// Options a lobby may set (the base game with set 1 is always played).
#[derive(
    Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(default, deny_unknown_fields)]
pub struct QuacksConfig {
    /// The rulebook's variant: rounds 1-8 are brewed in lockstep ("Stir!") like round 9. Rules version 2 on.
    pub stir_every_round: bool,
}

/// The first rules version: every optional benefit taken, purchases first come first served, no options.
pub const RULES_V1: u32 = 1;
/// Rules version 2 (issue 25): the red bonus and the optional droplet steps may be declined, buying follows
/// start-player order when the supply could run out, the lockstep option.
pub const RULES_V2: u32 = 2;

fn rules_v1() -> u32 {
    RULES_V1
}

fn is_v1(version: &u32) -> bool {
    *version == RULES_V1
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Where a player's brewing stands this round.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Brew {
    Brewing,
    Stopped,
    Exploded,
}

/// A decision a player must take before anything else they do.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pending {
    /// The choice a purple fortune-teller card offers.
    Fortune { card: Card },
    /// A crow skull was placed: place one of the chips looked at, or none.
    CrowSkull,
    /// An Opportunistic Moment: trade one of the chips looked at up, or not.
    Opportunistic,
    /// A Second Chance: keep this potion or put all its chips back and start again.
    SecondChance,
    /// Strong Ingredient: place one last chip of those looked at, or none.
    StrongIngredient,
    /// Schadenfreude: the player on the right exploded; take a 2-chip.
    Schadenfreude,
}

/// A player's progress through evaluation steps D-F.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Shop {
    /// Not evaluating.
    Idle,
    /// Exploded: points or buying (in round 9: points or coins converted to points).
    PointsOrBuying,
    /// Buying 1 or 2 chips of different colours, or none.
    Buying,
    /// Spending rubies.
    Spending,
    Done,
}

/// A round-9 commitment, secret until the stir.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Commitment {
    Draw,
    Stop,
}

/// A chip lying in a pot.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
pub struct Placed {
    pub chip: Chip,
    pub space: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
struct Player {
    score: u32,
    rubies: u32,
    droplet: u8,
    /// Rat tails counted this round: the rat stone lies this many spaces past the droplet.
    rat_tails: u32,
    flask_full: bool,
    /// The chips in the bag, kept sorted (a multiset: there is no order to draw from).
    bag: Vec<Chip>,
    pot: Vec<Placed>,
    /// Chips drawn to be looked at before a decision, kept sorted like the bag; they belong to the bag again
    /// afterwards.
    aside: Vec<Chip>,
    whites: u8,
    brew: Brew,
    pending: Option<Pending>,
    /// Optional returns open right after the last placement.
    flask_open: bool,
    well_stirred_open: bool,
    mandrake_open: bool,
    /// Whether a white chip has been placed this round (Well Stirred acts on the first one only).
    white_seen: bool,
    second_chance_offered: bool,
    commitment: Option<Commitment>,
    shop: Shop,
    /// Coins of the scoring space in evaluation.
    coins: u8,
    /// The scoring space of the last evaluated round (the tie-break after round 9).
    scoring_space: u8,
    /// Rules version 2: the spaces the red chip just placed moved for its oranges; its owner may give them back
    /// until the next placement (0: nothing to decline). Never set under version 1 (and then not stored).
    #[serde(default, skip_serializing_if = "is_zero")]
    red_bonus: u8,
    /// Rules version 2: droplet steps taken this round that the published rules say one "may" take (the bonus
    /// die's droplet face, ghost's breath with 3 or more) and that may still be given back. Never set under
    /// version 1 (and then not stored).
    #[serde(default, skip_serializing_if = "is_zero")]
    optional_steps: u8,
}

impl Player {
    fn start_space(&self) -> u8 {
        let rat = u8::try_from(self.rat_tails).unwrap_or(u8::MAX);
        self.droplet.saturating_add(rat).min(LAST_CHIP_SPACE)
    }

    /// The space of the last chip, or of the rat stone when the pot is empty.
    fn last_space(&self) -> u8 {
        self.pot.last().map_or_else(|| self.start_space(), |p| p.space)
    }

    /// The first free space after the last chip.
    fn next_free_space(&self) -> u8 {
        self.last_space() + 1
    }

    /// The space that would be scored now: the first free one, or the spoon past the last.
    fn scoring_space_now(&self) -> u8 {
        self.next_free_space().min(POT_TRACK.len() as u8 - 1)
    }

    fn count_in_pot(&self, colour: Colour) -> usize {
        self.pot.iter().filter(|p| p.chip.colour == colour).count()
    }

    fn can_draw(&self) -> bool {
        !self.bag.is_empty() && self.last_space() < LAST_CHIP_SPACE
    }

    fn put_in_bag(&mut self, chip: Chip) {
        let at = self.bag.partition_point(|c| *c <= chip);
        self.bag.insert(at, chip);
    }

    fn remove_from_bag(&mut self, chip: Chip) -> bool {
        match self.bag.iter().position(|c| *c == chip) {
            Some(i) => {
                self.bag.remove(i);
                true
            }
            None => false,
        }
    }

    fn return_aside(&mut self) -> usize {
        let aside = std::mem::take(&mut self.aside);
        let n = aside.len();
        for chip in aside {
            self.put_in_bag(chip);
        }
        n
    }

    /// Every chip this player owns, wherever it is.
    #[cfg(test)]
    fn owned(&self) -> Vec<Chip> {
        let mut all: Vec<Chip> = self.bag.clone();
        all.extend(self.aside.iter().copied());
        all.extend(self.pot.iter().map(|p| p.chip));
        all.sort();
        all
    }

    fn move_droplet(&mut self, steps: u8) {
        self.droplet = self.droplet.saturating_add(steps).min(LAST_CHIP_SPACE);
    }

    fn reset_for_round(&mut self) {
        let pot = std::mem::take(&mut self.pot);
        for p in pot {
            self.put_in_bag(p.chip);
        }
        self.return_aside();
        self.rat_tails = 0;
        self.whites = 0;
        self.brew = Brew::Brewing;
        self.pending = None;
        self.flask_open = false;
        self.well_stirred_open = false;
        self.mandrake_open = false;
        self.white_seen = false;
        self.second_chance_offered = false;
        self.commitment = None;
        self.shop = Shop::Idle;
        self.coins = 0;
        self.red_bonus = 0;
        self.optional_steps = 0;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, json_write::WriteJson)]
#[serde(rename_all = "snake_case")]
enum Phase {
    /// Answering the purple card (each player before their own first draw) and brewing.
    Brewing,
    /// Strong Ingredient's last chip or Schadenfreude's gift.
    AfterBrewing,
    /// Steps D-F: points or buying, buying, spending rubies.
    Evaluation,
    Over,
}

impl Phase {
    /// The phase as views name it (the same as its serde name in the state).
    fn name(self) -> &'static str {
        match self {
            Phase::Brewing => "brewing",
            Phase::AfterBrewing => "after_brewing",
            Phase::Evaluation => "evaluation",
            Phase::Over => "over",
        }
    }
}

/// The state of a game of Quacks.
#[derive(Clone, Debug, Serialize, Deserialize, json_write::WriteJson)]
pub struct Quacks {
    players: Vec<Player>,
    round: u8,
    start_player: Seat,
    /// Cards still to come; the top is the last. Hidden.
    deck: Vec<Card>,
    card: Option<Card>,
    /// Chips left in the box, in [`SUPPLY`] order.
    supply: Vec<(Chip, u8)>,
    phase: Phase,
    rng: Rng,
    /// The rules version this match plays by (a state stored before version 2 reads as version 1).
    #[serde(default = "rules_v1", skip_serializing_if = "is_v1")]
    rules_version: u32,
    /// Option (version 2 on): every round is brewed in lockstep like round 9.
    #[serde(default, skip_serializing_if = "is_false")]
    stir_every_round: bool,
    /// Version 2 on: this round's purchases go in start-player order (some chip could run out).
    #[serde(default, skip_serializing_if = "is_false")]
    buying_in_order: bool,
}

/// What a purple card lets a player choose.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "option", rename_all = "snake_case")]
pub enum FortuneChoice {
    /// Take this chip into the bag (Rats Are Your Friends: a 4-chip; You Only Get to Choose One: the black 1
    /// or a 2-chip; Choose Wisely: the purple 1; Wheel and Deal: a 1-chip for a ruby; Schadenfreude: a 2-chip).
    TakeChip { chip: Chip },
    /// Rats Are Your Friends: 1 point per rat tail of this round.
    PointsForRatTails,
    /// A Good Start: place the rat as usual.
    KeepRatTails,
    /// A Good Start: give up this many rat tails (1-3) for as many rubies.
    TradeRatTails { tails: u32 },
    /// Just in Time: 4 points.
    FourPoints,
    /// Just in Time: remove a white 1 from the bag for good.
    RemoveWhite,
    /// You Only Get to Choose One: 3 rubies.
    ThreeRubies,
    /// Choose Wisely: move the droplet 2 spaces.
    DropletSteps,
    /// An Opportunistic Moment: trade this chip (one of those looked at) for the next value of its colour.
    TradeUp { chip: Chip },
    /// Wheel and Deal, An Opportunistic Moment: no trade.
    Decline,
}

/// Everything a seat can do. JSON: `{"type": "draw"}`, `{"type": "buy", "chips": [...]}`, ...
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, json_write::TagFirst, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Draw a chip from the bag (in round 9: commit to draw at the next stir).
    Draw,
    /// Stop brewing (in round 9: commit to stop at the next stir).
    Stop,
    /// Put the white chip just placed back into the bag, emptying the flask.
    UseFlask,
    /// Well Stirred: put the first white chip of the round back, flask untouched.
    ReturnFirstWhite,
    /// Mandrake: put the white chip placed just before it back into the bag.
    ReturnWhiteBeforeMandrake,
    /// Toadstool (rules version 2): move the red chip just placed back by the spaces its oranges gave it.
    DeclineRedBonus,
    /// Rules version 2: give back one droplet step the bonus die or ghost's breath gave this round (before the
    /// first chip of the round, or in evaluation until the round is finished).
    DeclineDropletStep,
    /// Crow skull or Strong Ingredient: place this chip (one of those looked at).
    Place {
        chip: Chip,
    },
    /// Crow skull or Strong Ingredient: put all the chips looked at back.
    PlaceNone,
    /// A Second Chance: put every chip of the pot back and brew again.
    StartOver,
    /// A Second Chance: keep this potion.
    KeepPotion,
    /// Answer a fortune-teller card.
    Fortune {
        choice: FortuneChoice,
    },
    /// Exploded: take the points of the scoring space instead of buying.
    TakePoints,
    /// Exploded in round 9: take the coins of the scoring space as points (5 coins = 1 point).
    ConvertCoins,
    /// Buy 1 or 2 chips of different colours (listed in ascending order).
    Buy {
        chips: Vec<Chip>,
    },
    BuyNothing,
    /// Pay 2 rubies to move the droplet one space.
    MoveDroplet,
    /// Pay 2 rubies to refill the flask.
    RefillFlask,
    /// Done with this round's evaluation.
    FinishRound,
}

/// Why something was given.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum Reason {
    Fortune { card: Card },
    BonusDie,
    Moth,
    Spider,
    GhostsBreath,
    RubySpace,
    ScoringSpace,
    ExtraWhite,
}

/// A gain (or loss) of some resource.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Gain {
    Points { points: u32 },
    Rubies { rubies: u32 },
    DropletSteps { steps: u8 },
    Chip { chip: Chip },
    ChipRemoved { chip: Chip },
}

/// What happened, for clients to show.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum QuacksEvent {
    RoundStarted {
        round: u8,
        start_player: Seat,
    },
    BookOpened {
        colour: Colour,
    },
    CardRevealed {
        card: Card,
    },
    DieRolled {
        seat: Seat,
        face: DieFace,
    },
    Gained {
        seat: Seat,
        gain: Gain,
        reason: Reason,
    },
    RatTails {
        seat: Seat,
        tails: u32,
    },
    /// Chips drawn face up and put back at once (Less Is More).
    Showed {
        seat: Seat,
        chips: Vec<Chip>,
    },
    /// Chips drawn to be looked at by `seat` alone: how many.
    DrewToLookAt {
        seat: Seat,
        count: usize,
    },
    /// The chips `seat` is looking at (to that seat only).
    LookingAt {
        seat: Seat,
        chips: Vec<Chip>,
    },
    /// The chips looked at went back into the bag (`count` of them).
    PutBack {
        seat: Seat,
        count: usize,
    },
    Chose {
        seat: Seat,
        choice: FortuneChoice,
    },
    TradedUp {
        seat: Seat,
        from: Chip,
        to: Chip,
    },
    Placed {
        seat: Seat,
        chip: Chip,
        space: u8,
        whites: u8,
    },
    Exploded {
        seat: Seat,
    },
    Stopped {
        seat: Seat,
    },
    FlaskUsed {
        seat: Seat,
        chip: Chip,
    },
    WhiteReturned {
        seat: Seat,
        chip: Chip,
    },
    /// The red chip just placed moved back to `space`: its bonus was declined.
    RedBonusDeclined {
        seat: Seat,
        space: u8,
    },
    /// A droplet step was given back: the droplet is on `space`.
    DropletStepDeclined {
        seat: Seat,
        space: u8,
    },
    StartedOver {
        seat: Seat,
    },
    KeptPotion {
        seat: Seat,
    },
    /// Round 9: `seat` has decided for the next stir (public, without saying what).
    Committed {
        seat: Seat,
    },
    /// Round 9: what `seat` decided (to that seat only, until the stir).
    CommittedTo {
        seat: Seat,
        commitment: Commitment,
    },
    /// Round 9: the stir, revealing every commitment.
    Stirred {
        draw: Vec<Seat>,
        stop: Vec<Seat>,
    },
    Scoring {
        seat: Seat,
        space: u8,
        coins: u8,
        points: u8,
        exploded: bool,
    },
    Bought {
        seat: Seat,
        chips: Vec<Chip>,
    },
    BoughtNothing {
        seat: Seat,
    },
    DropletMoved {
        seat: Seat,
        space: u8,
    },
    FlaskRefilled {
        seat: Seat,
    },
    Converted {
        seat: Seat,
        coins: u32,
        rubies: u32,
        points: u32,
    },
    FinishedRound {
        seat: Seat,
    },
    GameOver {
        scores: Vec<u32>,
    },
}

/// Why an action was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuacksReject {
    #[error("the game is over")]
    GameOver,
    #[error("there is no {0} at this table")]
    NoSuchSeat(Seat),
    #[error("this game has no timed actions")]
    NoClock,
    #[error("{0} has nothing to decide now")]
    NothingToDecide(Seat),
    #[error("finish the pending decision first")]
    DecisionPending,
    #[error("the bag is empty")]
    BagEmpty,
    #[error("the pot is full")]
    PotFull,
    #[error("the flask is empty")]
    FlaskEmpty,
    #[error("the flask only returns a white chip just placed that did not explode the pot")]
    FlaskNotNow,
    #[error("{chip} is sold out")]
    SoldOut { chip: Chip },
    #[error("the {colour:?} book is not in play yet")]
    BookNotInPlay { colour: Colour },
    #[error("costs {cost} coins, you have {coins}")]
    CannotAfford { cost: u32, coins: u8 },
    #[error("two chips bought must differ in colour")]
    SameColour,
    #[error("not enough rubies")]
    NotEnoughRubies,
    #[error("this is not one of the actions available now")]
    NotAvailable,
}

impl Reject for QuacksReject {
    fn kind(&self) -> RejectKind {
        match self {
            QuacksReject::GameOver => RejectKind::GameOver,
            QuacksReject::NoSuchSeat(_) => RejectKind::NoSuchSeat,
            QuacksReject::NoClock => RejectKind::NotDue,
            QuacksReject::NothingToDecide(_) => RejectKind::NotYourTurn,
            _ => RejectKind::IllegalAction,
        }
    }
}

impl Quacks {
    fn n(&self) -> u8 {
        self.players.len() as u8
    }

    /// Seats in order from the start player.
    fn order(&self) -> Vec<Seat> {
        let n = self.n();
        (0..n).map(|i| Seat((self.start_player.0 + i) % n)).collect()
    }

    /// Whether this match plays by rules version 2 or later.
    fn v2(&self) -> bool {
        self.rules_version >= RULES_V2
    }

    /// Whether brewing this round is in lockstep (round 9, or every round with the option).
    fn stirring(&self) -> bool {
        self.round == ROUNDS || self.stir_every_round
    }

    fn card_is(&self, card: Card) -> bool {
        self.card == Some(card)
    }

    fn white_limit(&self) -> u8 {
        if self.card_is(Card::LivingInLuxury) {
            LUXURY_WHITE_LIMIT
        } else {
            WHITE_LIMIT
        }
    }

    fn book_open(&self, colour: Colour) -> bool {
        colour.book_from_round().is_some_and(|r| self.round >= r)
    }

    fn in_supply(&self, chip: Chip) -> u8 {
        self.supply
            .iter()
            .find(|(c, _)| *c == chip)
            .map_or(0, |(_, n)| *n)
    }

    fn take_from_supply(&mut self, chip: Chip) -> bool {
        match self.supply.iter_mut().find(|(c, _)| *c == chip) {
            Some((_, n)) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    fn return_to_supply(&mut self, chip: Chip) {
        if let Some((_, n)) = self.supply.iter_mut().find(|(c, _)| *c == chip) {
            *n += 1;
        }
    }

    /// Gives `chip` from the supply into the bag of `seat`, if one is left.
    fn gain_chip(&mut self, seat: Seat, chip: Chip, reason: Reason, events: &mut Vec<Event<QuacksEvent>>) {
        if self.take_from_supply(chip) {
            self.players[seat.index()].put_in_bag(chip);
            events.push(Event::public(QuacksEvent::Gained {
                seat,
                gain: Gain::Chip { chip },
                reason,
            }));
        }
    }

    fn gain_points(&mut self, seat: Seat, points: u32, reason: Reason, events: &mut Vec<Event<QuacksEvent>>) {
        if points > 0 {
            self.players[seat.index()].score += points;
            events.push(Event::public(QuacksEvent::Gained {
                seat,
                gain: Gain::Points { points },
                reason,
            }));
        }
    }

    fn gain_rubies(&mut self, seat: Seat, rubies: u32, reason: Reason, events: &mut Vec<Event<QuacksEvent>>) {
        if rubies > 0 {
            self.players[seat.index()].rubies += rubies;
            events.push(Event::public(QuacksEvent::Gained {
                seat,
                gain: Gain::Rubies { rubies },
                reason,
            }));
        }
    }

    fn gain_droplet(&mut self, seat: Seat, steps: u8, reason: Reason, events: &mut Vec<Event<QuacksEvent>>) {
        if steps > 0 {
            self.players[seat.index()].move_droplet(steps);
            events.push(Event::public(QuacksEvent::Gained {
                seat,
                gain: Gain::DropletSteps { steps },
                reason,
            }));
        }
    }

    /// A droplet step the rules let a player take or not: taken, and under version 2 it may be given back.
    fn gain_optional_droplet(
        &mut self,
        seat: Seat,
        steps: u8,
        reason: Reason,
        events: &mut Vec<Event<QuacksEvent>>,
    ) {
        let before = self.players[seat.index()].droplet;
        self.gain_droplet(seat, steps, reason, events);
        if self.v2() {
            let p = &mut self.players[seat.index()];
            p.optional_steps += p.droplet - before;
        }
    }

    fn roll_die(&mut self, seat: Seat, reason: Reason, events: &mut Vec<Event<QuacksEvent>>) {
        let face = BONUS_DIE[self.rng.index(BONUS_DIE.len())];
        events.push(Event::public(QuacksEvent::DieRolled { seat, face }));
        match face {
            DieFace::OnePoint => self.gain_points(seat, 1, reason, events),
            DieFace::TwoPoints => self.gain_points(seat, 2, reason, events),
            DieFace::Ruby => self.gain_rubies(seat, 1, reason, events),
            DieFace::Droplet => self.gain_optional_droplet(seat, 1, reason, events),
            DieFace::Pumpkin => self.gain_chip(seat, ORANGE_1, reason, events),
        }
    }
}

impl Game for Quacks {
    type Config = QuacksConfig;
    type Action = Action;
    type Event = QuacksEvent;
    type View<'a> = QuacksView<'a>;
    type Reject = QuacksReject;

    fn info() -> GameInfo {
        GameInfo {
            id: "quacks",
            name: "The Quacks of Quedlinburg",
            rules_version: RULES_V2,
            min_players: 2,
            max_players: 4,
            can_skip: true,
            options: vec![OptionSpec {
                key: "stir_every_round",
                label: "Draw in lockstep (\"Stir!\") in every round, not only in round 9",
                kind: OptionKind::Boolean { default: false },
                players: None,
            }],
        }
    }

    fn new(config: &QuacksConfig, players: u8, seed: u64) -> Result<Self, SetupError> {
        Self::new_at(config, players, seed, RULES_V2)
    }

    fn oldest_rules_version() -> u32 {
        RULES_V1
    }

    fn new_at(config: &QuacksConfig, players: u8, seed: u64, rules_version: u32) -> Result<Self, SetupError> {
        let info = Self::info();
        if !(RULES_V1..=info.rules_version).contains(&rules_version) {
            return Err(SetupError::RulesVersion {
                game: info.id.to_string(),
                version: rules_version,
                oldest: RULES_V1,
                current: info.rules_version,
            });
        }
        if rules_version == RULES_V1 && config.stir_every_round {
            return Err(SetupError::BadOption {
                option: "stir_every_round".to_string(),
                message: "rules version 1 has no options".to_string(),
            });
        }
        info.check_players(players)?;
        let mut rng = Rng::from_seed(seed);
        let mut deck = FORTUNE_DECK.to_vec();
        rng.shuffle(&mut deck);
        let start_player = Seat(rng.index(usize::from(players)) as u8);
        let mut game = Quacks {
            players: Vec::new(),
            round: 0,
            start_player,
            deck,
            card: None,
            supply: SUPPLY.to_vec(),
            phase: Phase::Brewing,
            rng,
            rules_version,
            stir_every_round: config.stir_every_round,
            buying_in_order: false,
        };
        for _ in 0..players {
            let mut bag = Vec::new();
            for (chip, count) in STARTING_BAG {
                for _ in 0..count {
                    let taken = game.take_from_supply(chip);
                    assert!(taken, "the box holds every starting bag");
                    bag.push(chip);
                }
            }
            bag.sort();
            game.players.push(Player {
                score: 0,
                rubies: STARTING_RUBIES,
                droplet: 0,
                rat_tails: 0,
                flask_full: true,
                bag,
                pot: Vec::new(),
                aside: Vec::new(),
                whites: 0,
                brew: Brew::Brewing,
                pending: None,
                flask_open: false,
                well_stirred_open: false,
                mandrake_open: false,
                white_seen: false,
                second_chance_offered: false,
                commitment: None,
                shop: Shop::Idle,
                coins: 0,
                scoring_space: 0,
                red_bonus: 0,
                optional_steps: 0,
            });
        }
        let mut events = Vec::new();
        game.start_round(&mut events);
        game.advance(&mut events);
        Ok(game)
    }

    fn players(&self) -> u8 {
        self.n()
    }

    fn status(&self) -> Status {
        if self.phase == Phase::Over {
            return Status::Over;
        }
        let seats: Vec<Seat> = Seat::all(self.n()).filter(|s| self.decides(*s)).collect();
        let secret = self.phase == Phase::Brewing && self.stirring();
        Status::Simultaneous { seats, secret }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if seat.0 >= self.n() || self.phase == Phase::Over {
            return Vec::new();
        }
        let p = &self.players[seat.index()];
        match self.phase {
            Phase::Brewing | Phase::AfterBrewing => self.brewing_actions(seat),
            Phase::Evaluation if !self.may_shop(seat) => Vec::new(),
            Phase::Evaluation => {
                let mut out = match p.shop {
                    Shop::PointsOrBuying if self.round == ROUNDS => {
                        vec![Action::TakePoints, Action::ConvertCoins]
                    }
                    Shop::PointsOrBuying => {
                        let mut out = vec![Action::TakePoints];
                        out.extend(self.buy_options(seat));
                        out
                    }
                    Shop::Buying => self.buy_options(seat),
                    Shop::Spending => {
                        let mut out = self.spend_options(seat);
                        out.push(Action::FinishRound);
                        out
                    }
                    Shop::Idle | Shop::Done => return Vec::new(),
                };
                if p.optional_steps > 0 && self.round != ROUNDS {
                    out.push(Action::DeclineDropletStep);
                }
                out
            }
            Phase::Over => Vec::new(),
        }
    }

    fn apply(
        &mut self,
        actor: Actor,
        action: &Action,
        _now: Millis,
    ) -> Result<Vec<Event<QuacksEvent>>, QuacksReject> {
        if self.phase == Phase::Over {
            return Err(QuacksReject::GameOver);
        }
        let seat = match actor {
            Actor::Clock => return Err(QuacksReject::NoClock),
            Actor::Seat(seat) if seat.0 >= self.n() => return Err(QuacksReject::NoSuchSeat(seat)),
            Actor::Seat(seat) => seat,
        };
        if !self.decides(seat) {
            return Err(QuacksReject::NothingToDecide(seat));
        }
        // Two chips may be sent in either order.
        let action = match action {
            Action::Buy { chips } => {
                let mut chips = chips.clone();
                chips.sort();
                Action::Buy { chips }
            }
            other => other.clone(),
        };
        if !self.is_legal(seat, &action) {
            return Err(self.explain(seat, &action));
        }
        let mut events = Vec::new();
        self.perform(seat, &action, &mut events);
        self.advance(&mut events);
        Ok(events)
    }

    fn view(&self, viewer: Viewer) -> QuacksView<'_> {
        self.view_of(viewer)
    }

    fn rebind_view<'a>(&'a self, view: &mut QuacksView<'a>, viewer: Viewer) {
        self.rebind_view_of(view, viewer);
    }

    fn bot_action(&self, seat: Seat, rng: &mut crate::rng::Rng) -> Option<Self::Action> {
        bot::bot_action(self, seat, rng)
    }

    fn deadline(&self) -> Option<Deadline<Action>> {
        None
    }

    /// An absent brewer is skipped with the passive choice of each decision (docs/rules/quacks.md, "Absent
    /// players"): stop brewing, place no chip, keep the potion, decline or keep the rat tails, take the points,
    /// buy nothing, finish the round; a decision without a passive choice (a fortune card's two benefits) takes
    /// its first listed option.
    fn skip_action(&self, seat: Seat) -> Option<Action> {
        const PASSIVE: [Action; 8] = [
            Action::Stop,
            Action::PlaceNone,
            Action::KeepPotion,
            Action::Fortune {
                choice: FortuneChoice::Decline,
            },
            Action::Fortune {
                choice: FortuneChoice::KeepRatTails,
            },
            Action::TakePoints,
            Action::BuyNothing,
            Action::FinishRound,
        ];
        let legal = self.legal_actions(seat);
        PASSIVE
            .iter()
            .find(|a| legal.contains(a))
            .cloned()
            .or_else(|| legal.into_iter().next())
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.phase == Phase::Over).then(|| {
            let scores = self.players.iter().map(|p| i64::from(p.score)).collect();
            let keys = self.players.iter().map(|p| (p.score, p.scoring_space)).collect();
            Outcome::ranked(scores, keys)
        })
    }
}
