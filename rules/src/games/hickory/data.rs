//! Every component of Hickory Dickory as data, named as the game names it. The rules in `mod.rs` read these
//! tables and never repeat a number. Where the seed and the publisher are silent, the values here are this
//! project's design; `docs/rules/hickory-dickory.md` explains each choice and the GAPS.md question it answers.

use serde::{Deserialize, Serialize};

/// Player counts: 1 (solo, both blockers) to 4 (no blocker). GAPS 000 Q1.
pub const MIN_PLAYERS: u8 = 1;
pub const MAX_PLAYERS: u8 = 4;

// ---------------------------------------------------------------------------------------------------------------
// The clock.

/// The clock's numbered locations, 1 to 12; each has an inner-ring and an outer-ring space. GAPS 000 Q3.
pub const NUMBERS: u8 = 12;
/// The hour hand starts at 7 (seed) and the game ends when it reaches 12 (seed): five rounds. At every player
/// count, solo included: the seed says 7 without a player count; the publisher's "7 for games with 2-4 players"
/// implies a different solo start that is not public, so the seed's 7 stands (docs: issue 25 point 6).
pub const START_HOUR: u8 = 7;
pub const END_HOUR: u8 = 12;
/// The minute hand starts at 12 (seed); a round ends once the tick at 12 has been resolved.
pub const ROUND_END_MINUTE: u8 = 12;

/// Places on the minute hand, counted from the front (the tip) to the centre. GAPS 000 Q2.
pub const HAND_SLOTS: u8 = 6;

/// The blockers that sit in the minute-hand slot (the centre end) and take places on the hand. GAPS 000 Q1.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum Blocker {
    Small,
    Large,
}

impl Blocker {
    /// Places on the minute hand the blocker covers.
    pub fn places(self) -> u8 {
        match self {
            Blocker::Small => 1,
            Blocker::Large => 2,
        }
    }
}

/// The blockers in play by player count (published: none at 4, the small at 3, the large at 2; solo: both).
pub fn blockers(players: u8) -> &'static [Blocker] {
    match players {
        1 => &[Blocker::Large, Blocker::Small],
        2 => &[Blocker::Large],
        3 => &[Blocker::Small],
        _ => &[],
    }
}

/// What an action token lets a mouse do. GAPS 000 Q4.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// Your scaler climbs [`CLIMB_TOKEN_LINKS`] links of the chain.
    Climb,
    /// Deliver items and wilds of this mouse's card to Lord Cuckoo, some or all as its owner chooses (rules version
    /// 1: all of them); relics stay on the card.
    Delivery,
    /// Lord Cuckoo's door at 12: a delivery in which relics may be handed over too.
    CuckooDoor,
    /// Draw [`SEARCH_DRAW`] tiles from the bag and keep up to [`SEARCH_KEEP`].
    Search,
    /// One trade at Itzy's web.
    Exchange,
    /// Take the top favour card.
    Favour,
}

/// The face of an action token (the seed: "numbered, sun or moon faces").
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum TokenFace {
    Numbered,
    Sun,
    Moon,
}

/// The numbered tokens and their fixed spaces (seed: 1, 6, 11, 12; published: 6 and 11 are deliveries).
pub const NUMBERED_TOKENS: [(u8, ActionKind); 4] = [
    (1, ActionKind::Climb),
    (6, ActionKind::Delivery),
    (11, ActionKind::Delivery),
    (12, ActionKind::CuckooDoor),
];
/// The clock spaces printed with a sun, and the sun tokens dealt onto them at random.
pub const SUN_SPACES: [u8; 4] = [2, 3, 4, 5];
pub const SUN_TOKENS: [ActionKind; 4] = [
    ActionKind::Search,
    ActionKind::Search,
    ActionKind::Exchange,
    ActionKind::Favour,
];
/// The clock spaces printed with a moon, and the moon tokens dealt onto them at random.
pub const MOON_SPACES: [u8; 4] = [7, 8, 9, 10];
pub const MOON_TOKENS: [ActionKind; 4] = [
    ActionKind::Search,
    ActionKind::Climb,
    ActionKind::Exchange,
    ActionKind::Favour,
];

