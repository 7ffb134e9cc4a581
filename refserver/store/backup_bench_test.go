package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchSizes are the database sizes of the snapshot benchmarks, in MiB.
// The 100 MiB one needs HOSPO_BENCH_LARGE=1, so that a plain -bench run
// stays short.
func benchSizes() []int {
	if os.Getenv("HOSPO_BENCH_LARGE") != "" {
		return []int{1, 10, 100}
	}
	return []int{1, 10}
}

// benchDB opens a database file filled with about mib MiB of bills.
func benchDB(b *testing.B, mib int) (*DB, int64) {
	b.Helper()
	path, size := billsFile(b, mib)
	return openTest(b, path, nil), size
}

// BenchmarkCopyToFile measures a snapshot (POST /sandbox/snapshots) of a
// database file of 1, 10 and (with HOSPO_BENCH_LARGE=1) 100 MiB:
//
//	HOSPO_BENCH_LARGE=1 timeout 600 go test -run '^$' -bench 'CopyToFile|RestoreFile' -benchtime 5x ./refserver/store/
func BenchmarkCopyToFile(b *testing.B) {
	for _, mib := range benchSizes() {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			db, size := benchDB(b, mib)
			dir := b.TempDir()
			b.SetBytes(size)
			i := 0
			for b.Loop() {
				i++
				path := filepath.Join(dir, fmt.Sprint(i, ".sqlite"))
				if _, err := db.CopyToFile(b.Context(), path); err != nil {
					b.Fatal(err)
				}
				if err := os.Remove(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRestoreFile measures a restore (POST
// /sandbox/snapshots/{id}/restore) of a snapshot of 1, 10 and (with
// HOSPO_BENCH_LARGE=1) 100 MiB into a live database of the same size; see
// BenchmarkCopyToFile for the command.
func BenchmarkRestoreFile(b *testing.B) {
	for _, mib := range benchSizes() {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			db, size := benchDB(b, mib)
			path := filepath.Join(b.TempDir(), "snap.sqlite")
			if _, err := db.CopyToFile(b.Context(), path); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			for b.Loop() {
				if err := db.RestoreFile(b.Context(), path, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
