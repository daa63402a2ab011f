-- The linear model's hFF feature where labels computed it by other
-- definitions than the `ff` value in `heuristics` (pyperplan's
-- calc_h_with_plan, as the authors' training data holds it); NULL: the
-- `ff` value. Rows written before it read as NULL, as they were made.
ALTER TABLE labelled_states ADD COLUMN feature_ff double precision;
