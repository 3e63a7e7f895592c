-- Idle tables leave memory (issue 42, point 7). `idle_since`: since when nobody (no seat, no spectator) has been
-- connected to an open or playing table, in Unix milliseconds; NULL while someone is. `unloaded_until`: set when
-- the table left memory, the time by which the server loads it again by itself (its next wake-up, or when it is
-- abandoned; the largest BIGINT for never); NULL while it is loaded. Keep sqlite/0010_idle_tables.sql in step.
ALTER TABLE lobbies ADD COLUMN idle_since BIGINT;
ALTER TABLE lobbies ADD COLUMN unloaded_until BIGINT;
CREATE INDEX lobbies_by_unloaded_until ON lobbies (unloaded_until);
