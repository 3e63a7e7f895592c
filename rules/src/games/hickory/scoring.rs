//! Scoring of a group of items, for deliveries and the final leftovers (GAPS 000 Q26, Q28).

use super::*;

/// A group of items to score: coloured items and wilds (relics are never part of a group).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub items: Vec<(Colour, Item)>,
    pub wilds: usize,
}

impl Group {
    pub fn add_tile(&mut self, id: TileId) {
        match tile_kind(id) {
            TileKind::Item { colour, item } => self.items.push((colour, item)),
            TileKind::Wild => self.wilds += 1,
            TileKind::Relic => {}
        }
    }
    pub fn add_favour(&mut self, id: FavourId) {
        let f = FAVOURS[id as usize];
        self.items.push((f.colour, f.item));
    }
    pub fn len(&self) -> usize {
        self.items.len() + self.wilds
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The largest same-colour group, wilds joining it.
    pub fn largest_colour(&self) -> usize {
        COLOURS
            .iter()
            .map(|c| self.items.iter().filter(|(ic, _)| ic == c).count())
            .max()
            .unwrap_or(0)
            + self.wilds
    }
    /// The largest same-item group, wilds joining it.
    pub fn largest_item(&self) -> usize {
        ITEMS
            .iter()
            .map(|i| self.items.iter().filter(|(_, ii)| ii == i).count())
            .max()
            .unwrap_or(0)
            + self.wilds
    }
    pub fn distinct_colours(&self) -> usize {
        let n = COLOURS
            .iter()
            .filter(|c| self.items.iter().any(|(ic, _)| ic == *c))
            .count();
        (n + self.wilds).min(COLOURS.len())
    }
    pub fn distinct_items(&self) -> usize {
        let n = ITEMS
            .iter()
            .filter(|i| self.items.iter().any(|(_, ii)| ii == *i))
            .count();
        (n + self.wilds).min(ITEMS.len())
    }
    /// Published delivery scoring: 1 per tile, plus 1 per tile of the largest same-item group, plus 1 per tile of
    /// the largest same-colour group; a wild counts in both groups.
    pub fn points(&self) -> i64 {
        if self.is_empty() {
            return 0;
        }
        (self.len() + self.largest_item() + self.largest_colour()) as i64
    }
    pub fn meets(&self, requirement: Requirement, hunt_spaces: usize) -> bool {
        let at_least = |have: usize, n: u8| have >= n as usize;
        match requirement {
            Requirement::SameColour(n) => at_least(self.largest_colour(), n),
            Requirement::SameItem(n) => at_least(self.largest_item(), n),
            Requirement::DistinctColours(n) => at_least(self.distinct_colours(), n),
            Requirement::DistinctItems(n) => at_least(self.distinct_items(), n),
            Requirement::Tiles(n) => at_least(self.len(), n),
            Requirement::HuntSpaces(n) => at_least(hunt_spaces, n),
        }
    }
}

/// Every choice of `k` of `items`, each in the order of `items`, in lexicographic order of positions.
pub(super) fn combinations(items: &[TileId], k: usize) -> Vec<Vec<TileId>> {
    if k == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        for mut rest in combinations(&items[i + 1..], k - 1) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}
