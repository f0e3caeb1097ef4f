-- Reviewer accounts: a name and a password hash (bcrypt).
CREATE TABLE reviewers (
    name          text PRIMARY KEY,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
