-- Stored pages: the latest fetch of every source with the headers that
-- matter, its body and related resources kept gzip-compressed under their
-- SHA-256 (identical bodies stored once); re-draft batches with the outcome
-- of each page; proposals a re-draft attaches to reviewed cases.

CREATE TABLE page_bodies (
    hash       TEXT PRIMARY KEY,     -- SHA-256 of the uncompressed body, hex
    body       BLOB NOT NULL,        -- gzip
    size       INTEGER NOT NULL,     -- uncompressed bytes
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE pages (
    source_id     INTEGER PRIMARY KEY REFERENCES sources (id),
    url           TEXT NOT NULL,
    final_url     TEXT NOT NULL DEFAULT '',
    content_type  TEXT NOT NULL DEFAULT '',
    charset       TEXT NOT NULL DEFAULT '',
    status_code   INTEGER NOT NULL DEFAULT 0,
    etag          TEXT NOT NULL DEFAULT '',
    last_modified TEXT NOT NULL DEFAULT '',
    fetched_at    TEXT NOT NULL,
    body_hash     TEXT NOT NULL REFERENCES page_bodies (hash),
    extra_json    TEXT NOT NULL DEFAULT '{}',  -- {"<url>": "<body hash>"}
    extractor     TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX pages_fetched_at_idx ON pages (fetched_at);

CREATE TABLE redraft_jobs (
    batch      TEXT NOT NULL,
    source_id  INTEGER NOT NULL REFERENCES sources (id),
    outcome    TEXT NOT NULL DEFAULT 'queued'
               CHECK (outcome IN ('queued', 'changed', 'unchanged', 'refused', 'failed')),
    reason     TEXT NOT NULL DEFAULT '',
    case_id    TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (batch, source_id)
) STRICT;

CREATE TABLE case_proposals (
    case_id       INTEGER PRIMARY KEY REFERENCES cases (id) ON DELETE CASCADE,
    state         TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'dismissed')),
    case_json     TEXT NOT NULL,
    evidence_json TEXT NOT NULL DEFAULT 'null',
    timeline_json TEXT NOT NULL DEFAULT '[]',
    base_version  INTEGER NOT NULL,
    created_at    TEXT NOT NULL
) STRICT;
