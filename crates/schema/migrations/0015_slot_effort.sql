-- What a generate slot cost and why it ended (the stop rules of
-- jobs::grid::SolveLimits): the CPU seconds of every try and of the
-- accepted one, and the CPU the extrapolation rule predicted for the slot
-- from the same seed's easier slots before trying (NULL where the chain was
-- too short to extrapolate). Rows written before this migration hold NULLs.
ALTER TABLE instances ADD COLUMN cpu_s double precision;
ALTER TABLE instances ADD COLUMN solve_cpu_s double precision;
ALTER TABLE instances ADD COLUMN predicted_cpu_s double precision;
ALTER TABLE unfilled_slots ADD COLUMN predicted_cpu_s double precision;
-- 'tries': every try was used; 'gave_up': `give_up_after` tries in a row ran
-- out of time or memory; 'predicted': the prediction exceeded
-- `skip_predicted_over` times the try's limit; 'seeds': the same size's
-- previous `skip_after_failed_seeds` seeds all ended without an instance.
-- Nothing was tried in the last two.
ALTER TABLE unfilled_slots ADD COLUMN reason text NOT NULL DEFAULT 'tries';
