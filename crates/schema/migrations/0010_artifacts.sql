-- Content-keyed artifacts every worker can fetch: pattern databases, built
-- once by whichever worker needs one first (crates/puzzles' content key:
-- the same key is always the same bytes), then read by all the others.
-- PostgreSQL refuses a value over 1 GB: the largest PDB of the paper's sets
-- (the 15-puzzle's 8-tile half, 519 M entries) stores in about 260 MB.
CREATE TABLE artifacts (
    key        text PRIMARY KEY,
    kind       text NOT NULL,
    bytes      bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
