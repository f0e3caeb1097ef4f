-- Stored pages: the latest fetch of every source with the headers that
-- matter, its body and related resources kept gzip-compressed under their
-- SHA-256 (identical bodies stored once); re-draft batches with the outcome
-- of each page; proposals a re-draft attaches to reviewed cases.

CREATE TABLE page_bodies (
    hash       text PRIMARY KEY,     -- SHA-256 of the uncompressed body, hex
    body       bytea NOT NULL,       -- gzip
    size       integer NOT NULL,     -- uncompressed bytes
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pages (
    source_id     bigint PRIMARY KEY REFERENCES sources (id),
    url           text NOT NULL,
    final_url     text NOT NULL DEFAULT '',
    content_type  text NOT NULL DEFAULT '',
    charset       text NOT NULL DEFAULT '',
    status_code   integer NOT NULL DEFAULT 0,
    etag          text NOT NULL DEFAULT '',
    last_modified text NOT NULL DEFAULT '',
    fetched_at    timestamptz NOT NULL,
    body_hash     text NOT NULL REFERENCES page_bodies (hash),
    extra_json    jsonb NOT NULL DEFAULT '{}',  -- {"<url>": "<body hash>"}
    extractor     text NOT NULL DEFAULT ''
);

CREATE INDEX pages_fetched_at_idx ON pages (fetched_at);

CREATE TABLE redraft_jobs (
    batch      text NOT NULL,
    source_id  bigint NOT NULL REFERENCES sources (id),
    outcome    text NOT NULL DEFAULT 'queued'
               CHECK (outcome IN ('queued', 'changed', 'unchanged', 'refused', 'failed')),
    reason     text NOT NULL DEFAULT '',
    case_id    text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (batch, source_id)
);

CREATE TABLE case_proposals (
    case_id       bigint PRIMARY KEY REFERENCES cases (id) ON DELETE CASCADE,
    state         text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'dismissed')),
    case_json     jsonb NOT NULL,
    evidence_json jsonb NOT NULL DEFAULT 'null',
    timeline_json jsonb NOT NULL DEFAULT '[]',
    base_version  integer NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
