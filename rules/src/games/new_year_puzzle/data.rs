//! Every component of the New Year picture puzzle, as data: the picture's geometry and the reward deck.
//!
//! No published edition of this game is known (seed 002), so the reward deck is our design; the card list is
//! mirrored in `docs/rules/new-year-puzzle.md` (a test checks that every card named here is listed there).

use serde::{Deserialize, Serialize};

/// Cards per row (and rows): the picture is a square of 8 x 8 square cards.
pub const SIDE: u8 = 8;
/// Square cards in the picture. Card `k` belongs at position `k` (rows of eight, top left first).
pub const CARDS: usize = (SIDE as usize) * (SIDE as usize);
/// The four corner cards: they have no back, start face up in their corners and seed the picture (GAPS Q1, Q3).
pub const CORNERS: [u8; 4] = [0, SIDE - 1, CARDS as u8 - SIDE, CARDS as u8 - 1];
/// Rows `0..=SKY_LAST_ROW` show the night sky; the rows below show the snowy town (see the doc's scene).
pub const SKY_LAST_ROW: u8 = SIDE / 2 - 1;

/// Players at the table (GAPS Q1 of the profile: the seed gives no count).
pub const MIN_PLAYERS: u8 = 2;
pub const MAX_PLAYERS: u8 = 6;

/// What a successful reveal earns once the reward pile is empty; such a placement also ends the turn (GAPS Q12).
/// Only rules version 1 (48 reward cards for 60 placements) ever empties the pile in play.
pub const EMPTY_PILE_POINTS: u8 = 1;

/// The rules versions this engine plays (`docs/rules/new-year-puzzle.md`, "Rules versions"): 1 is the first
/// release (face-up pile of 48, compulsory first reveal, failed cards always back face down); 2 has the face-down
/// pile of 60, passes and exposed cards; 3, the current, also counts exposed cards as neighbours of a place (seed
/// 002: a card "already uncovered on the table").
pub const FIRST_RULES_VERSION: u32 = 1;
pub const RULES_VERSION: u32 = 3;

/// A kind of reward card. Serialised as its snake_case key (`"confetti"`), which is how clients name cards.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Reward {
    Confetti,
    Sparkler,
    MarzipanPig,
    Fireworks,
    ChampagneToast,
    MidnightKiss,
    BrokenGlass,
    Overslept,
    Hangover,
    SnowedIn,
    ChimneySweep,
    StarrySky,
    SnowballFight,
    PuzzleMaster,
    MidnightChime,
    LuckyHorseshoe,
    HardFrost,
    WaxFortune,
    Resolution,
}

/// When a bonus applies. The server judges every condition itself; nothing depends on players' honesty.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Condition {
    /// The card whose placement earned this reward lies on the picture's border (the outer ring).
    PlacedOnBorder,
    /// That card lies in the sky (rows `0..=SKY_LAST_ROW`).
    PlacedInSky,
    /// That card lies on the snowy ground (the rows below the sky).
    PlacedOnGround,
    /// That card shares a side with at least `at_least` face-up cards.
    PlacedTouching { at_least: u8 },
    /// That placement completed its row or its column of the picture.
    CompletesLine,
    /// The drawer's score is the lowest at the table (a shared lowest counts), judged before this card's points.
    LowestScore,
    /// Another player has more points than the drawer, judged before this card's points.
    BehindSomeone,
    /// The drawer's next reveal, in this turn or a later one, is a success. Judged when that reveal happens;
    /// lapses if the game ends first.
    NextRevealSucceeds,
}

impl Condition {
    /// Whether the condition is judged at the drawer's next reveal rather than when the card is drawn.
    pub fn is_deferred(self) -> bool {
        matches!(self, Condition::NextRevealSucceeds)
    }
}

/// What a met condition does to the scores.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Effect {
    /// The drawer gains `points`.
    Gain { points: u8 },
    /// Every other player loses `points`.
    OthersLose { points: u8 },
    /// The other player(s) with the most points lose `points`, if they have more than the drawer.
    LeadersLose { points: u8 },
}

/// A condition and what it does when met.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct Bonus {
    pub condition: Condition,
    pub effect: Effect,
}

/// One line of the reward deck: a kind of card, how many copies the deck holds, and its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct RewardCard {
    pub reward: Reward,
    pub name: &'static str,
    /// Copies of this card in the deck: in a view's `pile_top`, the deck of the match's rules version (48 cards
    /// in version 1); in the game's card list, the deck of version 2 and later (60 cards, one per placement: GAPS
    /// Q12, issue 25 point 8).
    pub copies: u8,
    /// Copies in the 48-card deck of rules version 1 (kept so its matches replay).
    #[serde(skip)]
    pub copies_v1: u8,
    /// Points printed on the card, gained (or lost, when negative) by the drawer.
    pub points: i8,
    /// "No further move": the success that drew this card ends the turn.
    pub ends_turn: bool,
    pub bonus: Option<Bonus>,
}

const fn plain(
    reward: Reward,
    name: &'static str,
    (copies, copies_v1): (u8, u8),
    points: i8,
    ends_turn: bool,
) -> RewardCard {
    RewardCard {
        reward,
        name,
        copies,
        copies_v1,
        points,
        ends_turn,
        bonus: None,
    }
}

#[allow(clippy::too_many_arguments)]
const fn with_bonus(
    reward: Reward,
    name: &'static str,
    (copies, copies_v1): (u8, u8),
    points: i8,
    ends_turn: bool,
    condition: Condition,
    effect: Effect,
) -> RewardCard {
    RewardCard {
        reward,
        name,
        copies,
        copies_v1,
        points,
        ends_turn,
        bonus: Some(Bonus { condition, effect }),
    }
}

