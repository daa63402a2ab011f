-- A [[likely]] learner reads one-hot tiles or a pattern set's PDB values
-- (its job's `heuristic` column: `one_hot` or `pdb:SET`); the tables of
-- migration 0011 keep the two apart in an `inputs` column.
DROP VIEW report_suboptimality;
DROP VIEW report_efficiency;

CREATE VIEW report_suboptimality AS
SELECT ej.experiment,
       r.domain,
       l.model,
       coalesce(l.heuristic, 'one_hot')                                AS inputs,
       coalesce(r.alpha::text, 'N/A')                                  AS alpha,
       count(DISTINCT l.seed)                                          AS seeds,
       count(*)                                                        AS tasks,
       count(r.cost)                                                   AS solved,
       avg(r.seconds)                                                  AS time_mean,
       avg(r.generated)::float8                                        AS generated_mean,
       100 * avg(CASE WHEN r.cost IS NULL THEN NULL
                      WHEN r.optimal = 0 THEN 0
                      ELSE r.cost::float8 / r.optimal - 1 END)         AS suboptimality_pct,
       100 * avg((r.cost IS NOT NULL AND r.cost = r.optimal)::int)::float8 AS optimal_pct
FROM puzzle_test_runs r
JOIN experiment_jobs ej ON ej.job = r.job
JOIN jobs l ON l.key = r.learner
GROUP BY ej.experiment, r.domain, l.model, l.heuristic, r.alpha;

CREATE VIEW report_efficiency AS
WITH train AS (
    SELECT ej.experiment, l.domain, l.model, coalesce(l.heuristic, 'one_hot') AS inputs,
           count(DISTINCT l.key) AS seeds,
           sum(i.tasks)          AS tasks,
           sum(i.solved)         AS solved
    FROM puzzle_iterations i
    JOIN jobs l ON l.key = i.job
    JOIN experiment_jobs ej ON ej.job = i.job
    GROUP BY ej.experiment, l.domain, l.model, l.heuristic
), test AS (
    SELECT ej.experiment, r.domain, l.model, coalesce(l.heuristic, 'one_hot') AS inputs,
           count(*)      AS tasks,
           count(r.cost) AS solved
    FROM puzzle_test_runs r
    JOIN jobs l ON l.key = r.learner
    JOIN experiment_jobs ej ON ej.job = r.job
    GROUP BY ej.experiment, r.domain, l.model, l.heuristic
)
SELECT coalesce(train.experiment, test.experiment) AS experiment,
       coalesce(train.domain, test.domain)         AS domain,
       coalesce(train.model, test.model)           AS model,
       coalesce(train.inputs, test.inputs)         AS inputs,
       coalesce(train.seeds, 0)                    AS seeds,
       coalesce(train.tasks, 0)::bigint            AS train_tasks,
       100 * train.solved::float8 / nullif(train.tasks, 0) AS train_solved_pct,
       coalesce(test.tasks, 0)                     AS test_tasks,
       100 * test.solved::float8 / nullif(test.tasks, 0)   AS test_solved_pct
FROM train FULL JOIN test
  ON train.experiment = test.experiment AND train.domain = test.domain AND train.model = test.model
     AND train.inputs = test.inputs;
