-- Trunda's analyses beside coverage (issue 28):
-- * report_adjustments: adjusted heuristics (a network's `a3-mse:min`, the
--   thesis's value adjustments `goalcount:min`), per configuration: runs,
--   solved, how many runs fell back to plain h on some evaluated state and
--   on every one (the adjustment then changed nothing), and the share of
--   evaluated states that fell back (graphlearn::ipc::RunRow's `adjusted`
--   and `fallbacks`, in graph_runs.run).
-- * report_fit: each network's fit to its fold's training samples (thesis
--   5.4.3: MAE, the 80% quantile of |error|, the least and greatest output
--   minus target, the mean and greatest ratio), over folds
--   (graphlearn::fit::FitStats in graph_runs.run->'fit').
-- * report_error_by_target: per target value, the outputs' mean, least
--   and greatest and the MAE over every fold's training samples (Figures
--   5.18/5.19; MSE against LogMSE, section 5.5, by configuration).
-- * report_correlation: Pearson's r of feature distance (L1, L2, L-inf)
--   against |h* difference| per alpha over the bootstraps' samples (5.3.1).
-- * report_features gains feature_len_thesis: Table 5.1's length, without
--   the predicate symbols' single-vertex graphs (count 1 in every state;
--   graphlearn::adjust::thesis_len), NULL for bootstraps stored before.
CREATE VIEW report_adjustments AS
SELECT ej.experiment,
       g.domain,
       g.configuration,
       count(*)                                                         AS runs,
       count(*) FILTER (WHERE g.solved)                                 AS solved,
       count(*) FILTER (WHERE (g.run->>'fallbacks')::bigint > 0)        AS with_fallbacks,
       count(*) FILTER (WHERE coalesce((g.run->>'adjusted')::bigint, 0) = 0) AS all_fallbacks,
       sum((g.run->>'fallbacks')::float8)
         / nullif(sum((g.run->>'adjusted')::float8 + (g.run->>'fallbacks')::float8), 0) AS fallback_share
FROM graph_runs g
JOIN experiment_jobs ej ON ej.job = g.job
WHERE g.configuration LIKE '%:%'
GROUP BY ej.experiment, g.domain, g.configuration;

CREATE VIEW report_fit AS
SELECT ej.experiment,
       g.domain,
       g.configuration,
       count(*)                                    AS folds,
       avg((g.run->'fit'->>'n')::float8)::bigint   AS samples,
       avg((g.run->'fit'->>'mae')::float8)         AS mae_mean,
       stddev_samp((g.run->'fit'->>'mae')::float8) AS mae_std,
       avg((g.run->'fit'->>'p80_abs')::float8)     AS p80_abs,
       min((g.run->'fit'->>'min_diff')::float8)    AS min_diff,
       max((g.run->'fit'->>'max_diff')::float8)    AS max_diff,
       avg((g.run->'fit'->>'ratio_mean')::float8)  AS ratio_mean,
       max((g.run->'fit'->>'ratio_max')::float8)   AS ratio_max
FROM graph_runs g
JOIN experiment_jobs ej ON ej.job = g.job
WHERE g.run ? 'fit'
GROUP BY ej.experiment, g.domain, g.configuration;

CREATE VIEW report_error_by_target AS
SELECT ej.experiment,
       g.domain,
       g.configuration,
       (t->>'target')::float8::bigint                                        AS target,
       sum((t->>'n')::bigint)::bigint                                        AS n,
       sum((t->>'mae')::float8 * (t->>'n')::float8) / sum((t->>'n')::float8) AS mae,
       sum((t->>'mean_output')::float8 * (t->>'n')::float8) / sum((t->>'n')::float8) AS mean_output,
       min((t->>'min_output')::float8)                                       AS min_output,
       max((t->>'max_output')::float8)                                       AS max_output
FROM graph_runs g
JOIN experiment_jobs ej ON ej.job = g.job
CROSS JOIN LATERAL jsonb_array_elements(g.run->'fit'->'by_target') t
WHERE g.run ? 'fit'
GROUP BY ej.experiment, g.domain, g.configuration, (t->>'target')::float8::bigint;

CREATE VIEW report_correlation AS
SELECT ej.experiment,
       b.domain,
       (f->>'alpha')                                       AS alpha,
       count(*)                                            AS bootstraps,
       sum((f->'correlation'->>'pairs')::bigint)::bigint   AS pairs,
       avg((f->'correlation'->>'l1')::float8)              AS l1,
       avg((f->'correlation'->>'l2')::float8)              AS l2,
       avg((f->'correlation'->>'linf')::float8)            AS linf
FROM graph_bootstraps b
JOIN experiment_jobs ej ON ej.job = b.job
CROSS JOIN LATERAL jsonb_array_elements(b.features) f
WHERE f ? 'correlation'
GROUP BY ej.experiment, b.domain, f->>'alpha';

CREATE OR REPLACE VIEW report_features AS
SELECT ej.experiment,
       b.domain,
       (f->>'alpha')                          AS alpha,
       count(*)                               AS bootstraps,
       avg((f->>'samples')::float8)::bigint   AS samples,
       avg((f->>'feature_len')::float8)       AS feature_len,
       avg((f->>'mean_range')::float8)        AS mean_range,
       avg((f->>'mean_std')::float8)          AS mean_std,
       avg((f->>'feature_len_thesis')::float8) AS feature_len_thesis
FROM graph_bootstraps b
JOIN experiment_jobs ej ON ej.job = b.job
CROSS JOIN LATERAL jsonb_array_elements(b.features) f
GROUP BY ej.experiment, b.domain, f->>'alpha';
