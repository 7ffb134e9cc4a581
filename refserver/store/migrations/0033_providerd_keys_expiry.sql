-- The retention sweep finds the providerD keys that expired long enough ago
-- by this index rather than by reading every key.
CREATE INDEX providerd_keys_expiry ON providerd_keys(expires_at);
