-- What each worker runs on (hfarm version, host, CPU model, cores, memory,
-- CUDA), written with its presence: a job's timings can then be told apart
-- by the machine that ran it (`hfarm job`, GET /api/jobs/{key}) on a farm
-- of mixed cloud machines.
ALTER TABLE workers ADD COLUMN machine jsonb;
