-- Events (contract.md section 8): every state change worth telling a
-- vendor about, recorded in the transaction of the change. seq orders the
-- feed and makes its cursors; AUTOINCREMENT so that a seq is never reused
-- after a retention sweep. owner_key_id is set for events that belong to
-- one API key rather than to a location (ping).
CREATE TABLE events (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id     TEXT NOT NULL UNIQUE,
    type         TEXT NOT NULL,
    location_id  INTEGER,
    owner_key_id INTEGER,
    created_at   INTEGER NOT NULL,
    data_json    TEXT NOT NULL
);
-- The retention sweep deletes the oldest events first.
CREATE INDEX events_created ON events (created_at, seq);
-- The feed reads one location's events in order.
CREATE INDEX events_location ON events (location_id, seq);

-- Webhook subscriptions of a vendor API key. secret_sealed is the signing
-- secret sealed with a key derived from the admin key, never the secret
-- itself. events_json is the JSON array of subscribed types, or ["*"].
CREATE TABLE webhooks (
    webhook_id    TEXT PRIMARY KEY,
    key_id        INTEGER NOT NULL REFERENCES api_keys(key_id) ON DELETE CASCADE,
    url           TEXT NOT NULL,
    events_json   TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    secret_sealed BLOB NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX webhooks_key ON webhooks (key_id, created_at);

-- One event to one webhook. The table is the delivery queue: a pending
-- delivery waits with the Unix second its next attempt is due.
CREATE TABLE webhook_deliveries (
    delivery_id      TEXT PRIMARY KEY,
    webhook_id       TEXT NOT NULL REFERENCES webhooks(webhook_id) ON DELETE CASCADE,
    event_seq        INTEGER NOT NULL REFERENCES events(seq) ON DELETE CASCADE,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    last_status_code INTEGER,
    last_error       TEXT,
    next_attempt_at  INTEGER,
    created_at       INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (webhook_id, created_at, delivery_id);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_seq);

-- Whether the location's POS counts as online for the events: set by its
-- heartbeat, cleared when the heartbeat goes stale. A location starts
-- offline, so its first heartbeat makes a location.online event.
ALTER TABLE locations ADD COLUMN presence_online INTEGER NOT NULL DEFAULT 0;
CREATE INDEX locations_presence ON locations (last_heartbeat) WHERE presence_online = 1;
