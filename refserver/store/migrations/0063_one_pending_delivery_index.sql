-- Two indexes covered the pending deliveries: webhook_deliveries_due
-- (0040), by due time, and webhook_deliveries_webhook_due (0060), by
-- webhook and due time, which the dispatcher's look at the queue uses.
-- Every delivery queued with an event, claimed and settled changed an
-- entry of each. The earliest due time is read per webhook now
-- (DueDeliveries), so the second index serves every query.
DROP INDEX webhook_deliveries_due;
