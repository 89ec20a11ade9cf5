-- Issue 11 item 4: an order event carries its notional (USD, exact decimal text) in a typed
-- column, so "the largest order today" is a query, not a parse of the rendered summary. The
-- column is derived from the record and outside the hash chain; older rows keep NULL.
ALTER TABLE events ADD COLUMN notional TEXT;
