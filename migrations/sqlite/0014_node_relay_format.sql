-- Cluster mode needs PostgreSQL: the nodes' relay formats (`nodes.relay_format`) exist only in
-- postgres/0014_node_relay_format.sql. Nothing to do for SQLite (see migrations/README.md: same number, both folders).
SELECT 1;
