//! Every component of The Quacks of Quedlinburg (base game, ingredient set 1) as data, named as the game names
//! it: the pot track, the rat tails of the score track, the chip supply and prices, the starting bag, the bonus
//! die and the 24 fortune-teller cards. The values are the published ones (see `docs/rules/quacks.md`); nothing
//! else in the engine may repeat them as literals.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The colour of an ingredient chip, which names its ingredient book.
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
#[serde(rename_all = "snake_case")]
pub enum Colour {
    /// Cherry bomb: explodes the pot when the whites in it total more than 7.
    White,
    /// Pumpkin: no effect.
    Orange,
    /// Garden spider: a ruby in evaluation when among the last two chips.
    Green,
    /// Crow skull: look at 1/2/4 more chips, may place one.
    Blue,
    /// Toadstool: moves further when pumpkins are already in the pot.
    Red,
    /// Mandrake: may send a white placed just before it back to the bag.
    Yellow,
    /// Ghost's breath: points, a ruby or a droplet step in evaluation.
    Purple,
    /// Moth: a droplet step (and a ruby) for having more moths than the neighbours.
    Black,
}

impl Colour {
    pub const ALL: [Colour; 8] = [
        Colour::White,
        Colour::Orange,
        Colour::Green,
        Colour::Blue,
        Colour::Red,
        Colour::Yellow,
        Colour::Purple,
        Colour::Black,
    ];

    /// The first round in which this colour's book is in play and its chips can be bought or gained
    /// (set 1, "first game" layout; white chips are never sold).
    pub fn book_from_round(self) -> Option<u8> {
        match self {
            Colour::White => None,
            Colour::Orange | Colour::Green | Colour::Blue | Colour::Red | Colour::Black => Some(1),
            Colour::Yellow => Some(YELLOW_BOOK_ROUND),
            Colour::Purple => Some(PURPLE_BOOK_ROUND),
        }
    }
}

/// An ingredient chip: a colour and the number printed on it (how many spaces it moves).
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
pub struct Chip {
    pub colour: Colour,
    pub value: u8,
}

impl Chip {
    pub const fn new(colour: Colour, value: u8) -> Chip {
        Chip { colour, value }
    }
}

impl fmt::Display for Chip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} {}", self.colour, self.value)
    }
}

pub const WHITE_1: Chip = Chip::new(Colour::White, 1);
pub const WHITE_2: Chip = Chip::new(Colour::White, 2);
pub const WHITE_3: Chip = Chip::new(Colour::White, 3);
pub const ORANGE_1: Chip = Chip::new(Colour::Orange, 1);
pub const GREEN_1: Chip = Chip::new(Colour::Green, 1);
pub const BLUE_2: Chip = Chip::new(Colour::Blue, 2);
pub const PURPLE_1: Chip = Chip::new(Colour::Purple, 1);
pub const BLACK_1: Chip = Chip::new(Colour::Black, 1);

/// Number of rounds (the flame's track).
pub const ROUNDS: u8 = 9;
/// The yellow (mandrake) book is laid out at the start of this round.
pub const YELLOW_BOOK_ROUND: u8 = 2;
/// The purple (ghost's breath) book is laid out at the start of this round.
pub const PURPLE_BOOK_ROUND: u8 = 3;
/// Rats are counted from this round on.
pub const RATS_FROM_ROUND: u8 = 2;
/// At the start of this round every player adds a [`EXTRA_WHITE`] to the bag.
pub const EXTRA_WHITE_ROUND: u8 = 6;
pub const EXTRA_WHITE: Chip = WHITE_1;

/// A pot explodes when the white chips in it total more than this.
pub const WHITE_LIMIT: u8 = 7;
/// The limit while "Living in Luxury" is in force.
pub const LUXURY_WHITE_LIMIT: u8 = 9;

/// Rubies each player has at the start.
pub const STARTING_RUBIES: u32 = 1;
/// Rubies paid for one droplet step or for refilling the flask (evaluation step F).
pub const RUBIES_PER_DROPLET_STEP: u32 = 2;
pub const RUBIES_PER_FLASK_REFILL: u32 = 2;
/// The end-of-game conversion after round 9's evaluation.
pub const COINS_PER_POINT: u32 = 5;
pub const RUBIES_PER_POINT: u32 = 2;

/// The starting bag of every player.
pub const STARTING_BAG: [(Chip, u8); 5] = [
    (WHITE_1, 4),
    (WHITE_2, 2),
    (WHITE_3, 1),
    (ORANGE_1, 1),
    (GREEN_1, 1),
];

