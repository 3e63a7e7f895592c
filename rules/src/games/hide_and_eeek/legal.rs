//! What a seat may do now ([`Game::legal_actions`]) and why anything else is refused (rules version 1, and the
//! turn's moves of every version; version 2's windows are in [`super::v2`]), with where the mouse figure can go.

use super::*;

impl HideAndEeek {
    /// Every cell the mouse can end on after exactly `steps` orthogonal steps without revisiting a cell (the
    /// start included), in row-major order. If no walk is that long, the longest possible walks count.
    ///
    /// The answer depends only on the grid's shape, so it is computed once per (start, steps) and then looked up:
    /// the walk enumerates every self-avoiding path and was 87 % of the engine's time (docs/performance.md).
    pub fn destinations(from: Cell, steps: u8) -> Vec<Cell> {
        Self::reachable(from, steps).into_owned()
    }

    /// [`HideAndEeek::destinations`] without a copy of the table's list.
    pub(super) fn reachable(from: Cell, steps: u8) -> Cow<'static, [Cell]> {
        const MAX_CACHED_STEPS: u8 = 6;
        static TABLE: std::sync::OnceLock<Vec<Vec<Cell>>> = std::sync::OnceLock::new();
        if !from.on_grid() || steps > MAX_CACHED_STEPS {
            return Cow::Owned(Self::walk_destinations(from, steps));
        }
        let table = TABLE.get_or_init(|| {
            (0..GRID_CELLS)
                .flat_map(|i| {
                    (0..=MAX_CACHED_STEPS).map(move |s| Self::walk_destinations(Cell::from_index(i), s))
                })
                .collect()
        });
        Cow::Borrowed(&table[from.index() * (MAX_CACHED_STEPS as usize + 1) + steps as usize])
    }

    /// [`HideAndEeek::destinations`], computed by enumerating the walks.
    pub(super) fn walk_destinations(from: Cell, steps: u8) -> Vec<Cell> {
        fn walk(at: Cell, left: u8, visited: &mut Vec<Cell>, depth: u8, best: &mut (u8, Vec<Cell>)) {
            if depth > best.0 {
                *best = (depth, Vec::new());
            }
            if depth == best.0 && !best.1.contains(&at) {
                best.1.push(at);
            }
            if left == 0 {
                return;
            }
            for next in at.neighbours() {
                if !visited.contains(&next) {
                    visited.push(next);
                    walk(next, left - 1, visited, depth + 1, best);
                    visited.pop();
                }
            }
        }
        let mut best = (0, Vec::new());
        walk(from, steps, &mut vec![from], 0, &mut best);
        let mut cells = best.1;
        cells.sort();
        cells
    }

    /// Adjacent cells holding a card the active player may choose (face-up mouse cards are claimed, not chosen).
    pub(super) fn choosable(&self) -> impl Iterator<Item = Cell> + '_ {
        let v2 = self.v2();
        self.mouse.neighbours().filter(move |&c| match self.card_at(c) {
            Some(card) => v2 || !(card.face_up && shows_mouse(card.number)),
            None => false,
        })
    }

    /// The face-up mouse cards, which any seat may claim, in row-major order.
    pub(super) fn claimable(&self) -> impl Iterator<Item = Cell> + '_ {
        self.grid
            .iter()
            .enumerate()
            .filter(|(_, card)| card.is_some_and(|card| card.face_up && shows_mouse(card.number)))
            .map(|(i, _)| Cell::from_index(i))
    }

    /// Calls `f` with every action `seat` may take now, in the order of [`Game::legal_actions`] (which collects
    /// them; the text writer writes them straight away).
    pub(super) fn each_legal_action(&self, seat: Seat, mut f: impl FnMut(Action)) {
        if self.over || seat.0 >= self.players {
            return;
        }
        if self.v2() {
            return self.each_legal_action_v2(seat, f);
        }
        if seat == self.turn && self.race.is_none() {
            self.each_turn_action(&mut f);
        }
        self.claimable().for_each(|cell| f(Action::Eeek { cell }));
    }

    /// Calls `f` with every move of the turn (`Move`, `Choose`, `Stop`) the active player may make now, both
    /// rules versions (the counterpart of [`Self::check_turn`]).
    pub(super) fn each_turn_action(&self, f: &mut impl FnMut(Action)) {
        match &self.step {
            TurnStep::Move => {
                for &to in Self::reachable(self.mouse, self.roll.steps).iter() {
                    f(Action::Move { to });
                }
            }
            TurnStep::Collect { collected } => {
                self.choosable().for_each(|cell| f(Action::Choose { cell }));
                if !collected.is_empty() {
                    f(Action::Stop);
                }
            }
        }
    }

    pub(super) fn check(&self, actor: Actor, action: &Action, now: Millis) -> Result<(), Rejected> {
        if self.over {
            return Err(Rejected::GameOver);
        }
        if !self.v2() && *action == Action::Pass {
            // Version 1 has no window to answer.
            return Err(Rejected::NoWindow);
        }
        let seat = match actor {
            // The clock's one action closes the open claim window (version 1's race, version 2's window) when due.
            Actor::Clock => {
                return match (action, self.window_closes_at()) {
                    (Action::CloseRace, Some(at)) if at <= now => Ok(()),
                    _ => Err(Rejected::NotDue),
                };
            }
            Actor::Seat(seat) if seat.0 >= self.players => return Err(Rejected::NoSuchSeat(seat)),
            Actor::Seat(seat) => seat,
        };
        if self.v2() {
            return self.check_v2(seat, action);
        }
        if let Action::Eeek { cell } = action {
            return if cell.on_grid() && self.claimable().any(|c| c == *cell) {
                Ok(())
            } else {
                Err(Rejected::NoMouseThere(*cell))
            };
        }
        if let Action::CloseRace = action {
            return Err(Rejected::ClockOnly);
        }
        self.check_turn(seat, action, self.race.is_some())
    }

    /// Checks a move of the turn (`Move`, `Choose`, `Stop`) by `seat`, both rules versions: the seat's turn, no
    /// open claim window (`window_open`), the turn's step. Version 1 refuses a face-up mouse card (it can only be
    /// claimed); version 2 shows no mice, so any card next to the mouse figure may be chosen.
    pub(super) fn check_turn(&self, seat: Seat, action: &Action, window_open: bool) -> Result<(), Rejected> {
        if seat != self.turn {
            return Err(Rejected::NotYourTurn(self.turn));
        }
        if window_open {
            return Err(Rejected::RaceOpen);
        }
        match (action, &self.step) {
            (Action::Move { to }, TurnStep::Move) => {
                if to.on_grid() && Self::reachable(self.mouse, self.roll.steps).contains(to) {
                    Ok(())
                } else {
                    Err(Rejected::Unreachable(*to))
                }
            }
            (Action::Move { .. }, _) => Err(Rejected::WrongStep("the mouse has already moved")),
            (Action::Choose { cell }, TurnStep::Collect { .. }) => {
                if !cell.on_grid() || !self.mouse.neighbours().any(|n| n == *cell) {
                    Err(Rejected::NotAdjacent(*cell))
                } else {
                    match self.card_at(*cell) {
                        None => Err(Rejected::NoCard(*cell)),
                        Some(card) if !self.v2() && card.face_up && shows_mouse(card.number) => {
                            Err(Rejected::MouseCardCannotBeChosen(*cell))
                        }
                        Some(_) => Ok(()),
                    }
                }
            }
            (Action::Choose { .. }, _) => Err(Rejected::WrongStep("move the mouse first")),
            (Action::Stop, TurnStep::Collect { collected }) if !collected.is_empty() => Ok(()),
            (Action::Stop, _) => Err(Rejected::NothingToBank),
            (Action::Eeek { .. } | Action::CloseRace | Action::Pass, _) => {
                unreachable!("claims, answers and the clock are checked before the turn")
            }
        }
    }
}
