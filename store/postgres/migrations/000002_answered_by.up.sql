-- A submission of a source whose fetch is already queued, or whose page was
-- read within the freshness window, is not fetched again: it names the
-- submission that answers it and ends in that one's state.
ALTER TABLE submissions ADD COLUMN answered_by bigint REFERENCES submissions (id);

CREATE INDEX submissions_answered_by_idx ON submissions (answered_by) WHERE answered_by IS NOT NULL;
