-- The rest of a job's cost class for jobs submitted before migration 0026
-- (issue 26). `schema::metrics::measured_rates` now groups and filters by
-- the stored class (`jobs.cost_group`, `cost_units`) instead of reading the
-- spec's JSON, and 0026's one-time backfill left three cases short of what
-- `jobs::class::JobClass` gives:
-- - a published optimum taken as it is (`trust_published`) takes no units,
--   and so measures no search;
-- - a set of growing walks (`puzzle_efficiency`) takes a unit per second of
--   its budget, capped by the budget plus the last task's limit;
-- - a plan job behind a reserve draw (ranked at or beyond its sample's
--   size) takes none: it runs only in place of an unsolved slot.
-- Like 0026's, this is a snapshot of the Rust rule at this time, run once;
-- new rows are written by Rust at submission (`schema::experiments::
-- submit_jobs`), and rows it wrote already agree (the WHERE clauses leave
-- them as they are).
UPDATE jobs SET cost_units = 0
WHERE kind = 'puzzle_solve' AND coalesce((spec->>'trust_published')::boolean, false)
  AND cost_units IS DISTINCT FROM 0;

-- Rust gives every growing-walks set a cap; 0026 gave none.
UPDATE jobs SET cost_units = (spec->>'budget_s')::float8,
                cost_cap_s = (spec->>'budget_s')::float8
                             + coalesce((spec->'limits'->>'time_s')::float8, (spec->>'budget_s')::float8)
WHERE kind = 'puzzle_efficiency' AND cost_cap_s IS NULL;

UPDATE jobs j SET cost_units = 0
WHERE j.kind = 'plan' AND j.cost_units IS DISTINCT FROM 0
  AND EXISTS (SELECT 1 FROM job_inputs i JOIN jobs d ON d.key = i.input
              WHERE i.job = j.key AND d.kind = 'draw'
                AND (d.spec->>'rank')::bigint >= (d.spec->>'n')::bigint);
