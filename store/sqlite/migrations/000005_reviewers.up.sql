-- Reviewer accounts: a name and a password hash (bcrypt); their sessions.
CREATE TABLE reviewers (
    name          TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;

-- Signed-in browsers: the SHA-256 of the cookie's token (the token itself
-- is never stored), the reviewer, the form token and the expiry.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    reviewer   TEXT NOT NULL REFERENCES reviewers (name) ON DELETE CASCADE,
    csrf       TEXT NOT NULL,
    expires_at TEXT NOT NULL
) STRICT;

CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
