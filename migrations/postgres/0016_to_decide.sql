-- Whose turn it is, as stored (issue 47, "my tables"): the seats that must decide after each logged action, and
-- after a match's start, so that a player's list of tables is answered from the database alone, for tables of any
-- node and tables out of memory. Keep sqlite/0016_to_decide.sql in step.

-- A JSON array of seat numbers, e.g. [1] or [0,2] ([] once the match is over, or during a race that any seat may
-- claim); NULL for actions and matches stored before this migration (reported as unknown).
ALTER TABLE actions ADD COLUMN to_decide TEXT;
ALTER TABLE matches ADD COLUMN to_decide TEXT;
