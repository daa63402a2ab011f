-- The two other seeds' experiment kinds (issues 14 and 15): Marom &
-- Rosman's likely-admissible learner on permutation puzzles (`puzzle_*`
-- jobs) and Trunda's subgraph-feature learner with leave-one-out
-- (`graph_*` jobs). Their resumable state between iterations (rounds) is a
-- `checkpoints` row tagged `last`, as a train job's: `weights` then holds
-- the learner's serialized state (JSON bytes), `step` the iterations done.

-- A finished LearnHeuristicPrac run; its learner is its `last` checkpoint.
CREATE TABLE puzzle_learners (
    job          text PRIMARY KEY REFERENCES jobs (key),
    domain       text NOT NULL,
    iterations   integer NOT NULL,
    -- Seconds of the attempt that finished, and the iteration it resumed after.
    seconds      double precision NOT NULL,
    resumed_from integer NOT NULL
);

-- One outer iteration, written as the run goes (a resumed attempt
-- overwrites the iterations it repeats).
CREATE TABLE puzzle_iterations (
    job       text NOT NULL REFERENCES jobs (key),
    iteration integer NOT NULL,
    tasks     integer NOT NULL,
    solved    integer NOT NULL,
    alpha     double precision NOT NULL,
    beta      double precision NOT NULL,
    buffer    integer NOT NULL,
    seconds   double precision NOT NULL,
    -- likely::prac::IterationReport, every task included.
    report    jsonb NOT NULL,
    PRIMARY KEY (job, iteration)
);

