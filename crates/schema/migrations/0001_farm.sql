-- The farm's source of truth. Jobs are shared by every experiment that
-- includes them (their key is content-derived); experiments link to jobs.
-- Every experimental axis is a typed column so analysts can GROUP BY it.

CREATE TYPE job_status AS ENUM ('pending', 'queued', 'running', 'succeeded', 'failed', 'dead', 'cancelled');

CREATE TABLE experiments (
    id          uuid PRIMARY KEY,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    grid_toml   text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE jobs (
    key              text PRIMARY KEY,
    kind             text NOT NULL CHECK (kind IN ('generate', 'label', 'train', 'evaluate', 'plan')),
    resource         text NOT NULL CHECK (resource IN ('cpu', 'gpu')),
    spec             jsonb NOT NULL,
    status           job_status NOT NULL DEFAULT 'pending',
    attempts         integer NOT NULL DEFAULT 0,
    max_attempts     integer NOT NULL DEFAULT 3,
    worker           text,
    lease_expires_at timestamptz,
    last_error       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    queued_at        timestamptz,
    started_at       timestamptz,
    finished_at      timestamptz,
    -- Axes, copied out of `spec` for analysts (NULL where they do not apply).
    domain           text,
    split            text,
    seed             bigint,
    heuristic        text,
    model            text,
    distribution     text,
    sigma            text,
    bound            text,
    residual         text
);
CREATE INDEX jobs_status ON jobs (status, resource);
CREATE INDEX jobs_kind ON jobs (kind);

-- The DAG: `input` must succeed before `job` runs; `position` keeps input order.
CREATE TABLE job_inputs (
    job      text NOT NULL REFERENCES jobs (key) ON DELETE CASCADE,
    position integer NOT NULL,
    input    text NOT NULL REFERENCES jobs (key),
    PRIMARY KEY (job, position)
);
CREATE INDEX job_inputs_input ON job_inputs (input);

CREATE TABLE experiment_jobs (
    experiment uuid NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
    job        text NOT NULL REFERENCES jobs (key),
    PRIMARY KEY (experiment, job)
);
CREATE INDEX experiment_jobs_job ON experiment_jobs (job);
