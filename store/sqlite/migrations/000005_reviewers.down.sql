DROP TABLE sessions;
DROP TABLE reviewers;
