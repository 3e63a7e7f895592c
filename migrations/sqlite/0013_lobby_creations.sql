-- Cluster mode needs PostgreSQL: its count of lobby creations per address (`lobby_creations`) exists only in
-- postgres/0013_lobby_creations.sql; a single node counts them in memory. Nothing to do for SQLite (see
-- migrations/README.md: same number, both folders).
SELECT 1;
