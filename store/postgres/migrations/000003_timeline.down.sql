ALTER TABLE case_versions DROP COLUMN timeline_json;
ALTER TABLE cases DROP COLUMN timeline_json;