/// Every chip in play (set 1 plus the black, orange and white chips), by kind: the shared supply before the
/// starting bags are filled. Chips that run out cannot be bought or gained. 216 chips: the box holds these and 3
/// spare chips that replace lost ones and are not in play (docs/rules/quacks.md, "Supply and spares").
pub const SUPPLY: [(Chip, u8); 18] = [
    (WHITE_1, 20),
    (WHITE_2, 8),
    (WHITE_3, 4),
    (ORANGE_1, 20),
    (Chip::new(Colour::Green, 1), 15),
    (Chip::new(Colour::Green, 2), 10),
    (Chip::new(Colour::Green, 4), 13),
    (Chip::new(Colour::Blue, 1), 14),
    (Chip::new(Colour::Blue, 2), 10),
    (Chip::new(Colour::Blue, 4), 10),
    (Chip::new(Colour::Red, 1), 12),
    (Chip::new(Colour::Red, 2), 8),
    (Chip::new(Colour::Red, 4), 10),
    (Chip::new(Colour::Yellow, 1), 13),
    (Chip::new(Colour::Yellow, 2), 6),
    (Chip::new(Colour::Yellow, 4), 10),
    (PURPLE_1, 15),
    (BLACK_1, 18),
];

/// Price in coins of each chip sold in evaluation step E (set 1). White chips are never sold.
pub const PRICES: [(Chip, u8); 15] = [
    (ORANGE_1, 3),
    (Chip::new(Colour::Green, 1), 4),
    (Chip::new(Colour::Green, 2), 8),
    (Chip::new(Colour::Green, 4), 14),
    (Chip::new(Colour::Blue, 1), 5),
    (Chip::new(Colour::Blue, 2), 10),
    (Chip::new(Colour::Blue, 4), 19),
    (Chip::new(Colour::Red, 1), 6),
    (Chip::new(Colour::Red, 2), 10),
    (Chip::new(Colour::Red, 4), 16),
    (Chip::new(Colour::Yellow, 1), 8),
    (Chip::new(Colour::Yellow, 2), 12),
    (Chip::new(Colour::Yellow, 4), 18),
    (PURPLE_1, 9),
    (BLACK_1, 10),
];

/// A chip for sale and its price in coins, as the view lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct ChipPrice {
    pub chip: Chip,
    pub price: u8,
}

/// [`PRICES`] as the view shows them (the same data, not a copy of its values).
pub const PRICE_LIST: [ChipPrice; PRICES.len()] = {
    let mut out = [ChipPrice {
        chip: WHITE_1,
        price: 0,
    }; PRICES.len()];
    let mut i = 0;
    while i < PRICES.len() {
        out[i] = ChipPrice {
            chip: PRICES[i].0,
            price: PRICES[i].1,
        };
        i += 1;
    }
    out
};

/// The price of `chip`, or `None` when it is not for sale.
pub fn price(chip: Chip) -> Option<u8> {
    PRICES.iter().find(|(c, _)| *c == chip).map(|(_, p)| *p)
}

/// One space of the pot spiral: the coins (blue number), victory points (brown number) and whether a ruby is
/// printed on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct Space {
    pub coins: u8,
    pub points: u8,
    pub ruby: bool,
}

const fn space(coins: u8, points: u8, ruby: bool) -> Space {
    Space { coins, points, ruby }
}

/// The pot spiral, by physical index: 0 is the centre where the droplet starts; chips can lie on 1..=52; 53 is
/// the spoon, reached as the scoring space of a full pot. (Printed coin numbers repeat from 15 on, so spaces
/// are always named by index.)
pub const POT_TRACK: [Space; 54] = [
    space(0, 0, false),   // 0
    space(1, 0, false),   // 1
    space(2, 0, false),   // 2
    space(3, 0, false),   // 3
    space(4, 0, false),   // 4
    space(5, 0, true),    // 5
    space(6, 1, false),   // 6
    space(7, 1, false),   // 7
    space(8, 1, false),   // 8
    space(9, 1, true),    // 9
    space(10, 2, false),  // 10
    space(11, 2, false),  // 11
    space(12, 2, false),  // 12
    space(13, 2, true),   // 13
    space(14, 3, false),  // 14
    space(15, 3, false),  // 15
    space(15, 3, true),   // 16
    space(16, 3, false),  // 17
    space(16, 4, false),  // 18
    space(17, 4, false),  // 19
    space(17, 4, true),   // 20
    space(18, 4, false),  // 21
    space(18, 5, false),  // 22
    space(19, 5, false),  // 23
    space(19, 5, true),   // 24
    space(20, 5, false),  // 25
    space(20, 6, false),  // 26
    space(21, 6, false),  // 27
    space(21, 6, true),   // 28
    space(22, 7, false),  // 29
    space(22, 7, true),   // 30
    space(23, 7, false),  // 31
    space(23, 8, false),  // 32
    space(24, 8, false),  // 33
    space(24, 8, true),   // 34
    space(25, 9, false),  // 35
    space(25, 9, true),   // 36
    space(26, 9, false),  // 37
    space(26, 10, false), // 38
    space(27, 10, false), // 39
    space(27, 10, true),  // 40
    space(28, 11, false), // 41
    space(28, 11, true),  // 42
    space(29, 11, false), // 43
    space(29, 12, false), // 44
    space(30, 12, false), // 45
    space(30, 12, true),  // 46
    space(31, 12, false), // 47
    space(31, 13, false), // 48
    space(32, 13, false), // 49
    space(32, 13, true),  // 50
    space(33, 14, false), // 51
    space(33, 14, true),  // 52
    space(35, 15, false), // 53
];

