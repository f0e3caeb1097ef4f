-- The history of every case: each field a reviewer changed and each review
-- decision, with who, when, and the values before and after (as JSON).
-- edited_at is set on a reviewer's first edit: from then on a re-draft of
-- the source leaves the case as the reviewer made it.
CREATE TABLE case_history (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id    bigint NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    version    integer NOT NULL,
    field      text NOT NULL,
    old_value  jsonb NOT NULL DEFAULT 'null',
    new_value  jsonb NOT NULL DEFAULT 'null',
    changed_by text NOT NULL DEFAULT '',
    changed_at timestamptz NOT NULL
);

CREATE INDEX case_history_case_id_idx ON case_history (case_id, id);

ALTER TABLE cases ADD COLUMN edited_at timestamptz;
