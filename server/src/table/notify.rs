//! Notifications (issue 47), the table's part: which seats have an endpoint (loaded when the task starts, kept
//! as seats subscribe), the outbox rows an action causes (written in the action's transaction, `play.rs`), a
//! reminder written alone, and the seat's own requests to add, remove and list its endpoints.
//!
//! "Your turn" goes to each seat that must decide after the action and did not before, that has an endpoint and
//! whose player is not at the table (presence not `connected`: no connection, or its page hidden or idle);
//! "match over" to every seat with an endpoint. Nothing in a notice comes from a view: the worker (`notify/`)
//! words it from the kind, the game and the table's code alone.

use protocol::{
    ErrorBody, ErrorCode, NOTIFY_ENDPOINTS_PER_SEAT, NotifyEndpoint, NotifyLanguage, Presence, Push,
};
use protocol::{Reply, ServerMessage};
use rules::{AnyGame, Millis, Seat, Status};
use tracing::warn;

use super::{Occupant, Respond, Table, err, internal};
use crate::store::{Notice, StoredEndpoint};

/// A new endpoint as the connection checked it (`notify::check_target`), in the store's terms.
#[derive(Clone, PartialEq, Eq)]
pub struct NewEndpoint {
    pub channel: &'static str,
    pub target: String,
    pub secret: Option<String>,
    pub auth: Option<String>,
    pub language: NotifyLanguage,
    /// Told to the seat once, in the reply (a webhook's signing secret).
    pub reveal: Option<String>,
}

impl std::fmt::Debug for NewEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.channel)
    }
}

/// A seat's request about its endpoints.
#[derive(Debug)]
pub enum NotifyOp {
    Subscribe(NewEndpoint),
    Unsubscribe(u64),
    List,
    /// From the notification worker: an endpoint of `seat` was switched off; tell the seat if it is here.
    Changed(u8),
}

/// The seats that must decide in `status` (a race is seconds long: nobody is called to it).
fn deciding(status: &Status) -> &[Seat] {
    match status {
        Status::Turn { seat } => std::slice::from_ref(seat),
        Status::Simultaneous { seats, .. } => seats,
        Status::Race { .. } | Status::Over => &[],
    }
}

/// How a stored endpoint is shown to its seat: where it goes, without the part that identifies the player.
pub fn endpoint_label(channel: &str, target: &str) -> String {
    match channel {
        "email" => match target.rsplit_once('@') {
            Some((_, domain)) => format!("…@{domain}"),
            None => "…".into(),
        },
        _ => {
            let rest = target.split_once("://").map_or(target, |(_, r)| r);
            let host = rest.split(['/', '?', '#']).next().unwrap_or("");
            let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
            host.to_owned()
        }
    }
}

/// The seats an action may notify: those with an endpoint, and among them those whose player is not at the table.
#[derive(Debug)]
pub(super) struct NotifyPlan {
    code: String,
    notified: Vec<bool>,
    away: Vec<bool>,
}

impl NotifyPlan {
    /// The notices of an action that turned `before` into `next` at `at` (see the module's comment).
    pub(super) fn notices(&self, before: &AnyGame, next: &AnyGame, at: Millis) -> Vec<Notice> {
        let is = next.status();
        let flag = |v: &[bool], s: Seat| v.get(s.index()).copied().unwrap_or(false);
        if matches!(is, Status::Over) {
            return Seat::all(next.players())
                .filter(|s| flag(&self.notified, *s))
                .map(|s| new_notice(&self.code, "match_over", s.0, at))
                .collect();
        }
        let was = before.status();
        deciding(&is)
            .iter()
            .filter(|s| !deciding(&was).contains(s) && flag(&self.away, **s))
            .map(|s| new_notice(&self.code, "your_turn", s.0, at))
            .collect()
    }
}

fn new_notice(code: &str, kind: &'static str, seat: u8, at: Millis) -> Notice {
    Notice {
        id: uuid::Uuid::new_v4().to_string(),
        kind,
        lobby_code: code.to_owned(),
        seat,
        at,
    }
}

fn shown(e: &StoredEndpoint) -> NotifyEndpoint {
    NotifyEndpoint {
        id: e.id as u64,
        channel: e.channel.clone(),
        label: endpoint_label(&e.channel, &e.target),
        language: NotifyLanguage::from_code(&e.language).unwrap_or_default(),
        active: e.active,
        last_error: e.last_error.clone(),
    }
}

impl Table {
    /// Which seats have an active endpoint, from the store (when the task starts). A failure is logged and
    /// leaves the list as it was: no notice is written until a seat subscribes again.
    pub(super) async fn load_notified(&mut self) {
        match self.store.notified_seats(&self.code).await {
            Ok(seats) => {
                self.notified = vec![false; self.seats.len()];
                for seat in seats {
                    if let Some(n) = self.notified.get_mut(seat as usize) {
                        *n = true;
                    }
                }
            }
            Err(e) => warn!(error = %e, "the seats' notification endpoints could not be loaded"),
        }
    }

    fn is_notified(&self, seat: Seat) -> bool {
        self.notified.get(seat.index()).copied().unwrap_or(false)
            && matches!(self.seats.get(seat.index()), Some(Occupant::Human { .. }))
    }

