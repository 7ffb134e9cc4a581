package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/mattn/go-sqlite3"
)

// Copies of the whole database, for the sandbox's snapshots. Both ways go
// through SQLite's online backup API, in one step each:
//
//   - a copy is read from a reader connection in one read transaction,
//     so it is consistent (WAL lets writes go on meanwhile);
//   - a restore copies into the writer connection in one write
//     transaction, run by the writer goroutine alone (writer.doAlone):
//     every write queued before it has committed, none queued after it
//     has started, and other connections see either the old database or
//     the restored one, never a mix. SQLite bumps the schema cookie, so
//     statements compiled on any connection (stmtcache.go) compile again
//     on their next run instead of reading stale pages.

// ErrNewerCopy is returned by a restore of a copy that has migrations this
// server does not know: it was made by a newer version of the server.
var ErrNewerCopy = errors.New("store: the copy was made by a newer server")

// CopyTooLargeError is the error of a copy that would be larger than its
// CopyAtMost bound. Nothing of the copy is kept.
type CopyTooLargeError struct {
	Size int64 // the whole copy's size in bytes
	Max  int64 // the bound
}

func (e *CopyTooLargeError) Error() string {
	return fmt.Sprintf("store: copy: the copy takes %d bytes, more than the %d allowed", e.Size, e.Max)
}

// CopyOption configures CopyToFile and CopyToMemory.
type CopyOption func(*copyOptions)

type copyOptions struct {
	max int64 // 0: no bound
}

// CopyAtMost bounds a copy to n bytes (n > 0; otherwise the option does
// nothing). The bound holds while the copy is written, as SQLite's
// max_page_count of the copy: a copy that reaches it stops there and
// fails as it would on a full disk, through the same clean-up, and the
// failure is a *CopyTooLargeError telling the copy's whole size.
func CopyAtMost(n int64) CopyOption {
	return func(o *copyOptions) { o.max = max(n, 0) }
}

// CopyToFile writes a consistent copy of the whole database to path, which
// must not exist yet, and returns its size in bytes. The copy is a plain
// SQLite file (rollback journal, no -wal file beside it): Open takes it
// as a database of its own, and RestoreFile takes it back. It is written
// under a temporary name and renamed when complete; a copy that fails (a
// full disk, or the CopyAtMost bound) leaves no file behind.
func (db *DB) CopyToFile(ctx context.Context, path string, opts ...CopyOption) (int64, error) {
	if _, err := os.Lstat(path); err == nil {
		return 0, fmt.Errorf("store: copy: %s exists", path)
	}
	tmp := path + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("store: copy: %w", err)
	}
	// Created private before SQLite opens it, which keeps its mode.
	if err := makePrivate(tmp); err != nil {
		return 0, err
	}
	dst, err := sql.Open("sqlite3", tmp)
	if err != nil {
		_ = os.Remove(tmp)
		return 0, fmt.Errorf("store: copy: %w", err)
	}
	oneConnection(dst)
	err = db.copyInto(ctx, dst, opts)
	if err == nil {
		// The copied first page says WAL, as the live database's does:
		// make the file a rollback-journal one, whole without a -wal.
		_, err = dst.ExecContext(ctx, `PRAGMA journal_mode = DELETE`)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	var size int64
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(tmp); err == nil {
			size = fi.Size()
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		for _, f := range []string{tmp, tmp + "-journal", tmp + "-wal", tmp + "-shm"} {
			_ = os.Remove(f)
		}
		return 0, copyErr(err)
	}
	return size, nil
}

// MemoryCopy is a copy of a database kept in memory, as an in-memory
// SQLite database of its own: the copies of an in-memory database. It is
// safe for concurrent use.
type MemoryCopy struct {
	conn *sql.DB
	size int64
}

// CopyToMemory returns a consistent copy of the whole database, kept in
// memory. Close it when it is no longer needed.
func (db *DB) CopyToMemory(ctx context.Context, opts ...CopyOption) (*MemoryCopy, error) {
	dst, err := openMemory()
	if err != nil {
		return nil, err
	}
	if err := db.copyInto(ctx, dst, opts); err != nil {
		dst.Close()
		return nil, copyErr(err)
	}
	size, err := dbSize(ctx, dst)
	if err != nil {
		dst.Close()
		return nil, fmt.Errorf("store: copy: %w", err)
	}
	return &MemoryCopy{conn: dst, size: size}, nil
}

// Size returns the copy's size in bytes, as a file.
func (c *MemoryCopy) Size() int64 { return c.size }

// Close frees the copy.
func (c *MemoryCopy) Close() error { return c.conn.Close() }

// RestoreFile replaces the whole database with the copy at path (made by
// CopyToFile, or any database file of this server), as described at the
// top of this file. The copy is checked first (SQLite's quick_check, and
// that it has no migration this server lacks), so a damaged or foreign
// file changes nothing. After the copy, in the writer goroutine before
// any other write: the token cache is emptied, the migrations the copy
// lacks are applied, and then, when not nil, runs in a transaction of its
// own, for the caller's state derived from the database; its AfterCommit
// functions run before Restore returns.
func (db *DB) RestoreFile(ctx context.Context, path string, then func(tx *Tx) error) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("store: restore: %w", err)
	}
	src, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return fmt.Errorf("store: restore: %w", err)
	}
	oneConnection(src)
	defer src.Close()
	if err := checkIntegrity(ctx, src, path); err != nil {
		return err
	}
	return db.restore(ctx, src, then)
}

