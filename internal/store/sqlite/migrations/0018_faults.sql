-- Faults of test worlds (issue 24, docs/faults.md): what slashd does wrong
-- on purpose, for a world's apps, gateway sessions and deliveries. Kept in
-- the store so that every node of a cluster applies them, and fires a
-- counted fault exactly count times between them (remaining is
-- decremented in the statement that decides a firing).
--
-- app_id, route and session name the target (0 / '': any of the world);
-- params is the kind's parameters as JSON. A fault fires count times
-- (remaining counts down) or, with probability > 0, on the matches its
-- seeded sequence picks (matched numbers them), at most count times when
-- count > 0. fired counts its firings. Deleted with its world.
CREATE TABLE faults (
    id          BIGINT PRIMARY KEY,
    world_id    BIGINT NOT NULL,
    kind        TEXT   NOT NULL,
    app_id      BIGINT NOT NULL DEFAULT 0,
    route       TEXT   NOT NULL DEFAULT '',
    session     TEXT   NOT NULL DEFAULT '',
    params      TEXT   NOT NULL,
    count       BIGINT NOT NULL,
    remaining   BIGINT NOT NULL,
    probability DOUBLE PRECISION NOT NULL DEFAULT 0,
    seed        BIGINT NOT NULL DEFAULT 0,
    matched     BIGINT NOT NULL DEFAULT 0,
    fired       BIGINT NOT NULL DEFAULT 0,
    created_at  BIGINT NOT NULL
);

CREATE INDEX faults_by_world ON faults (world_id, id);
