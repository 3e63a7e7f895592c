-- Downtime is not charged to anyone (issue 47, point 2). Keep sqlite/0018_downtime.sql in step.
-- `server_runs`: one row per start of a single-node server (a random `id`), with when it started and the last time
-- it recorded that it was serving (`beat_at`, renewed every HEARTBEAT_MS and at a graceful stop), in Unix
-- milliseconds. The time between one run's last beat and the next run's start is a gap nobody was served in.
CREATE TABLE server_runs (
    id         TEXT   PRIMARY KEY,
    started_at BIGINT NOT NULL,
    beat_at    BIGINT NOT NULL
);

-- `table_outages`: the times a playing table was not served (a server gap, or its writes failing) that it has
-- been credited for since its last action: its wake-ups count only served time. A table's stand-in times were moved
-- by exactly these rows (written in the same transaction).
CREATE TABLE table_outages (
    code    TEXT   NOT NULL REFERENCES lobbies (code),
    from_ms BIGINT NOT NULL,
    to_ms   BIGINT NOT NULL,
    PRIMARY KEY (code, from_ms)
);

-- Cluster mode's fence (0008): a table's outages are written only by the node holding its lease.
CREATE TRIGGER table_outages_fence_insert AFTER INSERT ON table_outages REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_code('code');
CREATE TRIGGER table_outages_fence_delete AFTER DELETE ON table_outages REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_old_code('code');
