ALTER TABLE cases DROP COLUMN imported_at;
