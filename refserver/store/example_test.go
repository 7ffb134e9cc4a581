package store_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Open applies the embedded migrations; every transaction is stamped with
// one time, taken from the clock given to Open.
func ExampleOpen() {
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }
	db, err := store.Open(ctx, ":memory:", now)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	err = db.Read(ctx, func(tx *store.Tx) error {
		applied, err := tx.AppliedMigrations()
		fmt.Println(tx.Now().Format(time.RFC3339), applied[0])
		return err
	})
	if err != nil {
		panic(err)
	}
	// Output: 2026-05-01T12:00:00Z 0001_init.sql
}
