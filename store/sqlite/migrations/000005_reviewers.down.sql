DROP TABLE reviewers;
