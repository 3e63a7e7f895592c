-- Cluster mode needs PostgreSQL: its secret's check value (`cluster_secret_check`) exists only in
-- postgres/0012_cluster_secret_check.sql. Nothing to do for SQLite (see migrations/README.md: same number, both folders).
SELECT 1;
