//! Tiles and the mice's moves: drawing from the bag, landing on the clock, climbing the chain, deliveries with
//! their favours and the hunt board, and searches.

use super::*;

impl Hickory {
    // -- tiles ----------------------------------------------------------------------------------------------------

    /// Draws one random tile from the bag, pouring the pantry back in when the bag is empty.
    pub(super) fn draw(&mut self, events: &mut Events) -> Option<TileId> {
        if self.bag.is_empty() && !self.pantry.is_empty() {
            self.bag.append(&mut self.pantry);
            self.bag.sort_unstable();
            events.push(Event::public(HickoryEvent::BagRefilled {
                tiles: self.bag.len(),
            }));
        }
        if self.bag.is_empty() {
            return None;
        }
        let i = self.rng.index(self.bag.len());
        Some(self.bag.swap_remove(i))
    }

    pub(super) fn return_to_bag(&mut self, ids: &[TileId]) {
        self.bag.extend_from_slice(ids);
    }

    pub(super) fn draw_favour(&mut self, seat: Seat, events: &mut Events) {
        if self.favour_deck.is_empty() {
            self.favour_deck.append(&mut self.favour_discard);
            self.rng.shuffle(&mut self.favour_deck);
        }
        if let Some(card) = self.favour_deck.pop() {
            self.player_mut(seat).favours.push(card);
            events.push(Event::public(HickoryEvent::FavourTaken { seat }));
            events.push(Event::to(
                seat,
                HickoryEvent::FavourDrawn {
                    seat,
                    card: favour_card(card),
                },
            ));
        }
    }

    // -- moving mice ----------------------------------------------------------------------------------------------

    /// A mouse arrives on the outer ring at `number`: it collects the tile there if it has room, then acts.
    pub(super) fn land(&mut self, who: MouseRef, number: u8, events: &mut Events) {
        self.mouse_mut(who).loc = Loc::Outer(number);
        if let Some(t) = self.space(number).tile {
            if self.room(who) > 0 {
                self.space_mut(number).tile = None;
                self.mouse_mut(who).tiles.push(t);
                events.push(Event::public(HickoryEvent::TileCollected {
                    seat: who.seat,
                    mouse: who.mouse,
                    number,
                    tile: tile(t),
                }));
            } else {
                events.push(Event::public(HickoryEvent::TileLeft {
                    seat: who.seat,
                    mouse: who.mouse,
                    number,
                    reason: "the mouse card is full".into(),
                }));
            }
        }
        self.phase = Phase::Play {
            pending: Some(Pending::Act {
                who,
                token_used: false,
            }),
        };
    }

    pub(super) fn climb(&mut self, seat: Seat, links: u8, events: &mut Events) {
        let p = self.player_mut(seat);
        p.scaler_link += links;
        let link = p.scaler_link.min(CHAIN_TOP);
        events.push(Event::public(HickoryEvent::Climbed { seat, links, link }));
        if p.scaler_link >= CHAIN_TOP {
            let points = i64::from(self.pinecone);
            let p = self.player_mut(seat);
            p.points.chain += points;
            p.scaler_link = 0;
            self.pinecone = self.pinecone.saturating_sub(1).max(PINECONE_MIN);
            events.push(Event::public(HickoryEvent::Summit {
                seat,
                points,
                pinecone: self.pinecone,
            }));
        }
    }

    pub(super) fn back_to_act(&mut self, who: MouseRef) {
        self.phase = Phase::Play {
            pending: Some(Pending::Act {
                who,
                token_used: true,
            }),
        };
    }

    /// After a piece was added to a delivery: the delivery is made once nothing is left to add (rules version 1:
    /// once every favour card in hand is added; version 2: every deliverable tile and every favour card), else the
    /// owner goes on choosing.
    pub(super) fn delivery_chosen(
        &mut self,
        who: MouseRef,
        favours: Vec<FavourId>,
        tiles: Vec<TileId>,
        events: &mut Events,
    ) {
        let all_favours = favours.len() == self.player(who.seat).favours.len();
        let all_tiles = !self.v2() || tiles.len() == self.deliverable_here(who).len();
        if all_favours && all_tiles {
            self.deliver(who, favours, tiles, events);
        } else {
            self.phase = Phase::Play {
                pending: Some(Pending::Delivery { who, favours, tiles }),
            };
        }
    }

