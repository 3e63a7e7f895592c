//! Time a table was not served is charged to nobody (issue 47, point 2). A table keeps the outages since its last
//! action: the server's gaps (`crate::downtime`) or, in cluster mode, the time since its earlier owner last served
//! it (`crate::cluster`), credited when the table is loaded, and the spans in which its writes failed (from the
//! first failure to the next successful write). Every wake-up that counts from the last
//! action (the turn timer, the bots' delay, the engine's deadline, a bot's reaction in a race) counts served time
//! only, through [`Table::charged_ms`] and its inverse [`Table::served_until`]; a stand-in time still ahead when an
//! outage began moves by the outage's length (`absence.rs`, `shift_stand_ins`).
//!
//! The outages are stored (`table_outages`), so a second restart or takeover before anyone moves keeps the first
//! credit; an outage credited at load is stored with the stand-in times it moved in one transaction, and only its
//! part not credited before is new, so no time is credited or moves a stand-in twice.

use rules::Millis;
use tracing::{info, warn};

use super::{Phase, RETRY_AFTER_MS, Table};
use crate::store::{Outage, StoreError};

/// A table's outages since its last action.
#[derive(Debug, Default)]
pub(crate) struct Outages {
    /// Credited outages, oldest first.
    spans: Vec<Outage>,
    /// Since when the table's writes have failed (`None` while they succeed): an outage still going on.
    failing_since: Option<Millis>,
    /// Ended outages of failed writes not stored yet.
    unstored: Vec<Outage>,
    /// When to try storing them (or, while writes fail, whether they succeed again) next.
    retry_at: Millis,
}

impl Outages {
    fn is_empty(&self) -> bool {
        self.spans.is_empty() && self.failing_since.is_none()
    }
}

