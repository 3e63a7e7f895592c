-- Downtime is not charged to anyone (issue 47, point 2). Keep postgres/0018_downtime.sql in step.
-- `server_runs`: one row per start of a single-node server (a random `id`), with when it started and the last time
-- it recorded that it was serving (`beat_at`, renewed every HEARTBEAT_MS and at a graceful stop), in Unix
-- milliseconds. The time between one run's last beat and the next run's start is a gap nobody was served in.
CREATE TABLE server_runs (
    id         TEXT    PRIMARY KEY,
    started_at INTEGER NOT NULL,
    beat_at    INTEGER NOT NULL
);

-- `table_outages`: the times a playing table was not served (a server gap, or its writes failing) that it has
-- been credited for since its last action: its wake-ups count only served time. A table's stand-in times were moved
-- by exactly these rows (written in the same transaction).
CREATE TABLE table_outages (
    code    TEXT    NOT NULL REFERENCES lobbies (code),
    from_ms INTEGER NOT NULL,
    to_ms   INTEGER NOT NULL,
    PRIMARY KEY (code, from_ms)
);
