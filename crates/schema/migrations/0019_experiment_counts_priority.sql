-- Progress at the full grid's size, and experiment priorities.
--
-- 1. Jobs per (experiment, kind, status), kept as the jobs change, so that
--    the status API and the experiment list (which the dashboard polls)
--    read a few rows instead of joining and counting an experiment's jobs
--    (89,048 for grids/ijcai24.toml: 0.65 s per count, twice per poll).
--
--    Writers only ever INSERT into `experiment_count_deltas` (triggers, one
--    row per experiment, kind and status that a statement changed), so no
--    worker ever waits on, or deadlocks over, a shared counter row. Readers
--    add `experiment_counts` and the deltas in one statement (one snapshot,
--    so a concurrent fold is seen either wholly or not at all);
--    `fold_experiment_counts()` moves the deltas into `experiment_counts`
--    (one folder at a time; the others skip).
--
--    Who counts what:
--    - a status (or kind) change of a job: the statement trigger on `jobs`,
--      for every experiment that held the job before this transaction;
--    - a job added to an experiment (`experiment_jobs`): a deferred trigger,
--      at commit, with the job's status as it is then, locked (FOR SHARE)
--      so that a concurrent change of it waits for our commit and is then
--      counted by its own trigger, which sees our row. Rows this
--      transaction added are left to that trigger by the `jobs` trigger
--      (their `xmin` is ours), so a status set in the same transaction is
--      counted once. (A savepoint gives its rows another xmin: do not add
--      jobs to experiments inside one.)
--    - a job taken out of an experiment: a trigger before the delete (an
--      experiment's own deletion takes its counts with it).
--    A migration that rewrites job keys must run
--    `SELECT rebuild_experiment_counts()` after it.
--
-- 2. `experiments.priority` (higher first; default 0) and `jobs.priority`,
--    the highest priority of the experiments that hold the job (a job is
--    shared by every experiment that includes it), kept by
--    `schema::bulk::set_priority`; the scheduler orders ready jobs by it.

CREATE TABLE experiment_counts (
    experiment uuid NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
    kind       text NOT NULL,
    status     job_status NOT NULL,
    n          bigint NOT NULL,
    PRIMARY KEY (experiment, kind, status)
);

-- No foreign key: deltas are written by triggers, also while an
-- experiment is being deleted; folding drops those of deleted experiments.
CREATE TABLE experiment_count_deltas (
    experiment uuid NOT NULL,
    kind       text NOT NULL,
    status     job_status NOT NULL,
    n          bigint NOT NULL
);
CREATE INDEX experiment_count_deltas_experiment ON experiment_count_deltas (experiment);

CREATE FUNCTION count_job_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO experiment_count_deltas (experiment, kind, status, n)
    SELECT e.experiment, c.kind, c.status, sum(c.n)
    FROM (SELECT o.key, o.kind, o.status, -1 AS n
          FROM old_jobs o JOIN new_jobs n ON n.key = o.key
          WHERE o.status <> n.status OR o.kind <> n.kind
          UNION ALL
          SELECT n.key, n.kind, n.status, 1
          FROM old_jobs o JOIN new_jobs n ON n.key = o.key
          WHERE o.status <> n.status OR o.kind <> n.kind) c
    JOIN experiment_jobs e ON e.job = c.key
    WHERE e.xmin <> pg_current_xact_id()::xid
    GROUP BY 1, 2, 3
    HAVING sum(c.n) <> 0;
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_counted AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION count_job_changes();

CREATE FUNCTION count_added_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO experiment_count_deltas (experiment, kind, status, n)
    SELECT NEW.experiment, j.kind, j.status, 1
    FROM (SELECT kind, status FROM jobs WHERE key = NEW.job FOR SHARE) j
    WHERE EXISTS (SELECT 1 FROM experiment_jobs e WHERE e.experiment = NEW.experiment AND e.job = NEW.job);
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER experiment_jobs_counted AFTER INSERT ON experiment_jobs
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION count_added_job();

-- Before the row goes (transition tables have no xmin): rows this
-- transaction added were never counted (their deferred trigger finds them
-- gone); the job is locked as in `count_added_job`.
CREATE FUNCTION count_removed_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO experiment_count_deltas (experiment, kind, status, n)
    SELECT OLD.experiment, j.kind, j.status, -1
    FROM (SELECT kind, status FROM jobs WHERE key = OLD.job FOR SHARE) j
    WHERE EXISTS (SELECT 1 FROM experiments x WHERE x.id = OLD.experiment)
      AND EXISTS (SELECT 1 FROM experiment_jobs e
                  WHERE e.experiment = OLD.experiment AND e.job = OLD.job AND e.xmin <> pg_current_xact_id()::xid);
    RETURN OLD;
END $$;

CREATE TRIGGER experiment_jobs_uncounted BEFORE DELETE ON experiment_jobs
    FOR EACH ROW EXECUTE FUNCTION count_removed_job();

-- Moves the deltas into `experiment_counts`; returns how many it moved, or
-- NULL when another session is folding right now.
CREATE FUNCTION fold_experiment_counts() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    moved bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('hfarm:fold_experiment_counts')) THEN
        RETURN NULL;
    END IF;
    WITH d AS (DELETE FROM experiment_count_deltas RETURNING experiment, kind, status, n),
         s AS (SELECT d.experiment, d.kind, d.status, sum(d.n) AS n, count(*) AS rows
               FROM d GROUP BY 1, 2, 3),
         i AS (INSERT INTO experiment_counts AS c (experiment, kind, status, n)
               SELECT s.experiment, s.kind, s.status, s.n FROM s
               WHERE EXISTS (SELECT 1 FROM experiments x WHERE x.id = s.experiment)
               ORDER BY 1, 2, 3
               ON CONFLICT (experiment, kind, status) DO UPDATE SET n = c.n + excluded.n)
    SELECT coalesce(sum(rows), 0) INTO moved FROM s;
    RETURN moved;
END $$;

-- Counts everything again from the jobs (for repairs and key-rewriting
-- migrations). Locks out job changes while it runs.
CREATE FUNCTION rebuild_experiment_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE jobs, experiment_jobs IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM experiment_count_deltas;
    DELETE FROM experiment_counts;
    INSERT INTO experiment_counts (experiment, kind, status, n)
    SELECT e.experiment, j.kind, j.status, count(*)
    FROM experiment_jobs e JOIN jobs j ON j.key = e.job
    GROUP BY 1, 2, 3;
END $$;

-- The triggers above already hold their tables' locks (CREATE TRIGGER), so
-- no job changes between them and this first count.
SELECT rebuild_experiment_counts();

ALTER TABLE experiments ADD COLUMN priority integer NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN priority integer NOT NULL DEFAULT 0;
