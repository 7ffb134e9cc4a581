-- The dispatcher lists the due deliveries of each webhook in turn, oldest
-- first (DueDeliveries), so that one API key's backlog cannot keep
-- another's deliveries waiting: one seek per webhook, however long its
-- queue.
CREATE INDEX webhook_deliveries_webhook_due ON webhook_deliveries (webhook_id, next_attempt_at, event_seq)
    WHERE status = 'pending';