    /// Whom an action may notify now (see [`NotifyPlan`]); `None`, with no work, when no seat has an endpoint.
    /// Taken before the action is applied: its notices are written with it (`play.rs`).
    pub(super) fn notify_plan(&self) -> Option<NotifyPlan> {
        if !self.notified.iter().any(|n| *n) {
            return None;
        }
        let now = self.clock.now();
        let notified: Vec<bool> = (0..self.seats.len())
            .map(|i| self.is_notified(Seat(i as u8)))
            .collect();
        let away = (0..self.seats.len())
            .map(|i| notified[i] && self.presence_of(i, now) != Presence::Connected)
            .collect();
        Some(NotifyPlan {
            code: self.code.to_string(),
            notified,
            away,
        })
    }

    /// Writes one `clock_low` notice for `seat` alone (the correspondence clocks' 80 % reminder of the decision
    /// that began at version `turn_from`), if the seat has an endpoint. Its id is derived from the table, the seat
    /// and the decision (the same if it is written again after a restart). Returns once it is committed.
    pub async fn notify_clock_low(
        &mut self,
        seat: u8,
        turn_from: u64,
    ) -> Result<(), crate::store::StoreError> {
        if !self.is_notified(Seat(seat)) {
            return Ok(());
        }
        let mut notice = new_notice(&self.code, "clock_low", seat, self.clock.now());
        let digest = ring::digest::digest(
            &ring::digest::SHA256,
            format!("clock_low\n{}\n{seat}\n{turn_from}", self.code).as_bytes(),
        );
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest.as_ref()[..16]);
        notice.id = uuid::Builder::from_random_bytes(bytes).into_uuid().to_string();
        self.store.insert_notices(std::slice::from_ref(&notice)).await
    }

    /// A seat's request about its endpoints (or the worker's news of one switched off).
    pub(super) async fn notify_op(&mut self, conn_id: u64, op: NotifyOp, reply: Respond<Reply>) {
        if let NotifyOp::Changed(seat) = op {
            self.notify_changed(seat).await;
            return;
        }
        let Some(seat) = self.seat_of(conn_id) else {
            let _ = reply.send(Err(err(ErrorCode::NotInLobby, "you hold no seat in this lobby")));
            return;
        };
        let result = self.notify_seat_op(seat, op).await;
        let _ = reply.send(result);
    }

    async fn notify_seat_op(&mut self, seat: u8, op: NotifyOp) -> Result<Reply, ErrorBody> {
        let mut secret = None;
        match op {
            NotifyOp::Subscribe(new) => {
                let added = self
                    .store
                    .add_endpoint(
                        &self.code,
                        seat,
                        new.channel,
                        &new.target,
                        new.secret.as_deref(),
                        new.auth.as_deref(),
                        new.language.code(),
                        self.clock.now(),
                        NOTIFY_ENDPOINTS_PER_SEAT,
                    )
                    .await
                    .map_err(internal)?;
                if added.is_none() {
                    return Err(err(
                        ErrorCode::TooManyEndpoints,
                        format!(
                            "a seat may have {NOTIFY_ENDPOINTS_PER_SEAT} notification endpoints; remove one first"
                        ),
                    ));
                }
                secret = new.reveal;
            }
            NotifyOp::Unsubscribe(id) => {
                let id = i64::try_from(id).unwrap_or(-1);
                if !self
                    .store
                    .remove_endpoint(&self.code, seat, id)
                    .await
                    .map_err(internal)?
                {
                    return Err(err(
                        ErrorCode::UnknownEndpoint,
                        format!("no notification endpoint of your seat has the id {id}"),
                    ));
                }
            }
            NotifyOp::List | NotifyOp::Changed(_) => {}
        }
        let endpoints = self.store.endpoints(&self.code, seat).await.map_err(internal)?;
        self.set_notified(seat, &endpoints);
        Ok(Reply::NotifyEndpoints {
            code: self.code.to_string(),
            seat: Seat(seat),
            endpoints: endpoints.iter().map(shown).collect(),
            secret,
        })
    }

    fn set_notified(&mut self, seat: u8, endpoints: &[StoredEndpoint]) {
        if self.notified.len() < self.seats.len() {
            self.notified.resize(self.seats.len(), false);
        }
        if let Some(n) = self.notified.get_mut(seat as usize) {
            *n = endpoints.iter().any(|e| e.active);
        }
    }

    /// An endpoint of `seat` was switched off: the seat's list is read again and pushed to its connection.
    async fn notify_changed(&mut self, seat: u8) {
        let endpoints = match self.store.endpoints(&self.code, seat).await {
            Ok(endpoints) => endpoints,
            Err(e) => {
                warn!(error = %e, seat, "a seat's notification endpoints could not be read");
                return;
            }
        };
        self.set_notified(seat, &endpoints);
        if let Some(Occupant::Human { conn: Some(conn), .. }) = self.seats.get(seat as usize) {
            let _ = conn.push(ServerMessage::Push(Push::NotifyChanged {
                code: self.code.to_string(),
                seat: Seat(seat),
                endpoints: endpoints.iter().map(shown).collect(),
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_shows_where_an_endpoint_goes_without_who() {
        assert_eq!(
            endpoint_label("webhook", "https://user:pw@hooks.example.com/x/y?z"),
            "hooks.example.com"
        );
        assert_eq!(
            endpoint_label("web_push", "https://fcm.googleapis.com/fcm/send/abc"),
            "fcm.googleapis.com"
        );
        assert_eq!(endpoint_label("email", "bob.smith@example.org"), "…@example.org");
    }
}
