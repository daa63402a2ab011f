-- Marom & Rosman's efficiency experiment (the supplement's Table 8) and
-- standard deviations across runs in every likely report.
--
-- A `puzzle_efficiency` job runs one set of growing walks (task j a
-- (j + 1)-move walk) with a learner until the set's time passes its budget
-- (likely::efficiency); a learner's task source (GenerateTaskPrac or kN
-- walks) is its spec's `tasks`, absent for GenerateTaskPrac.
CREATE TABLE puzzle_efficiency_runs (
    job       text PRIMARY KEY REFERENCES jobs (key),
    learner   text NOT NULL REFERENCES jobs (key),
    domain    text NOT NULL,
    alpha     double precision,
    seed      bigint NOT NULL,
    set       integer NOT NULL,
    budget_s  double precision NOT NULL,
    tasks     integer NOT NULL,
    attempted integer NOT NULL,
    solved    integer NOT NULL,
    seconds   double precision NOT NULL,
    -- likely::efficiency::TaskRun per task attempted.
    runs      jsonb NOT NULL
);

DROP VIEW report_suboptimality;
DROP VIEW report_efficiency;

-- Table 7's columns per learner (a run): mean time and generated nodes per
-- task, mean suboptimality over the solved tasks, tasks solved optimally.
CREATE VIEW report_suboptimality_runs AS
SELECT ej.experiment,
       r.domain,
       l.model,
       coalesce(l.heuristic, 'one_hot')                                AS inputs,
       coalesce(l.spec->>'tasks', 'uncertainty')                       AS source,
       coalesce(r.alpha::text, 'N/A')                                  AS alpha,
       r.learner,
       l.seed,
       count(*)                                                        AS tasks,
       count(r.cost)                                                   AS solved,
       avg(r.seconds)                                                  AS time,
       avg(r.generated)::float8                                        AS generated,
       100 * avg(CASE WHEN r.cost IS NULL THEN NULL
                      WHEN r.optimal = 0 THEN 0
                      ELSE r.cost::float8 / r.optimal - 1 END)         AS suboptimality_pct,
       100 * avg((r.cost IS NOT NULL AND r.cost = r.optimal)::int)::float8 AS optimal_pct
FROM puzzle_test_runs r
JOIN experiment_jobs ej ON ej.job = r.job
JOIN jobs l ON l.key = r.learner
GROUP BY ej.experiment, r.domain, l.model, l.heuristic, l.spec->>'tasks', r.alpha, r.learner, l.seed;

-- Table 7: the runs' statistics, mean and sample std across runs (seeds).
CREATE VIEW report_suboptimality AS
SELECT experiment, domain, model, inputs, source, alpha,
       count(*)                          AS seeds,
       sum(tasks)::bigint                AS tasks,
       sum(solved)::bigint               AS solved,
       avg(time)                         AS time_mean,
       stddev_samp(time)                 AS time_std,
       avg(generated)                    AS generated_mean,
       stddev_samp(generated)            AS generated_std,
       avg(suboptimality_pct)            AS suboptimality_mean,
       stddev_samp(suboptimality_pct)    AS suboptimality_std,
       avg(optimal_pct)                  AS optimal_mean,
       stddev_samp(optimal_pct)          AS optimal_std
FROM report_suboptimality_runs
GROUP BY experiment, domain, model, inputs, source, alpha;

-- Table 8 per learner (a run) and test alpha: training tasks solved over its
-- iterations (percent), its training time (hours: the iterations' seconds,
-- Table 12), and per set of growing walks the tasks solved within
-- the set's budget (percent of the set), averaged over its sets. A learner
-- without efficiency jobs has one row, its alpha NULL.
CREATE VIEW report_efficiency_runs AS
WITH learners AS (
    SELECT ej.experiment, l.key AS learner, l.domain, l.model,
           coalesce(l.heuristic, 'one_hot')          AS inputs,
           coalesce(l.spec->>'tasks', 'uncertainty') AS source,
           l.seed
    FROM jobs l
    JOIN experiment_jobs ej ON ej.job = l.key
    WHERE l.kind = 'puzzle_learn'
), train AS (
    SELECT job AS learner, sum(tasks) AS tasks, sum(solved) AS solved, sum(seconds) AS seconds
    FROM puzzle_iterations
    GROUP BY job
), test AS (
    SELECT learner, coalesce(alpha::text, 'N/A') AS alpha,
           count(*)                                              AS sets,
           sum(tasks)                                            AS tasks,
           avg(100 * solved::float8 / nullif(tasks, 0))          AS solved_pct,
           avg(attempted)::float8                                AS attempted
    FROM puzzle_efficiency_runs
    GROUP BY learner, alpha
)
SELECT l.experiment, l.domain, l.model, l.inputs, l.source, t.alpha, l.learner, l.seed,
       coalesce(train.tasks, 0)                               AS train_tasks,
       100 * train.solved::float8 / nullif(train.tasks, 0)   AS train_solved_pct,
       train.seconds / 3600                                   AS train_hours,
       coalesce(t.sets, 0)                                    AS sets,
       coalesce(t.tasks, 0)                                   AS test_tasks,
       t.solved_pct                                           AS test_solved_pct,
       t.attempted
FROM learners l
LEFT JOIN train ON train.learner = l.learner
LEFT JOIN test t ON t.learner = l.learner
WHERE train.learner IS NOT NULL OR t.learner IS NOT NULL;

-- Table 8: mean and sample std across runs (seeds) of each run's shares.
CREATE VIEW report_efficiency AS
SELECT experiment, domain, model, inputs, source, alpha,
       count(*)                          AS seeds,
       sum(train_tasks)::bigint          AS train_tasks,
       sum(sets)::bigint                 AS sets,
       sum(test_tasks)::bigint           AS test_tasks,
       avg(train_solved_pct)             AS train_solved_mean,
       stddev_samp(train_solved_pct)     AS train_solved_std,
       avg(test_solved_pct)              AS test_solved_mean,
       stddev_samp(test_solved_pct)      AS test_solved_std,
       avg(train_hours)                  AS train_hours_mean,
       stddev_samp(train_hours)          AS train_hours_std,
       avg(attempted)                    AS attempted_mean
FROM report_efficiency_runs
GROUP BY experiment, domain, model, inputs, source, alpha;