/// The furthest space a chip (or the droplet) can lie on; a chip that would go further stays here.
pub const LAST_CHIP_SPACE: u8 = 52;

/// The values of a pot space (index clamped to the spoon).
pub fn pot_space(index: u8) -> Space {
    POT_TRACK[usize::from(index).min(POT_TRACK.len() - 1)]
}

/// Rat tails on the score track: a tail lies between score `t` and `t + 1` for each `t` listed, and the pattern
/// repeats every [`SCORE_TRACK_LAP`] points (the seal turns to its 50 side when a marker passes 50).
pub const RAT_TAILS_AFTER: [u32; 23] = [
    1, 4, 7, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48,
];
pub const SCORE_TRACK_LAP: u32 = 50;

/// Rat tails strictly between a trailing score and the leader's score (0 when `mine >= leader`).
pub fn rat_tails_between(mine: u32, leader: u32) -> u32 {
    (mine..leader)
        .filter(|t| RAT_TAILS_AFTER.contains(&(t % SCORE_TRACK_LAP)))
        .count() as u32
}

/// A face of the bonus die.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum DieFace {
    OnePoint,
    TwoPoints,
    /// One ruby.
    Ruby,
    /// The droplet moves one space.
    Droplet,
    /// An orange 1 chip into the bag.
    Pumpkin,
}

/// The six faces of the bonus die.
pub const BONUS_DIE: [DieFace; 6] = [
    DieFace::OnePoint,
    DieFace::OnePoint,
    DieFace::TwoPoints,
    DieFace::Ruby,
    DieFace::Droplet,
    DieFace::Pumpkin,
];

/// How a fortune-teller card acts: purple cards once, at once; blue cards for the whole round.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum CardKind {
    Purple,
    Blue,
}

/// The 24 fortune-teller cards, by their Schmidt English names.
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
#[serde(rename_all = "snake_case")]
pub enum Card {
    // purple: carried out immediately
    RollTheDie,
    ThePotIsFillingUp,
    Charity,
    BeginnersBonus,
    RatInfestation,
    RatsAreYourFriends,
    AGoodStart,
    JustInTime,
    YouOnlyGetToChooseOne,
    ChooseWisely,
    WheelAndDeal,
    AnOpportunisticMoment,
    LessIsMore,
    // blue: in force for the whole round
    ThePotIsFull,
    PumpkinPatchParty,
    LuckyDevil,
    ItsShiningExtraBright,
    MagicPotion,
    SeasonedPerfectly,
    LivingInLuxury,
    WellStirred,
    StrongIngredient,
    Schadenfreude,
    ASecondChance,
}

/// The fortune-teller deck, shuffled at setup; one card is revealed per round.
pub const FORTUNE_DECK: [Card; 24] = [
    Card::RollTheDie,
    Card::ThePotIsFillingUp,
    Card::Charity,
    Card::BeginnersBonus,
    Card::RatInfestation,
    Card::RatsAreYourFriends,
    Card::AGoodStart,
    Card::JustInTime,
    Card::YouOnlyGetToChooseOne,
    Card::ChooseWisely,
    Card::WheelAndDeal,
    Card::AnOpportunisticMoment,
    Card::LessIsMore,
    Card::ThePotIsFull,
    Card::PumpkinPatchParty,
    Card::LuckyDevil,
    Card::ItsShiningExtraBright,
    Card::MagicPotion,
    Card::SeasonedPerfectly,
    Card::LivingInLuxury,
    Card::WellStirred,
    Card::StrongIngredient,
    Card::Schadenfreude,
    Card::ASecondChance,
];