/// The cat die (a d10, faces 1-10) and the paws placed with it at the end of each round. A paw blocks its number
/// until the next round ends (rules version 1: it covered only the action token). GAPS 000 Q14, Q15.
pub const CAT_DIE_FACES: u8 = 10;
pub const CAT_PAWS: usize = 2;

// ---------------------------------------------------------------------------------------------------------------
// Tiles.

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
    Red,
    Yellow,
    Green,
    Blue,
    Purple,
}
pub const COLOURS: [Colour; 5] = [
    Colour::Red,
    Colour::Yellow,
    Colour::Green,
    Colour::Blue,
    Colour::Purple,
];

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
pub enum Item {
    Acorn,
    Berry,
    Button,
    Thimble,
    Key,
}
pub const ITEMS: [Item; 5] = [Item::Acorn, Item::Berry, Item::Button, Item::Thimble, Item::Key];

/// What is printed on a tile. GAPS 000 Q10, Q11.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TileKind {
    Item {
        colour: Colour,
        item: Item,
    },
    /// Counts as any colour and any item (the seed's wild tokens; they live on Itzy's web).
    Wild,
    /// A golden relic: scores [`RELIC_POINTS`] and a favour card when handed over at Lord Cuckoo's door.
    Relic,
}

/// Copies of each colour-and-item tile in the bag (every colour-and-item three times: 75 items).
pub const COPIES_PER_ITEM: u8 = 3;
pub const ITEM_TILES: u8 = 5 * 5 * COPIES_PER_ITEM;
pub const RELICS: u8 = 3;
/// The wild tokens placed on Itzy's web (seed: 10).
pub const WILDS: u8 = 10;
/// The tiles of rules versions 1 and 2: 75 items, 3 relics, 10 wilds (88).
pub const TILE_COUNT_V2: u8 = ITEM_TILES + RELICS + WILDS;
/// The five item tiles the published game has beyond the 75 (published: 93 tiles, 3 relics and 10 wilds among
/// them, so 80 items), in play from rules version 3. Which five the box holds is not public; these are one of each
/// colour and one of each item, so that every colour and every item is on 16 tiles (design: GAPS 000 Q10).
pub const EXTRA_ITEMS: [(Colour, Item); 5] = [
    (Colour::Red, Item::Acorn),
    (Colour::Yellow, Item::Berry),
    (Colour::Green, Item::Button),
    (Colour::Blue, Item::Thimble),
    (Colour::Purple, Item::Key),
];
/// The published tile set (rules version 3): 93.
pub const TILE_COUNT: u8 = TILE_COUNT_V2 + EXTRA_ITEMS.len() as u8;
/// Item spaces of Itzy's web, filled from the bag at setup (seed: "draw four random tiles").
pub const WEB_MARKET_SPACES: usize = 4;
/// Tiles a mouse gives to Itzy for one wild.
pub const WILD_PRICE: usize = 2;

/// A tile's identity: 0..75 items (colour-major, then item, then copy), then the relics, then the wilds (these 88
/// are the tiles of rules versions 1 and 2), then the [`EXTRA_ITEMS`] of rules version 3.
pub type TileId = u8;

pub fn tile_kind(id: TileId) -> TileKind {
    assert!(id < TILE_COUNT, "no tile {id}");
    if id < ITEM_TILES {
        let per_colour = 5 * COPIES_PER_ITEM;
        TileKind::Item {
            colour: COLOURS[(id / per_colour) as usize],
            item: ITEMS[((id % per_colour) / COPIES_PER_ITEM) as usize],
        }
    } else if id < ITEM_TILES + RELICS {
        TileKind::Relic
    } else if id < TILE_COUNT_V2 {
        TileKind::Wild
    } else {
        let (colour, item) = EXTRA_ITEMS[(id - TILE_COUNT_V2) as usize];
        TileKind::Item { colour, item }
    }
}

