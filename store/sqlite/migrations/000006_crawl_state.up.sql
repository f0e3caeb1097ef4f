-- Scheduled crawls: per source (by its name in the sources file) the
-- validators of its last answer, its run times and last error, a lease so
-- that one process at a time crawls it, and the canonical URLs it gave.

CREATE TABLE crawl_sources (
    name          TEXT PRIMARY KEY,
    etag          TEXT NOT NULL DEFAULT '',
    last_modified TEXT NOT NULL DEFAULT '',
    last_run      TEXT,
    next_run      TEXT,
    found         INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    lease_owner   TEXT NOT NULL DEFAULT '',
    lease_until   TEXT,
    updated_at    TEXT NOT NULL
) STRICT;

CREATE TABLE crawl_seen (
    source     TEXT NOT NULL,
    url        TEXT NOT NULL,               -- the canonical URL
    mark       TEXT NOT NULL DEFAULT '',    -- the source's mark of its version
    first_seen TEXT NOT NULL,
    last_seen  TEXT NOT NULL,
    PRIMARY KEY (source, url)
) STRICT;
