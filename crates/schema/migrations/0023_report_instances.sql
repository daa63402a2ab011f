-- Per instance: each planning configuration's outcome on it (mean over the
-- seeds that planned it) beside the hFF baseline's on the same instance, in
-- the same experiment. The rows behind Table 2, and the scatter planners read
-- (Downward Lab's: a configuration's evaluations against hFF's, instance by
-- instance), which the means of report_planning hide.
CREATE VIEW report_instances AS
WITH runs AS (
    SELECT ej.experiment,
           p.domain,
           p.instance,
           t.model,
           t.distribution,
           t.sigma,
           t.residual,
           -- Configuration columns as report_planning_runs names them.
           CASE WHEN t.key IS NULL THEN NULL
                WHEN t.distribution = 'truncated' THEN t.bound
                ELSE pj.bound END      AS bound,
           CASE WHEN t.key IS NULL THEN p.heuristic
                WHEN t.distribution = 'truncated' THEN 'TN'
                WHEN p.heuristic = 'learned+clip' THEN 'N+clip'
                ELSE 'N' END           AS estimate,
           p.solved,
           p.evaluations,
           p.cost
    FROM plan_runs p
    JOIN experiment_jobs ej ON ej.job = p.job
    JOIN jobs pj ON pj.key = p.job
    LEFT JOIN jobs t ON t.key = p.model
),
per AS (
    SELECT experiment, domain, instance, model, distribution, sigma, residual, bound, estimate,
           count(*)::bigint               AS seeds,
           avg(solved::int)::float8       AS solved,
           avg(evaluations)::float8       AS evaluations,
           -- Over the seeds that solved it.
           avg(cost)::float8              AS cost
    FROM runs
    GROUP BY experiment, domain, instance, model, distribution, sigma, residual, bound, estimate
)
SELECT per.experiment, per.domain, per.model, per.distribution, per.sigma, per.residual, per.bound,
       per.estimate,
       per.instance,
       i.split,
       i.generator::text                  AS params,
       i.seed                             AS instance_seed,
       i.optimal_cost::bigint             AS optimal_cost,
       per.seeds,
       per.solved,
       per.evaluations,
       per.cost,
       ff.solved                          AS ff_solved,
       ff.evaluations                     AS ff_evaluations,
       ff.cost                            AS ff_cost
FROM per
JOIN instances i ON i.job = per.instance
LEFT JOIN per ff ON ff.experiment = per.experiment AND ff.instance = per.instance
                AND ff.model IS NULL AND ff.estimate = 'ff';
