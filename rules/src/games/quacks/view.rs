//! What a viewer sees: each board (the chips not in the pot counted by kind, the own bag and the chips looked
//! at only for their owner) and the view built from the state for one viewer.

use super::*;

/// A count of one kind of chip, for views.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct ChipCount {
    pub chip: Chip,
    pub count: u8,
}

/// Calls `each` with the count of every kind of chip in `a` and `b` together, in chip order (the order of
/// [`SUPPLY`], which is `Chip`'s), whatever the order of the two. A bag and the chips aside are kept sorted, so
/// the runs of equal chips at the heads of the two are counted as they are, with no copy and no sort; a state
/// whose chips are out of order (never made in play, but a view must not depend on the order of a bag) is
/// counted from a sorted copy.
pub(super) fn for_each_count(a: &[Chip], b: &[Chip], mut each: impl FnMut(ChipCount)) {
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
pub(super) fn counts(a: &[Chip], b: &[Chip]) -> Vec<ChipCount> {
    // At most one entry per kind of chip in the box.
    let mut out = Vec::with_capacity((a.len() + b.len()).min(SUPPLY.len()));
    for_each_count(a, b, |c| out.push(c));
    out
}

/// One player's board as a viewer sees it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct PlayerView<'a> {
    pub seat: Seat,
    pub score: u32,
    pub rubies: u32,
    pub droplet: u8,
    pub rat_tails: u32,
    /// Where the first chip of the round is counted from (droplet plus rat tails).
    pub rat_space: u8,
    pub flask_full: bool,
    #[json(shared)]
    pub pot: &'a [Placed],
    pub whites: u8,
    pub brew: Brew,
    /// The space that would be scored now.
    pub scoring_space: u8,
    /// The chips not in the pot (bag and any being looked at): public knowledge.
    #[json(shared)]
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
    /// Rules version 2: the spaces the red chip just placed moved for its oranges, which may be declined.
    pub red_bonus: u8,
    /// Rules version 2: droplet steps of this round that may still be given back.
    pub optional_steps: u8,
}

/// What one viewer may know.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema, json_write::WriteJson)]
pub struct QuacksView<'a> {
    pub viewer: Viewer,
    pub round: u8,
    pub rounds: u8,
    pub start_player: Seat,
    pub phase: &'static str,
    pub card: Option<Card>,
    pub cards_left: usize,
    pub white_limit: u8,
    /// The rules version this match plays by.
    pub rules_version: u32,
    /// Whether this round's brewing is in lockstep (round 9, or every round with the lobby's option): `draw` and
    /// `stop` are commitments revealed at the stir.
    pub stirring: bool,
    /// Whether this round's purchases go in start-player order (some chip could run out).
    pub buying_in_order: bool,
    pub books: Vec<Colour>,
    #[json(shared)]
    pub supply: Vec<ChipCount>,
    /// Every chip sold in evaluation step E with its price in coins (game data, the same in every view).
    #[json(shared)]
    pub prices: &'static [ChipPrice],
    pub players: Vec<PlayerView<'a>>,
    /// Only once the game is over.
    pub outcome: Option<Outcome>,
}

impl Quacks {
    /// The state as `viewer` may see it ([`Game::view`]): the members every viewer shares (the long ones
    /// `#[json(shared)]`, written once for every viewer), then `viewer`'s own ([`Quacks::rebind_view_of`]).
    pub(super) fn view_of(&self, viewer: Viewer) -> QuacksView<'_> {
        let players = self
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let seat = Seat(i as u8);
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
                    looking_at: None,
                    bag: None,
                    deciding: p.pending,
                    committed: p.commitment.is_some(),
                    commitment: None,
                    shop: p.shop,
                    coins: p.coins,
                    red_bonus: p.red_bonus,
                    optional_steps: p.optional_steps,
                }
            })
            .collect();
        let mut view = QuacksView {
            viewer,
            round: self.round,
            rounds: ROUNDS,
            start_player: self.start_player,
            phase: self.phase.name(),
            card: self.card,
            cards_left: self.deck.len(),
            white_limit: self.white_limit(),
            rules_version: self.rules_version,
            stirring: self.stirring(),
            buying_in_order: self.buying_in_order,
            books: Colour::ALL.into_iter().filter(|c| self.book_open(*c)).collect(),
            supply: self
                .supply
                .iter()
                .map(|(chip, count)| ChipCount {
                    chip: *chip,
                    count: *count,
                })
                .collect(),
            prices: &PRICE_LIST,
            players,
            outcome: self.outcome(),
        };
        self.rebind_view_of(&mut view, viewer);
        view
    }

    /// Sets the members of `view` that differ from viewer to viewer to `viewer`'s ([`Game::rebind_view`]): the
    /// viewer, and on the viewer's own board the chips it looks at, its bag and its commitment. Every other
    /// member is the same for every viewer.
    pub(super) fn rebind_view_of<'a>(&'a self, view: &mut QuacksView<'a>, viewer: Viewer) {
        view.viewer = viewer;
        for (board, p) in view.players.iter_mut().zip(&self.players) {
            let own = viewer == Viewer::Seat(board.seat);
            board.looking_at = own.then_some(&p.aside[..]);
            board.bag = own.then(|| counts(&p.bag, &[]));
            board.commitment = if own { p.commitment } else { None };
        }
    }
}