-- The optimal cost of a test task (IDA* with the domain's PDBs).
CREATE TABLE puzzle_optimal (
    job       text PRIMARY KEY REFERENCES jobs (key),
    domain    text NOT NULL,
    state     text NOT NULL,
    cost      integer NOT NULL,
    generated bigint NOT NULL,
    seconds   double precision NOT NULL
);

-- A test task solved with a learned heuristic under one alpha (NULL: yhat).
CREATE TABLE puzzle_test_runs (
    job       text PRIMARY KEY REFERENCES jobs (key),
    learner   text NOT NULL REFERENCES jobs (key),
    domain    text NOT NULL,
    state     text NOT NULL,
    alpha     double precision,
    status    text NOT NULL,
    cost      integer,
    optimal   integer NOT NULL,
    generated bigint NOT NULL,
    expanded  bigint NOT NULL,
    seconds   double precision NOT NULL
);

-- A finished bootstrap: its rounds and why it stopped; its problems and
-- samples are in graph_problems.
CREATE TABLE graph_bootstraps (
    job          text PRIMARY KEY REFERENCES jobs (key),
    domain       text NOT NULL,
    held_out     text,
    rounds       integer NOT NULL,
    stopped      text NOT NULL,
    samples      integer NOT NULL,
    -- graphlearn::bootstrap::RoundReport per round.
    history      jsonb NOT NULL,
    seconds      double precision NOT NULL,
    resumed_from integer NOT NULL
);

CREATE TABLE graph_problems (
    job         text NOT NULL REFERENCES jobs (key),
    position    integer NOT NULL,
    name        text NOT NULL,
    domain_pddl text NOT NULL,
    pddl        text NOT NULL,
    -- graphlearn::labels::LabelledState of this problem's samples.
    samples     jsonb NOT NULL,
    PRIMARY KEY (job, position)
);

-- One A* run on one problem: a learned configuration's fold or a baseline.
CREATE TABLE graph_runs (
    job           text PRIMARY KEY REFERENCES jobs (key),
    domain        text NOT NULL,
    problem       text NOT NULL,
    -- The learned configuration's name (a3-logmse+ff), or the baseline heuristic's.
    configuration text NOT NULL,
    learned       boolean NOT NULL,
    seed          bigint,
    solved        boolean NOT NULL,
    status        text NOT NULL,
    cost          bigint,
    expansions    bigint NOT NULL,
    evaluations   bigint NOT NULL,
    seconds       double precision NOT NULL,
    -- Training samples of the fold's network (NULL for baselines).
    samples       integer,
    -- graphlearn::ipc::RunRow, plan validation and unknown graphs included.
    run           jsonb NOT NULL
);

-- Marom & Rosman's suboptimality tables (supplement Table 7): per alpha,
-- mean time and generated nodes per task, mean suboptimality over solved
-- tasks (cost / optimal - 1, in percent), tasks solved optimally (percent).
CREATE VIEW report_suboptimality AS
SELECT ej.experiment,
       r.domain,
       l.model,
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
GROUP BY ej.experiment, r.domain, l.model, r.alpha;

-- Their efficiency table: the share of training tasks solved over the
-- iterations, and of test tasks solved over every alpha.
CREATE VIEW report_efficiency AS
WITH train AS (
    SELECT ej.experiment, l.domain, l.model,
           count(DISTINCT l.key) AS seeds,
           sum(i.tasks)          AS tasks,
           sum(i.solved)         AS solved
    FROM puzzle_iterations i
    JOIN jobs l ON l.key = i.job
    JOIN experiment_jobs ej ON ej.job = i.job
    GROUP BY ej.experiment, l.domain, l.model
), test AS (
    SELECT ej.experiment, r.domain, l.model,
           count(*)      AS tasks,
           count(r.cost) AS solved
    FROM puzzle_test_runs r
    JOIN jobs l ON l.key = r.learner
    JOIN experiment_jobs ej ON ej.job = r.job
    GROUP BY ej.experiment, r.domain, l.model
)
SELECT coalesce(train.experiment, test.experiment) AS experiment,
       coalesce(train.domain, test.domain)         AS domain,
       coalesce(train.model, test.model)           AS model,
       coalesce(train.seeds, 0)                    AS seeds,
       coalesce(train.tasks, 0)::bigint            AS train_tasks,
       100 * train.solved::float8 / nullif(train.tasks, 0) AS train_solved_pct,
       coalesce(test.tasks, 0)                     AS test_tasks,
       100 * test.solved::float8 / nullif(test.tasks, 0)   AS test_solved_pct
FROM train FULL JOIN test
  ON train.experiment = test.experiment AND train.domain = test.domain AND train.model = test.model;

-- Trunda's coverage and IPC scores per configuration (thesis section 5):
-- for time, plan length and expansions, a solved run scores best/ours with
-- best among the configurations (learned per seed, and baselines) on the
-- same problem, summed over problems. A learned configuration's row is
-- the mean over its seeds.
CREATE VIEW report_coverage_runs AS
WITH runs AS (
    SELECT ej.experiment, g.*
    FROM graph_runs g
    JOIN experiment_jobs ej ON ej.job = g.job
), best AS (
    SELECT experiment, domain, problem,
           min(seconds) AS time, min(cost) AS cost, min(expansions) AS expansions
    FROM runs WHERE solved
    GROUP BY experiment, domain, problem
)
SELECT r.experiment, r.domain, r.configuration, r.learned, r.seed,
       count(*)                  AS problems,
       count(*) FILTER (WHERE r.solved) AS coverage,
       coalesce(sum(CASE WHEN r.seconds <= b.time THEN 1 ELSE b.time / r.seconds END)
                FILTER (WHERE r.solved), 0) AS ipc_time,
       coalesce(sum(CASE WHEN r.cost <= b.cost THEN 1 ELSE b.cost::float8 / r.cost END)
                FILTER (WHERE r.solved), 0) AS ipc_length,
       coalesce(sum(CASE WHEN r.expansions <= b.expansions THEN 1 ELSE b.expansions::float8 / r.expansions END)
                FILTER (WHERE r.solved), 0) AS ipc_expansions
FROM runs r
LEFT JOIN best b ON b.experiment = r.experiment AND b.domain = r.domain AND b.problem = r.problem
GROUP BY r.experiment, r.domain, r.configuration, r.learned, r.seed;

CREATE VIEW report_coverage AS
SELECT experiment, domain, configuration,
       CASE WHEN learned THEN 'learned' ELSE 'baseline' END AS kind,
       count(*)                     AS seeds,
       sum(problems)::bigint / count(*) AS problems,
       avg(coverage)::float8        AS coverage_mean,
       stddev_samp(coverage)        AS coverage_std,
       avg(ipc_time)                AS ipc_time,
       avg(ipc_length)              AS ipc_length,
       avg(ipc_expansions)          AS ipc_expansions
FROM report_coverage_runs
GROUP BY experiment, domain, configuration, learned;
