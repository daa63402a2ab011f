-- Each plan run with its configuration as the planning tables name it: one
-- definition of a run's model, bound and estimate (N, N+clip, TN, or the
-- baseline's heuristic), which Table 2's runs and the per-instance rows
-- both read.
CREATE VIEW report_plan_run_configs AS
SELECT ej.experiment,
       p.domain,
       p.instance,
       t.key                       AS model_key,
       t.model,
       t.distribution,
       t.sigma,
       t.residual,
       CASE WHEN t.key IS NULL THEN NULL
            WHEN t.distribution = 'truncated' THEN t.bound
            ELSE pj.bound END      AS bound,
       CASE WHEN t.key IS NULL THEN p.heuristic
            WHEN t.distribution = 'truncated' THEN 'TN'
            WHEN p.heuristic = 'learned+clip' THEN 'N+clip'
            ELSE 'N' END           AS estimate,
       t.seed,
       p.solved,
       p.evaluations,
       p.cost
FROM plan_runs p
JOIN experiment_jobs ej ON ej.job = p.job
JOIN jobs pj ON pj.key = p.job
LEFT JOIN jobs t ON t.key = p.model;

-- Table 2's runs (migration 0006), now over the shared definition: the same
-- columns, the same groups.
CREATE OR REPLACE VIEW report_planning_runs AS
SELECT experiment, domain, model, distribution, sigma, residual, bound, estimate, seed,
       count(*)                    AS instances,
       avg(solved::int)::float8    AS solved_ratio,
       avg(evaluations)::float8    AS evaluations
FROM report_plan_run_configs
GROUP BY experiment, domain, model_key, model, distribution, sigma, residual, bound, seed, estimate;

-- Per instance: each planning configuration's outcome on it (mean over the
-- seeds that planned it) beside the hFF baseline's on the same instance, in
-- the same experiment. The rows behind Table 2, and the scatter planners read
-- (Downward Lab's: a configuration's evaluations against hFF's, instance by
-- instance), which the means of report_planning hide.
CREATE VIEW report_instances AS
WITH per AS (
    SELECT experiment, domain, instance, model, distribution, sigma, residual, bound, estimate,
           count(*)::bigint               AS seeds,
           avg(solved::int)::float8       AS solved,
           avg(evaluations)::float8       AS evaluations,
           -- Over the seeds that solved it.
           avg(cost)::float8              AS cost
    FROM report_plan_run_configs
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
