-- Cases read from the library's published files (casefile cases import)
-- are marked by the time of their first import; drafted cases keep NULL.
ALTER TABLE cases ADD COLUMN imported_at TEXT;
