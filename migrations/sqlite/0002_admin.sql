-- Administration (issue 9): the audit log of admin actions, and the reason an aborted match was aborted.
-- Keep postgres/0002_admin.sql in step.

-- A match an administrator aborted has matches.status = 'aborted' (and its lobby phase 'finished'); this is why.
ALTER TABLE matches ADD COLUMN abort_reason TEXT;

-- Every admin action: who (the name the admin gave), what, when (Unix ms), why, and on which match and seat.
-- Written by the match's table task in the same transaction as the action's own change where it has one.
CREATE TABLE admin_audit (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         INTEGER NOT NULL,
    admin      TEXT    NOT NULL,
    -- abort | remove_player | replace_with_bot | fire_deadline
    action     TEXT    NOT NULL,
    lobby_code TEXT    NOT NULL,
    match_id   TEXT,
    seat       INTEGER,
    reason     TEXT    NOT NULL,
    -- JSON: what the action did (e.g. the version it produced)
    detail     TEXT    NOT NULL
);

CREATE INDEX admin_audit_by_match ON admin_audit (match_id, id);