// RestoreMemory is RestoreFile for a copy made by CopyToMemory.
func (db *DB) RestoreMemory(ctx context.Context, c *MemoryCopy, then func(tx *Tx) error) error {
	return db.restore(ctx, c.conn, then)
}

func (db *DB) restore(ctx context.Context, src *sql.DB, then func(tx *Tx) error) error {
	if err := knownMigrations(ctx, src); err != nil {
		return err
	}
	return db.w.doAlone(ctx, func() error {
		// From here on the restore is not interrupted: the writer waits
		// for nothing but SQLite. It begins before the copy can be seen
		// and ends once the token cache is emptied (ReplaceMark).
		db.beginReplace()
		defer db.endReplace()
		bg := context.Background()
		err := withRaw(bg, db.write, func(dst *sqlite3.SQLiteConn) error {
			return withRaw(bg, src, func(src *sqlite3.SQLiteConn) error { return backup(dst, src) })
		})
		if err != nil {
			return fmt.Errorf("store: restore: %w", err)
		}
		db.tokens.forget()
		db.webhooks.forget()
		runOne := func(_ context.Context, fn func(*Tx) error) error { return db.w.runOne(fn) }
		if err := db.migrateWith(bg, runOne); err != nil {
			return err
		}
		// A copy made while deliveries were under way holds them with no
		// next attempt: no try of this server will record them.
		if err := db.w.runOne(func(tx *Tx) error { return tx.reviveDeliveries() }); err != nil {
			return err
		}
		if then == nil {
			return nil
		}
		return db.w.runOne(then)
	})
}

// copyInto copies the whole database into dst's main database, reading
// from a reader connection in one read transaction, within the bound of
// opts.
func (db *DB) copyInto(ctx context.Context, dst *sql.DB, opts []CopyOption) error {
	var o copyOptions
	for _, f := range opts {
		f(&o)
	}
	return withRaw(ctx, db.read, func(src *sqlite3.SQLiteConn) error {
		return withRaw(ctx, dst, func(dst *sqlite3.SQLiteConn) error {
			if o.max == 0 {
				return backup(dst, src)
			}
			// The read transaction the backup runs in is opened here, so
			// that the size read first is the size copied.
			if _, err := src.Exec(`BEGIN`, nil); err != nil {
				return err
			}
			defer func() { _, _ = src.Exec(`ROLLBACK`, nil) }() // a read transaction: nothing to lose
			pageSize, err := rawInt(src, `PRAGMA page_size`)
			if err != nil {
				return err
			}
			pages, err := rawInt(src, `PRAGMA page_count`)
			if err != nil {
				return err
			}
			// The copy takes the source's page size, set first so that the
			// bound counts pages of that size; at least one page, as SQLite
			// takes 0 for no bound (no database of this server fits one).
			maxPages := max(o.max/pageSize, 1)
			pragmas := fmt.Sprintf(`PRAGMA page_size = %d; PRAGMA max_page_count = %d`, pageSize, maxPages)
			if _, err := dst.Exec(pragmas, nil); err != nil {
				return err
			}
			err = backup(dst, src)
			var se sqlite3.Error
			if pages > maxPages && errors.As(err, &se) && se.Code == sqlite3.ErrFull {
				return &CopyTooLargeError{Size: pages * pageSize, Max: o.max}
			}
			return err
		})
	})
}

// rawInt returns the one integer that query answers on conn.
func rawInt(conn *sqlite3.SQLiteConn, query string) (int64, error) {
	rows, err := conn.Query(query, nil)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if err := rows.Next(v); err != nil {
		return 0, fmt.Errorf("%s: %w", query, err)
	}
	n, ok := v[0].(int64)
	if !ok {
		return 0, fmt.Errorf("%s: got %T", query, v[0])
	}
	return n, nil
}

// copyErr wraps the error of a failed copy, unless it already says all.
func copyErr(err error) error {
	if _, ok := errors.AsType[*CopyTooLargeError](err); ok {
		return err
	}
	return fmt.Errorf("store: copy: %w", err)
}

// backup copies src's main database over dst's in a single step, so in
// one read transaction on src and one write transaction on dst.
func backup(dst, src *sqlite3.SQLiteConn) error {
	b, err := dst.Backup("main", src, "main")
	if err != nil {
		return err
	}
	done, err := b.Step(-1)
	if ferr := b.Finish(); err == nil {
		err = ferr
	}
	if err == nil && !done {
		err = errors.New("backup: database locked by another connection")
	}
	return err
}

// withRaw runs fn with the driver connection of one connection of pool,
// held for the call.
func withRaw(ctx context.Context, pool *sql.DB, fn func(*sqlite3.SQLiteConn) error) error {
	c, err := pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		sc, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		return fn(sc)
	})
}

// openMemory opens a new, empty in-memory database with one connection.
func openMemory() (*sql.DB, error) {
	c, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	oneConnection(c)
	return c, nil
}

// dbSize returns the size of conn's main database in bytes.
func dbSize(ctx context.Context, conn *sql.DB) (int64, error) {
	var pages, size int64
	if err := conn.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return 0, err
	}
	if err := conn.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil {
		return 0, err
	}
	return pages * size, nil
}

// knownMigrations fails with ErrNewerCopy when src has applied a migration
// this server does not have.
func knownMigrations(ctx context.Context, src *sql.DB) error {
	known, err := migrationNames()
	if err != nil {
		return err
	}
	rows, err := src.QueryContext(ctx, `SELECT name FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("store: restore: not a database of this server: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		if !slices.Contains(known, n) {
			return fmt.Errorf("%w (it has migration %s)", ErrNewerCopy, n)
		}
	}
	return rows.Err()
}
