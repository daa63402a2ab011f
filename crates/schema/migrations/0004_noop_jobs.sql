-- No-op jobs measure the queue's own overhead.
ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('generate', 'label', 'train', 'evaluate', 'plan', 'noop'));
