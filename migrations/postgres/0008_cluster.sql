-- Cluster mode (issue 27): several server nodes on one PostgreSQL database. Nothing here is used by a single
-- node; SQLite has no cluster mode, so sqlite/0008_cluster.sql is empty (tests/tests/schema_match.rs lists these
-- two tables as PostgreSQL-only).

-- One row per node id. A node process registers at start with a random `incarnation` (new at every start) and
-- refreshes `heartbeat_at` from the database's clock; a second process with the same id is refused while the
-- first one's heartbeat is younger than `lease_ms`.
CREATE TABLE nodes (
    id           TEXT        PRIMARY KEY,
    incarnation  TEXT        NOT NULL UNIQUE,
    lease_ms     BIGINT      NOT NULL,
    started_at   TIMESTAMPTZ NOT NULL,
    heartbeat_at TIMESTAMPTZ NOT NULL
);

-- Who may write for a table (a lobby and its match): the owning node's incarnation, until `expires_at` (the
-- database's clock). `epoch` grows by one at every change of owner. No foreign key to lobbies: the lease of a new
-- lobby is taken before its row is written.
CREATE TABLE table_leases (
    code        TEXT        PRIMARY KEY,
    owner_node  TEXT        NOT NULL,
    incarnation TEXT        NOT NULL,
    epoch       BIGINT      NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);

CREATE INDEX table_leases_by_incarnation ON table_leases (incarnation);

-- The fence. A cluster node's connections carry its incarnation as the setting `tabletop.owner` (a startup
-- parameter of each connection of its pool); a single node's connections carry none and are not checked. Every
-- write of a table's rows by a cluster node must name lobbies whose lease that incarnation holds, or the whole
-- statement fails with SQLSTATE TL001. `FOR SHARE` keeps the lease rows from changing owner until the writing
-- transaction ends, so a takeover (an UPDATE of the lease row) waits for it, and a write that comes after a
-- takeover sees the new owner and is refused.
CREATE FUNCTION tabletop_fence(codes TEXT[]) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    me TEXT := current_setting('tabletop.owner', true);
    held BIGINT;
    wanted BIGINT;
BEGIN
    IF me IS NULL OR me = '' THEN
        RETURN;
    END IF;
    SELECT count(DISTINCT c) INTO wanted FROM unnest(codes) AS c WHERE c IS NOT NULL;
    IF wanted = 0 THEN
        RETURN;
    END IF;
    SELECT count(*) INTO held FROM (
        SELECT 1 FROM table_leases
        WHERE code IN (SELECT DISTINCT c FROM unnest(codes) AS c) AND incarnation = me
        FOR SHARE
    ) AS h;
    IF held < wanted THEN
        RAISE EXCEPTION 'fenced: this node does not hold the lease of every table it writes for'
            USING ERRCODE = 'TL001';
    END IF;
END
$$;

-- Tables keyed by the lobby's code.
CREATE FUNCTION tabletop_fence_new_code() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('tabletop.owner', true), '') <> '' THEN
        PERFORM tabletop_fence(ARRAY(SELECT DISTINCT to_jsonb(n) ->> TG_ARGV[0] FROM new_rows AS n));
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION tabletop_fence_old_code() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('tabletop.owner', true), '') <> '' THEN
        PERFORM tabletop_fence(ARRAY(SELECT DISTINCT to_jsonb(o) ->> TG_ARGV[0] FROM old_rows AS o));
    END IF;
    RETURN NULL;
END
$$;

-- A new lobby is owned by the node that creates it: its lease (epoch 1) is taken in the same statement, unless
-- the code already has one (then the fence refuses the insert when another node holds it).
CREATE FUNCTION tabletop_fence_new_lobby() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
    me TEXT := current_setting('tabletop.owner', true);
BEGIN
    IF coalesce(me, '') <> '' THEN
        INSERT INTO table_leases (code, owner_node, incarnation, epoch, expires_at)
            SELECT n.code, d.id, me, 1, now() + d.lease_ms * interval '1 millisecond'
            FROM new_rows AS n, nodes AS d WHERE d.incarnation = me
            ON CONFLICT (code) DO NOTHING;
        PERFORM tabletop_fence(ARRAY(SELECT DISTINCT n.code FROM new_rows AS n));
    END IF;
    RETURN NULL;
END
$$;

-- Tables keyed by the match's id (actions, snapshots, results): the match's row names the lobby.
CREATE FUNCTION tabletop_fence_new_match() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('tabletop.owner', true), '') <> '' THEN
        PERFORM tabletop_fence(ARRAY(
            SELECT DISTINCT m.lobby_code FROM matches AS m WHERE m.id IN (SELECT match_id FROM new_rows)
            UNION ALL
            -- A match id with no match row: refused too (NULL is never a held lease).
            SELECT 'no match ' || n.match_id FROM new_rows AS n
            WHERE NOT EXISTS (SELECT 1 FROM matches AS m WHERE m.id = n.match_id)
        ));
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER lobbies_fence_insert AFTER INSERT ON lobbies REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_lobby();
CREATE TRIGGER lobbies_fence_update AFTER UPDATE ON lobbies REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_code('code');
CREATE TRIGGER seats_fence_insert AFTER INSERT ON seats REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_code('lobby_code');
CREATE TRIGGER seats_fence_update AFTER UPDATE ON seats REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_code('lobby_code');
CREATE TRIGGER seats_fence_delete AFTER DELETE ON seats REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_old_code('lobby_code');
CREATE TRIGGER matches_fence_insert AFTER INSERT ON matches REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_code('lobby_code');
CREATE TRIGGER matches_fence_update AFTER UPDATE ON matches REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_code('lobby_code');
CREATE TRIGGER chat_fence_insert AFTER INSERT ON chat_messages REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_code('lobby_code');
CREATE TRIGGER audit_fence_insert AFTER INSERT ON admin_audit REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_code('lobby_code');
CREATE TRIGGER actions_fence_insert AFTER INSERT ON actions REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_match();
CREATE TRIGGER snapshots_fence_insert AFTER INSERT ON snapshots REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_match();
CREATE TRIGGER results_fence_insert AFTER INSERT ON results REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tabletop_fence_new_match();
