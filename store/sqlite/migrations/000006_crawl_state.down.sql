DROP TABLE crawl_seen;
DROP TABLE crawl_sources;
