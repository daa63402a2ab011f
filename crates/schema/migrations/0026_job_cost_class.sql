-- A job's cost class stored beside it (issue 26): the group and units
-- `jobs::class::JobClass` gives it when it is submitted, and an upper bound
-- on its seconds. What is left of an experiment (`schema::metrics::
-- remaining`) is then priced by the same definition as a dry run, instead
-- of a copy of it in SQL over the spec's JSON.
ALTER TABLE jobs ADD COLUMN cost_group text;
ALTER TABLE jobs ADD COLUMN cost_units double precision;
ALTER TABLE jobs ADD COLUMN cost_cap_s double precision;

-- Jobs submitted before: their class as the SQL copy computed it, once.
UPDATE jobs j SET
    cost_group = coalesce(CASE WHEN j.kind IN ('generate', 'label') THEN j.split
                               WHEN j.kind = 'train' THEN j.model
                               WHEN j.kind IN ('evaluate', 'plan') THEN coalesce(
                                   (SELECT t.model FROM job_inputs i JOIN jobs t ON t.key = i.input
                                    WHERE i.job = j.key AND i.position = 0 AND t.kind = 'train'),
                                   CASE WHEN j.kind = 'plan' THEN j.heuristic END)
                               WHEN j.kind = 'puzzle_learn' THEN j.spec->>'settings'
                               WHEN j.kind IN ('graph_bootstrap', 'graph_fold') THEN j.model
                               WHEN j.kind = 'graph_baseline' THEN j.heuristic END, ''),
    cost_units = CASE WHEN j.kind = 'train' THEN (j.spec->>'steps')::float8
                      WHEN j.kind = 'plan' THEN (j.spec->'limits'->>'max_evaluations')::float8
                      WHEN j.kind = 'puzzle_learn' THEN (j.spec->>'iterations')::float8
                      WHEN j.kind = 'graph_bootstrap' THEN (j.spec->'bootstrap'->>'rounds')::float8
                      ELSE 1 END,
    cost_cap_s = CASE WHEN j.kind = 'generate'
                        THEN least((j.spec->'limits'->>'tries')::float8,
                                   coalesce((j.spec->'limits'->>'give_up_after')::float8, 'Infinity'))
                             * (j.spec->'limits'->>'time_s')::float8
                      WHEN j.kind = 'plan' AND jsonb_typeof(j.spec->'limits'->'time_s') = 'number'
                        THEN (j.spec->'limits'->>'time_s')::float8
                      WHEN j.kind = 'puzzle_test' AND jsonb_typeof(j.spec->'limits'->'time_s') = 'number'
                        THEN (j.spec->'limits'->>'time_s')::float8
                      WHEN j.kind = 'graph_baseline' AND jsonb_typeof(j.spec->'search'->'time_s') = 'number'
                        THEN (j.spec->'search'->>'time_s')::float8 END;
