package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// ErrDamaged is returned by Open when the database file fails SQLite's
// integrity check, or is not an SQLite database at all.
var ErrDamaged = errors.New("store: database file is damaged")

// maxDamageReports bounds how many problems quick_check lists: the first
// few say what is wrong; a badly damaged file can have thousands.
const maxDamageReports = 3

// DefaultForegroundCheck is the largest file Open checks in full before it
// returns: about half a second of reading (BENCHMARKS.md).
const DefaultForegroundCheck = 256 << 20

// CheckInForegroundUpTo makes Open check a file of up to n bytes in full
// before it returns (DefaultForegroundCheck when not given; negative: every
// file). A larger file gets only the checks that cost nothing at Open (its
// header, its length against its page count), so that a server on a file
// of gigabytes starts in milliseconds rather than seconds, and Verify does
// the full check afterwards.
func CheckInForegroundUpTo(n int64) OpenOption {
	return func(db *DB) { db.foregroundCheck = n }
}

// startCheck checks the database file through conn at Open, in full when
// it is small enough, and reports whether the full check is left to Verify.
func (db *DB) startCheck(ctx context.Context, conn *sql.DB) (deferred bool, err error) {
	path := db.path
	fi, err := os.Stat(path)
	if err != nil {
		return false, fmt.Errorf("store: open %s: %w", path, err)
	}
	if db.foregroundCheck < 0 || fi.Size() <= db.foregroundCheck {
		return false, checkIntegrity(ctx, conn, path)
	}
	// A file cut short is the damage a copy or a full disk leaves most
	// often, and the header says how long the main file must be (pages a
	// WAL holds beyond it are not counted there).
	if want, ok := headerLength(path); ok && want > fi.Size() {
		return false, damaged(path, fmt.Sprintf("the file has %d bytes, its header says %d", fi.Size(), want))
	}
	return true, nil
}

// headerLength returns the length of the database file that its header
// states (page size times the in-header page count), when the header holds
// a valid count.
func headerLength(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var h [100]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return 0, false
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	// The count is valid only when the change counter it was written with
	// (offset 92) is the file's (offset 24).
	if binary.BigEndian.Uint32(h[92:96]) != binary.BigEndian.Uint32(h[24:28]) || pages == 0 {
		return 0, false
	}
	return pages * pageSize, true
}

// Verify runs the integrity check that Open left for later because the
// file was large (see CheckInForegroundUpTo), on a reader connection while
// the database is in use. It returns nil at once when Open checked the
// file, and an error wrapping ErrDamaged when the check finds damage.
func (db *DB) Verify(ctx context.Context) error {
	if !db.unverified {
		return nil
	}
	return checkIntegrity(ctx, db.read, db.path)
}

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
