//! The server bot's strategy for this game (`Game::bot_action`): greedy, with a look three numbers ahead.
//!
//! Every place a mouse could work is valued the same way ([`Bot::landing`]): the tile lying there (more if it
//! fits a free space of the bot's hunt board, joins a colour or item the mouse already carries, or is a wild or a
//! relic) plus what the token there would do for this mouse now (a delivery is worth the points it would score, a
//! search a tile, a climb its share of the pine cone, a favour card a little). A mouse on the minute hand, or on the
//! inner ring when the hand arrives, works here if here is worth at least the best of the next three numbers less
//! a point a tick (waiting costs time and risks a bump); otherwise it rides on. On the outer ring it delivers when
//! the delivery carries two or more pieces (or the card is full, or the game is in its last hour), else searches,
//! climbs, takes a favour card, makes a useful swap, or calls the scamp to the best space when its own token does
//! nothing; it plays favour cards whose effect helps. Kept tiles, hunt-board marks and scurries take the best value.
//!
//! It reads only what its seat may know: the clock, tokens, paws and tiles on the table, its own mice, hunt board,
//! favour cards and the pine cone. Never the bag, the decks or other hands. Ties are broken by `rng`.

use super::*;
use crate::bot::best_by;
use crate::rng::Rng;

/// Numbers looked ahead when deciding whether to ride on.
const LOOKAHEAD: u8 = 3;
/// Values are in tenths of a point.
const TICK_COST: i64 = 10;

pub(super) fn bot_action(game: &Hickory, seat: Seat, rng: &mut Rng) -> Option<<Hickory as Game>::Action> {
    let decision = game.decision()?;
    if decision.seat() != seat {
        return None;
    }
    let bot = Bot { g: game, seat };
    best_by(game, seat, rng, |a| bot.score(&decision, a))
}

struct Bot<'a> {
    g: &'a Hickory,
    seat: Seat,
}

