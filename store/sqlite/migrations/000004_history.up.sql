-- The history of every case: each field a reviewer changed and each review
-- decision, with who, when, and the values before and after (as JSON).
-- edited_at is set on a reviewer's first edit: from then on a re-draft of
-- the source leaves the case as the reviewer made it.
CREATE TABLE case_history (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    case_id    INTEGER NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    field      TEXT NOT NULL,
    old_value  TEXT NOT NULL DEFAULT 'null',
    new_value  TEXT NOT NULL DEFAULT 'null',
    changed_by TEXT NOT NULL DEFAULT '',
    changed_at TEXT NOT NULL
) STRICT;

CREATE INDEX case_history_case_id_idx ON case_history (case_id, id);

ALTER TABLE cases ADD COLUMN edited_at TEXT;
