-- Each job attempt's own log: the lines a worker logged for the job while it
-- ran (`worker::joblog`, bounded there to its last 200 lines and 16 KiB),
-- stored when the attempt ends, so that `hfarm job KEY` and
-- GET /api/jobs/{key} show them after the worker is gone. Attempts that
-- logged nothing store nothing.
CREATE TABLE job_logs (
    job      text NOT NULL REFERENCES jobs(key) ON DELETE CASCADE,
    attempt  integer NOT NULL,
    worker   text NOT NULL,
    at       timestamptz NOT NULL DEFAULT now(),
    lines    text NOT NULL,
    PRIMARY KEY (job, attempt)
);
