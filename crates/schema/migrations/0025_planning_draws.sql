-- The planning sample drawn from solved test slots (issue 25). A grid that
-- plans on `n` of its test slots ranks them in a fixed order, and a chain of
-- `draw` jobs walks that order once generation has ended: a slot is drawn
-- when it has an instance and fewer than `n` slots before it were drawn
-- (the authors copied their 100 planning instances from the test instances
-- that exist). A draw that did not draw its slot leaves the plan jobs that
-- need it without a result: they are skipped, as behind a slot without an
-- instance (`schema::lifecycle`).
CREATE TABLE planning_draws (
    job          text PRIMARY KEY REFERENCES jobs (key),
    -- The slot's generate job.
    slot         text NOT NULL REFERENCES jobs (key),
    rank         integer NOT NULL,
    -- Slots drawn before this one in the order.
    drawn_before integer NOT NULL,
    drawn        boolean NOT NULL
);
