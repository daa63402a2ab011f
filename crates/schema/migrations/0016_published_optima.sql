-- Where a puzzle test task's optimal cost came from: 'search' (the farm's
-- IDA* with the domain's PDBs, checked against the published optimum where
-- the task comes from a benchmark set) or 'published' (a set's published
-- optimum taken as it is: the grid's `optimal = "published"`, for sets such
-- as Korf & Felner's 24-puzzle fifty whose optima take hours to days each).
ALTER TABLE puzzle_optimal ADD COLUMN source text NOT NULL DEFAULT 'search'
    CHECK (source IN ('search', 'published'));
