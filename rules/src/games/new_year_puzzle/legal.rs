//! What a seat may do now ([`Game::legal_actions`]) and why anything else is refused: where a card fits, and
//! when a player may stop.

use super::*;

impl NewYearPuzzle {
    /// Whether the card `card`, lying at `from`, would be a success: its own place shares a side with a card
    /// uncovered on the table other than itself (GAPS Q8; seed 002: "a card already revealed on the table"): a
    /// card of the picture (corners included), and from rules version 3 an exposed card too.
    pub(super) fn fits(&self, card: u8, from: u8) -> bool {
        side_neighbours(card).any(|p| p != from && self.uncovered(p))
    }

    /// Whether the card at `position` counts as uncovered on the table, for [`Self::fits`] and `puzzle_master`:
    /// a card of the picture; from version 3 also an exposed card (issue 43: versions 1 and 2 left it out).
    pub(super) fn uncovered(&self, position: u8) -> bool {
        self.face_up[position as usize] || (self.exposed_are_neighbours() && self.is_exposed(position))
    }

    /// Whether this match plays rules version 3 or later: an exposed card counts as a neighbour (issue 43).
    pub(super) fn exposed_are_neighbours(&self) -> bool {
        self.rules_version >= 3
    }

    /// Whether the seat to act may `stop`: on an extra move; from version 2 also to pass, unless every other
    /// player has passed since the last reveal.
    pub(super) fn may_stop(&self) -> bool {
        self.extra_move || (self.v2() && self.passes + 1 < self.players)
    }

    pub(super) fn check(&self, actor: Actor, action: &PuzzleAction) -> Result<Seat, PuzzleReject> {
        if self.over {
            return Err(PuzzleReject::GameOver);
        }
        let seat = match actor {
            Actor::Clock => return Err(PuzzleReject::NoClockAction),
            Actor::Seat(seat) if seat.0 >= self.players => return Err(PuzzleReject::NoSuchSeat(seat)),
            Actor::Seat(seat) if seat != self.turn => {
                return Err(PuzzleReject::NotYourTurn { turn: self.turn });
            }
            Actor::Seat(seat) => seat,
        };
        match *action {
            PuzzleAction::Reveal { position } if position as usize >= CARDS => {
                Err(PuzzleReject::NoSuchPosition(position))
            }
            PuzzleAction::Reveal { position } if self.face_up[position as usize] => {
                Err(PuzzleReject::AlreadyFaceUp(position))
            }
            PuzzleAction::Reveal { position }
                if self.is_exposed(position) && !self.fits(self.board[position as usize], position) =>
            {
                Err(PuzzleReject::ExposedMisfit(position))
            }
            PuzzleAction::Reveal { .. } => Ok(seat),
            PuzzleAction::Stop if self.may_stop() => Ok(seat),
            PuzzleAction::Stop if self.v2() => Err(PuzzleReject::MustReveal),
            PuzzleAction::Stop => Err(PuzzleReject::NoExtraMove),
        }
    }

    /// What `seat` may do now ([`Game::legal_actions`]).
    pub(super) fn legal(&self, seat: Seat) -> Vec<PuzzleAction> {
        if self.over || seat != self.turn {
            return Vec::new();
        }
        let mut actions: Vec<PuzzleAction> = (0..CARDS as u8)
            .filter(|p| self.face_down(*p) || (self.is_exposed(*p) && self.fits(self.board[*p as usize], *p)))
            .map(|position| PuzzleAction::Reveal { position })
            .collect();
        if self.may_stop() {
            actions.push(PuzzleAction::Stop);
        }
        actions
    }
}
