-- What wakes the scheduler's search for ready jobs.
--
-- Each pass of the scheduler looked for ready jobs among all pending ones
-- (`lifecycle::skip_unrunnable`, `promote_ready`: a semi-join per pending
-- job), five times a second: with the paper's grid recorded (94,000 jobs
-- pending) that was 0.75 s of PostgreSQL per pass, 80% of a core while
-- nothing happened. A job becomes ready only when another job ends, fails
-- or returns to pending, or when jobs are added; such statements now leave
-- a row here, and the scheduler searches only after taking rows away
-- (`lifecycle::take_wakeups`), or after a long quiet (a safety net).
--
-- A row, not a counter or a sequence: it is seen only once its transaction
-- commits, and the scheduler deletes only rows it sees, so a change that
-- commits after the scheduler looked wakes the next pass instead of being
-- missed (a sequence moves before the commit; a counter row would be one
-- lock for every worker's completion).
CREATE TABLE scheduler_wakeups (
    at timestamptz NOT NULL DEFAULT now()
);

-- The count trigger of 0029, unchanged, plus the wakeup: once per
-- statement that moved a job to a state other than queued or running
-- (claims, heartbeats, promotions and requeues wake nothing: they make no
-- job ready).
CREATE OR REPLACE FUNCTION count_job_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO experiment_count_deltas (experiment, kind, status, n)
    SELECT e.experiment, c.kind, c.status, sum(c.n)
    FROM (SELECT o.key, o.kind, o.status, -1 AS n FROM old_jobs o
          UNION ALL
          SELECT n.key, n.kind, n.status, 1 FROM new_jobs n) c
    CROSS JOIN LATERAL (SELECT x.experiment FROM experiment_jobs x
                        WHERE x.job = c.key AND x.xmin <> pg_current_xact_id()::xid
                        OFFSET 0) e
    GROUP BY 1, 2, 3
    HAVING sum(c.n) <> 0;
    IF EXISTS (SELECT 1 FROM new_jobs n WHERE n.status NOT IN ('queued', 'running')) THEN
        INSERT INTO scheduler_wakeups DEFAULT VALUES;
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION wake_scheduler() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO scheduler_wakeups DEFAULT VALUES;
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_added AFTER INSERT ON jobs
    FOR EACH STATEMENT EXECUTE FUNCTION wake_scheduler();
