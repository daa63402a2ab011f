-- The job-count trigger of migration 0019, in time linear in the rows a
-- statement changed, whatever plan PL/pgSQL cached for it.
--
-- PL/pgSQL plans a trigger's query once per connection, at its first call,
-- sized by that call's transition tables, and keeps the plan. The old query
-- joined `old_jobs` to `new_jobs` on the key: planned on a small first call
-- (a claim of a few jobs), it was a nested loop, and a later promotion of
-- 10,000 jobs on the same connection compared 10^8 pairs (47 s, in which
-- no job was promoted: `hfarm bench queue` stalled after its first 10,000
-- jobs); planned on a large first call, it hashed all of `experiment_jobs`
-- for every later statement, a heartbeat too (0.65 s at 20,000 jobs).
--
-- Now no transition table is joined to another: each old row counts -1 and
-- each new row +1 (a row whose kind and status did not change cancels out
-- in its group, and groups that sum to zero are dropped, as before), and
-- each row finds its experiments by the `experiment_jobs_job` index (the
-- lateral subquery with OFFSET 0 is never flattened into a join that
-- could be planned as a scan). Same deltas as before.
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
    RETURN NULL;
END $$;