/// Numbers printed on the cards.
pub const JUST_IN_TIME_POINTS: u32 = 4;
pub const YOU_ONLY_GET_TO_CHOOSE_ONE_RUBIES: u32 = 3;
pub const CHOOSE_WISELY_DROPLET_STEPS: u8 = 2;
pub const WHEEL_AND_DEAL_RUBIES: u32 = 1;
pub const A_GOOD_START_MAX_TAILS: u32 = 3;
pub const OPPORTUNISTIC_MOMENT_DRAW: usize = 4;
pub const OPPORTUNISTIC_MOMENT_CONSOLATION: Chip = GREEN_1;
pub const LESS_IS_MORE_DRAW: usize = 5;
pub const LESS_IS_MORE_PRIZE: Chip = BLUE_2;
pub const LESS_IS_MORE_OTHERS_RUBIES: u32 = 1;
pub const BEGINNERS_BONUS_CHIP: Chip = GREEN_1;
pub const LUCKY_DEVIL_POINTS: u32 = 2;
pub const STRONG_INGREDIENT_DRAW: usize = 5;
pub const SECOND_CHANCE_AFTER_PLACEMENTS: u8 = 5;
pub const SEASONED_PERFECTLY_WHITES: u8 = 7;

impl Card {
    pub fn kind(self) -> CardKind {
        match self {
            Card::RollTheDie
            | Card::ThePotIsFillingUp
            | Card::Charity
            | Card::BeginnersBonus
            | Card::RatInfestation
            | Card::RatsAreYourFriends
            | Card::AGoodStart
            | Card::JustInTime
            | Card::YouOnlyGetToChooseOne
            | Card::ChooseWisely
            | Card::WheelAndDeal
            | Card::AnOpportunisticMoment
            | Card::LessIsMore => CardKind::Purple,
            Card::ThePotIsFull
            | Card::PumpkinPatchParty
            | Card::LuckyDevil
            | Card::ItsShiningExtraBright
            | Card::MagicPotion
            | Card::SeasonedPerfectly
            | Card::LivingInLuxury
            | Card::WellStirred
            | Card::StrongIngredient
            | Card::Schadenfreude
            | Card::ASecondChance => CardKind::Blue,
        }
    }

    /// The card's title on the Schmidt English card.
    pub fn name(self) -> &'static str {
        match self {
            Card::RollTheDie => "Roll the Die",
            Card::ThePotIsFillingUp => "The Pot Is Filling Up",
            Card::Charity => "Charity",
            Card::BeginnersBonus => "Beginner's Bonus",
            Card::RatInfestation => "Rat Infestation",
            Card::RatsAreYourFriends => "Rats Are Your Friends",
            Card::AGoodStart => "A Good Start",
            Card::JustInTime => "Just in Time",
            Card::YouOnlyGetToChooseOne => "You Only Get to Choose One",
            Card::ChooseWisely => "Choose Wisely",
            Card::WheelAndDeal => "Wheel and Deal",
            Card::AnOpportunisticMoment => "An Opportunistic Moment",
            Card::LessIsMore => "Less Is More",
            Card::ThePotIsFull => "The Pot Is Full",
            Card::PumpkinPatchParty => "Pumpkin Patch Party",
            Card::LuckyDevil => "Lucky Devil",
            Card::ItsShiningExtraBright => "It's Shining Extra Bright",
            Card::MagicPotion => "Magic Potion",
            Card::SeasonedPerfectly => "Seasoned Perfectly",
            Card::LivingInLuxury => "Living in Luxury",
            Card::WellStirred => "Well Stirred",
            Card::StrongIngredient => "Strong Ingredient",
            Card::Schadenfreude => "Schadenfreude",
            Card::ASecondChance => "A Second Chance",
        }
    }
}

/// Spaces a red chip moves beyond its value, by the number of orange chips already in the pot
/// (0 oranges: +0; 1-2: +1; 3 or more: +2).
pub fn toadstool_bonus(oranges_in_pot: usize) -> u8 {
    match oranges_in_pot {
        0 => 0,
        1 | 2 => 1,
        _ => 2,
    }
}

/// What the ghost's breath gives in evaluation step B, by the number of purple chips in the pot:
/// (points, rubies, droplet steps).
pub fn ghost_breath_reward(purples_in_pot: usize) -> (u32, u32, u8) {
    match purples_in_pot {
        0 => (0, 0, 0),
        1 => (1, 0, 0),
        2 => (1, 1, 0),
        _ => (2, 0, 1),
    }
}

/// How many chips a crow skull lets its owner look at: its own value (1, 2 or 4).
pub fn crow_skull_draw(chip: Chip) -> usize {
    usize::from(chip.value)
}

/// The next higher value of the same colour that "An Opportunistic Moment" trades a chip up to, if any
/// (1 -> 2 -> 4 for the colours sold in three values; white, orange, purple and black never trade up).
pub fn next_value(chip: Chip) -> Option<Chip> {
    match chip.colour {
        Colour::Green | Colour::Blue | Colour::Red | Colour::Yellow => match chip.value {
            1 => Some(Chip::new(chip.colour, 2)),
            2 => Some(Chip::new(chip.colour, 4)),
            _ => None,
        },
        Colour::White | Colour::Orange | Colour::Purple | Colour::Black => None,
    }
}
