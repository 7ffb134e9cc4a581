-- Every push of an open check moves its last_updated, and with it the
-- check's entry in bills_closed: under a few thousand pushes a second that
-- index was half the pages each commit wrote to the WAL, and so half of
-- every checkpoint's copying. Only closed bills are ever read through it,
-- so it now holds only those: pushes of an open check leave it alone, and
-- a bill enters it once, when it closes. The console's count of a
-- location's open bills gets a partial index of its own, which changes
-- only when a bill opens or closes.
DROP INDEX bills_closed;
CREATE INDEX bills_closed ON bills(location_id, last_updated, bill_id) WHERE status = 'closed';
CREATE INDEX bills_open ON bills(location_id) WHERE status = 'open';
