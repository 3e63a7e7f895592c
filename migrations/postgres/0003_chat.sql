-- Playing with friends (issue 13): lobby chat and the public list of open lobbies. Keep sqlite/0003_chat.sql in
-- step (same tables and columns).

-- Whether the lobby shows in the public list of open lobbies (GET /api/lobbies); private (0) by default.
ALTER TABLE lobbies ADD COLUMN listed BIGINT NOT NULL DEFAULT 0;

-- Chat messages of a lobby and its match, numbered per lobby. Plain text, as written (trimmed).
CREATE TABLE chat_messages (
    lobby_code TEXT   NOT NULL REFERENCES lobbies (code),
    id         BIGINT NOT NULL,
    -- players | spectators
    channel    TEXT   NOT NULL,
    -- the writer's seat; NULL for a spectator
    seat       BIGINT,
    name       TEXT   NOT NULL,
    text       TEXT   NOT NULL,
    -- the match being played when it was written, if any
    match_id   TEXT,
    at         BIGINT NOT NULL,
    PRIMARY KEY (lobby_code, id)
);

CREATE INDEX lobbies_listed ON lobbies (phase, listed, game);
