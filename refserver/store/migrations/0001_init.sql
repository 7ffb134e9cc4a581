-- The whole data model of the reference server. Later migrations add to it;
-- each file is applied once, in name order, inside its own transaction.
-- Money columns are INTEGER hundredths (cents): exact, never REAL.
-- Time columns are INTEGER Unix seconds on the server's (virtual) clock.

-- Key/value state of the sandbox itself: clock offset, provider keys,
-- whether the demo fixture has been created.
CREATE TABLE sandbox_state (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE users (
    user_id         INTEGER PRIMARY KEY,
    user_status     INTEGER NOT NULL DEFAULT 1,
    default_card_id INTEGER,
    date_created    INTEGER NOT NULL,
    last_updated    INTEGER NOT NULL
);

CREATE TABLE locations (
    location_id    INTEGER PRIMARY KEY,
    name           TEXT NOT NULL,
    gateway        TEXT NOT NULL CHECK (gateway IN ('providerA','providerB','providerC','providerD','providerE')),
    last_heartbeat INTEGER,           -- last POS push-pull heartbeat, NULL before the first
    -- The location's universal POS, if one is registered. pos_token is the
    -- bearer token the POS vendor issued: the one secret kept usable, because
    -- the service must send it.
    pos_url              TEXT,
    pos_token            TEXT,
    pos_health           TEXT,        -- 'OK', 'FAILED' or 'UNREACHABLE'; NULL before the first check
    pos_health_message   TEXT,
    pos_health_checked_at INTEGER,
    menu_json            TEXT,        -- last menus synced from the universal POS
    menu_synced_at       INTEGER,
    created_at           INTEGER NOT NULL
);

-- User and POS access tokens, stored as hex SHA-256 of the token.
CREATE TABLE access_tokens (
    token_hash  TEXT PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('user','pos')),
    user_id     INTEGER REFERENCES users(user_id),
    location_id INTEGER REFERENCES locations(location_id),
    revoked     INTEGER NOT NULL DEFAULT 0,
    expires_at  INTEGER,              -- NULL: does not expire
    created_at  INTEGER NOT NULL,
    CHECK ((kind = 'user' AND user_id IS NOT NULL) OR (kind = 'pos' AND location_id IS NOT NULL))
);

-- Vendor API keys for the bills endpoints, stored as hex SHA-256.
CREATE TABLE api_keys (
    key_id     INTEGER PRIMARY KEY,
    key_hash   TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
);

CREATE TABLE api_key_locations (
    key_id      INTEGER NOT NULL REFERENCES api_keys(key_id) ON DELETE CASCADE,
    location_id INTEGER NOT NULL REFERENCES locations(location_id),
    PRIMARY KEY (key_id, location_id)
);

