-- The magic test cards of the sandbox providers beyond the plain decline
-- card: decline_code is the declineCode a declined payment reports
-- (insufficient_funds, fraudulent); NULL for the plain decline card and
-- for every card that is not declined.
ALTER TABLE provider_tokens ADD COLUMN decline_code TEXT;
