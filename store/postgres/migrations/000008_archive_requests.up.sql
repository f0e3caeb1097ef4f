-- The archive stage: one request per source to find or make a Wayback
-- capture. A request is recorded with the source's draft or import, before
-- any call to the archive; workers lease due requests (next_attempt_at,
-- FOR UPDATE SKIP LOCKED) and advance them a step at a time, so a crash
-- loses nothing: an expired lease makes the request due again.
CREATE TABLE archive_requests (
    source_id       bigint PRIMARY KEY REFERENCES sources (id),
    url             text NOT NULL,               -- the address to capture
    state           text NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'archived', 'failed')),
    step            text NOT NULL DEFAULT 'lookup'
                    CHECK (step IN ('', 'lookup', 'submit', 'poll', 'verify')),
    job_id          text NOT NULL DEFAULT '',
    submitted_at    timestamptz,
    archived        text NOT NULL DEFAULT '',
    snapshot_ts     text NOT NULL DEFAULT '',
    origin          text NOT NULL DEFAULT '',
    reason          text NOT NULL DEFAULT '',
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease_owner     text NOT NULL DEFAULT '',
    lease_until     timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX archive_requests_due_idx ON archive_requests (state, next_attempt_at);
