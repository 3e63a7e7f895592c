-- Absent players and rematches (issue 13, points 3 and 4). Keep sqlite/0004_absence.sql in step.

-- The lobby's absence policy: wait | bot | skip, and the grace period (ms) after a disconnection before the server
-- plays for the seat (bot, skip).
ALTER TABLE lobbies ADD COLUMN absent_policy TEXT NOT NULL DEFAULT 'wait';
ALTER TABLE lobbies ADD COLUMN absent_grace_ms BIGINT NOT NULL DEFAULT 0;
-- A rematch's lobby names the finished lobby it follows (whose match stays as it was).
ALTER TABLE lobbies ADD COLUMN rematch_of TEXT;

-- From when (Unix ms) the server stands in for this seat's player: their disconnection plus the grace period, or
-- the moment their turn timer ran out. NULL while the player is present (or the policy is wait). The table
-- derives its wake-ups and the lobby's stand_in flags from it, so a restart keeps the takeover.
ALTER TABLE seats ADD COLUMN stand_in_from BIGINT;
