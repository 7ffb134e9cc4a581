package refservertest

import (
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// volatileColumns change on their own while the server runs (the
// universal POS monitor's health checks and menu syncs), whatever requests
// do, so Rows leaves them out.
var volatileColumns = map[string][]string{
	"locations": {"pos_health", "pos_health_message", "pos_health_checked_at", "menu_json", "menu_synced_at"},
}

// Rows returns every row of every table of the server's database, each
// as one line of text ("column=value ..."), sorted, for tests that compare
// the database before and after some requests: that a refused request
// changed nothing, or that a run changed none of the rows it found. The
// columns that the server's background monitors update are left out. It
// reads through a read-only connection of its own, beside the server's.
func (e *Env) Rows(t testing.TB) map[string][]string {
	t.Helper()
	if e.DBPath == ":memory:" {
		t.Fatalf("refservertest: Rows needs a database file")
	}
	db, err := sql.Open("sqlite3", "file:"+url.PathEscape(e.DBPath)+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatalf("refservertest: open %s: %v", e.DBPath, err)
	}
	defer db.Close()
	tables, err := tableNames(db)
	if err != nil {
		t.Fatalf("refservertest: list tables: %v", err)
	}
	out := map[string][]string{}
	for _, table := range tables {
		if out[table], err = tableRows(db, table); err != nil {
			t.Fatalf("refservertest: rows of %s: %v", table, err)
		}
	}
	return out
}

func tableNames(db *sql.DB) ([]string, error) {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

func tableRows(db *sql.DB, table string) ([]string, error) {
	rows, err := db.Query(`SELECT * FROM "` + table + `"`)
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
			if slices.Contains(volatileColumns[table], c) {
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
