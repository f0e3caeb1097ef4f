-- Scheduled crawls: per source (by its name in the sources file) the
-- validators of its last answer, its run times and last error, a lease so
-- that one process at a time crawls it, and the canonical URLs it gave.

CREATE TABLE crawl_sources (
    name          text PRIMARY KEY,
    etag          text NOT NULL DEFAULT '',
    last_modified text NOT NULL DEFAULT '',
    last_run      timestamptz,
    next_run      timestamptz,
    found         integer NOT NULL DEFAULT 0,
    last_error    text NOT NULL DEFAULT '',
    lease_owner   text NOT NULL DEFAULT '',
    lease_until   timestamptz,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE crawl_seen (
    source     text NOT NULL,
    url        text NOT NULL,               -- the canonical URL
    mark       text NOT NULL DEFAULT '',    -- the source's mark of its version
    first_seen timestamptz NOT NULL DEFAULT now(),
    last_seen  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source, url)
);