/// The number of tiles a match of `rules_version` plays with: the published 93 from version 3, 88 before.
pub fn tile_count(rules_version: u32) -> u8 {
    if rules_version >= 3 {
        TILE_COUNT
    } else {
        TILE_COUNT_V2
    }
}

/// The tiles that start in the bag (items and relics) in a match of `rules_version`.
pub fn bag_tiles(rules_version: u32) -> impl Iterator<Item = TileId> {
    (0..ITEM_TILES + RELICS).chain(TILE_COUNT_V2..tile_count(rules_version))
}
/// The tiles that start on Itzy's web (the wilds).
pub fn wild_tiles() -> impl Iterator<Item = TileId> {
    ITEM_TILES + RELICS..TILE_COUNT_V2
}

// ---------------------------------------------------------------------------------------------------------------
// Mice.

/// The four mice that have a mouse card (the fifth, the scaler, lives on the chain board). GAPS 000 Q7, Q9.
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
pub enum MouseKind {
    Scurrier,
    Spotter,
    Scavenger,
    Scamp,
}
pub const MICE: [MouseKind; 4] = [
    MouseKind::Scurrier,
    MouseKind::Spotter,
    MouseKind::Scavenger,
    MouseKind::Scamp,
];
/// The mice each player places on the inner ring before the first tick (the scamp waits on its card). GAPS 000 Q8.
pub const STARTING_MICE: [MouseKind; 3] = [MouseKind::Scurrier, MouseKind::Spotter, MouseKind::Scavenger];

impl MouseKind {
    /// Tiles its mouse card holds (published: the scavenger carries up to 5).
    pub fn capacity(self) -> usize {
        match self {
            MouseKind::Scavenger => 5,
            MouseKind::Scurrier | MouseKind::Spotter | MouseKind::Scamp => 3,
        }
    }
    /// Places it takes on the minute hand (published: the scavenger takes 2).
    pub fn hand_places(self) -> u8 {
        match self {
            MouseKind::Scavenger => 2,
            _ => 1,
        }
    }
}

/// How far the scurrier may run on along the outer ring after hopping off the hand (published: 1-2).
pub const SCURRY_MAX: u8 = 2;
/// Tiles drawn by a search, the spotter's extra draw, and how many may be kept. GAPS 000 Q4. Rules version 2
/// follows the published game's reviews: a search draws one tile; the spotter draws one more and discards one.
pub const SEARCH_DRAW: usize = 1;
pub const SPOTTER_EXTRA_DRAW: usize = 1;
pub const SEARCH_KEEP: usize = 1;
/// Rules version 1 (matches stored before version 2): draw 2 (the spotter 3), keep up to 2, the rest go back into
/// the bag.
pub const SEARCH_DRAW_V1: usize = 2;
pub const SEARCH_KEEP_V1: usize = 2;

/// The basic game's start spaces, printed on each hunt board (indexed like [`HUNT_BOARDS`]): where its owner's
/// scurrier, spotter and scavenger wait on the inner ring before the first tick (published: "a random hunt board
/// which indicates the starting positions around the clock for 3 of your mice"; the advanced variant places them
/// freely). The printed numbers are not public: designed so that each board has one mouse in each third of the
/// clock, never on 12 (no inner ring there) and never on a delivery space (6, 11), where an empty-handed mouse has
/// nothing to do. GAPS 000 Q8.
pub const HUNT_START_SPACES: [[(MouseKind, u8); 3]; 4] = [
    [
        (MouseKind::Scurrier, 1),
        (MouseKind::Spotter, 5),
        (MouseKind::Scavenger, 9),
    ],
    [
        (MouseKind::Spotter, 2),
        (MouseKind::Scavenger, 7),
        (MouseKind::Scurrier, 10),
    ],
    [
        (MouseKind::Scavenger, 3),
        (MouseKind::Scurrier, 8),
        (MouseKind::Spotter, 9),
    ],
    [
        (MouseKind::Scurrier, 4),
        (MouseKind::Spotter, 7),
        (MouseKind::Scavenger, 10),
    ],
];

