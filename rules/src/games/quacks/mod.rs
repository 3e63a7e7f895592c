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

pub mod data;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use data::*;
pub use data::{Card, CardKind, Chip, Colour, DieFace};

use crate::model::{
    Actor, Deadline, Event, Game, GameInfo, Millis, Outcome, Reject, RejectKind, Seat, SetupError, Status,
    Viewer,
};
use crate::rng::Rng;

/// The game has no options: the base game with set 1 is always played.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuacksConfig {}

/// Where a player's brewing stands this round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Brew {
    Brewing,
    Stopped,
    Exploded,
}

/// A decision a player must take before anything else they do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Commitment {
    Draw,
    Stop,
}

/// A chip lying in a pot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Placed {
    pub chip: Chip,
    pub space: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
}

/// What a purple card lets a player choose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Gain {
    Points { points: u32 },
    Rubies { rubies: u32 },
    DropletSteps { steps: u8 },
    Chip { chip: Chip },
    ChipRemoved { chip: Chip },
}

/// What happened, for clients to show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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

/// A count of one kind of chip, for views.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ChipCount {
    pub chip: Chip,
    pub count: u8,
}

/// Calls `each` with the count of every kind of chip in `a` and `b` together, in chip order (the order of
/// [`SUPPLY`], which is `Chip`'s), whatever the order of the two. A bag and the chips aside are kept sorted, so
/// the runs of equal chips at the heads of the two are counted as they are, with no copy and no sort; a state
/// whose chips are out of order (never made in play, but a view must not depend on the order of a bag) is
/// counted from a sorted copy.
fn for_each_count(a: &[Chip], b: &[Chip], mut each: impl FnMut(ChipCount)) {
    // `Chip`'s order as one number (colour, then value), cheaper to compare than the derived order.
    let key = |c: &Chip| u16::from_be_bytes([c.colour as u8, c.value]);
    if !(a.is_sorted_by_key(key) && b.is_sorted_by_key(key)) {
        let mut all = [a, b].concat();
        all.sort();
        return for_each_count(&all, &[], each);
    }
    let (mut a, mut b) = (a, b);
    loop {
        // The smallest chip left, then its run at the head of each slice.
        let chip = match (a.first(), b.first()) {
            (Some(&x), Some(&y)) => x.min(y),
            (Some(&x), None) | (None, Some(&x)) => x,
            (None, None) => return,
        };
        let in_a = a.iter().take_while(|c| **c == chip).count();
        let in_b = b.iter().take_while(|c| **c == chip).count();
        each(ChipCount {
            chip,
            count: (in_a + in_b) as u8,
        });
        a = &a[in_a..];
        b = &b[in_b..];
    }
}

/// The counts of every kind of chip in `a` and `b` together, in chip order.
fn counts(a: &[Chip], b: &[Chip]) -> Vec<ChipCount> {
    // At most one entry per kind of chip in the box.
    let mut out = Vec::with_capacity((a.len() + b.len()).min(SUPPLY.len()));
    for_each_count(a, b, |c| out.push(c));
    out
}

/// One player's board as a viewer sees it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PlayerView<'a> {
    pub seat: Seat,
    pub score: u32,
    pub rubies: u32,
    pub droplet: u8,
    pub rat_tails: u32,
    /// Where the first chip of the round is counted from (droplet plus rat tails).
    pub rat_space: u8,
    pub flask_full: bool,
    pub pot: &'a [Placed],
    pub whites: u8,
    pub brew: Brew,
    /// The space that would be scored now.
    pub scoring_space: u8,
    /// The chips not in the pot (bag and any being looked at): public knowledge.
    pub not_in_pot: Vec<ChipCount>,
    /// How many chips this player is looking at in secret.
    pub looking_at_count: usize,
    /// Own board only: the chips being looked at.
    pub looking_at: Option<&'a [Chip]>,
    /// Own board only: the bag without the chips being looked at.
    pub bag: Option<Vec<ChipCount>>,
    pub deciding: Option<Pending>,
    /// Round 9: whether this player has decided for the next stir.
    pub committed: bool,
    /// Own board only: the decision for the next stir.
    pub commitment: Option<Commitment>,
    pub shop: Shop,
    pub coins: u8,
}

/// What one viewer may know.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct QuacksView<'a> {
    pub viewer: Viewer,
    pub round: u8,
    pub rounds: u8,
    pub start_player: Seat,
    pub phase: &'static str,
    pub card: Option<Card>,
    pub cards_left: usize,
    pub white_limit: u8,
    pub books: Vec<Colour>,
    pub supply: Vec<ChipCount>,
    pub players: Vec<PlayerView<'a>>,
    /// Only once the game is over.
    pub outcome: Option<Outcome>,
}

