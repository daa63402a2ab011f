-- What training, evaluation and learned-heuristic planning produce.

-- A trained model: one row per train job, written when the job finishes.
CREATE TABLE models (
    job                text PRIMARY KEY REFERENCES jobs (key),
    domain             text NOT NULL,
    -- learner::ModelConfig: the network's shape and the paper's axes.
    config             jsonb NOT NULL,
    device             text NOT NULL,
    steps              bigint NOT NULL,
    train_instances    integer NOT NULL,
    train_samples      integer NOT NULL,
    validation_samples integer NOT NULL,
    best_val_mse       double precision,
    best_val_nll       double precision,
    -- Seconds of the attempt that finished (a resumed job counts its last attempt only).
    train_seconds      double precision NOT NULL,
    -- The step the finishing attempt resumed from (0: it trained from scratch).
    resumed_from       bigint NOT NULL DEFAULT 0
);

-- Checkpoints are written while the job runs, not in its finishing
-- transaction: `last` is what a new attempt resumes from after a worker dies,
-- and `best_mse` is what evaluation and plan jobs load.
CREATE TABLE checkpoints (
    job        text NOT NULL REFERENCES jobs (key),
    tag        text NOT NULL CHECK (tag IN ('best_mse', 'best_nll', 'last')),
    step       bigint NOT NULL,
    config     jsonb NOT NULL,
    -- libtorch's multi-tensor format (learner::predictor::save_tensors).
    weights    bytea NOT NULL,
    written_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job, tag)
);

-- Validation points, written as training goes (live curves).
CREATE TABLE training_curves (
    job       text NOT NULL REFERENCES jobs (key),
    step      bigint NOT NULL,
    train_nll double precision NOT NULL,
    val_mse   double precision NOT NULL,
    val_nll   double precision NOT NULL,
    seconds   double precision NOT NULL,
    PRIMARY KEY (job, step)
);

-- Test metrics of a model (section 4.1), with hFF's and hLMcut's MSE on the same states.
CREATE TABLE evaluations (
    job       text PRIMARY KEY REFERENCES jobs (key),
    model     text NOT NULL REFERENCES jobs (key),
    domain    text NOT NULL,
    bound     text NOT NULL,
    samples   integer NOT NULL,
    mse       double precision NOT NULL,
    mse_clip  double precision NOT NULL,
    nll       double precision NOT NULL,
    nll_clip  double precision NOT NULL,
    ff_mse    double precision NOT NULL,
    lmcut_mse double precision NOT NULL,
    sigma     double precision NOT NULL
);

-- Plan runs with a learned heuristic name their model (NULL for classical ones).
ALTER TABLE plan_runs ADD COLUMN model text REFERENCES jobs (key);
ALTER TABLE plan_runs ADD COLUMN forward_passes bigint;
