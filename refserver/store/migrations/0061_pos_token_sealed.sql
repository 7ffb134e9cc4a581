-- The bearer token of a location's universal POS is kept sealed
-- (POSTokens: AES-GCM under a key derived from the admin key, bound to the
-- location) in pos_token_sealed. Servers before this migration kept it in
-- the clear in pos_token, renamed pos_token_plain here so that nothing
-- reads it by its old name: the server seals what it finds there at start
-- and after each restore (Tx.SealPlainPOSTokens), which leaves it NULL.
ALTER TABLE locations RENAME COLUMN pos_token TO pos_token_plain;
ALTER TABLE locations ADD COLUMN pos_token_sealed BLOB;
