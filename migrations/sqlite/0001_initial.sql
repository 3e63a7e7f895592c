-- Lobbies, seats, matches, the append-only action log, snapshots and results (SQLite).
-- Migrations are append-only: never edit a released migration, add a new one. Keep postgres/ in step.
-- JSON values are stored as TEXT; times are Unix milliseconds; the seed is the u64 seed's bits as a signed integer.

CREATE TABLE lobbies (
    code          TEXT    PRIMARY KEY,
    game          TEXT    NOT NULL,
    options       TEXT    NOT NULL,
    seat_count    INTEGER NOT NULL,
    host_seat     INTEGER NOT NULL,
    turn_timer_ms INTEGER,
    -- open | playing | finished | closed
    phase         TEXT    NOT NULL,
    created_at    INTEGER NOT NULL
);

CREATE TABLE seats (
    lobby_code TEXT    NOT NULL REFERENCES lobbies (code),
    seat       INTEGER NOT NULL,
    -- human | bot
    kind       TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    -- hex SHA-256 of the seat token; NULL for bots. The token itself is never stored.
    token_hash TEXT,
    PRIMARY KEY (lobby_code, seat)
);

CREATE TABLE matches (
    id            TEXT    PRIMARY KEY,
    lobby_code    TEXT    NOT NULL UNIQUE REFERENCES lobbies (code),
    game          TEXT    NOT NULL,
    options       TEXT    NOT NULL,
    players       INTEGER NOT NULL,
    seed          INTEGER NOT NULL,
    rules_version INTEGER NOT NULL,
    -- playing | finished
    status        TEXT    NOT NULL,
    started_at    INTEGER NOT NULL,
    finished_at   INTEGER
);

-- The append-only action log. The primary key is the concurrency control: a second writer of the same
-- sequence number fails.
CREATE TABLE actions (
    match_id TEXT    NOT NULL REFERENCES matches (id),
    seq      INTEGER NOT NULL,
    -- JSON rules::Actor: {"seat": 0} or "clock"
    actor    TEXT    NOT NULL,
    action   TEXT    NOT NULL,
    at       INTEGER NOT NULL,
    PRIMARY KEY (match_id, seq)
);

-- The full state (hidden information included) after `seq` actions.
CREATE TABLE snapshots (
    match_id TEXT    NOT NULL REFERENCES matches (id),
    seq      INTEGER NOT NULL,
    state    TEXT    NOT NULL,
    at       INTEGER NOT NULL,
    PRIMARY KEY (match_id, seq)
);

CREATE TABLE results (
    match_id    TEXT    PRIMARY KEY REFERENCES matches (id),
    outcome     TEXT    NOT NULL,
    finished_at INTEGER NOT NULL
);

CREATE INDEX lobbies_by_phase ON lobbies (phase);
