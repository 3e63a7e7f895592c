//! What a seat may do now ([`Game::legal_actions`]) and why anything else is refused.

use super::*;

/// Every order of `items`, in the lexicographic order of their positions (the first item's orders first). Built
/// iteratively (next permutation of the positions) into one preallocated list.
pub(super) fn permutations(items: &[CardId]) -> Vec<Vec<CardId>> {
    let mut out = Vec::with_capacity((1..=items.len()).product());
    each_permutation(items, |order| out.push(order.to_vec()));
    out
}

/// Calls `each` with every order of `items`, in [`permutations`]' order, each in the same buffer.
pub(super) fn each_permutation(items: &[CardId], mut each: impl FnMut(&[CardId])) {
    let n = items.len();
    let mut positions: Vec<usize> = (0..n).collect();
    let mut order = items.to_vec();
    loop {
        for (slot, &i) in order.iter_mut().zip(&positions) {
            *slot = items[i];
        }
        each(&order);
        // The next permutation: the last ascent, swapped with the last position above it, the tail reversed.
        let Some(k) = (1..n)
            .rev()
            .find(|&k| positions[k - 1] < positions[k])
            .map(|k| k - 1)
        else {
            return;
        };
        let l = (k + 1..n)
            .rev()
            .find(|&l| positions[k] < positions[l])
            .expect("an ascent has a larger position after it");
        positions.swap(k, l);
        positions[k + 1..].reverse();
    }
}

impl Molehills {
    pub(super) fn check(&self, seat: Seat, action: &MolehillsAction) -> Result<(), MolehillsReject> {
        use MolehillsAction as A;
        use MolehillsReject as R;
        if self.phase == Phase::Over {
            return Err(R::GameOver);
        }
        if self.phase == Phase::Planning {
            if self.plans[seat.index()].is_some() {
                return Err(R::AlreadyPlanned);
            }
            let A::Plan { order } = action else {
                return Err(R::WrongPhase);
            };
            let mut sorted = order.clone();
            sorted.sort_unstable();
            return if sorted == self.hands[seat.index()] {
                Ok(())
            } else {
                Err(R::BadStack)
            };
        }
        if self.actor() != Some(seat) {
            return Err(R::NotYourTurn);
        }
        match (&self.phase, action) {
            (Phase::PlaceMoles { .. }, A::PlaceMole { at, .. }) => {
                if self.corners().contains(at) && self.mole_at(*at).is_none() {
                    Ok(())
                } else {
                    Err(R::NotAFreeCorner)
                }
            }
            (Phase::Draft { .. }, A::Pick { card }) => {
                if self.display.contains(card) {
                    Ok(())
                } else {
                    Err(R::NotInDisplay)
                }
            }
            (
                Phase::Resolving {
                    pending: Some(Pending::MoveTurn { .. }),
                    ..
                },
                A::MoveThenTurn | A::TurnThenMove,
            ) => Ok(()),
            (
                Phase::Resolving {
                    pending: Some(Pending::Rock { spaces, .. }),
                    ..
                },
                A::PlaceRock { at },
            ) => {
                if spaces.contains(at) {
                    Ok(())
                } else {
                    Err(R::RockNotThere)
                }
            }
            (Phase::KingOfTheHill { .. }, A::ChooseToken { token }) => {
                if (1..=self.players).contains(token) {
                    Ok(())
                } else {
                    Err(R::NoSuchToken)
                }
            }
            _ => Err(R::WrongPhase),
        }
    }

    /// What `seat` may do now ([`Game::legal_actions`]).
    pub(super) fn legal(&self, seat: Seat) -> Vec<MolehillsAction> {
        use MolehillsAction as A;
        if seat.0 >= self.players {
            return Vec::new();
        }
        if self.phase == Phase::Planning {
            if self.plans[seat.index()].is_some() {
                return Vec::new();
            }
            return permutations(&self.hands[seat.index()])
                .into_iter()
                .map(|order| A::Plan { order })
                .collect();
        }
        if self.actor() != Some(seat) {
            return Vec::new();
        }
        match &self.phase {
            Phase::PlaceMoles { .. } => self
                .corners()
                .into_iter()
                .filter(|c| self.mole_at(*c).is_none())
                .flat_map(|at| Dir::ALL.map(|facing| A::PlaceMole { at, facing }))
                .collect(),
            Phase::Draft { .. } => self.display.iter().map(|card| A::Pick { card: *card }).collect(),
            Phase::Resolving {
                pending: Some(Pending::MoveTurn { .. }),
                ..
            } => vec![A::MoveThenTurn, A::TurnThenMove],
            Phase::Resolving {
                pending: Some(Pending::Rock { spaces, .. }),
                ..
            } => spaces.iter().map(|at| A::PlaceRock { at: *at }).collect(),
            Phase::KingOfTheHill { .. } => (1..=self.players).map(|token| A::ChooseToken { token }).collect(),
            Phase::Planning | Phase::Resolving { pending: None, .. } | Phase::Over => Vec::new(),
        }
    }
}