-- Responses remembered for Idempotency-Key replay. credential is the hex
-- SHA-256 of the credential that sent the request (never the credential).
CREATE TABLE idempotency_keys (
    credential   TEXT NOT NULL,
    idem_key     TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL,
    body         BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (credential, idem_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);

-- Wallet entries. One row per tokenisation event (a card insert), which is
-- why the same physical card can appear twice. Neither the full number nor
-- the CVC is ever stored anywhere.
CREATE TABLE cards (
    card_id        INTEGER PRIMARY KEY,
    user_id        INTEGER NOT NULL REFERENCES users(user_id),
    first6         TEXT NOT NULL,
    last4          TEXT NOT NULL,
    nickname       TEXT NOT NULL,
    card_type_id   INTEGER NOT NULL,
    card_status_id INTEGER NOT NULL,
    expiry_month   TEXT NOT NULL,     -- "01".."12"
    expiry_year    TEXT NOT NULL,     -- two digits
    created_at     INTEGER NOT NULL
);
CREATE INDEX cards_user ON cards(user_id, card_id);

-- Provider tokens held for a wallet entry, one per provider.
CREATE TABLE card_tokens (
    card_id    INTEGER NOT NULL REFERENCES cards(card_id),
    provider   TEXT NOT NULL,
    token      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (card_id, provider)
);

-- providerD keys handed out by GET /v2/payment/providerD/keys. The private
-- JWK decrypts the token the client brings back. A key serves one token.
CREATE TABLE providerd_keys (
    key_id      TEXT PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(user_id),
    private_jwk TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    used_at     INTEGER,              -- the provider issued its token
    consumed_at INTEGER               -- the token was stored by a card insert
);

-- The sandbox payment providers' own records of the tokens they issued.
-- decline marks the test card whose payments are always declined.
CREATE TABLE provider_tokens (
    token        TEXT PRIMARY KEY,
    provider     TEXT NOT NULL,
    first6       TEXT NOT NULL,
    last4        TEXT NOT NULL,
    expiry_month INTEGER NOT NULL,
    expiry_year  INTEGER NOT NULL,
    decline      INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL
);

-- Checks pushed by a POS. A check is a bill: bill_id is stable for
-- (location_id, check_number). check_json is the latest pushed check;
-- version moves only when its content changes.
CREATE TABLE bills (
    bill_id               TEXT PRIMARY KEY,
    location_id           INTEGER NOT NULL REFERENCES locations(location_id),
    check_number          INTEGER NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('open','closed','void')),
    version               INTEGER NOT NULL,
    content_hash          TEXT NOT NULL,
    check_json            TEXT NOT NULL,
    table_number          INTEGER NOT NULL,
    staff_id              TEXT NOT NULL,
    guests                INTEGER NOT NULL,
    total_amount          INTEGER NOT NULL,
    outstanding_amount    INTEGER NOT NULL,
    service_charge_amount INTEGER NOT NULL,
    tips_paid             INTEGER NOT NULL,
    created_at            INTEGER NOT NULL,
    last_updated          INTEGER NOT NULL,
    UNIQUE (location_id, check_number)
);
CREATE INDEX bills_closed ON bills(location_id, status, last_updated);

-- Payments made through the service. A payment is 'pending' until the
-- location's POS accepts it.
CREATE TABLE payments (
    payment_id   INTEGER PRIMARY KEY,
    location_id  INTEGER NOT NULL REFERENCES locations(location_id),
    check_number INTEGER NOT NULL,
    bill_id      TEXT NOT NULL REFERENCES bills(bill_id),
    user_id      INTEGER NOT NULL REFERENCES users(user_id),
    card_id      INTEGER NOT NULL REFERENCES cards(card_id),
    amount       INTEGER NOT NULL,
    tip          INTEGER NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending','accepted')),
    created_at   INTEGER NOT NULL,
    accepted_at  INTEGER
);
CREATE INDEX payments_pending ON payments(location_id, status, payment_id);
CREATE INDEX payments_bill ON payments(bill_id);

-- Orders for the ordering/v3 API and their delivery to the universal POS.
CREATE TABLE orders (
    order_id         TEXT PRIMARY KEY,
    user_id          INTEGER NOT NULL REFERENCES users(user_id),
    location_id      INTEGER NOT NULL REFERENCES locations(location_id),
    items_json       TEXT NOT NULL,
    total            INTEGER NOT NULL,
    fulfillment_type TEXT,
    fulfillment_json TEXT,
    status           TEXT NOT NULL CHECK (status IN ('created','fulfillment_set','sent_to_pos','accepted_by_pos','failed')),
    pos_order_id     TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER,
    last_error       TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX orders_due ON orders(status, next_attempt_at);

-- Status timeline of each order, for the console and for debugging.
CREATE TABLE order_events (
    event_id INTEGER PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    status   TEXT NOT NULL,
    detail   TEXT NOT NULL DEFAULT '',
    at       INTEGER NOT NULL
);
CREATE INDEX order_events_order ON order_events(order_id, event_id);
