//! What a seat may do now ([`Game::legal_actions`]) and why anything else is refused.

use super::*;

impl Hickory {
    pub(super) fn token_usable(&self, number: u8) -> bool {
        !self.paws.contains(&number)
    }

    /// Tiles of a mouse that a delivery at a space with `token` hands over.
    pub(super) fn deliverable(&self, who: MouseRef, token: ActionKind) -> Vec<TileId> {
        self.mouse(who)
            .tiles
            .iter()
            .copied()
            .filter(|&t| token == ActionKind::CuckooDoor || tile_kind(t) != TileKind::Relic)
            .collect()
    }

    /// The deliverable tiles of a mouse standing on the outer ring, by the token of its space.
    pub(super) fn deliverable_here(&self, who: MouseRef) -> Vec<TileId> {
        let Loc::Outer(here) = self.mouse(who).loc else {
            unreachable!("deliveries happen on the outer ring")
        };
        self.deliverable(who, self.space(here).token)
    }

    pub(super) fn can_draw(&self) -> bool {
        !self.bag.is_empty() || !self.pantry.is_empty()
    }

    pub(super) fn legal(&self, seat: Seat) -> Vec<HickoryAction> {
        use HickoryAction as A;
        let Some(decision) = self.decision() else {
            return vec![];
        };
        if decision.seat() != seat {
            return vec![];
        }
        let mut out = Vec::new();
        match decision {
            Decision::Place(s) => {
                for kind in STARTING_MICE {
                    if self.player(s).mouse(kind).loc == Loc::Unplaced {
                        for space in (1..=NUMBERS).filter(|&n| !(self.v2() && n == NO_INNER_RING)) {
                            out.push(A::Place { mouse: kind, space });
                        }
                    }
                }
            }
            Decision::HandMouse(_) => {
                out.push(A::Stay);
                out.push(A::HopOff);
            }
            Decision::InnerRing(s, here) => {
                let free = self.hand_free();
                // Rules version 3: under a cat paw the outer ring is closed, so boarding is the only way off.
                let blocked = self.blocked(here);
                for m in &self.player(s).mice {
                    if m.loc == Loc::Inner(here) {
                        if !blocked {
                            out.push(A::StepOut { mouse: m.kind });
                        }
                        // Rules version 2: boarding a full hand bumps its front mice off.
                        if self.v2() || m.kind.hand_places() <= free {
                            out.push(A::Board { mouse: m.kind });
                        }
                    }
                }
            }
            Decision::Pending(Pending::Scurry { from, .. }) => {
                for steps in 0..=SCURRY_MAX {
                    if !self.blocked(next_number(from, steps)) {
                        out.push(A::Scurry { steps });
                    }
                }
            }
            Decision::Pending(Pending::Act { who, token_used }) => {
                let Loc::Outer(here) = self.mouse(who).loc else {
                    unreachable!("an acting mouse stands on the outer ring")
                };
                if !token_used && self.token_usable(here) {
                    self.token_actions(who, self.space(here).token, &mut out);
                }
                if !token_used
                    && who.mouse != MouseKind::Scamp
                    && self.player(seat).mouse(MouseKind::Scamp).loc == Loc::Card
                {
                    for space in (1..=NUMBERS).filter(|&n| !self.blocked(n)) {
                        out.push(A::CallScamp { space });
                    }
                }
                for &card in &self.player(seat).favours {
                    let possible = match FAVOURS[card as usize].effect {
                        FavourEffect::Forage => self.room(who) > 0 && self.can_draw(),
                        FavourEffect::WebGift => self.room(who) > 0 && !self.web_wilds.is_empty(),
                        FavourEffect::Clamber => true,
                    };
                    if possible {
                        out.push(A::PlayFavour { card });
                    }
                }
                out.push(A::Done);
            }
            Decision::Pending(Pending::SearchKeep { drawn, .. }) => {
                for &t in &drawn {
                    out.push(A::Keep { tile: t });
                }
            }
            Decision::Pending(Pending::Delivery { who, favours, tiles }) => {
                if self.v2() {
                    for t in self.deliverable_here(who) {
                        if !tiles.contains(&t) {
                            out.push(A::AddTile { tile: t });
                        }
                    }
                }
                for &card in &self.player(seat).favours {
                    if !favours.contains(&card) {
                        out.push(A::AddFavour { card });
                    }
                }
                // Version 2: something must be chosen (version 1 delivers the card's tiles anyway).
                if !self.v2() || !tiles.is_empty() || !favours.is_empty() {
                    out.push(A::FinishDelivery);
                }
            }
            Decision::Pending(Pending::Hunt { queue, .. }) => {
                for (row, col) in self.hunt_candidates(seat, queue[0]) {
                    out.push(A::MarkHunt { row, col });
                }
            }
        }
        out
    }