/// Sides of the 4 neighbour-comparison of the moth book.
fn moth_reward(mine: usize, neighbours: &[usize]) -> (u8, u32) {
    match neighbours {
        [other] => {
            if mine > *other {
                (1, 1)
            } else if mine == *other && mine > 0 {
                (1, 0)
            } else {
                (0, 0)
            }
        }
        _ => {
            let beaten = neighbours.iter().filter(|n| mine > **n).count();
            if beaten == neighbours.len() && beaten > 0 {
                (1, 1)
            } else if beaten >= 1 {
                (1, 0)
            } else {
                (0, 0)
            }
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

    fn roll_die(&mut self, seat: Seat, reason: Reason, events: &mut Vec<Event<QuacksEvent>>) {
        let face = BONUS_DIE[self.rng.index(BONUS_DIE.len())];
        events.push(Event::public(QuacksEvent::DieRolled { seat, face }));
        match face {
            DieFace::OnePoint => self.gain_points(seat, 1, reason, events),
            DieFace::TwoPoints => self.gain_points(seat, 2, reason, events),
            DieFace::Ruby => self.gain_rubies(seat, 1, reason, events),
            DieFace::Droplet => self.gain_droplet(seat, 1, reason, events),
            DieFace::Pumpkin => self.gain_chip(seat, ORANGE_1, reason, events),
        }
    }

    /// Draws a chip at random from the bag of `seat` (the bag must not be empty).
    fn draw_chip(&mut self, seat: Seat) -> Chip {
        let len = self.players[seat.index()].bag.len();
        let i = self.rng.index(len);
        self.players[seat.index()].bag.remove(i)
    }

    /// Draws up to `n` chips to be looked at by `seat` alone.
    fn draw_to_look_at(&mut self, seat: Seat, n: usize, events: &mut Vec<Event<QuacksEvent>>) -> usize {
        let n = n.min(self.players[seat.index()].bag.len());
        for _ in 0..n {
            let chip = self.draw_chip(seat);
            self.players[seat.index()].aside.push(chip);
        }
        self.players[seat.index()].aside.sort();
        if n > 0 {
            events.push(Event::public(QuacksEvent::DrewToLookAt { seat, count: n }));
            events.push(Event::to(
                seat,
                QuacksEvent::LookingAt {
                    seat,
                    chips: self.players[seat.index()].aside.clone(),
                },
            ));
        }
        n
    }

    fn put_back(&mut self, seat: Seat, events: &mut Vec<Event<QuacksEvent>>) {
        let count = self.players[seat.index()].return_aside();
        if count > 0 {
            events.push(Event::public(QuacksEvent::PutBack { seat, count }));
        }
    }

    /// Places `chip` in the pot of `seat`. `ingredient`: the chip's own effect applies (false for Strong
    /// Ingredient's last chip). `can_explode`: false for chips placed by a card.
    fn place(
        &mut self,
        seat: Seat,
        chip: Chip,
        ingredient: bool,
        can_explode: bool,
        events: &mut Vec<Event<QuacksEvent>>,
    ) {
        let pumpkin_party = self.card_is(Card::PumpkinPatchParty);
        let well_stirred = self.card_is(Card::WellStirred);
        let limit = self.white_limit();
        let p = &mut self.players[seat.index()];
        let mut steps = chip.value;
        if ingredient {
            match chip.colour {
                Colour::Orange if pumpkin_party => steps += 1,
                Colour::Red => steps += toadstool_bonus(p.count_in_pot(Colour::Orange)),
                _ => {}
            }
        }
        let previous_white = p.pot.last().is_some_and(|q| q.chip.colour == Colour::White);
        let space = p.last_space().saturating_add(steps).min(LAST_CHIP_SPACE);
        p.pot.push(Placed { chip, space });
        p.flask_open = false;
        p.well_stirred_open = false;
        p.mandrake_open = ingredient && chip.colour == Colour::Yellow && previous_white;
        if chip.colour == Colour::White {
            p.whites += chip.value;
            p.flask_open = true;
            if well_stirred && !p.white_seen {
                p.well_stirred_open = true;
            }
            p.white_seen = true;
        }
        events.push(Event::public(QuacksEvent::Placed {
            seat,
            chip,
            space,
            whites: p.whites,
        }));
        if can_explode && p.whites > limit {
            p.brew = Brew::Exploded;
            p.flask_open = false;
            p.well_stirred_open = false;
            events.push(Event::public(QuacksEvent::Exploded { seat }));
            return;
        }
        if ingredient && chip.colour == Colour::Blue && space < LAST_CHIP_SPACE {
            let looked = self.draw_to_look_at(seat, crow_skull_draw(chip), events);
            if looked > 0 {
                self.players[seat.index()].pending = Some(Pending::CrowSkull);
            }
        }
    }

    /// After a brewing step of `seat`: offers A Second Chance once its moment has come.
    fn settle(&mut self, seat: Seat) {
        let second_chance = self.card_is(Card::ASecondChance);
        let p = &mut self.players[seat.index()];
        if p.pending.is_some() || !second_chance || p.second_chance_offered {
            return;
        }
        let reached = p.pot.len() >= usize::from(SECOND_CHANCE_AFTER_PLACEMENTS);
        if p.brew == Brew::Exploded || (p.brew == Brew::Brewing && reached) {
            p.second_chance_offered = true;
            p.pending = Some(Pending::SecondChance);
        }
    }

    /// Chips a card may give of this value, in the colours whose books are open (never white, purple or black).
    fn card_chips(&self, value: u8) -> Vec<Chip> {
        [
            Colour::Orange,
            Colour::Green,
            Colour::Blue,
            Colour::Red,
            Colour::Yellow,
        ]
        .into_iter()
        .filter(|c| self.book_open(*c))
        .map(|c| Chip::new(c, value))
        .filter(|chip| self.in_supply(*chip) > 0)
        .collect()
    }

    fn fortune_choices(&self, seat: Seat, card: Card) -> Vec<FortuneChoice> {
        let p = &self.players[seat.index()];
        let take = |chips: Vec<Chip>| chips.into_iter().map(|chip| FortuneChoice::TakeChip { chip });
        let mut out = Vec::new();
        match card {
            Card::RatsAreYourFriends => {
                out.extend(take(self.card_chips(4)));
                out.push(FortuneChoice::PointsForRatTails);
            }
            Card::AGoodStart => {
                out.push(FortuneChoice::KeepRatTails);
                for tails in 1..=p.rat_tails.min(A_GOOD_START_MAX_TAILS) {
                    out.push(FortuneChoice::TradeRatTails { tails });
                }
            }
            Card::JustInTime => {
                out.push(FortuneChoice::FourPoints);
                if p.bag.contains(&WHITE_1) {
                    out.push(FortuneChoice::RemoveWhite);
                }
            }
            Card::YouOnlyGetToChooseOne => {
                if self.in_supply(BLACK_1) > 0 {
                    out.push(FortuneChoice::TakeChip { chip: BLACK_1 });
                }
                out.extend(take(self.card_chips(2)));
                out.push(FortuneChoice::ThreeRubies);
            }
            Card::ChooseWisely => {
                out.push(FortuneChoice::DropletSteps);
                if self.book_open(Colour::Purple) && self.in_supply(PURPLE_1) > 0 {
                    out.push(FortuneChoice::TakeChip { chip: PURPLE_1 });
                }
            }
            Card::WheelAndDeal => {
                if p.rubies >= WHEEL_AND_DEAL_RUBIES {
                    out.extend(take(self.card_chips(1)));
                }
                out.push(FortuneChoice::Decline);
            }
            Card::AnOpportunisticMoment => {
                let mut seen: Vec<Chip> = Vec::new();
                for chip in &p.aside {
                    if seen.contains(chip) {
                        continue;
                    }
                    seen.push(*chip);
                    if next_value(*chip).is_some_and(|up| self.in_supply(up) > 0) {
                        out.push(FortuneChoice::TradeUp { chip: *chip });
                    }
                }
                out.push(FortuneChoice::Decline);
            }
            Card::Schadenfreude => {
                out.extend(take(self.card_chips(2)));
                if out.is_empty() {
                    // The last 2-chips went to another player meanwhile.
                    out.push(FortuneChoice::Decline);
                }
            }
            _ => {}
        }
        out
    }

    fn buy_options(&self, seat: Seat) -> Vec<Action> {
        // Room for most lists at once (nothing, each chip alone, each pair).
        let mut out = Vec::with_capacity(32);
        self.each_buy_option(seat, |chips| {
            out.push(match chips {
                [] => Action::BuyNothing,
                chips => Action::Buy {
                    chips: chips.to_vec(),
                },
            })
        });
        out
    }

    /// Calls `each` with every purchase `seat` may make now, in the order [`Quacks::buy_options`] lists them:
    /// first `[]` (buy nothing), then each chip for sale alone, each followed by the pairs it starts (different
    /// colours, sorted, affordable together). Nothing is allocated: the text of the legal actions is written from
    /// it (`text.rs`).
    fn each_buy_option(&self, seat: Seat, mut each: impl FnMut(&[Chip])) {
        let coins = u32::from(self.players[seat.index()].coins);
        let mut sellable = [(WHITE_1, 0u32); PRICES.len()];
        let mut n = 0;
        for (chip, price) in PRICES {
            let price = u32::from(price);
            if price <= coins && self.book_open(chip.colour) && self.in_supply(chip) > 0 {
                sellable[n] = (chip, price);
                n += 1;
            }
        }
        let sellable = &sellable[..n];
        each(&[]);
        for (i, &(a, pa)) in sellable.iter().enumerate() {
            each(&[a]);
            for &(b, pb) in &sellable[i + 1..] {
                if a.colour != b.colour && pa + pb <= coins {
                    let mut chips = [a, b];
                    chips.sort();
                    each(&chips);
                }
            }
        }
    }

    /// Whether `buy_options(seat)` lists `Buy { chips }` (`chips` sorted), without listing every option.
    fn buy_is_offered(&self, seat: Seat, chips: &[Chip]) -> bool {
        let coins = u32::from(self.players[seat.index()].coins);
        let price = |chip: Chip| {
            PRICES
                .iter()
                .find(|(c, _)| *c == chip)
                .map(|(_, price)| u32::from(*price))
                .filter(|price| *price <= coins && self.book_open(chip.colour) && self.in_supply(chip) > 0)
        };
        match chips {
            [a] => price(*a).is_some(),
            [a, b] => match (price(*a), price(*b)) {
                (Some(pa), Some(pb)) => a.colour != b.colour && pa + pb <= coins,
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether `legal_actions(seat)` contains `action` (a `Buy`'s chips sorted): purchases are checked directly,
    /// everything else against the list.
    fn is_legal(&self, seat: Seat, action: &Action) -> bool {
        let shop = self.players[seat.index()].shop;
        let buying = self.phase == Phase::Evaluation
            && (shop == Shop::Buying || (shop == Shop::PointsOrBuying && self.round != ROUNDS));
        match action {
            Action::Buy { chips } if buying => self.buy_is_offered(seat, chips),
            _ => self.legal_actions(seat).contains(action),
        }
    }

    fn spend_options(&self, seat: Seat) -> Vec<Action> {
        let p = &self.players[seat.index()];
        let mut out = Vec::new();
        if p.rubies >= RUBIES_PER_DROPLET_STEP && p.droplet < LAST_CHIP_SPACE {
            out.push(Action::MoveDroplet);
        }
        if p.rubies >= RUBIES_PER_FLASK_REFILL && !p.flask_full {
            out.push(Action::RefillFlask);
        }
        out
    }

    /// Whether `seat` has a decision now, i.e. `!self.legal_actions(seat).is_empty()`, without listing the
    /// actions where the answer is known (`status()` asks this for every seat after every action).
    fn decides(&self, seat: Seat) -> bool {
        if seat.0 >= self.n() {
            return false;
        }
        let p = &self.players[seat.index()];
        match self.phase {
            Phase::Brewing | Phase::AfterBrewing => match p.pending {
                // These always offer a "none" or two fixed answers.
                Some(Pending::CrowSkull | Pending::StrongIngredient | Pending::SecondChance) => true,
                Some(Pending::Fortune { .. } | Pending::Opportunistic | Pending::Schadenfreude) => {
                    !self.brewing_actions(seat).is_empty()
                }
                // `Stop` is always offered while brewing.
                None => self.phase == Phase::Brewing && p.brew == Brew::Brewing && p.commitment.is_none(),
            },
            Phase::Evaluation => match p.shop {
                // `TakePoints`, `BuyNothing` and `FinishRound` are always offered.
                Shop::PointsOrBuying | Shop::Buying | Shop::Spending => true,
                Shop::Idle | Shop::Done => false,
            },
            Phase::Over => false,
        }
    }

    fn brewing_actions(&self, seat: Seat) -> Vec<Action> {
        let p = &self.players[seat.index()];
        // At most draw, stop, the flask and two returns while brewing (one push at a time cost reallocations).
        let mut out = Vec::with_capacity(5);
        if let Some(pending) = p.pending {
            match pending {
                Pending::CrowSkull | Pending::StrongIngredient => {
                    let mut chips = p.aside.clone();
                    chips.dedup();
                    out.extend(chips.into_iter().map(|chip| Action::Place { chip }));
                    out.push(Action::PlaceNone);
                }
                Pending::SecondChance => {
                    out.push(Action::StartOver);
                    out.push(Action::KeepPotion);
                }
                Pending::Fortune { card } => {
                    out.extend(
                        self.fortune_choices(seat, card)
                            .into_iter()
                            .map(|choice| Action::Fortune { choice }),
                    );
                }
                Pending::Opportunistic => out.extend(
                    self.fortune_choices(seat, Card::AnOpportunisticMoment)
                        .into_iter()
                        .map(|choice| Action::Fortune { choice }),
                ),
                Pending::Schadenfreude => out.extend(
                    self.fortune_choices(seat, Card::Schadenfreude)
                        .into_iter()
                        .map(|choice| Action::Fortune { choice }),
                ),
            }
            return out;
        }
        if self.phase != Phase::Brewing || p.brew != Brew::Brewing || p.commitment.is_some() {
            return out;
        }
        if p.can_draw() {
            out.push(Action::Draw);
        }
        out.push(Action::Stop);
        if p.flask_open && p.flask_full {
            out.push(Action::UseFlask);
        }
        if p.well_stirred_open {
            out.push(Action::ReturnFirstWhite);
        }
        if p.mandrake_open {
            out.push(Action::ReturnWhiteBeforeMandrake);
        }
        out
    }

    // ----- round structure -----

    fn start_round(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        self.round += 1;
        let round = self.round;
        events.push(Event::public(QuacksEvent::RoundStarted {
            round,
            start_player: self.start_player,
        }));
        for colour in Colour::ALL {
            if round > 1 && colour.book_from_round() == Some(round) {
                events.push(Event::public(QuacksEvent::BookOpened { colour }));
            }
        }
        if round == EXTRA_WHITE_ROUND {
            for seat in self.order() {
                self.gain_chip(seat, EXTRA_WHITE, Reason::ExtraWhite, events);
            }
        }
        let card = self.deck.pop().expect("24 cards for 9 rounds");
        self.card = Some(card);
        events.push(Event::public(QuacksEvent::CardRevealed { card }));
        let reason = Reason::Fortune { card };
        let order = self.order();
        match card {
            Card::RollTheDie => {
                for &seat in &order {
                    self.roll_die(seat, reason, events);
                }
            }
            Card::ThePotIsFillingUp => {
                for &seat in &order {
                    self.gain_droplet(seat, 1, reason, events);
                }
            }
            Card::Charity => {
                let fewest = self.players.iter().map(|p| p.rubies).min().unwrap_or(0);
                for &seat in &order {
                    if self.players[seat.index()].rubies == fewest {
                        self.gain_rubies(seat, 1, reason, events);
                    }
                }
            }
            Card::BeginnersBonus => {
                let fewest = self.players.iter().map(|p| p.score).min().unwrap_or(0);
                for &seat in &order {
                    if self.players[seat.index()].score == fewest {
                        self.gain_chip(seat, BEGINNERS_BONUS_CHIP, reason, events);
                    }
                }
            }
            Card::LessIsMore => {
                let mut sums = Vec::new();
                for &seat in &order {
                    let n = LESS_IS_MORE_DRAW.min(self.players[seat.index()].bag.len());
                    let mut chips: Vec<Chip> = (0..n).map(|_| self.draw_chip(seat)).collect();
                    chips.sort();
                    sums.push((seat, chips.iter().map(|c| u32::from(c.value)).sum::<u32>()));
                    events.push(Event::public(QuacksEvent::Showed {
                        seat,
                        chips: chips.clone(),
                    }));
                    for chip in chips {
                        self.players[seat.index()].put_in_bag(chip);
                    }
                }
                let lowest = sums.iter().map(|(_, s)| *s).min().unwrap_or(0);
                for (seat, sum) in sums {
                    if sum == lowest {
                        self.gain_chip(seat, LESS_IS_MORE_PRIZE, reason, events);
                    } else {
                        self.gain_rubies(seat, LESS_IS_MORE_OTHERS_RUBIES, reason, events);
                    }
                }
            }
            _ => {}
        }
        if round >= RATS_FROM_ROUND {
            let leader = self.players.iter().map(|p| p.score).max().unwrap_or(0);
            let factor = if card == Card::RatInfestation { 2 } else { 1 };
            for &seat in &order {
                let p = &mut self.players[seat.index()];
                p.rat_tails = rat_tails_between(p.score, leader) * factor;
                if p.rat_tails > 0 {
                    events.push(Event::public(QuacksEvent::RatTails {
                        seat,
                        tails: p.rat_tails,
                    }));
                }
            }
        }
        for &seat in &order {
            let pending = match card {
                Card::RatsAreYourFriends
                | Card::JustInTime
                | Card::YouOnlyGetToChooseOne
                | Card::ChooseWisely => Some(Pending::Fortune { card }),
                Card::AGoodStart if self.players[seat.index()].rat_tails > 0 => {
                    Some(Pending::Fortune { card })
                }
                Card::WheelAndDeal if self.fortune_choices(seat, card).len() > 1 => {
                    Some(Pending::Fortune { card })
                }
                Card::AnOpportunisticMoment => {
                    self.draw_to_look_at(seat, OPPORTUNISTIC_MOMENT_DRAW, events);
                    if self.fortune_choices(seat, card).len() > 1 {
                        Some(Pending::Opportunistic)
                    } else {
                        self.put_back(seat, events);
                        self.gain_chip(seat, OPPORTUNISTIC_MOMENT_CONSOLATION, reason, events);
                        None
                    }
                }
                _ => None,
            };
            self.players[seat.index()].pending = pending;
        }
        self.phase = Phase::Brewing;
    }

    /// Round 9: everyone still brewing has decided; all draws happen together, in start-player order.
    fn stir(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        let mut draw = Vec::new();
        let mut stop = Vec::new();
        for seat in self.order() {
            match self.players[seat.index()].commitment.take() {
                Some(Commitment::Draw) => draw.push(seat),
                Some(Commitment::Stop) => stop.push(seat),
                None => {}
            }
        }
        events.push(Event::public(QuacksEvent::Stirred {
            draw: draw.clone(),
            stop: stop.clone(),
        }));
        for seat in stop {
            self.players[seat.index()].brew = Brew::Stopped;
            events.push(Event::public(QuacksEvent::Stopped { seat }));
        }
        for seat in draw {
            let chip = self.draw_chip(seat);
            self.place(seat, chip, true, true, events);
            self.settle(seat);
        }
    }

    fn after_brewing(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        let n = self.n();
        if self.card_is(Card::StrongIngredient) {
            for seat in self.order() {
                if self.players[seat.index()].brew == Brew::Stopped
                    && self.draw_to_look_at(seat, STRONG_INGREDIENT_DRAW, events) > 0
                {
                    self.players[seat.index()].pending = Some(Pending::StrongIngredient);
                }
            }
        }
        if self.card_is(Card::Schadenfreude) {
            for seat in self.order() {
                if self.players[seat.index()].brew == Brew::Exploded {
                    let left = seat.next(n);
                    if !self.card_chips(2).is_empty() {
                        self.players[left.index()].pending = Some(Pending::Schadenfreude);
                    }
                }
            }
        }
        self.phase = Phase::AfterBrewing;
    }

    /// Evaluation steps A-D (and the free refill of Magic Potion); the players' decisions follow.
    fn evaluate(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        let order = self.order();
        let n = self.n();
        let last_round = self.round == ROUNDS;
        for &seat in &order {
            let p = &mut self.players[seat.index()];
            p.scoring_space = p.scoring_space_now();
            let s = pot_space(p.scoring_space);
            p.coins = s.coins;
            events.push(Event::public(QuacksEvent::Scoring {
                seat,
                space: p.scoring_space,
                coins: s.coins,
                points: s.points,
                exploded: p.brew == Brew::Exploded,
            }));
        }
        // A: the bonus die, for the furthest scoring space among pots that did not explode.
        let furthest = self
            .players
            .iter()
            .filter(|p| p.brew != Brew::Exploded)
            .map(|p| p.scoring_space)
            .max();
        if let Some(furthest) = furthest {
            let rolls = if self.card_is(Card::ThePotIsFull) { 2 } else { 1 };
            for &seat in &order {
                let p = &self.players[seat.index()];
                if p.brew != Brew::Exploded && p.scoring_space == furthest {
                    for _ in 0..rolls {
                        self.roll_die(seat, Reason::BonusDie, events);
                    }
                }
            }
        }
        // B: chip actions (black, green, purple), exploded pots included.
        let blacks: Vec<usize> = self
            .players
            .iter()
            .map(|p| p.count_in_pot(Colour::Black))
            .collect();
        for &seat in &order {
            let i = seat.index();
            let neighbours: Vec<usize> = if n == 2 {
                vec![blacks[seat.next(n).index()]]
            } else {
                vec![
                    blacks[seat.next(n).index()],
                    blacks[(i + n as usize - 1) % n as usize],
                ]
            };
            let (steps, rubies) = moth_reward(blacks[i], &neighbours);
            self.gain_droplet(seat, steps, Reason::Moth, events);
            self.gain_rubies(seat, rubies, Reason::Moth, events);
            let p = &self.players[i];
            let greens = p
                .pot
                .iter()
                .rev()
                .take(2)
                .filter(|q| q.chip.colour == Colour::Green)
                .count() as u32;
            let purples = p.count_in_pot(Colour::Purple);
            self.gain_rubies(seat, greens, Reason::Spider, events);
            if self.book_open(Colour::Purple) {
                let (points, rubies, steps) = ghost_breath_reward(purples);
                self.gain_points(seat, points, Reason::GhostsBreath, events);
                self.gain_rubies(seat, rubies, Reason::GhostsBreath, events);
                self.gain_droplet(seat, steps, Reason::GhostsBreath, events);
            }
            let p = &self.players[i];
            if self.card_is(Card::SeasonedPerfectly)
                && p.brew != Brew::Exploded
                && p.whites == SEASONED_PERFECTLY_WHITES
            {
                let reason = Reason::Fortune {
                    card: Card::SeasonedPerfectly,
                };
                self.gain_droplet(seat, 1, reason, events);
            }
        }
        // C: rubies on scoring spaces.
        for &seat in &order {
            if pot_space(self.players[seat.index()].scoring_space).ruby {
                self.gain_rubies(seat, 1, Reason::RubySpace, events);
                if let Some(card @ (Card::ItsShiningExtraBright | Card::LuckyDevil)) = self.card {
                    let reason = Reason::Fortune { card };
                    if card == Card::ItsShiningExtraBright {
                        self.gain_rubies(seat, 1, reason, events);
                    } else {
                        self.gain_points(seat, LUCKY_DEVIL_POINTS, reason, events);
                    }
                }
            }
        }
        // D: points for pots that did not explode; exploded ones choose in their own step.
        for &seat in &order {
            let p = &self.players[seat.index()];
            let exploded = p.brew == Brew::Exploded;
            let space = pot_space(p.scoring_space);
            if exploded {
                self.players[seat.index()].shop = Shop::PointsOrBuying;
            } else {
                self.gain_points(seat, u32::from(space.points), Reason::ScoringSpace, events);
                if last_round {
                    self.convert_coins(seat, events);
                    self.players[seat.index()].shop = Shop::Done;
                } else {
                    self.players[seat.index()].shop = Shop::Buying;
                }
            }
        }
        // F, ahead of time: Magic Potion refills every flask for free.
        if self.card_is(Card::MagicPotion) {
            for &seat in &order {
                if !self.players[seat.index()].flask_full {
                    self.players[seat.index()].flask_full = true;
                    events.push(Event::public(QuacksEvent::FlaskRefilled { seat }));
                }
            }
        }
        self.phase = Phase::Evaluation;
    }

    fn convert_coins(&mut self, seat: Seat, events: &mut Vec<Event<QuacksEvent>>) {
        let p = &mut self.players[seat.index()];
        let coins = u32::from(p.coins);
        let points = coins / COINS_PER_POINT;
        p.score += points;
        p.coins = 0;
        events.push(Event::public(QuacksEvent::Converted {
            seat,
            coins,
            rubies: 0,
            points,
        }));
    }

    /// After buying: go on to spending rubies, or finish when there is nothing to spend.
    fn go_spending(&mut self, seat: Seat, events: &mut Vec<Event<QuacksEvent>>) {
        if self.spend_options(seat).is_empty() {
            self.players[seat.index()].shop = Shop::Done;
            events.push(Event::public(QuacksEvent::FinishedRound { seat }));
        } else {
            self.players[seat.index()].shop = Shop::Spending;
        }
    }

    fn end_round(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        if self.round == ROUNDS {
            for seat in self.order() {
                let p = &mut self.players[seat.index()];
                let points = p.rubies / RUBIES_PER_POINT;
                let rubies = points * RUBIES_PER_POINT;
                p.rubies -= rubies;
                p.score += points;
                events.push(Event::public(QuacksEvent::Converted {
                    seat,
                    coins: 0,
                    rubies,
                    points,
                }));
            }
            self.phase = Phase::Over;
            events.push(Event::public(QuacksEvent::GameOver {
                scores: self.players.iter().map(|p| p.score).collect(),
            }));
            return;
        }
        for p in &mut self.players {
            p.reset_for_round();
        }
        self.card = None;
        self.start_player = self.start_player.next(self.n());
        self.start_round(events);
    }

    /// Runs every step that needs nobody's decision, until someone must decide or the game is over.
    fn advance(&mut self, events: &mut Vec<Event<QuacksEvent>>) {
        loop {
            let pending = self.players.iter().any(|p| p.pending.is_some());
            match self.phase {
                Phase::Brewing => {
                    if pending {
                        return;
                    }
                    let brewing: Vec<&Player> =
                        self.players.iter().filter(|p| p.brew == Brew::Brewing).collect();
                    if brewing.is_empty() {
                        self.after_brewing(events);
                    } else if self.round == ROUNDS && brewing.iter().all(|p| p.commitment.is_some()) {
                        self.stir(events);
                    } else {
                        return;
                    }
                }
                Phase::AfterBrewing => {
                    if pending {
                        return;
                    }
                    self.evaluate(events);
                }
                Phase::Evaluation => {
                    if self.players.iter().any(|p| p.shop != Shop::Done) {
                        return;
                    }
                    self.end_round(events);
                }
                Phase::Over => return,
            }
        }
    }

    /// Carries out an action already known to be legal.
    fn perform(&mut self, seat: Seat, action: &Action, events: &mut Vec<Event<QuacksEvent>>) {
        let i = seat.index();
        let last_round = self.round == ROUNDS;
        match action {
            Action::Draw if last_round => self.commit(seat, Commitment::Draw, events),
            Action::Stop if last_round => self.commit(seat, Commitment::Stop, events),
            Action::Draw => {
                let chip = self.draw_chip(seat);
                self.place(seat, chip, true, true, events);
                self.settle(seat);
            }
            Action::Stop => {
                self.players[i].brew = Brew::Stopped;
                events.push(Event::public(QuacksEvent::Stopped { seat }));
            }
            Action::UseFlask => {
                let p = &mut self.players[i];
                let placed = p.pot.pop().expect("flask needs a white just placed");
                p.whites -= placed.chip.value;
                p.flask_full = false;
                p.flask_open = false;
                p.well_stirred_open = false;
                p.put_in_bag(placed.chip);
                events.push(Event::public(QuacksEvent::FlaskUsed {
                    seat,
                    chip: placed.chip,
                }));
            }
            Action::ReturnFirstWhite => {
                let p = &mut self.players[i];
                let placed = p.pot.pop().expect("a first white just placed");
                p.whites -= placed.chip.value;
                p.flask_open = false;
                p.well_stirred_open = false;
                p.put_in_bag(placed.chip);
                events.push(Event::public(QuacksEvent::WhiteReturned {
                    seat,
                    chip: placed.chip,
                }));
            }
            Action::ReturnWhiteBeforeMandrake => {
                let p = &mut self.players[i];
                let at = p.pot.len() - 2;
                let placed = p.pot.remove(at);
                p.whites -= placed.chip.value;
                p.mandrake_open = false;
                p.put_in_bag(placed.chip);
                events.push(Event::public(QuacksEvent::WhiteReturned {
                    seat,
                    chip: placed.chip,
                }));
            }
            Action::Place { chip } => {
                let strong = self.players[i].pending == Some(Pending::StrongIngredient);
                self.players[i].pending = None;
                let p = &mut self.players[i];
                let at = p
                    .aside
                    .iter()
                    .position(|c| c == chip)
                    .expect("listed chip is aside");
                p.aside.remove(at);
                self.put_back(seat, events);
                self.place(seat, *chip, !strong, !strong, events);
                self.settle(seat);
            }
            Action::PlaceNone => {
                self.players[i].pending = None;
                self.put_back(seat, events);
                self.settle(seat);
            }
            Action::StartOver => {
                let p = &mut self.players[i];
                p.pending = None;
                for placed in std::mem::take(&mut p.pot) {
                    p.put_in_bag(placed.chip);
                }
                p.whites = 0;
                p.brew = Brew::Brewing;
                p.flask_open = false;
                p.well_stirred_open = false;
                p.mandrake_open = false;
                events.push(Event::public(QuacksEvent::StartedOver { seat }));
            }
            Action::KeepPotion => {
                self.players[i].pending = None;
                events.push(Event::public(QuacksEvent::KeptPotion { seat }));
            }
            Action::Fortune { choice } => self.choose(seat, choice, events),
            Action::TakePoints => {
                let points = pot_space(self.players[i].scoring_space).points;
                self.gain_points(seat, u32::from(points), Reason::ScoringSpace, events);
                if last_round {
                    self.players[i].shop = Shop::Done;
                } else {
                    self.players[i].coins = 0;
                    self.go_spending(seat, events);
                }
            }
            Action::ConvertCoins => {
                self.convert_coins(seat, events);
                self.players[i].shop = Shop::Done;
            }
            Action::Buy { chips } => {
                for chip in chips {
                    let taken = self.take_from_supply(*chip);
                    debug_assert!(taken, "listed purchases are in the supply");
                    self.players[i].put_in_bag(*chip);
                }
                self.players[i].coins = 0;
                events.push(Event::public(QuacksEvent::Bought {
                    seat,
                    chips: chips.clone(),
                }));
                self.go_spending(seat, events);
            }
            Action::BuyNothing => {
                self.players[i].coins = 0;
                events.push(Event::public(QuacksEvent::BoughtNothing { seat }));
                self.go_spending(seat, events);
            }
            Action::MoveDroplet => {
                let p = &mut self.players[i];
                p.rubies -= RUBIES_PER_DROPLET_STEP;
                p.move_droplet(1);
                events.push(Event::public(QuacksEvent::DropletMoved {
                    seat,
                    space: p.droplet,
                }));
                self.go_spending(seat, events);
            }
            Action::RefillFlask => {
                let p = &mut self.players[i];
                p.rubies -= RUBIES_PER_FLASK_REFILL;
                p.flask_full = true;
                events.push(Event::public(QuacksEvent::FlaskRefilled { seat }));
                self.go_spending(seat, events);
            }
            Action::FinishRound => {
                self.players[i].shop = Shop::Done;
                events.push(Event::public(QuacksEvent::FinishedRound { seat }));
            }
        }
    }

    fn commit(&mut self, seat: Seat, commitment: Commitment, events: &mut Vec<Event<QuacksEvent>>) {
        self.players[seat.index()].commitment = Some(commitment);
        events.push(Event::public(QuacksEvent::Committed { seat }));
        events.push(Event::to(seat, QuacksEvent::CommittedTo { seat, commitment }));
    }

    fn choose(&mut self, seat: Seat, choice: &FortuneChoice, events: &mut Vec<Event<QuacksEvent>>) {
        let i = seat.index();
        let pending = self.players[i].pending.take();
        let card = match pending {
            Some(Pending::Fortune { card }) => card,
            Some(Pending::Opportunistic) => Card::AnOpportunisticMoment,
            Some(Pending::Schadenfreude) => Card::Schadenfreude,
            other => unreachable!("fortune choice listed without a card decision: {other:?}"),
        };
        let reason = Reason::Fortune { card };
        events.push(Event::public(QuacksEvent::Chose {
            seat,
            choice: choice.clone(),
        }));
        match choice {
            FortuneChoice::TakeChip { chip } => {
                if card == Card::WheelAndDeal {
                    self.players[i].rubies -= WHEEL_AND_DEAL_RUBIES;
                }
                self.gain_chip(seat, *chip, reason, events);
            }
            FortuneChoice::PointsForRatTails => {
                let tails = self.players[i].rat_tails;
                self.gain_points(seat, tails, reason, events);
            }
            FortuneChoice::KeepRatTails | FortuneChoice::Decline => {}
            FortuneChoice::TradeRatTails { tails } => {
                self.players[i].rat_tails -= tails;
                self.gain_rubies(seat, *tails, reason, events);
            }
            FortuneChoice::FourPoints => self.gain_points(seat, JUST_IN_TIME_POINTS, reason, events),
            FortuneChoice::RemoveWhite => {
                if self.players[i].remove_from_bag(WHITE_1) {
                    self.return_to_supply(WHITE_1);
                    events.push(Event::public(QuacksEvent::Gained {
                        seat,
                        gain: Gain::ChipRemoved { chip: WHITE_1 },
                        reason,
                    }));
                }
            }
            FortuneChoice::ThreeRubies => {
                self.gain_rubies(seat, YOU_ONLY_GET_TO_CHOOSE_ONE_RUBIES, reason, events)
            }
            FortuneChoice::DropletSteps => {
                self.gain_droplet(seat, CHOOSE_WISELY_DROPLET_STEPS, reason, events)
            }
            FortuneChoice::TradeUp { chip } => {
                let up = next_value(*chip).expect("listed trades have a next value");
                let p = &mut self.players[i];
                let at = p
                    .aside
                    .iter()
                    .position(|c| c == chip)
                    .expect("traded chip is aside");
                p.aside.remove(at);
                self.return_to_supply(*chip);
                let taken = self.take_from_supply(up);
                debug_assert!(taken, "listed trades are in the supply");
                // In its place, so that the chips aside stay sorted (they go back into the bag just below).
                let aside = &mut self.players[i].aside;
                aside.insert(aside.partition_point(|c| *c <= up), up);
                events.push(Event::public(QuacksEvent::TradedUp {
                    seat,
                    from: *chip,
                    to: up,
                }));
            }
        }
        if card == Card::AnOpportunisticMoment {
            self.put_back(seat, events);
        }
    }

    /// A precise reason for refusing `action`, which is not among `seat`'s legal actions.
    fn explain(&self, seat: Seat, action: &Action) -> QuacksReject {
        let p = &self.players[seat.index()];
        if p.pending.is_some() {
            return QuacksReject::DecisionPending;
        }
        match action {
            Action::Draw if self.phase == Phase::Brewing && p.brew == Brew::Brewing => {
                if p.bag.is_empty() {
                    QuacksReject::BagEmpty
                } else {
                    QuacksReject::PotFull
                }
            }
            Action::UseFlask if !p.flask_full => QuacksReject::FlaskEmpty,
            Action::UseFlask => QuacksReject::FlaskNotNow,
            Action::MoveDroplet | Action::RefillFlask if p.rubies < 2 => QuacksReject::NotEnoughRubies,
            Action::Buy { chips } if matches!(p.shop, Shop::Buying | Shop::PointsOrBuying) => {
                if let [a, b] = chips.as_slice()
                    && a.colour == b.colour
                {
                    return QuacksReject::SameColour;
                }
                for chip in chips {
                    if !self.book_open(chip.colour) {
                        return QuacksReject::BookNotInPlay { colour: chip.colour };
                    }
                    if self.in_supply(*chip) == 0 {
                        return QuacksReject::SoldOut { chip: *chip };
                    }
                }
                let cost: u32 = chips.iter().filter_map(|c| price(*c)).map(u32::from).sum();
                if cost > u32::from(p.coins) {
                    return QuacksReject::CannotAfford { cost, coins: p.coins };
                }
                QuacksReject::NotAvailable
            }
            _ => QuacksReject::NotAvailable,
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
            rules_version: 1,
            min_players: 2,
            max_players: 4,
            can_skip: true,
            options: vec![],
        }
    }

    fn new(_config: &QuacksConfig, players: u8, seed: u64) -> Result<Self, SetupError> {
        let info = Self::info();
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
        let secret = self.phase == Phase::Brewing && self.round == ROUNDS;
        Status::Simultaneous { seats, secret }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if seat.0 >= self.n() || self.phase == Phase::Over {
            return Vec::new();
        }
        let p = &self.players[seat.index()];
        match self.phase {
            Phase::Brewing | Phase::AfterBrewing => self.brewing_actions(seat),
            Phase::Evaluation => match p.shop {
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
                Shop::Idle | Shop::Done => Vec::new(),
            },
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
        let players = self
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let seat = Seat(i as u8);
                let own = viewer == Viewer::Seat(seat);
                PlayerView {
                    seat,
                    score: p.score,
                    rubies: p.rubies,
                    droplet: p.droplet,
                    rat_tails: p.rat_tails,
                    rat_space: p.start_space(),
                    flask_full: p.flask_full,
                    pot: &p.pot,
                    whites: p.whites,
                    brew: p.brew,
                    scoring_space: p.scoring_space_now(),
                    not_in_pot: counts(&p.bag, &p.aside),
                    looking_at_count: p.aside.len(),
                    looking_at: own.then_some(&p.aside[..]),
                    bag: own.then(|| counts(&p.bag, &[])),
                    deciding: p.pending,
                    committed: p.commitment.is_some(),
                    commitment: if own { p.commitment } else { None },
                    shop: p.shop,
                    coins: p.coins,
                }
            })
            .collect();
        QuacksView {
            viewer,
            round: self.round,
            rounds: ROUNDS,
            start_player: self.start_player,
            phase: self.phase.name(),
            card: self.card,
            cards_left: self.deck.len(),
            white_limit: self.white_limit(),
            books: Colour::ALL.into_iter().filter(|c| self.book_open(*c)).collect(),
            supply: self
                .supply
                .iter()
                .map(|(chip, count)| ChipCount {
                    chip: *chip,
                    count: *count,
                })
                .collect(),
            players,
            outcome: self.outcome(),
        }
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