    /// Makes a delivery: `chosen` tiles (rules version 2; version 1 hands over every deliverable tile) and the
    /// favour cards added as items.
    pub(super) fn deliver(
        &mut self,
        who: MouseRef,
        favours: Vec<FavourId>,
        chosen: Vec<TileId>,
        events: &mut Events,
    ) {
        let delivered = if self.v2() {
            chosen
        } else {
            self.deliverable_here(who)
        };
        self.mouse_mut(who).tiles.retain(|t| !delivered.contains(t));
        let mut group = Group::default();
        for &t in &delivered {
            group.add_tile(t);
        }
        for &f in &favours {
            group.add_favour(f);
        }
        let points = group.points();
        let seat = who.seat;
        let relics = delivered
            .iter()
            .filter(|&&t| tile_kind(t) == TileKind::Relic)
            .count() as i64;
        // Rules version 2: Lord Cuckoo keeps his relics; version 1 put them in the pantry (back into the bag).
        let handed: Vec<TileId> = delivered
            .iter()
            .copied()
            .filter(|&t| tile_kind(t) == TileKind::Relic)
            .collect();
        if self.v2() {
            self.cuckoo.extend(handed);
        } else {
            self.pantry.extend(handed);
        }
        for &f in &favours {
            self.player_mut(seat).favours.retain(|c| *c != f);
            self.favour_discard.push(f);
        }
        let relic_points = relics * RELIC_POINTS;
        let p = self.player_mut(seat);
        p.points.deliveries += points;
        p.points.relics += relic_points;
        events.push(Event::public(HickoryEvent::Delivered {
            seat,
            mouse: who.mouse,
            tiles: tiles(&delivered),
            favours: favours.iter().map(|&f| favour_card(f)).collect(),
            points,
            relic_points,
        }));
        for _ in 0..relics {
            self.draw_favour(seat, events);
        }
        // The hunt board: items first (in the card's order), then favour cards, then wilds (the most flexible).
        let items = delivered
            .iter()
            .filter(|&&t| matches!(tile_kind(t), TileKind::Item { .. }));
        let wilds = delivered.iter().filter(|&&t| tile_kind(t) == TileKind::Wild);
        let queue: Vec<Piece> = items
            .map(|&t| Piece::Tile(t))
            .chain(favours.iter().map(|&f| Piece::Favour(f)))
            .chain(wilds.map(|&t| Piece::Tile(t)))
            .collect();
        self.place_on_hunt_board(who, queue, delivered, favours, 0, events);
    }

    /// Free spaces of `seat`'s hunt board that accept `piece`.
    pub(super) fn hunt_candidates(&self, seat: Seat, piece: Piece) -> Vec<(u8, u8)> {
        let p = self.player(seat);
        let board = HUNT_BOARDS[p.hunt_board as usize];
        let accepts = |space: HuntSpace| match piece {
            Piece::Favour(f) => space.accepts(FAVOURS[f as usize].colour, FAVOURS[f as usize].item),
            Piece::Tile(t) => match tile_kind(t) {
                TileKind::Item { colour, item } => space.accepts(colour, item),
                TileKind::Wild => true,
                TileKind::Relic => false,
            },
        };
        let mut out = Vec::new();
        for (r, row) in board.iter().enumerate() {
            for (c, &space) in row.iter().enumerate() {
                if !p.hunt_done[r][c] && accepts(space) {
                    out.push((r as u8, c as u8));
                }
            }
        }
        out
    }

