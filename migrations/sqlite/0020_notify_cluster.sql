-- Notifications across nodes (issue 47). `notify_sent`: one row per delivery the worker started, for the rate
-- limits per endpoint and per seat, counted here so that they hold for the cluster as a whole; rows older than the
-- window are pruned (`server/src/notify/worker.rs`). `notify_endpoints.address_key`: an email endpoint's
-- `email:` and the SHA-256 of its address (`notify/email.rs` `address_key`, the key of its unsubscribe tokens),
-- so that an unsubscribe link switches off every endpoint of that address at once; NULL for other channels (and
-- for email endpoints made before this migration, until the next unsubscribe fills it).
CREATE TABLE notify_sent (
    id          INTEGER PRIMARY KEY,
    endpoint_id INTEGER NOT NULL,
    lobby_code  TEXT    NOT NULL,
    seat        INTEGER NOT NULL,
    sent_at     INTEGER NOT NULL
);

CREATE INDEX notify_sent_by_seat ON notify_sent (lobby_code, seat, sent_at);
CREATE INDEX notify_sent_by_time ON notify_sent (sent_at);

ALTER TABLE notify_endpoints ADD COLUMN address_key TEXT;

CREATE INDEX notify_endpoints_by_address ON notify_endpoints (address_key);