    pub(super) fn token_actions(&self, who: MouseRef, token: ActionKind, out: &mut Vec<HickoryAction>) {
        use HickoryAction as A;
        match token {
            ActionKind::Climb => out.push(A::Climb),
            ActionKind::Delivery | ActionKind::CuckooDoor => {
                if !self.deliverable(who, token).is_empty() {
                    out.push(A::Deliver);
                }
            }
            ActionKind::Search => {
                if self.room(who) > 0 && self.can_draw() {
                    out.push(A::Search);
                }
            }
            ActionKind::Favour => {
                if !self.favour_deck.is_empty() || !self.favour_discard.is_empty() {
                    out.push(A::TakeFavour);
                }
            }
            ActionKind::Exchange => {
                let tradeable: Vec<TileId> = self
                    .mouse(who)
                    .tiles
                    .iter()
                    .copied()
                    .filter(|&t| tile_kind(t) != TileKind::Relic)
                    .collect();
                for &give in &tradeable {
                    for &take in &self.web_market {
                        out.push(A::Swap { give, take });
                    }
                }
                if !self.web_wilds.is_empty() {
                    let items: Vec<TileId> = tradeable
                        .iter()
                        .copied()
                        .filter(|&t| tile_kind(t) != TileKind::Wild)
                        .collect();
                    for pay in combinations(&items, WILD_PRICE) {
                        out.push(A::BuyWild { pay });
                    }
                }
            }
        }
    }

    /// The most precise reason we can give for an action that is not listed.
    pub(super) fn refusal(&self, seat: Seat, action: &HickoryAction) -> HickoryReject {
        let Some(decision) = self.decision() else {
            return HickoryReject::GameOver;
        };
        if decision.seat() != seat {
            return HickoryReject::NotYourTurn(decision.seat());
        }
        use HickoryAction as A;
        let fits = matches!(
            (&decision, action),
            (Decision::Place(_), A::Place { .. })
                | (Decision::HandMouse(_), A::Stay | A::HopOff)
                | (Decision::InnerRing(..), A::StepOut { .. } | A::Board { .. })
                | (Decision::Pending(Pending::Scurry { .. }), A::Scurry { .. })
                | (Decision::Pending(Pending::Hunt { .. }), A::MarkHunt { .. })
                | (Decision::Pending(Pending::SearchKeep { .. }), A::Keep { .. })
                | (
                    Decision::Pending(Pending::Delivery { .. }),
                    A::AddTile { .. } | A::AddFavour { .. } | A::FinishDelivery
                )
                | (
                    Decision::Pending(Pending::Act { .. }),
                    A::Climb
                        | A::Deliver
                        | A::Search
                        | A::TakeFavour
                        | A::Swap { .. }
                        | A::BuyWild { .. }
                        | A::CallScamp { .. }
                        | A::PlayFavour { .. }
                        | A::Done
                )
        );
        if !fits {
            return HickoryReject::NotNow(decision.name());
        }
        HickoryReject::Unavailable(match action {
            A::Place { .. } => "that mouse is already placed, or there is no such space",
            A::Board { .. } => {
                "that mouse is not on this inner-ring space, or the minute hand has no room for it"
            }
            A::StepOut { .. } if self.blocked(self.minute) => {
                "a cat paw blocks this number: its mice cannot step out, they must board the minute hand"
            }
            A::StepOut { .. } => "that mouse is not on this inner-ring space",
            A::Scurry { .. } => "the scurrier runs on 0, 1 or 2 numbers",
            A::Keep { .. } => "that tile was not drawn in this search",
            A::AddTile { .. } => "that tile is not on the delivering mouse's card, or is chosen already",
            A::FinishDelivery => "choose at least one tile or favour card to deliver",
            A::MarkHunt { .. } => "that hunt-board space is completed already or does not accept this piece",
            A::AddFavour { .. } | A::PlayFavour { .. } => {
                "that favour card is not in your hand or cannot be used"
            }
            A::CallScamp { .. } => {
                "the scamp is not on its card, the token was already used, or no such space"
            }
            A::Swap { .. } | A::BuyWild { .. } => "that trade is not possible at Itzy's web",
            _ => "this space's token cannot be used (used already, covered by a cat paw, or nothing to do)",
        })
    }
}
