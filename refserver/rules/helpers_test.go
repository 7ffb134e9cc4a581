package rules

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// fieldErrors returns the path -> reason of a 400002, nil for a nil err;
// any other error fails the test.
func fieldErrors(t testing.TB, err error) map[string]string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != client.CodeValidation {
		t.Fatalf("err = %v, want a 400002", err)
	}
	fields, _ := ae.ContextData.(map[string]string)
	return fields
}

// wantCode fails the test unless err is the catalogue error code (nil for
// code 0).
func wantCode(t testing.TB, err error, code client.Code) {
	t.Helper()
	if code == 0 {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	if !errors.Is(err, code) {
		t.Fatalf("err = %v, want %d", err, code)
	}
}

// testNow is the time every test transaction is stamped with.
var testNow = time.Date(2030, time.June, 10, 12, 0, 0, 0, time.UTC)

// openStore returns an empty in-memory store whose clock stands at
// testNow.
func openStore(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.MemoryPath, func() time.Time { return testNow })
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// write runs fn in a write transaction of db and fails the test on error.
func write(t testing.TB, db *store.DB, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := db.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// run runs rule in a write transaction of db, which commits when rule
// succeeds, and returns what it returned.
func run[T any](t testing.TB, db *store.DB, rule func(tx *store.Tx) (T, error)) (T, error) {
	t.Helper()
	var v T
	err := db.Write(context.Background(), func(tx *store.Tx) (err error) {
		v, err = rule(tx)
		return err
	})
	return v, err
}
