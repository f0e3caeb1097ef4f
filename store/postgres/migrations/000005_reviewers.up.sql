-- Reviewer accounts: a name and a password hash (bcrypt); their sessions.
CREATE TABLE reviewers (
    name          text PRIMARY KEY,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);

-- Signed-in browsers: the SHA-256 of the cookie's token (the token itself
-- is never stored), the reviewer, the form token and the expiry.
CREATE TABLE sessions (
    token_hash text PRIMARY KEY,
    reviewer   text NOT NULL REFERENCES reviewers (name) ON DELETE CASCADE,
    csrf       text NOT NULL,
    expires_at timestamptz NOT NULL
);

CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
