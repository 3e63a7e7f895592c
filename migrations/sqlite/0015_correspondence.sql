-- Correspondence tables (issue 47, point 1): a lobby's pace, each seat's clock after every action of a
-- correspondence match, the seat that timed out, and each seat's vacation. Keep postgres/0015_correspondence.sql in step.

-- The pace as JSON (protocol::Pace); NULL for live lobbies.
ALTER TABLE lobbies ADD COLUMN pace TEXT;
-- Each seat's clock after each action of a correspondence match (JSON, table/clocks.rs); NULL in live matches.
ALTER TABLE actions ADD COLUMN clocks TEXT;
-- The clocks as last changed between two actions (a vacation): {"version": the action they follow, "banks": ...}.
ALTER TABLE matches ADD COLUMN clocks TEXT;
-- The seat whose clock ran out when the match ended as timed out (status timed_out).
ALTER TABLE matches ADD COLUMN timed_out_seat INTEGER;
-- The seat's last vacation (from, until), and the days taken in the calendar month it counts (year * 12 + month).
ALTER TABLE seats ADD COLUMN vacation_from INTEGER;
ALTER TABLE seats ADD COLUMN vacation_until INTEGER;
ALTER TABLE seats ADD COLUMN vacation_month INTEGER;
ALTER TABLE seats ADD COLUMN vacation_days INTEGER;