/// The reward deck (GAPS Q13, Q14): 60 rectangular cards, one for each of the 60 placements that complete the
/// picture, so privilege c) ("another move") holds to the last card (issue 25 point 8): 22 plain gains, 11 losses or
/// blanks, 27 with a condition; 17 of the 60 forbid the extra move. Each line gives `(copies, copies in rules
/// version 1)`: version 1's deck had 48 cards (18 gains, 9 losses or blanks, 21 conditions, 14 forbidding).
pub const REWARDS: &[RewardCard] = &[
    // Plain gains.
    plain(Reward::Confetti, "Confetti", (7, 6), 1, false),
    plain(Reward::Sparkler, "Sparkler", (6, 5), 2, false),
    plain(Reward::MarzipanPig, "Marzipan pig", (2, 1), 2, false),
    plain(Reward::Fireworks, "Fireworks", (4, 3), 3, true),
    plain(Reward::ChampagneToast, "Champagne toast", (2, 2), 4, true),
    plain(Reward::MidnightKiss, "Midnight kiss", (1, 1), 5, true),
    // Losses and blanks.
    plain(Reward::BrokenGlass, "Broken glass", (4, 3), -1, false),
    plain(Reward::Overslept, "Overslept the countdown", (2, 2), -2, true),
    plain(Reward::Hangover, "Hangover", (1, 1), -3, true),
    plain(Reward::SnowedIn, "Snowed in", (4, 3), 0, true),
    // Conditions on the placement that earned the card.
    with_bonus(
        Reward::ChimneySweep,
        "Chimney sweep",
        (4, 3),
        1,
        false,
        Condition::PlacedOnBorder,
        Effect::Gain { points: 2 },
    ),
    with_bonus(
        Reward::StarrySky,
        "Starry sky",
        (4, 3),
        1,
        false,
        Condition::PlacedInSky,
        Effect::Gain { points: 2 },
    ),
    with_bonus(
        Reward::SnowballFight,
        "Snowball fight",
        (3, 2),
        1,
        false,
        Condition::PlacedOnGround,
        Effect::OthersLose { points: 1 },
    ),
    with_bonus(
        Reward::PuzzleMaster,
        "Puzzle master",
        (3, 2),
        1,
        false,
        Condition::PlacedTouching { at_least: 3 },
        Effect::Gain { points: 3 },
    ),
    with_bonus(
        Reward::MidnightChime,
        "Midnight chime",
        (2, 2),
        1,
        false,
        Condition::CompletesLine,
        Effect::Gain { points: 4 },
    ),
    // Conditions on the scores.
    with_bonus(
        Reward::LuckyHorseshoe,
        "Lucky horseshoe",
        (2, 2),
        0,
        false,
        Condition::LowestScore,
        Effect::Gain { points: 3 },
    ),
    with_bonus(
        Reward::HardFrost,
        "Hard frost",
        (2, 2),
        0,
        false,
        Condition::BehindSomeone,
        Effect::LeadersLose { points: 2 },
    ),
    // Conditions on the drawer's next reveal.
    with_bonus(
        Reward::WaxFortune,
        "Wax fortune",
        (4, 3),
        0,
        false,
        Condition::NextRevealSucceeds,
        Effect::Gain { points: 3 },
    ),
    with_bonus(
        Reward::Resolution,
        "New Year's resolution",
        (3, 2),
        1,
        true,
        Condition::NextRevealSucceeds,
        Effect::Gain { points: 3 },
    ),
];

impl Reward {
    /// This kind's line of [`REWARDS`].
    pub fn card(self) -> &'static RewardCard {
        REWARDS
            .iter()
            .find(|c| c.reward == self)
            .expect("every reward kind has a line in REWARDS")
    }
}

/// The unshuffled deck of `rules_version`: every kind repeated by its number of copies, in table order.
pub fn full_deck(rules_version: u32) -> Vec<Reward> {
    REWARDS
        .iter()
        .flat_map(|c| std::iter::repeat_n(c.reward, c.copies_in(rules_version) as usize))
        .collect()
}

impl RewardCard {
    /// Copies of this card in the deck of `rules_version`.
    pub fn copies_in(&self, rules_version: u32) -> u8 {
        if rules_version <= 1 {
            self.copies_v1
        } else {
            self.copies
        }
    }

    /// This card as the deck of `rules_version` holds it: `copies` is that deck's count (what a view shows).
    pub fn in_deck(&self, rules_version: u32) -> RewardCard {
        RewardCard {
            copies: self.copies_in(rules_version),
            ..*self
        }
    }
}

/// Row and column of a position (0..64, rows of eight, top left first).
pub fn row_col(position: u8) -> (u8, u8) {
    (position / SIDE, position % SIDE)
}

/// The positions sharing a side with `position` (two to four of them; corners touching do not count).
pub fn side_neighbours(position: u8) -> impl Iterator<Item = u8> {
    let (row, col) = row_col(position);
    [
        (row > 0).then(|| position - SIDE),
        (row + 1 < SIDE).then(|| position + SIDE),
        (col > 0).then(|| position - 1),
        (col + 1 < SIDE).then(|| position + 1),
    ]
    .into_iter()
    .flatten()
}

/// Whether a position lies on the picture's outer ring.
pub fn on_border(position: u8) -> bool {
    let (row, col) = row_col(position);
    row == 0 || col == 0 || row == SIDE - 1 || col == SIDE - 1
}
