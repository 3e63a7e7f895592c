-- Who made each logged action (issue 44): the "while you were away" report tells a returning player who played
-- for them. Keep sqlite/0011_action_made_by.sql in step.

-- player | bot | stand_in | skip | turn_timer | clock | admin (protocol::ActedBy); NULL for actions logged before
-- this migration (reported as unknown).
ALTER TABLE actions ADD COLUMN made_by TEXT;
