-- Whether a worker's network runs on CUDA (`hfarm worker --class gpu` on a
-- machine with one). Workers without CUDA take GPU-preferring jobs (the
-- `gpu-preferred` lane: learned plan jobs of the relational models) only
-- while no live worker advertises CUDA (`lifecycle::advertise_cuda`).
ALTER TABLE workers ADD COLUMN cuda boolean NOT NULL DEFAULT false;
