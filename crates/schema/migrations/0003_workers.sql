-- Workers announce themselves while they run; the status API lists them.
CREATE TABLE workers (
    id          text PRIMARY KEY,
    class       text NOT NULL,
    concurrency integer NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now(),
    last_seen   timestamptz NOT NULL DEFAULT now(),
    stopped_at  timestamptz
);
