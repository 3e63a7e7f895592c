//! What the viewers are told: the lobby message, and the `state` push of each change built once per change for
//! every viewer (the spectators' view shared by everyone who may see it), with the events each viewer may see.
//! A connection that arrives or resumes gets the current state with the events it missed since the version it
//! last saw, when they are still in memory. A connection too slow to take its pushes is dropped.

use protocol::{
    LobbyInfo, LobbyPhase, Occupant as WireOccupant, Push, RawJson, SeatInfo, ServerMessage, StateUpdate,
};
use rules::{AnyGame, Event, Millis, Seat, Status, Viewer};

use super::{Conn, Occupant, Table};
use crate::store::Phase;

/// `viewer`'s view as the text a state push carries, written once from the engine's view by its generated
/// writer (see `AnyGame::views`; `size_hint` is the last view's size).
pub fn view_json(game: &AnyGame, viewer: Viewer, size_hint: &mut usize) -> RawJson {
    let text = game
        .views(&[viewer], size_hint)
        .pop()
        .expect("one view per viewer");
    RawJson::from(text)
}

/// How many spectators' names a lobby push lists (the first to come); the rest are counted in `spectators` only,
/// so that a crowd of watchers does not make every push of the lobby grow with it.
pub(super) const WATCHERS_LISTED: usize = 20;

impl Table {
    fn lobby_info(&self, now: Millis) -> LobbyInfo {
        LobbyInfo {
            code: self.code.to_string(),
            game: self.game_id.to_string(),
            options: self.options.clone(),
            rules_version: self.rules_version,
            seats: self
                .seats
                .iter()
                .enumerate()
                .map(|(i, o)| SeatInfo {
                    seat: Seat(i as u8),
                    occupant: match o {
                        Occupant::Empty => WireOccupant::Empty,
                        Occupant::Human { name, conn, .. } => WireOccupant::Human {
                            name: name.clone(),
                            connected: conn.is_some(),
                            presence: self.presence_of(i, now),
                            stand_in: self.stands_in(i, now),
                        },
                        Occupant::Bot { name } => WireOccupant::Bot { name: name.clone() },
                    },
                })
                .collect(),
            host: Seat(self.host),
            phase: match self.phase {
                Phase::Open | Phase::Closed => LobbyPhase::Open,
                Phase::Playing => LobbyPhase::Playing,
                Phase::Finished => LobbyPhase::Finished,
            },
            turn_timer_ms: self.turn_timer_ms,
            match_id: self.running.as_ref().map(|r| r.match_id.to_string()),
            spectators: self.spectators.len() as u32,
            watchers: self
                .spectators
                .iter()
                .filter_map(|w| w.name.clone())
                .take(WATCHERS_LISTED)
                .collect(),
            listed: self.friends.listed,
            absent: self.absence.policy,
            abandoned: self.idleness.abandoned,
            pace: self.clocks.pace,
            timed_out: self.clocks.timed_out,
        }
    }

    pub(super) fn connections(&self) -> impl Iterator<Item = (Viewer, &Conn)> {
        let seated = self.seats.iter().enumerate().filter_map(|(i, o)| match o {
            Occupant::Human { conn: Some(c), .. } => Some((Viewer::Seat(Seat(i as u8)), c)),
            _ => None,
        });
        seated.chain(self.spectators.iter().map(|w| (Viewer::Spectator, &w.conn)))
    }

    pub(super) fn push_lobby_to_all(&mut self) {
        let now = self.clock.now();
        self.friends.shown = self.presences(now);
        self.absence.shown = self.stand_in_flags(now);
        let message = ServerMessage::Push(Push::Lobby(self.lobby_info(now)));
        let failed: Vec<u64> = self
            .connections()
            .filter(|(_, c)| !c.push(message.clone()))
            .map(|(_, c)| c.id)
            .collect();
        self.drop_connections(&failed);
    }

    /// What every viewer's `state` push shares after a change, computed once per push round: the status (which
    /// for some engines costs a pass over every seat's legal actions), the clocks, the outcome and the spectators'
    /// view (one serialisation shared by all spectators).
    pub(super) fn shared_state(&self) -> Option<SharedState> {
        let running = self.running.as_ref()?;
        let game = &running.game;
        Some(SharedState {
            status: game.status(),
            deadline: self.engine_deadline(running),
            turn_deadline: self.turn_deadline(running),
            outcome: game.outcome(),
            clocks: self.seat_clocks(self.clock.now()),
            views: Vec::new(),
            same_view: game.same_view_for_everyone(),
        })
    }

