-- Notifications (issue 47): each seat's endpoints (Web Push, webhook, email) and the outbox of notifications not
-- yet delivered, one row per (notification, endpoint), written in the transaction of its cause (the group commit)
-- and deleted once delivered (`server/src/notify/`). `target` is the URL, address or push endpoint; `secret` the
-- webhook's signing key or the push subscription's p256dh key; `auth` the push subscription's auth secret.
CREATE TABLE notify_endpoints (
    id         BIGSERIAL PRIMARY KEY,
    lobby_code TEXT    NOT NULL,
    seat       BIGINT  NOT NULL,
    channel    TEXT    NOT NULL,
    target     TEXT    NOT NULL,
    secret     TEXT,
    auth       TEXT,
    language   TEXT    NOT NULL,
    active     BIGINT  NOT NULL,
    failures   BIGINT  NOT NULL,
    last_error TEXT,
    created_at BIGINT  NOT NULL
);

CREATE INDEX notify_endpoints_by_seat ON notify_endpoints (lobby_code, seat);

CREATE TABLE notify_outbox (
    id              BIGSERIAL PRIMARY KEY,
    notification_id TEXT    NOT NULL,
    endpoint_id     BIGINT  NOT NULL,
    kind            TEXT    NOT NULL,
    lobby_code      TEXT    NOT NULL,
    seat            BIGINT  NOT NULL,
    created_at      BIGINT  NOT NULL,
    attempts        BIGINT  NOT NULL,
    due_at          BIGINT  NOT NULL,
    claimed_until   BIGINT
);

CREATE INDEX notify_outbox_by_due ON notify_outbox (due_at);
CREATE INDEX notify_outbox_by_endpoint ON notify_outbox (endpoint_id);
