-- An evaluate job tests both of its train job's best checkpoints: best
-- validation MSE and best validation NLL (the authors' `best_mse_T_*` and
-- `best_nll_T_*`), one row each. Rows written before this migration were
-- all best-MSE. The default keeps inserts that name no checkpoint best-MSE,
-- as they were.
ALTER TABLE evaluations
    ADD COLUMN checkpoint text NOT NULL DEFAULT 'best_mse'
        CONSTRAINT evaluations_checkpoint CHECK (checkpoint IN ('best_mse', 'best_nll'));
ALTER TABLE evaluations DROP CONSTRAINT evaluations_pkey;
ALTER TABLE evaluations ADD PRIMARY KEY (job, checkpoint);

-- Test accuracy per configuration and checkpoint (`hfarm report --against
-- pddlsl-runs` compares each checkpoint with theirs).
CREATE VIEW report_accuracy_by_checkpoint AS
SELECT ej.experiment,
       t.domain,
       t.model,
       t.distribution,
       t.sigma,
       t.residual,
       e.bound,
       e.checkpoint,
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
GROUP BY ej.experiment, t.domain, t.model, t.distribution, t.sigma, t.residual, e.bound, e.checkpoint;

-- Table 1 keeps its meaning: the published tables are the best-MSE
-- checkpoint's everywhere, NLL included (docs/pddlsl-code-vs-paper.md,
-- section 3). Same columns as in 0006.
CREATE OR REPLACE VIEW report_accuracy AS
SELECT experiment, domain, model, distribution, sigma, residual, bound, seeds,
       mse_mean, mse_std, mse_clip_mean, mse_clip_std, nll_mean, nll_std, nll_clip_mean, nll_clip_std,
       ff_mse, lmcut_mse, test_states
FROM report_accuracy_by_checkpoint
WHERE checkpoint = 'best_mse';
