-- The timeline of each draft (every event the page gave, in time order,
-- with the role the drafter gave it), kept beside its evidence in the case
-- and in each version. Cases drafted before keep an empty timeline.
ALTER TABLE cases ADD COLUMN timeline_json jsonb NOT NULL DEFAULT '[]';
ALTER TABLE case_versions ADD COLUMN timeline_json jsonb NOT NULL DEFAULT '[]';
