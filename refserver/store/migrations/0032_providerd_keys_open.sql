-- A user may hold only so many providerD keys that are neither used nor
-- expired (GET /v2/payment/providerD/keys counts them on every call); the
-- count reads this index instead of every key the table keeps.
CREATE INDEX providerd_keys_open ON providerd_keys(user_id, expires_at) WHERE used_at IS NULL;