/// The number with no inner-ring space (published reviews: "at each number except for 12, there's an inner ring
/// space and an outer ring space"), and where a mouse that worked there waits instead when the hour strikes: the
/// inner ring of the next number. Rules version 2; version 1 gave 12 an inner ring too. GAPS 000 Q3.
pub const NO_INNER_RING: u8 = 12;
pub const INNER_RING_AFTER_12: u8 = 1;

// ---------------------------------------------------------------------------------------------------------------
// The chain board. GAPS 000 Q6.

/// Links from the left pine cone (0) to the top of the chain.
pub const CHAIN_TOP: u8 = 4;
pub const CLIMB_TOKEN_LINKS: u8 = 2;
/// The value on the pine-cone weight: 9 at the start (seed), one less after each summit, never below 4.
pub const PINECONE_START: u8 = 9;
pub const PINECONE_MIN: u8 = 4;

// ---------------------------------------------------------------------------------------------------------------
// Scoring. GAPS 000 Q26, Q27.

pub const RELIC_POINTS: i64 = 5;
pub const HUNT_LINE_POINTS: i64 = 5;

// ---------------------------------------------------------------------------------------------------------------
// Missions. GAPS 000 Q13.

/// What one delivery must contain to complete a mission (wilds count as any colour or item).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "kind", content = "n", rename_all = "snake_case")]
pub enum Requirement {
    SameColour(u8),
    SameItem(u8),
    DistinctColours(u8),
    DistinctItems(u8),
    Tiles(u8),
    HuntSpaces(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct Mission {
    pub name: &'static str,
    pub requirement: Requirement,
    pub points: i64,
}

pub type MissionId = u8;
pub const MISSIONS_FACE_UP: usize = 2;
pub const MISSIONS: [Mission; 12] = [
    Mission {
        name: "Colour trio",
        requirement: Requirement::SameColour(3),
        points: 5,
    },
    Mission {
        name: "Colour quartet",
        requirement: Requirement::SameColour(4),
        points: 7,
    },
    Mission {
        name: "Item trio",
        requirement: Requirement::SameItem(3),
        points: 5,
    },
    Mission {
        name: "Item quartet",
        requirement: Requirement::SameItem(4),
        points: 7,
    },
    Mission {
        name: "Four colours",
        requirement: Requirement::DistinctColours(4),
        points: 5,
    },
    Mission {
        name: "Rainbow",
        requirement: Requirement::DistinctColours(5),
        points: 7,
    },
    Mission {
        name: "Four trinkets",
        requirement: Requirement::DistinctItems(4),
        points: 5,
    },
    Mission {
        name: "Full collection",
        requirement: Requirement::DistinctItems(5),
        points: 7,
    },
    Mission {
        name: "Heavy load",
        requirement: Requirement::Tiles(4),
        points: 5,
    },
    Mission {
        name: "Cartload",
        requirement: Requirement::Tiles(5),
        points: 7,
    },
    Mission {
        name: "Hunter",
        requirement: Requirement::HuntSpaces(2),
        points: 5,
    },
    Mission {
        name: "Trophy hunter",
        requirement: Requirement::HuntSpaces(3),
        points: 7,
    },
];

// ---------------------------------------------------------------------------------------------------------------
// Favour cards. GAPS 000 Q12.

/// The one-time effect of a favour card, used by the mouse that has just landed.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(rename_all = "snake_case")]
pub enum FavourEffect {
    /// Draw one tile from the bag onto the mouse's card.
    Forage,
    /// Take one wild from Itzy's web onto the mouse's card.
    WebGift,
    /// Your scaler climbs one link.
    Clamber,
}

/// A favour card: an acorn-backed card with a one-time effect and a printed item that counts as that item in a
/// delivery, and as a tile in the final leftover group while it is still held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct Favour {
    pub effect: FavourEffect,
    pub colour: Colour,
    pub item: Item,
}

pub type FavourId = u8;
pub const FAVOUR_CLAMBER_LINKS: u8 = 1;
pub const STARTING_FAVOURS: usize = 1;
pub const FAVOURS: [Favour; 13] = {
    use Colour::*;
    use FavourEffect::*;
    use Item::*;
    [
        Favour {
            effect: Forage,
            colour: Red,
            item: Acorn,
        },
        Favour {
            effect: Forage,
            colour: Yellow,
            item: Berry,
        },
        Favour {
            effect: Forage,
            colour: Green,
            item: Button,
        },
        Favour {
            effect: Forage,
            colour: Blue,
            item: Thimble,
        },
        Favour {
            effect: Forage,
            colour: Purple,
            item: Key,
        },
        Favour {
            effect: WebGift,
            colour: Red,
            item: Berry,
        },
        Favour {
            effect: WebGift,
            colour: Yellow,
            item: Button,
        },
        Favour {
            effect: WebGift,
            colour: Green,
            item: Thimble,
        },
        Favour {
            effect: WebGift,
            colour: Blue,
            item: Key,
        },
        Favour {
            effect: Clamber,
            colour: Purple,
            item: Acorn,
        },
        Favour {
            effect: Clamber,
            colour: Red,
            item: Thimble,
        },
        Favour {
            effect: Clamber,
            colour: Green,
            item: Key,
        },
        Favour {
            effect: Clamber,
            colour: Blue,
            item: Berry,
        },
    ]
};

// ---------------------------------------------------------------------------------------------------------------
// Hunt boards. GAPS 000 Q27.

/// Rows and columns of a hunt board.
pub const HUNT_SIZE: usize = 4;

/// What a hunt-board space asks for: an item of one colour, or one kind of item in any colour. A delivered item
/// completes one free space that accepts it; a wild completes any free space.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, json_write::WriteJson,
)]
#[serde(tag = "wants", content = "value", rename_all = "snake_case")]
pub enum HuntSpace {
    Colour(Colour),
    Item(Item),
}

