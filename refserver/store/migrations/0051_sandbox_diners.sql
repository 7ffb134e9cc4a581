-- The sandbox's own diner: the wallet user and cards with which the
-- sandbox pays checks when asked to (POST /sandbox/locations/{id}/checks/
-- {n}/payments) and on a timer. One card per gateway; the user is the
-- same on every row. A reset empties the table with the users.
CREATE TABLE sandbox_diner_cards (
    gateway TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(user_id),
    card_id INTEGER NOT NULL REFERENCES cards(card_id)
);

-- Diners on a timer, per location (PUT /sandbox/locations/{id}/diners):
-- every every_seconds of the virtual clock, each open check with
-- something owed and nothing pending gets split equal payments with
-- tip_percent of each as a tip. next_run_at is the virtual Unix second of
-- the next round; last_error is why the last round paid nothing, if it
-- failed.
CREATE TABLE sandbox_diners (
    location_id   INTEGER PRIMARY KEY REFERENCES locations(location_id),
    every_seconds INTEGER NOT NULL CHECK (every_seconds >= 1),
    split         INTEGER NOT NULL CHECK (split BETWEEN 1 AND 4),
    tip_percent   INTEGER NOT NULL CHECK (tip_percent BETWEEN 0 AND 30),
    next_run_at   INTEGER NOT NULL,
    last_run_at   INTEGER,
    last_error    TEXT,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX sandbox_diners_due ON sandbox_diners(next_run_at);
