-- Rate-limit windows shared by every node on the store: the cluster's
-- per-token and per-route limits. reset_at: when the window ends (unix ms).
CREATE TABLE rate_limits (
    key      TEXT PRIMARY KEY,
    count    INTEGER NOT NULL,
    reset_at BIGINT  NOT NULL
);
CREATE INDEX rate_limits_by_reset ON rate_limits (reset_at);