impl HuntSpace {
    pub fn accepts(self, colour: Colour, item: Item) -> bool {
        match self {
            HuntSpace::Colour(c) => c == colour,
            HuntSpace::Item(i) => i == item,
        }
    }
}

/// The four hunt boards: colour spaces and item spaces alternate like a chequerboard, so every row and column asks
/// for two colours and two items, all different; each board asks for all five colours and all five items.
pub const HUNT_BOARDS: [[[HuntSpace; HUNT_SIZE]; HUNT_SIZE]; 4] = {
    use Colour::*;
    use HuntSpace::{Colour as C, Item as I};
    use Item::*;
    [
        [
            [C(Blue), I(Berry), C(Purple), I(Button)],
            [I(Thimble), C(Green), I(Button), C(Yellow)],
            [C(Green), I(Button), C(Red), I(Key)],
            [I(Berry), C(Yellow), I(Acorn), C(Red)],
        ],
        [
            [C(Yellow), I(Acorn), C(Blue), I(Thimble)],
            [I(Berry), C(Blue), I(Acorn), C(Green)],
            [C(Green), I(Berry), C(Red), I(Button)],
            [I(Key), C(Red), I(Berry), C(Purple)],
        ],
        [
            [C(Red), I(Acorn), C(Yellow), I(Thimble)],
            [I(Key), C(Purple), I(Thimble), C(Green)],
            [C(Yellow), I(Button), C(Blue), I(Berry)],
            [I(Button), C(Blue), I(Key), C(Purple)],
        ],
        [
            [C(Blue), I(Button), C(Red), I(Key)],
            [I(Key), C(Purple), I(Acorn), C(Green)],
            [C(Yellow), I(Key), C(Purple), I(Button)],
            [I(Thimble), C(Green), I(Berry), C(Yellow)],
        ],
    ]
};
