-- Job kinds are declared once, in the code (`jobs::JobKind`); a CHECK here
-- had to be rewritten for every new kind (0004 did it for `noop`). Submitting
-- only ever writes `JobKind::as_str()`, so the constraint goes.
ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
