-- Cluster mode (issue 45): a keyed check value of the cluster secret, HMAC-SHA256 of a fixed label under
-- CLUSTER_SECRET (`ClusterSecret::check_value`). The first node to join writes it; a node whose secret gives
-- another value is refused at start, before it registers, claims or creates anything. The value does not give the
-- secret. To change the secret: stop every node, delete this row, start the nodes with the new secret.
CREATE TABLE cluster_secret_check (
    id          TEXT    PRIMARY KEY DEFAULT 'cluster' CHECK (id = 'cluster'),
    check_value TEXT    NOT NULL
);
