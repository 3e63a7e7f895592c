-- Notifications (issue 47): each seat's endpoints (Web Push, webhook, email) and the outbox of notifications not
-- yet delivered, one row per (notification, endpoint), written in the transaction of its cause (the group commit)
-- and deleted once delivered (`server/src/notify/`). `target` is the URL, address or push endpoint; `secret` the
-- webhook's signing key or the push subscription's p256dh key; `auth` the push subscription's auth secret.
CREATE TABLE notify_endpoints (
    id         INTEGER PRIMARY KEY,
    lobby_code TEXT    NOT NULL,
    seat       INTEGER NOT NULL,
    channel    TEXT    NOT NULL,
    target     TEXT    NOT NULL,
    secret     TEXT,
    auth       TEXT,
    language   TEXT    NOT NULL,
    active     INTEGER NOT NULL,
    failures   INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL
);

CREATE INDEX notify_endpoints_by_seat ON notify_endpoints (lobby_code, seat);

CREATE TABLE notify_outbox (
    id              INTEGER PRIMARY KEY,
    notification_id TEXT    NOT NULL,
    endpoint_id     INTEGER NOT NULL,
    kind            TEXT    NOT NULL,
    lobby_code      TEXT    NOT NULL,
    seat            INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL,
    due_at          INTEGER NOT NULL,
    claimed_until   INTEGER
);

CREATE INDEX notify_outbox_by_due ON notify_outbox (due_at);
CREATE INDEX notify_outbox_by_endpoint ON notify_outbox (endpoint_id);
