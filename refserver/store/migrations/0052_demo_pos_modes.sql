-- How the demo universal POS behaves for a location (PUT
-- /sandbox/locations/{id}/demo-pos). No row: it accepts every order.
-- failures_left counts down the 503s of fail-then-accept.
CREATE TABLE demo_pos_modes (
    location_id   INTEGER PRIMARY KEY REFERENCES locations(location_id),
    mode          TEXT NOT NULL CHECK (mode IN ('accept','reject','fail-then-accept','slow','offline')),
    fail_count    INTEGER NOT NULL DEFAULT 0 CHECK (fail_count >= 0),
    failures_left INTEGER NOT NULL DEFAULT 0 CHECK (failures_left >= 0),
    delay_ms      INTEGER NOT NULL DEFAULT 0 CHECK (delay_ms >= 0),
    updated_at    INTEGER NOT NULL
);
