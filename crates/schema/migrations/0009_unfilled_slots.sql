-- Slots that cannot be filled (issue 11). A generate job whose tries are
-- all trivial or unsolved within its limits succeeds with "no instance",
-- recorded here; the jobs that need that instance end `skipped`, a state of
-- its own, instead of waiting forever behind a dead input.

ALTER TYPE job_status ADD VALUE IF NOT EXISTS 'skipped';

CREATE TABLE unfilled_slots (
    job       text PRIMARY KEY REFERENCES jobs (key),
    domain    text NOT NULL,
    split     text NOT NULL,
    generator jsonb NOT NULL,
    seed      bigint NOT NULL,
    -- [{"generator_seed": .., "outcome": "time_limit" | "trivial" | ..., "cpu_s": ..}, ...]
    tries     jsonb NOT NULL,
    -- CPU seconds of all tries.
    cpu_s     double precision NOT NULL
);

-- Whether a job cannot run without this input's result (a label job's
-- instance, a plan job's model and instance, an evaluation's model), or can
-- use what exists among its inputs (a training's labels, an evaluation's
-- test labels). Set at submission from the job kind (`jobs::KindInfo`).
ALTER TABLE job_inputs ADD COLUMN required boolean NOT NULL DEFAULT true;
