-- The archive stage: one request per source to find or make a Wayback
-- capture. A request is recorded with the source's draft or import, before
-- any call to the archive; workers lease due requests (next_attempt_at) and
-- advance them a step at a time, so a crash loses nothing: an expired lease
-- makes the request due again.
CREATE TABLE archive_requests (
    source_id       INTEGER PRIMARY KEY REFERENCES sources (id),
    url             TEXT NOT NULL,               -- the address to capture
    state           TEXT NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'archived', 'failed')),
    step            TEXT NOT NULL DEFAULT 'lookup'
                    CHECK (step IN ('', 'lookup', 'submit', 'poll', 'verify')),
    job_id          TEXT NOT NULL DEFAULT '',
    submitted_at    TEXT,
    archived        TEXT NOT NULL DEFAULT '',
    snapshot_ts     TEXT NOT NULL DEFAULT '',
    origin          TEXT NOT NULL DEFAULT '',
    reason          TEXT NOT NULL DEFAULT '',
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    lease_owner     TEXT NOT NULL DEFAULT '',
    lease_until     TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE INDEX archive_requests_due_idx ON archive_requests (state, next_attempt_at);
