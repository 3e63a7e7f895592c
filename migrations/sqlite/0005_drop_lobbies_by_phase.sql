-- `lobbies_by_phase (phase)` repeats the first column of `lobbies_listed (phase, listed, game)`, which serves the
-- same lookups by phase (the lobbies to reload at start, the public lobby list). Every index on `phase` costs an
-- entry for each new lobby and, because a changed indexed column rules out a HOT update, another for each phase
-- change: two per match played (docs/performance.md, section 12).
DROP INDEX IF EXISTS lobbies_by_phase;
