// Package storetest opens stores for the tests of the packages built on
// the store (rules, sim, api, outbound): one call instead of the open,
// check and close that every such test would otherwise spell out. The
// store's own tests cannot import it (it imports the store) and keep a
// helper of their own.
package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Open opens the store at path (store.MemoryPath for one in memory, a
// file under t.TempDir() for one on disk) whose transactions are stamped
// with now, and closes it when the test ends. It fails t when the store
// does not open.
func Open(t testing.TB, path string, now func() time.Time, opts ...store.OpenOption) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path, now, opts...)
	if err != nil {
		t.Fatalf("store.Open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
