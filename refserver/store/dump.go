package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Dump returns every row of every table of the database file at path, by
// table, each row as one line of text ("column=value ..."), sorted; the
// columns that skip names for a table are left out. It reads through a
// read-only connection of its own, so it runs beside a server that has the
// file open: it is for tests that compare the database before and after
// some requests.
func Dump(ctx context.Context, path string, skip map[string][]string) (map[string][]string, error) {
	db, err := OpenReadOnly(path)
	if err != nil {
		return nil, fmt.Errorf("store: dump: open %s: %w", path, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: dump: list tables: %w", err)
	}
	tables, err := collect(rows, scanString)
	if err != nil {
		return nil, fmt.Errorf("store: dump: list tables: %w", err)
	}
	out := map[string][]string{}
	for _, table := range tables {
		if out[table], err = dumpTable(ctx, db, table, skip[table]); err != nil {
			return nil, fmt.Errorf("store: dump: rows of %s: %w", table, err)
		}
	}
	return out, nil
}

// OpenReadOnly opens a read-only view of the database file at path, for
// tests and tools that look at what a server stores: SQLite's WAL lets it
// read beside the server's own connections, and a lock they hold is waited
// for up to 5 s.
func OpenReadOnly(path string) (*sql.DB, error) {
	return sql.Open("sqlite3", "file:"+url.PathEscape(path)+"?mode=ro&_busy_timeout=5000")
}

// dumpTable returns the rows of table as Dump has them, without the
// columns skip names.
func dumpTable(ctx context.Context, db *sql.DB, table string, skip []string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM "`+strings.ReplaceAll(table, `"`, `""`)+`"`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	lines := []string{}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		var b strings.Builder
		for i, c := range cols {
			if slices.Contains(skip, c) {
				continue
			}
			v := vals[i]
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprintf(&b, "%s=%v ", c, v)
		}
		lines = append(lines, b.String())
	}
	slices.Sort(lines)
	return lines, rows.Err()
}
