//go:build cgo

package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// openTimeout bounds creating the schema in Open.
const openTimeout = 30 * time.Second

// Open opens (creating if needed) the outbox file at path for the location
// whose POS this is. It fails if another agent has the file open.
//
// Open needs cgo (github.com/mattn/go-sqlite3); without cgo, open the file
// with a cgo-free driver and call New.
func Open(path string, locationID int64) (*SQLite, error) {
	if path == "" {
		return nil, errors.New("outbox: empty path")
	}
	// busy_timeout is short: the only other holder of the lock would be a
	// second agent, which should fail fast rather than wait.
	db, err := sql.Open("sqlite3", path+
		"?_journal_mode=WAL&_synchronous=FULL&_locking_mode=EXCLUSIVE&_busy_timeout=1000&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("outbox: open: %w", err)
	}
	// One connection: with exclusive locking a second one would be locked
	// out, and an agent's writes are few and serial anyway.
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	if err := createTables(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("outbox: open %s (is another agent using it?): %w", path, err)
	}
	return &SQLite{db: db, location: locationID, ownsDB: true}, nil
}
