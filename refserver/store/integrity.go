package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// ErrDamaged is returned by Open when the database file fails SQLite's
// integrity check, or is not an SQLite database at all.
var ErrDamaged = errors.New("store: database file is damaged")

// maxDamageReports bounds how many problems quick_check lists: the first
// few say what is wrong; a badly damaged file can have thousands.
const maxDamageReports = 3

// checkIntegrity runs SQLite's quick_check on conn. A damaged file opens
// without complaint and fails only when a request reads a damaged page, as
// a 500 in the middle of someone's work; checking at start turns that into
// one clear refusal. quick_check reads every page once and checks each
// b-tree's structure; integrity_check also matches every index against its
// table, which costs about twice as much and catches damage that is rarer
// (BENCHMARKS.md has both figures).
func checkIntegrity(ctx context.Context, conn *sql.DB, path string) error {
	rows, err := conn.QueryContext(ctx, fmt.Sprintf(`PRAGMA quick_check(%d)`, maxDamageReports))
	if err != nil {
		return openError(path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return openError(path, err)
		}
		// Each row may hold several problems, one a line, under a
		// heading naming the schema ("*** in database main ***").
		for p := range strings.Lines(line) {
			p = strings.TrimSpace(p)
			if p != "ok" && p != "" && !strings.HasPrefix(p, "***") {
				problems = append(problems, p)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return openError(path, err)
	}
	if len(problems) > 0 {
		return damaged(path, strings.Join(problems, "; "))
	}
	return nil
}

// openError describes an error met while opening the file at path: a
// damaged-file refusal when SQLite says the file is corrupt or not a
// database, otherwise err wrapped.
func openError(path string, err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB) {
		return damaged(path, se.Error())
	}
	return fmt.Errorf("store: open %s: %w", path, err)
}

func damaged(path, detail string) error {
	return fmt.Errorf("%w: %s (%s); restore it from a backup, or move it aside together with its -wal and -shm files to start on a new database", ErrDamaged, path, detail)
}