impl Table {
    /// The outages overlapping `[from, ..)`, as sorted, merged spans (one still going on ends at the clock's now).
    fn outage_spans(&self, from: Millis) -> Vec<Outage> {
        let now = self.clock.now();
        let mut spans: Vec<Outage> = self
            .outages
            .spans
            .iter()
            .copied()
            .chain(self.outages.failing_since.map(|at| (at, now.max(at))))
            .filter(|(a, b)| b > a && *b > from)
            .collect();
        spans.sort_unstable();
        let mut merged: Vec<Outage> = Vec::with_capacity(spans.len());
        for (a, b) in spans {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        merged
    }

    /// The served time between `from` and `to`: `to - from` less the outages within (0 if `to <= from`).
    pub(crate) fn charged_ms(&self, from: Millis, to: Millis) -> Millis {
        let whole = to.saturating_sub(from);
        if whole == 0 || self.outages.is_empty() {
            return whole;
        }
        let lost: Millis = self
            .outage_spans(from)
            .into_iter()
            .map(|(a, b)| b.min(to).saturating_sub(a.max(from)))
            .sum();
        whole.saturating_sub(lost)
    }

    /// The moment at which `d` of served time has passed since `from` (the inverse of [`Table::charged_ms`]):
    /// `from + d` moved later by the outages before it.
    pub(crate) fn served_until(&self, from: Millis, d: Millis) -> Millis {
        if self.outages.is_empty() {
            return from.saturating_add(d);
        }
        let (mut at, mut left) = (from, d);
        for (a, b) in self.outage_spans(from) {
            if a > at {
                if a - at >= left {
                    break;
                }
                left -= a - at;
            }
            at = at.max(b);
        }
        at.saturating_add(left)
    }

    /// A time `at` set by the state as of `base` (an engine deadline, a bot's reaction), moved later by the
    /// outages since `base`; a time not after `base` is kept.
    pub(super) fn rebased(&self, base: Millis, at: Millis) -> Millis {
        if at <= base {
            at
        } else {
            self.served_until(base, at - base)
        }
    }

    /// The inverse of [`Table::rebased`]: the time `at` on the clock of the state as of `base`, the outages since
    /// `base` taken out.
    pub(super) fn unrebased(&self, base: Millis, at: Millis) -> Millis {
        if at <= base {
            at
        } else {
            base + self.charged_ms(base, at)
        }
    }

    /// At load: credits a playing table with the parts of `unserved` (spans nobody served it in: the server's
    /// gaps, the time since its earlier owner last served it) after its last action that it was not credited with
    /// yet, and moves the stand-in times the database holds by them, in one write; restores the outages credited
    /// before. An error leaves the table unloaded (nothing was moved).
    pub(crate) async fn credit_downtime(&mut self, unserved: &[Outage]) -> Result<(), StoreError> {
        let Some(running) = &self.running else {
            return Ok(());
        };
        if self.phase != Phase::Playing {
            return Ok(());
        }
        let base = running.last_change;
        let credited: Vec<Outage> = self
            .store
            .table_outages(&self.code)
            .await?
            .into_iter()
            .filter(|(_, to)| *to > base)
            .collect();
        let mut covered = credited.clone();
        let mut new: Vec<Outage> = Vec::new();
        for &(from, to) in unserved {
            for part in uncovered((from.max(base), to), &covered) {
                covered.push(part);
                new.push(part);
            }
        }
        new.sort_unstable();
        if !new.is_empty() {
            let moved = self.absence.shift_stand_ins(&new, true);
            self.store.credit_outages(&self.code, &new, base, &moved).await?;
            let down: Millis = new.iter().map(|(a, b)| b - a).sum();
            info!(
                down_ms = down,
                "the table was not served; its clocks get that time back"
            );
        }
        self.outages.spans = credited;
        self.outages.spans.extend(new);
        self.outages.spans.sort_unstable();
        Ok(())
    }

    /// After an action at `now`: outages before it no longer move anything.
    pub(super) fn forget_outages_until(&mut self, now: Millis) {
        if !self.outages.spans.is_empty() {
            self.outages.spans.retain(|(_, to)| *to > now);
        }
    }

    /// A write of this table failed because the database could not be reached: an outage begins (unless one is
    /// going on).
    pub(super) fn note_write_failed(&mut self, now: Millis) {
        if self.phase == Phase::Playing && self.outages.failing_since.is_none() {
            self.outages.failing_since = Some(now);
            self.outages.retry_at = now.saturating_add(RETRY_AFTER_MS);
        }
    }

    /// A write of this table succeeded at `now`: an outage going on ends (stored at the next wake-up).
    pub(super) fn note_write_succeeded(&mut self, now: Millis) {
        if let Some(from) = self.outages.failing_since.take() {
            self.end_outage((from, now));
            self.outages.retry_at = now;
        }
    }

    fn end_outage(&mut self, outage: Outage) {
        if outage.1 > outage.0 {
            self.absence.shift_stand_ins(&[outage], false);
            self.outages.spans.push(outage);
            self.outages.unstored.push(outage);
            info!(
                down_ms = outage.1 - outage.0,
                "the table could not write; its clocks get that time back"
            );
        }
    }

    /// When the table next tries to store its ended outages, or whether its writes succeed again.
    pub(super) fn outage_wake(&self) -> Option<Millis> {
        (self.outages.failing_since.is_some() || !self.outages.unstored.is_empty())
            .then_some(self.outages.retry_at)
    }

    /// Stores the ended outages; while writes fail, the outage going on up to now, which ends it if the write
    /// succeeds. The players then see their deadlines moved.
    pub(super) async fn on_outage_timer(&mut self) {
        let now = self.clock.now();
        if self.outage_wake().is_none_or(|at| at > now) {
            return;
        }
        let mut outages = self.outages.unstored.clone();
        if let Some(from) = self.outages.failing_since {
            outages.push((from, now));
        }
        let base = self.running.as_ref().map_or(0, |r| r.last_change);
        match self.store.credit_outages(&self.code, &outages, base, &[]).await {
            Ok(()) => {
                self.outages.unstored.clear();
                if let Some(from) = self.outages.failing_since.take() {
                    self.end_outage((from, now));
                    self.outages.unstored.clear();
                }
                let version = self.version();
                self.push_state_to_all(version, &[]);
            }
            Err(e) => {
                warn!(error = %e, "storing an outage failed; trying again shortly");
                self.outages.retry_at = now.saturating_add(RETRY_AFTER_MS);
            }
        }
    }
}

/// The parts of `span` that none of `covered` (any order, may overlap) covers, oldest first; none if `span` is
/// empty.
fn uncovered(span: Outage, covered: &[Outage]) -> Vec<Outage> {
    let mut covered: Vec<Outage> = covered
        .iter()
        .copied()
        .filter(|(a, b)| a < b && *b > span.0 && *a < span.1)
        .collect();
    covered.sort_unstable();
    let (mut at, mut parts) = (span.0, Vec::new());
    for (a, b) in covered {
        if a > at {
            parts.push((at, a));
        }
        at = at.max(b);
    }
    if span.1 > at {
        parts.push((at, span.1));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::uncovered;

    /// A span less what was credited before: nothing twice, the rest in pieces.
    #[test]
    fn only_the_part_not_credited_yet_is_new() {
        assert_eq!(uncovered((10, 20), &[]), vec![(10, 20)]);
        assert_eq!(uncovered((10, 10), &[]), vec![]);
        assert_eq!(uncovered((20, 10), &[]), vec![]);
        assert_eq!(uncovered((10, 20), &[(10, 20)]), vec![]);
        assert_eq!(uncovered((10, 20), &[(10, 14)]), vec![(14, 20)]);
        assert_eq!(uncovered((10, 20), &[(15, 30), (0, 12)]), vec![(12, 15)]);
        assert_eq!(
            uncovered((10, 20), &[(12, 13), (16, 17), (0, 5)]),
            vec![(10, 12), (13, 16), (17, 20)]
        );
    }
}
