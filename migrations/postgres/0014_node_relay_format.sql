-- Cluster mode (issue 45, point 9): the newest node-to-node format each node speaks (`RELAY_FORMAT` in
-- server/src/cluster/forward.rs). A node opening a forward session to another uses the older of the two, so nodes
-- of two builds relay to each other during a rolling upgrade. Rows written by builds from before this column say 1.
ALTER TABLE nodes ADD COLUMN relay_format INTEGER NOT NULL DEFAULT 1;
