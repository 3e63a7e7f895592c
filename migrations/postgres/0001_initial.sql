-- Lobbies, seats, matches, the append-only action log, snapshots and results (PostgreSQL).
-- Migrations are append-only: never edit a released migration, add a new one. Keep sqlite/ in step.
-- JSON values are stored as TEXT; times are Unix milliseconds; the seed is the u64 seed's bits as a signed integer.

CREATE TABLE lobbies (
    code          TEXT    PRIMARY KEY,
    game          TEXT    NOT NULL,
    options       TEXT    NOT NULL,
    seat_count    BIGINT  NOT NULL,
    host_seat     BIGINT  NOT NULL,
    turn_timer_ms BIGINT,
    -- open | playing | finished | closed
    phase         TEXT    NOT NULL,
    created_at    BIGINT  NOT NULL
);

CREATE TABLE seats (
    lobby_code TEXT    NOT NULL REFERENCES lobbies (code),
    seat       BIGINT  NOT NULL,
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
    players       BIGINT  NOT NULL,
    seed          BIGINT  NOT NULL,
    rules_version BIGINT  NOT NULL,
    -- playing | finished
    status        TEXT    NOT NULL,
    started_at    BIGINT  NOT NULL,
    finished_at   BIGINT 
);

-- The append-only action log. The primary key is the concurrency control: a second writer of the same
-- sequence number fails.
CREATE TABLE actions (
    match_id TEXT    NOT NULL REFERENCES matches (id),
    seq      BIGINT  NOT NULL,
    -- JSON rules::Actor: {"seat": 0} or "clock"
    actor    TEXT    NOT NULL,
    action   TEXT    NOT NULL,
    at       BIGINT  NOT NULL,
    PRIMARY KEY (match_id, seq)
);

-- The full state (hidden information included) after `seq` actions.
CREATE TABLE snapshots (
    match_id TEXT    NOT NULL REFERENCES matches (id),
    seq      BIGINT  NOT NULL,
    state    TEXT    NOT NULL,
    at       BIGINT  NOT NULL,
    PRIMARY KEY (match_id, seq)
);

CREATE TABLE results (
    match_id    TEXT    PRIMARY KEY REFERENCES matches (id),
    outcome     TEXT    NOT NULL,
    finished_at BIGINT  NOT NULL
);

CREATE INDEX lobbies_by_phase ON lobbies (phase);
