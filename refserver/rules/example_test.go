package rules_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// A rule runs on a store transaction and speaks the SDK's types: here a
// location whose POS sent a heartbeat five minutes ago is online, and an
// unknown one is the catalogue's 404001.
func ExampleGetLocation() {
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	db, err := store.Open(ctx, store.MemoryPath, func() time.Time { return now })
	if err != nil {
		panic(err)
	}
	defer db.Close()
	var id int64
	err = db.Write(ctx, func(tx *store.Tx) (err error) {
		if id, err = tx.InsertLocation("Harbour Grill", "providerB"); err != nil {
			return err
		}
		return tx.TouchHeartbeat(id)
	})
	if err != nil {
		panic(err)
	}
	now = now.Add(5 * time.Minute)
	err = db.Read(ctx, func(tx *store.Tx) error {
		loc, err := rules.GetLocation(tx, id)
		if err != nil {
			return err
		}
		fmt.Println(loc.Name, loc.POSStatus == wallet.POSStatusOnline)
		_, err = rules.GetLocation(tx, id+1)
		fmt.Println(errors.Is(err, client.ErrNotFound))
		return nil
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// Harbour Grill true
	// true
}
