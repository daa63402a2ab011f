-- A labelled state's classical heuristic values by registered name
-- (`planner::heuristics::ALL`), one jsonb object instead of one column per
-- heuristic: registering a heuristic needs no column and no migration.
-- JSON null marks a dead end (the old columns' SQL NULL).
ALTER TABLE labelled_states ADD COLUMN heuristics jsonb NOT NULL DEFAULT '{}';

UPDATE labelled_states SET heuristics = jsonb_build_object(
    'lmcut', lmcut,
    'hmax', hmax,
    'blind', blind,
    'hadd', hadd,
    'ff', ff,
    'goalcount', goalcount
);

-- No view reads these columns (the report_* views of 0006 read evaluations,
-- plan_runs, models and jobs).
ALTER TABLE labelled_states
    DROP COLUMN lmcut,
    DROP COLUMN hmax,
    DROP COLUMN blind,
    DROP COLUMN hadd,
    DROP COLUMN ff,
    DROP COLUMN goalcount;
