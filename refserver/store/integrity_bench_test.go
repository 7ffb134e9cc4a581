package store

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkOpenLargeFile measures Open and Close of a database holding
// size bytes of closed bills, which is what the start-up integrity check
// adds to a server's start on a large file (the page cache is warm after
// the first iteration):
//
//	go test -run '^$' -bench BenchmarkOpenLargeFile -benchtime 5x ./refserver/store/
func BenchmarkOpenLargeFile(b *testing.B) {
	for _, mib := range []int{16, 256} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			path, size := billsFile(b, mib)
			b.SetBytes(size)
			b.ResetTimer()
			for b.Loop() {
				db, err := Open(b.Context(), path, nil)
				if err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
		})
	}
}

// billsFile creates a database file holding about mib MiB of bills (2 KB
// of check each), added straight through SQLite, and returns its path and
// size.
func billsFile(b *testing.B, mib int) (path string, size int64) {
	b.Helper()
	path = filepath.Join(b.TempDir(), "bills.db")
	db, err := Open(b.Context(), path, nil)
	if err != nil {
		b.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	_, err = raw.Exec(`INSERT INTO locations (location_id, name, gateway, created_at) VALUES (1, 'bench', 'providerB', 0)`)
	if err != nil {
		b.Fatal(err)
	}
	_, err = raw.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO bills SELECT printf('bill-%08d', i), 1, i, 'closed', 1, hex(randomblob(16)),
			hex(randomblob(1000)), 1, 's', 2, 1000, 0, 0, 0, i, i FROM n`, mib*1024*1024/2300)
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, fi.Size()
}