    /// `viewer`'s `state` push. The view is serialised straight from the engine's typed values to JSON text,
    /// once per viewer (the spectators' shared by all of them, and by every seat too when the game shows everybody
    /// the same view), taken from `shared` when it was written there for this change; the legal actions are the
    /// text written once per change (`SeatOptions`).
    pub(super) fn state_for(
        &self,
        viewer: Viewer,
        since: u64,
        events: Vec<RawJson>,
        shared: &mut SharedState,
    ) -> Option<ServerMessage> {
        let running = self.running.as_ref()?;
        let game = &running.game;
        let shown_as = shared.shown_as(viewer);
        let view = match shared.views.iter().find(|(v, _)| *v == shown_as) {
            Some((_, view)) => view.clone(),
            None => {
                let mut view_size = self.text_sizes.get();
                let view = view_json(game, shown_as, &mut view_size);
                self.text_sizes.set(view_size);
                shared.views.push((shown_as, view.clone()));
                view
            }
        };
        let (seat, legal_actions) = match viewer {
            Viewer::Seat(s) => (Some(s), running.options.legal(s)),
            Viewer::Spectator => (None, RawJson::empty_array()),
        };
        Some(ServerMessage::Push(Push::State(Box::new(StateUpdate {
            code: self.code.clone(),
            match_id: running.match_id.clone(),
            game: self.game_id.clone(),
            version: running.version,
            since,
            seat,
            view,
            legal_actions,
            events,
            status: shared.status.clone(),
            deadline: shared.deadline,
            turn_deadline: shared.turn_deadline,
            outcome: shared.outcome.clone(),
            clocks: shared.clocks.clone(),
        }))))
    }

    /// Writes the view of every viewer connected now into `shared` (fresh from `shared_state`), from one build of
    /// the engine's view (`AnyGame::views`): the members every viewer shares are built, and written, once per
    /// change.
    fn write_views(&self, shared: &mut SharedState) {
        let Some(running) = &self.running else { return };
        let mut viewers: Vec<Viewer> = Vec::new();
        for (viewer, _) in self.connections() {
            let viewer = shared.shown_as(viewer);
            if !viewers.contains(&viewer) {
                viewers.push(viewer);
            }
        }
        let mut view_size = self.text_sizes.get();
        let texts = running.game.views(&viewers, &mut view_size);
        self.text_sizes.set(view_size);
        shared
            .views
            .extend(viewers.into_iter().zip(texts.into_iter().map(RawJson::from)));
    }

    /// Pushes the state after a change from `since`, with the events each viewer may see.
    pub(super) fn push_state_to_all(&mut self, since: u64, events: &[Event<RawJson>]) {
        let Some(mut shared) = self.shared_state() else {
            return;
        };
        self.write_views(&mut shared);
        let mut failed = Vec::new();
        for (viewer, conn) in self.connections() {
            let visible = events
                .iter()
                .filter(|e| e.audience.includes(viewer))
                .map(|e| e.body.clone())
                .collect();
            if let Some(message) = self.state_for(viewer, since, visible, &mut shared)
                && !conn.push(message)
            {
                failed.push(conn.id);
            }
        }
        self.drop_connections(&failed);
    }

    /// The version before the oldest change whose events the table still keeps (`running.history`): a
    /// `last_version` from which every kept event is sent.
    pub(super) fn earliest_kept(&self) -> Option<u64> {
        let running = self.running.as_ref()?;
        running.history.front().map(|(first, _)| first.saturating_sub(1))
    }

    /// Pushes the current state to one connection that just arrived, with the events it missed since
    /// `last_version` when they are still in memory.
    pub(super) fn push_state_to(&mut self, conn: &Conn, viewer: Viewer, last_version: Option<u64>) {
        let Some(running) = &self.running else { return };
        let (since, events) = match last_version {
            Some(v)
                if v < running.version
                    && running.history.front().is_some_and(|(first, _)| *first <= v + 1) =>
            {
                let events = running
                    .history
                    .iter()
                    .filter(|(seq, _)| *seq > v)
                    .flat_map(|(_, events)| events.iter())
                    .filter(|e| e.audience.includes(viewer))
                    .map(|e| e.body.clone())
                    .collect();
                (v, events)
            }
            _ => (running.version, Vec::new()),
        };
        let Some(mut shared) = self.shared_state() else {
            return;
        };
        if let Some(message) = self.state_for(viewer, since, events, &mut shared)
            && !conn.push(message)
        {
            self.drop_connections(&[conn.id]);
        }
    }

    pub(super) fn drop_connections(&mut self, ids: &[u64]) {
        if ids.is_empty() {
            return;
        }
        let now = self.clock.now();
        for seat in 0..self.seats.len() {
            if let Occupant::Human { conn, .. } = &mut self.seats[seat]
                && conn.as_ref().is_some_and(|c| ids.contains(&c.id))
            {
                *conn = None;
                self.mark_away(seat, now);
            }
        }
        self.spectators.retain(|w| !ids.contains(&w.conn.id));
    }
}

/// The parts of a `state` push that are the same for every viewer of one change (see `Table::shared_state`).
pub(super) struct SharedState {
    status: Status,
    deadline: Option<Millis>,
    turn_deadline: Option<Millis>,
    outcome: Option<protocol::Outcome>,
    /// A correspondence match's clocks (`clocks.rs`).
    clocks: Option<Vec<protocol::SeatClock>>,
    /// The views written for this change, each viewer's once (the spectators' is every seat's too when
    /// `same_view` says so).
    views: Vec<(Viewer, RawJson)>,
    /// Every viewer sees the same view now (`AnyGame::same_view_for_everyone`): it is built once per change.
    same_view: bool,
}

impl SharedState {
    /// Whose view `viewer` is shown: its own, or the spectators' when everyone sees the same.
    fn shown_as(&self, viewer: Viewer) -> Viewer {
        if self.same_view { Viewer::Spectator } else { viewer }
    }
}
