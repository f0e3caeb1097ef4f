-- The review store: sources keyed by canonical URL, submissions with their
-- outbox, cases with their versions, and dead letters.

CREATE TABLE sources (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url             text NOT NULL UNIQUE,        -- the canonical URL
    kind            text NOT NULL DEFAULT '',
    etag            text NOT NULL DEFAULT '',
    last_fetched_at timestamptz,
    fetch_state     text NOT NULL DEFAULT 'pending'
                    CHECK (fetch_state IN ('pending', 'fetched', 'failed')),
    archived        text NOT NULL DEFAULT '',    -- a Wayback capture URL
    archive_state   text NOT NULL DEFAULT 'none'
                    CHECK (archive_state IN ('none', 'archived')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE submissions (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id  bigint NOT NULL REFERENCES sources (id),
    raw_url    text NOT NULL,
    origin     text NOT NULL CHECK (origin IN ('manual', 'backfill', 'crawl')),
    batch      text NOT NULL DEFAULT '',
    state      text NOT NULL DEFAULT 'queued'
               CHECK (state IN ('queued', 'running', 'drafted', 'not_postmortem', 'failed', 'dead_lettered')),
    error      text NOT NULL DEFAULT '',
    attempts   integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX submissions_source_id_idx ON submissions (source_id);
CREATE INDEX submissions_batch_idx ON submissions (batch, id) WHERE batch <> '';
CREATE INDEX submissions_open_idx ON submissions (id) WHERE state IN ('queued', 'running');

-- One row per submission whose job message must be published; sent_at is
-- set once the queue confirmed the publish.
CREATE TABLE outbox (
    submission_id bigint PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    created_at    timestamptz NOT NULL DEFAULT now(),
    sent_at       timestamptz
);

CREATE INDEX outbox_unsent_idx ON outbox (submission_id) WHERE sent_at IS NULL;

-- The numbers behind the IL-NNNN case ids.
CREATE SEQUENCE case_number_seq;

CREATE TABLE cases (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id       text NOT NULL UNIQUE,           -- IL-NNNN
    source_id     bigint NOT NULL UNIQUE REFERENCES sources (id), -- one case per source
    status        text NOT NULL DEFAULT 'draft'
                  CHECK (status IN ('draft', 'approved', 'rejected')),
    case_json     jsonb NOT NULL,
    evidence_json jsonb NOT NULL DEFAULT 'null',
    version       integer NOT NULL DEFAULT 1,
    reject_reason text NOT NULL DEFAULT '',
    reviewed_by   text NOT NULL DEFAULT '',
    reviewed_at   timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX cases_status_idx ON cases (status, id);

-- Every draft stored for a case, version 1 first.
CREATE TABLE case_versions (
    case_id       bigint NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    version       integer NOT NULL,
    submission_id bigint REFERENCES submissions (id),
    case_json     jsonb NOT NULL,
    evidence_json jsonb NOT NULL DEFAULT 'null',
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (case_id, version)
);

-- Jobs the queue gave up on. submission_id has no foreign key: a poison
-- payload may name no submission or an unknown one.
CREATE TABLE dead_letters (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream        text NOT NULL,
    stream_seq    bigint NOT NULL,
    subject       text NOT NULL DEFAULT '',
    submission_id bigint,
    payload       bytea NOT NULL DEFAULT '',
    reason        text NOT NULL DEFAULT '',
    deliveries    integer NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (stream, stream_seq)
);

CREATE INDEX dead_letters_submission_id_idx ON dead_letters (submission_id);
