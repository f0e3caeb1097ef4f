DROP TABLE case_history;
ALTER TABLE cases DROP COLUMN edited_at;
