-- Trunda's Tables 5.1-5.3 (issue 15): per alpha, the feature vector's
-- length over a bootstrap's samples, and the mean range and mean standard
-- deviation of h* within the samples' Delta-sets (samples with equal
-- feature vectors). A bootstrap records them for alpha 2 up to its
-- configuration's: [{"alpha": 2, "feature_len": .., "groups": ..,
-- "samples": .., "mean_range": .., "mean_std": .., "max_range": ..}, ...].
ALTER TABLE graph_bootstraps ADD COLUMN features jsonb NOT NULL DEFAULT '[]';

CREATE VIEW report_features AS
SELECT ej.experiment,
       b.domain,
       (f->>'alpha')                          AS alpha,
       count(*)                               AS bootstraps,
       avg((f->>'samples')::float8)::bigint   AS samples,
       avg((f->>'feature_len')::float8)       AS feature_len,
       avg((f->>'mean_range')::float8)        AS mean_range,
       avg((f->>'mean_std')::float8)          AS mean_std
FROM graph_bootstraps b
JOIN experiment_jobs ej ON ej.job = b.job
CROSS JOIN LATERAL jsonb_array_elements(b.features) f
GROUP BY ej.experiment, b.domain, f->>'alpha';
