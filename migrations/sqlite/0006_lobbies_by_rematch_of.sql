-- A rematch request first looks for a rematch already started from its lobby (`Store::rematch_of`: the offer
-- itself lives in memory only), by `rematch_of`, which had no index: every request read every lobby. Only
-- rematch lobbies have the column set, so the index holds only them.
CREATE INDEX lobbies_by_rematch_of ON lobbies (rematch_of) WHERE rematch_of IS NOT NULL;
