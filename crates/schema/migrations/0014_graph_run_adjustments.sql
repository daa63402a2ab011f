-- A graph_fold job searches with its network and with each Delta-set
-- adjustment of it (h_min, h_avg, h_shift: configurations `a3-mse:min`,
-- ...): one row per (job, configuration).
ALTER TABLE graph_runs DROP CONSTRAINT graph_runs_pkey;
ALTER TABLE graph_runs ADD PRIMARY KEY (job, configuration);
