package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// State returns the value of a sandbox_state entry, or ErrNotFound.
func (tx *Tx) State(name string) (string, error) {
	var v string
	err := tx.queryRow(`SELECT value FROM sandbox_state WHERE name = ?`, name).Scan(&v)
	return v, notFound(err)
}

// SetState creates or replaces a sandbox_state entry.
func (tx *Tx) SetState(name, value string) error {
	_, err := tx.exec(`INSERT INTO sandbox_state (name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, value)
	return err
}

// DeleteState removes a sandbox_state entry (absent is fine).
func (tx *Tx) DeleteState(name string) error {
	_, err := tx.exec(`DELETE FROM sandbox_state WHERE name = ?`, name)
	return err
}

// WipeData deletes every row of every table except schema_migrations and
// sandbox_state, including tables that later migrations add, and resets
// AUTOINCREMENT counters so a fresh fixture gets the same ids again.
// sandbox_state is kept because it holds sandbox infrastructure (provider
// keys and the like) that a reset should not rotate; the caller resets the
// entries it owns.
func (tx *Tx) WipeData() error {
	// Begun within the transaction, before its commit makes the wipe
	// seen; ended, whether it commits or not, in the writer before the
	// next batch runs, once no token it deletes is remembered.
	tx.db.beginReplace()
	tx.atEnd(tx.db.endReplace)
	// Foreign keys are checked at the end of the wipe instead of per
	// statement, so the tables can be emptied in any order. The pragma
	// holds for the rest of the transaction, which the writes batched
	// after this one share, so it is turned off again below: a write
	// that breaks a foreign key must fail by itself, at its statement,
	// not fail the COMMIT of the whole batch.
	if _, err := tx.exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
		return err
	}
	rows, err := tx.query(`SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'sandbox_state')`)
	if err != nil {
		return err
	}
	tables, err := collect(rows, scanString)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if _, err := tx.exec(`DELETE FROM "` + strings.ReplaceAll(t, `"`, `""`) + `"`); err != nil {
			return fmt.Errorf("wipe %s: %w", t, err)
		}
	}
	var n int
	if err := tx.queryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_sequence'`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		if _, err := tx.exec(`DELETE FROM sqlite_sequence`); err != nil {
			return err
		}
	}
	// Every table is empty, so no deferred violation is pending.
	_, err = tx.exec(`PRAGMA defer_foreign_keys = OFF`)
	return err
}

// CountRows returns the number of rows in table, for tests and the
// sandbox's own diagnostics. table must name an existing table.
func (tx *Tx) CountRows(table string) (int64, error) {
	var n int
	if err := tx.queryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("store: no table %q", table)
	}
	var rows int64
	err := tx.queryRow(`SELECT count(*) FROM "` + strings.ReplaceAll(table, `"`, `""`) + `"`).Scan(&rows)
	return rows, err
}

// IsForeignKeyViolation reports whether err is SQLite refusing a row that
// names one that does not exist (a foreign key).
func IsForeignKeyViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintForeignKey
}
