DROP INDEX submissions_answered_by_idx;
ALTER TABLE submissions DROP COLUMN answered_by;
