-- Results, one row set per job: the job key is (part of) the primary key, so
-- a job's results exist at most once whatever its attempts.

CREATE TABLE instances (
    job            text PRIMARY KEY REFERENCES jobs (key),
    domain         text NOT NULL,
    split          text NOT NULL,
    generator      jsonb NOT NULL,
    seed           bigint NOT NULL,
    -- The generator seed of the accepted try (u64, hence numeric).
    generator_seed numeric(20) NOT NULL,
    tries          integer NOT NULL,
    domain_pddl    text NOT NULL,
    problem_pddl   text NOT NULL,
    optimal_cost   integer NOT NULL,
    plan           jsonb NOT NULL,
    expansions     bigint NOT NULL,
    search_time_s  double precision NOT NULL
);

-- Every state on an instance's optimal plan, with h* and the classical values.
CREATE TABLE labelled_states (
    job                  text NOT NULL REFERENCES jobs (key),
    step                 integer NOT NULL,
    instance             text NOT NULL REFERENCES jobs (key),
    domain               text NOT NULL,
    split                text NOT NULL,
    atoms                jsonb NOT NULL,
    h_star               integer NOT NULL,
    lmcut                double precision,
    hmax                 double precision,
    blind                double precision,
    hadd                 double precision,
    ff                   double precision,
    goalcount            double precision,
    deletes_ignored      double precision,
    mean_deletes_ignored double precision,
    PRIMARY KEY (job, step)
);
CREATE INDEX labelled_states_domain ON labelled_states (domain, split);

CREATE TABLE plan_runs (
    job             text PRIMARY KEY REFERENCES jobs (key),
    instance        text NOT NULL REFERENCES jobs (key),
    domain          text NOT NULL,
    heuristic       text NOT NULL,
    search          text NOT NULL,
    status          text NOT NULL,
    solved          boolean NOT NULL,
    cost            integer,
    plan_length     integer,
    -- The paper counts the whole budget for an unsolved instance.
    evaluations     bigint NOT NULL,
    expansions      bigint NOT NULL,
    generated       bigint NOT NULL,
    search_time_s   double precision NOT NULL,
    max_evaluations bigint NOT NULL
);
