-- The review store: sources keyed by canonical URL, submissions with their
-- outbox, cases with their versions, and dead letters. Times are TEXT in
-- UTC, 2006-01-02T15:04:05.000000Z, so that they sort as text.

CREATE TABLE sources (
    id              INTEGER PRIMARY KEY,
    url             TEXT NOT NULL UNIQUE,        -- the canonical URL
    kind            TEXT NOT NULL DEFAULT '',
    etag            TEXT NOT NULL DEFAULT '',
    last_fetched_at TEXT,
    fetch_state     TEXT NOT NULL DEFAULT 'pending'
                    CHECK (fetch_state IN ('pending', 'fetched', 'failed')),
    archived        TEXT NOT NULL DEFAULT '',    -- a Wayback capture URL
    archive_state   TEXT NOT NULL DEFAULT 'none'
                    CHECK (archive_state IN ('none', 'archived')),
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE TABLE submissions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id  INTEGER NOT NULL REFERENCES sources (id),
    raw_url    TEXT NOT NULL,
    origin     TEXT NOT NULL CHECK (origin IN ('manual', 'backfill', 'crawl')),
    batch      TEXT NOT NULL DEFAULT '',
    state      TEXT NOT NULL DEFAULT 'queued'
               CHECK (state IN ('queued', 'running', 'drafted', 'not_postmortem', 'failed', 'dead_lettered')),
    error      TEXT NOT NULL DEFAULT '',
    attempts   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

CREATE INDEX submissions_source_id_idx ON submissions (source_id);
CREATE INDEX submissions_batch_idx ON submissions (batch, id) WHERE batch <> '';

CREATE TABLE outbox (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    created_at    TEXT NOT NULL,
    sent_at       TEXT
) STRICT;

CREATE INDEX outbox_unsent_idx ON outbox (submission_id) WHERE sent_at IS NULL;

-- Named counters; case_number is behind the IL-NNNN case ids (SQLite has
-- no sequences, and the counter row is written inside the transaction that
-- uses the number).
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) STRICT;

INSERT INTO counters (name, value) VALUES ('case_number', 0);

CREATE TABLE cases (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    case_id       TEXT NOT NULL UNIQUE,           -- IL-NNNN
    source_id     INTEGER NOT NULL UNIQUE REFERENCES sources (id), -- one case per source
    status        TEXT NOT NULL DEFAULT 'draft'
                  CHECK (status IN ('draft', 'approved', 'rejected')),
    case_json     TEXT NOT NULL,
    evidence_json TEXT NOT NULL DEFAULT 'null',
    version       INTEGER NOT NULL DEFAULT 1,
    reject_reason TEXT NOT NULL DEFAULT '',
    reviewed_by   TEXT NOT NULL DEFAULT '',
    reviewed_at   TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;

CREATE INDEX cases_status_idx ON cases (status, id);

CREATE TABLE case_versions (
    case_id       INTEGER NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    version       INTEGER NOT NULL,
    submission_id INTEGER REFERENCES submissions (id),
    case_json     TEXT NOT NULL,
    evidence_json TEXT NOT NULL DEFAULT 'null',
    created_at    TEXT NOT NULL,
    PRIMARY KEY (case_id, version)
) STRICT;

-- submission_id has no foreign key: a poison payload may name no
-- submission or an unknown one.
CREATE TABLE dead_letters (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    stream        TEXT NOT NULL,
    stream_seq    INTEGER NOT NULL,
    subject       TEXT NOT NULL DEFAULT '',
    submission_id INTEGER,
    payload       BLOB NOT NULL DEFAULT x'',
    reason        TEXT NOT NULL DEFAULT '',
    deliveries    INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    UNIQUE (stream, stream_seq)
) STRICT;

CREATE INDEX dead_letters_submission_id_idx ON dead_letters (submission_id);
