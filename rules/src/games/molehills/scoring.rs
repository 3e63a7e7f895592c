//! Scoring: the mountains each seat controls, the totals, and the final tie-break.

use super::*;

impl Molehills {
    /// Each seat's points for the mountains it controls and its count of pieces on top of mountains.
    pub(super) fn control(&self) -> (Vec<i64>, Vec<u32>) {
        let mut points = vec![0i64; self.n()];
        let mut tops = vec![0u32; self.n()];
        for stack in &self.stacks {
            if let (Some(base), Some(top)) = (stack.first(), stack.last()) {
                points[base.index()] += stack.len() as i64;
                tops[top.index()] += 1;
            }
        }
        (points, tops)
    }

    pub(super) fn totals(&self) -> Vec<i64> {
        (0..self.n())
            .map(|s| self.round_scores.iter().map(|r| r[s]).sum())
            .collect()
    }

    /// The tie-break key of a seat: total, then controlled mountains of each height from the tallest down.
    pub(super) fn ranking_key(&self, seat: Seat, total: i64) -> Vec<i64> {
        let tallest = MAX_HEIGHT_BY_ROUND[ROUNDS as usize - 1] as usize;
        let tallest = self.stacks.iter().map(Vec::len).max().unwrap_or(0).max(tallest);
        let mut key = vec![total];
        for h in (1..=tallest).rev() {
            let n = self
                .stacks
                .iter()
                .filter(|s| s.len() == h && s.first() == Some(&seat))
                .count();
            key.push(n as i64);
        }
        key
    }
}
