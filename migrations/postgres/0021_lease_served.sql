-- Cluster mode: time nobody served a table is charged to nobody (issue 47, point 2). `served_ms` is the tables'
-- clock (Unix ms, the owner's injected clock, not the database's) at the last moment the lease's owner is known to
-- have served the table: written at every renewal and when a graceful stop releases the lease; NULL for a new lease
-- and for one released because its table left memory (the cluster serves that table; nobody owes it time). The
-- next node to claim the lease credits the table with the time from it to the claim (server/src/cluster/mod.rs).
-- `served_epoch`: the lease's epoch when `served_ms` was written; a claim credits only a `served_ms` of the owner
-- just before it (a build that does not write it, during a rolling upgrade, leaves an older owner's behind).
ALTER TABLE table_leases ADD COLUMN served_ms BIGINT;
ALTER TABLE table_leases ADD COLUMN served_epoch BIGINT;
