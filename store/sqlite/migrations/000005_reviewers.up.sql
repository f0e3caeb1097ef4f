-- Reviewer accounts: a name and a password hash (bcrypt).
CREATE TABLE reviewers (
    name          TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;
