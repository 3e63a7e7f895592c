-- Cluster mode (issue 45, point 8): the lobbies each client address created recently, counted for the whole
-- cluster, so that MAX_LOBBIES_PER_IP per LOBBY_WINDOW_SECS holds whichever nodes the creations reached (a single
-- node counts in memory). One row per creation. `address_key` is HMAC-SHA256, in hex, of the address's limit key
-- (an IPv6 address's /64) under CLUSTER_SECRET: the table never holds an address. A node checks and inserts in one
-- transaction under an advisory lock of the key, and deletes rows older than the window as it goes
-- (`server/src/store/allowance.rs`).
CREATE TABLE lobby_creations (
    id          BIGSERIAL   PRIMARY KEY,
    address_key TEXT        NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX lobby_creations_by_address ON lobby_creations (address_key, created_at);
CREATE INDEX lobby_creations_by_age ON lobby_creations (created_at);