impl Bot<'_> {
    fn me(&self) -> &PlayerState {
        self.g.player(self.seat)
    }

    fn last_hour(&self) -> bool {
        self.g.hour + 1 >= END_HOUR
    }

    /// Whether an item fits a free space of the bot's hunt board.
    fn fits_hunt(&self, colour: Colour, item: Item) -> bool {
        let p = self.me();
        let board = HUNT_BOARDS[p.hunt_board as usize];
        (0..HUNT_SIZE)
            .any(|r| (0..HUNT_SIZE).any(|c| !p.hunt_done[r][c] && board[r][c].accepts(colour, item)))
    }

    /// What a tile is worth on `carried` (the tiles of the mouse that would take it).
    fn tile_value(&self, t: TileId, carried: &[TileId]) -> i64 {
        match tile_kind(t) {
            TileKind::Relic => 60,
            TileKind::Wild => 45,
            TileKind::Item { colour, item } => {
                let mut v = 20;
                if self.fits_hunt(colour, item) {
                    v += 25;
                }
                for &c in carried {
                    if let TileKind::Item { colour: cc, item: ci } = tile_kind(c) {
                        if cc == colour {
                            v += 6;
                        }
                        if ci == item {
                            v += 6;
                        }
                    }
                }
                v
            }
        }
    }

    /// Points (tenths) a delivery of `tiles` would score, hunt-board spaces included roughly.
    fn delivery_value(&self, tiles: &[TileId], token: ActionKind) -> i64 {
        let mut group = Group::default();
        let mut relics = 0;
        let mut fits = 0;
        for &t in tiles {
            match tile_kind(t) {
                TileKind::Relic if token == ActionKind::CuckooDoor => relics += 1,
                TileKind::Relic => {}
                TileKind::Item { colour, item } => {
                    group.add_tile(t);
                    if self.fits_hunt(colour, item) {
                        fits += 1;
                    }
                }
                TileKind::Wild => {
                    group.add_tile(t);
                    fits += 1;
                }
            }
        }
        for &f in &self.me().favours {
            group.add_favour(f);
        }
        10 * group.points() + 25 * fits + 70 * relics
    }

    /// The value of mouse `who` (carrying `carried`) landing on the outer ring at `n` now.
    fn landing(&self, who: MouseRef, n: u8) -> i64 {
        if self.g.blocked(n) {
            return i64::MIN / 4;
        }
        let m = self.g.mouse(who);
        let mut carried = m.tiles.clone();
        let mut v = 0;
        if let Some(t) = self.g.space(n).tile
            && carried.len() < who.mouse.capacity()
        {
            v += self.tile_value(t, &carried);
            carried.push(t);
        }
        if !self.g.token_usable(n) {
            return v;
        }
        let room = who.mouse.capacity().saturating_sub(carried.len());
        let token = self.g.space(n).token;
        v += match token {
            ActionKind::Delivery | ActionKind::CuckooDoor => {
                let deliverable: Vec<TileId> = carried
                    .iter()
                    .copied()
                    .filter(|&t| token == ActionKind::CuckooDoor || tile_kind(t) != TileKind::Relic)
                    .collect();
                if deliverable.len() >= 2 || room == 0 || (self.last_hour() && !deliverable.is_empty()) {
                    self.delivery_value(&deliverable, token)
                } else {
                    0
                }
            }
            ActionKind::Search if room > 0 => 30,
            ActionKind::Search => 0,
            ActionKind::Climb => {
                10 * i64::from(self.g.pinecone) * i64::from(CLIMB_TOKEN_LINKS) / i64::from(CHAIN_TOP)
            }
            ActionKind::Favour => 25,
            ActionKind::Exchange => 10,
        };
        v
    }

    /// The best of the next numbers for a mouse riding the hand from `n`, less the cost of waiting.
    fn ride_value(&self, who: MouseRef, n: u8) -> i64 {
        // In the last hour a mouse still riding when the hand reaches 12 never works again.
        let left = if self.last_hour() { NUMBERS - n } else { LOOKAHEAD };
        (1..=LOOKAHEAD.min(left))
            .map(|k| self.landing(who, next_number(n, k)) - TICK_COST * i64::from(k))
            .max()
            .unwrap_or(i64::MIN / 4)
    }

    fn score(&self, decision: &Decision, a: &HickoryAction) -> i64 {
        use HickoryAction as A;
        let g = self.g;
        match (decision, a) {
            (Decision::Place(_), A::Place { mouse, space }) => {
                let who = MouseRef {
                    seat: self.seat,
                    mouse: *mouse,
                };
                let crowd = Seat::all(g.players)
                    .flat_map(|s| g.player(s).mice.iter())
                    .filter(|m| m.loc == Loc::Inner(*space))
                    .count() as i64;
                self.landing(who, *space) - 15 * crowd
            }
            (Decision::HandMouse(who), A::HopOff) => self.landing(*who, g.minute),
            (Decision::HandMouse(who), A::Stay) => self.ride_value(*who, g.minute),
            (Decision::InnerRing(..), A::StepOut { mouse }) => {
                let who = MouseRef {
                    seat: self.seat,
                    mouse: *mouse,
                };
                self.landing(who, g.minute)
            }
            (Decision::InnerRing(..), A::Board { mouse }) => {
                let who = MouseRef {
                    seat: self.seat,
                    mouse: *mouse,
                };
                self.ride_value(who, g.minute) - 5
            }
            (Decision::Pending(Pending::Scurry { who, from }), A::Scurry { steps }) => {
                self.landing(*who, next_number(*from, *steps))
            }
            (Decision::Pending(Pending::Act { who, .. }), a) => self.act_score(*who, a),
            (Decision::Pending(Pending::SearchKeep { who, .. }), A::Keep { tile }) => {
                self.tile_value(*tile, &g.mouse(*who).tiles)
            }
            (Decision::Pending(Pending::Delivery { .. }), A::AddTile { .. }) => 30,
            (Decision::Pending(Pending::Delivery { .. }), A::AddFavour { .. }) => 20,
            (Decision::Pending(Pending::Delivery { .. }), A::FinishDelivery) => 10,
            (Decision::Pending(Pending::Hunt { .. }), A::MarkHunt { row, col }) => {
                let done = &self.me().hunt_done;
                let in_row = done[*row as usize].iter().filter(|d| **d).count() as i64;
                let in_col = done.iter().filter(|r| r[*col as usize]).count() as i64;
                in_row * in_row + in_col * in_col
            }
            _ => 0,
        }
    }

    fn act_score(&self, who: MouseRef, a: &HickoryAction) -> i64 {
        use HickoryAction as A;
        let g = self.g;
        let m = g.mouse(who);
        let room = who.mouse.capacity().saturating_sub(m.tiles.len()) as i64;
        match a {
            A::Deliver => {
                let deliverable = g.deliverable_here(who);
                let full = room == 0;
                if deliverable.len() >= 2 || full || self.last_hour() {
                    1000
                } else {
                    5
                }
            }
            A::Search => 400 + room,
            A::Climb => 300,
            A::TakeFavour => 200,
            A::Swap { give, take } => {
                let rest: Vec<TileId> = m.tiles.iter().copied().filter(|t| t != give).collect();
                let gain = self.tile_value(*take, &rest) - self.tile_value(*give, &rest);
                if gain > 10 { 100 + gain } else { -1 }
            }
            A::BuyWild { .. } => -1,
            A::CallScamp { space } => {
                let scamp = MouseRef {
                    seat: self.seat,
                    mouse: MouseKind::Scamp,
                };
                // Only when this mouse's own token gives nothing better (scored above 100), and the space is good.
                let v = self.landing(scamp, *space);
                if v >= 40 { 50 + v / 10 } else { -1 }
            }
            A::PlayFavour { card } => match FAVOURS[*card as usize].effect {
                // Keep cards as delivery items unless the effect is clearly useful now.
                FavourEffect::Clamber if self.me().scaler_link + FAVOUR_CLAMBER_LINKS >= CHAIN_TOP => 600,
                FavourEffect::Forage | FavourEffect::WebGift if room > 0 && self.last_hour() => 500,
                FavourEffect::WebGift if room > 0 => 450,
                _ => -1,
            },
            A::Done => 0,
            _ => -1,
        }
    }
}
