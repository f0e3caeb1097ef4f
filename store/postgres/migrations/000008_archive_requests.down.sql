DROP TABLE archive_requests;