    pub(super) fn mark_hunt(&mut self, seat: Seat, piece: Piece, (row, col): (u8, u8), events: &mut Events) {
        let p = self.player_mut(seat);
        p.hunt_done[row as usize][col as usize] = true;
        if let Piece::Tile(t) = piece {
            p.hunt_tiles.push(t);
        }
        events.push(Event::public(HickoryEvent::HuntMarked {
            seat,
            row,
            col,
            piece: piece_view(piece),
        }));
    }

    /// Places the delivered pieces on the hunt board in order: a piece with one free space that accepts it takes
    /// it, a piece with none is set aside (items to the pantry, wilds back to Itzy's web), and a piece with a choice
    /// waits for its owner. When all are placed, the delivery is checked against the missions.
    pub(super) fn place_on_hunt_board(
        &mut self,
        who: MouseRef,
        mut queue: Vec<Piece>,
        delivered: Vec<TileId>,
        favours: Vec<FavourId>,
        mut marked: usize,
        events: &mut Events,
    ) {
        let seat = who.seat;
        while let Some(&piece) = queue.first() {
            let candidates = self.hunt_candidates(seat, piece);
            if candidates.len() > 1 {
                let pending = Pending::Hunt {
                    who,
                    queue,
                    delivered,
                    favours,
                    marked,
                };
                self.phase = Phase::Play {
                    pending: Some(pending),
                };
                return;
            }
            queue.remove(0);
            match (candidates.first(), piece) {
                (Some(&space), _) => {
                    self.mark_hunt(seat, piece, space, events);
                    marked += 1;
                }
                (None, Piece::Tile(t)) if tile_kind(t) == TileKind::Wild => self.web_wilds.push(t),
                (None, Piece::Tile(t)) => self.pantry.push(t),
                (None, Piece::Favour(_)) => {}
            }
        }
        let mut group = Group::default();
        for &t in &delivered {
            group.add_tile(t);
        }
        for &f in &favours {
            group.add_favour(f);
        }
        // Missions are checked after the tiles have been scored (seed); both face-up cards, as they lay.
        let face_up = self.missions.clone();
        for m in face_up {
            if group.meets(MISSIONS[m as usize].requirement, marked) {
                self.missions.retain(|x| *x != m);
                let p = self.player_mut(seat);
                p.missions_done.push(m);
                p.points.missions += MISSIONS[m as usize].points;
                events.push(Event::public(HickoryEvent::MissionCompleted {
                    seat,
                    mission: mission_card(m),
                }));
                if let Some(next) = self.mission_deck.pop() {
                    self.missions.push(next);
                    events.push(Event::public(HickoryEvent::MissionRevealed {
                        mission: mission_card(next),
                    }));
                }
            }
        }
        self.back_to_act(who);
    }

    pub(super) fn search(&mut self, who: MouseRef, events: &mut Events) {
        let (draw, keep) = if self.v2() {
            (SEARCH_DRAW, SEARCH_KEEP)
        } else {
            (SEARCH_DRAW_V1, SEARCH_KEEP_V1)
        };
        let draws = draw
            + if who.mouse == MouseKind::Spotter {
                SPOTTER_EXTRA_DRAW
            } else {
                0
            };
        let mut drawn = Vec::new();
        for _ in 0..draws {
            match self.draw(events) {
                Some(t) => drawn.push(t),
                None => break,
            }
        }
        events.push(Event::public(HickoryEvent::SearchDrawn {
            seat: who.seat,
            mouse: who.mouse,
            tiles: tiles(&drawn),
        }));
        let keep = keep.min(self.room(who)).min(drawn.len());
        if keep == drawn.len() {
            self.mouse_mut(who).tiles.extend_from_slice(&drawn);
            events.push(Event::public(HickoryEvent::SearchKept {
                seat: who.seat,
                mouse: who.mouse,
                kept: tiles(&drawn),
                returned: vec![],
            }));
            self.back_to_act(who);
        } else {
            self.phase = Phase::Play {
                pending: Some(Pending::SearchKeep {
                    who,
                    drawn,
                    keep,
                    kept: vec![],
                }),
            };
        }
    }
}
