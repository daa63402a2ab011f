-- report_coverage's coverage_std was stddev_samp of a count, which
-- PostgreSQL returns as numeric: readers that take every std as float8
-- (schema::reports) failed to decode it once a configuration had two seeds
-- (with one it is NULL). A view's column type cannot be changed in place,
-- so the view is recreated as 0011 made it, with the cast.
DROP VIEW report_coverage;

CREATE VIEW report_coverage AS
SELECT experiment, domain, configuration,
       CASE WHEN learned THEN 'learned' ELSE 'baseline' END AS kind,
       count(*)                     AS seeds,
       sum(problems)::bigint / count(*) AS problems,
       avg(coverage)::float8        AS coverage_mean,
       stddev_samp(coverage)::float8 AS coverage_std,
       avg(ipc_time)                AS ipc_time,
       avg(ipc_length)              AS ipc_length,
       avg(ipc_expansions)          AS ipc_expansions
FROM report_coverage_runs
GROUP BY experiment, domain, configuration, learned;
