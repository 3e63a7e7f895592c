-- Cluster mode needs PostgreSQL: the leases' last served moment (`table_leases.served_ms`) exists only in
-- postgres/0021_lease_served.sql. Nothing to do for SQLite (see migrations/README.md: same number, both folders).
SELECT 1;
