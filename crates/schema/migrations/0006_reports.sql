-- The paper's result tables as views, per experiment. A configuration is
-- (model, distribution, sigma, residual, bound); statistics are mean and
-- sample standard deviation over the grid's seeds (NULL std with one seed).
-- `hfarm report` and the dashboard read these; analysts can too.

-- Table 1 (and its appendix variants): test accuracy of each configuration.
-- For a Gaussian model the bound is the one its +clip metric used.
CREATE VIEW report_accuracy AS
SELECT ej.experiment,
       t.domain,
       t.model,
       t.distribution,
       t.sigma,
       t.residual,
       e.bound,
       count(*)                   AS seeds,
       avg(e.mse)                 AS mse_mean,
       stddev_samp(e.mse)         AS mse_std,
       avg(e.mse_clip)            AS mse_clip_mean,
       stddev_samp(e.mse_clip)    AS mse_clip_std,
       avg(e.nll)                 AS nll_mean,
       stddev_samp(e.nll)         AS nll_std,
       avg(e.nll_clip)            AS nll_clip_mean,
       stddev_samp(e.nll_clip)    AS nll_clip_std,
       -- hFF and hLMcut on the same test states (the same for every seed).
       avg(e.ff_mse)              AS ff_mse,
       avg(e.lmcut_mse)           AS lmcut_mse,
       sum(e.samples)::bigint / count(*) AS test_states
FROM evaluations e
JOIN experiment_jobs ej ON ej.job = e.job
JOIN jobs t ON t.key = e.model
GROUP BY ej.experiment, t.domain, t.model, t.distribution, t.sigma, t.residual, e.bound;

-- One row per (seed, configuration) of planning: the ratio of instances
-- solved and the mean evaluations (the budget counted for unsolved ones).
-- `estimate` is N (the Gaussian's mu), N+clip, TN (the truncated mean), or
-- the classical heuristic's name for the baselines (model NULL, seed NULL).
CREATE VIEW report_planning_runs AS
SELECT ej.experiment,
       p.domain,
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
       count(*)                    AS instances,
       avg(p.solved::int)::float8  AS solved_ratio,
       avg(p.evaluations)::float8  AS evaluations
FROM plan_runs p
JOIN experiment_jobs ej ON ej.job = p.job
JOIN jobs pj ON pj.key = p.job
LEFT JOIN jobs t ON t.key = p.model
GROUP BY ej.experiment, p.domain, t.key, t.model, t.distribution, t.sigma, t.residual, t.bound, t.seed,
         pj.bound, p.heuristic;

-- Table 2 (and its appendix variants): planning, mean and std over seeds.
CREATE VIEW report_planning AS
SELECT experiment, domain, model, distribution, sigma, residual, bound, estimate,
       count(*)                        AS seeds,
       avg(solved_ratio)               AS solved_mean,
       -- A baseline is deterministic: one run per instance, no spread.
       CASE WHEN model IS NULL THEN 0 ELSE stddev_samp(solved_ratio) END AS solved_std,
       avg(evaluations)                AS evaluations_mean,
       CASE WHEN model IS NULL THEN 0 ELSE stddev_samp(evaluations) END AS evaluations_std,
       sum(instances)::bigint / count(*) AS instances
FROM report_planning_runs
GROUP BY experiment, domain, model, distribution, sigma, residual, bound, estimate;

-- Figure 2: validation MSE (and NLL) per training step, mean over seeds.
CREATE VIEW report_curves AS
SELECT ej.experiment,
       t.domain,
       t.model,
       t.distribution,
       t.sigma,
       t.residual,
       t.bound,
       c.step,
       count(*)        AS seeds,
       avg(c.val_mse)  AS val_mse,
       avg(c.val_nll)  AS val_nll,
       avg(c.train_nll) AS train_nll
FROM training_curves c
JOIN experiment_jobs ej ON ej.job = c.job
JOIN jobs t ON t.key = c.job
GROUP BY ej.experiment, t.domain, t.model, t.distribution, t.sigma, t.residual, t.bound, c.step;
