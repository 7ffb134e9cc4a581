package rules

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// ListClosedBills returns the body of GET
// /v3/location/{locationId}/bills/closed: the closed bills of a location
// whose lastUpdated lies in [from, to] (Unix seconds, both included),
// ordered by lastUpdated then billId, as bills.ClosedBillsResponse with
// info's requestInfo. The body is written as the rows are read (see
// writeClosedBills); an error of the query itself comes back here, before
// anything is sent. The caller has checked that the API key may see the
// location.
func ListClosedBills(tx *store.Tx, locationID, from, to int64, info func() client.RequestInfo) (api.Stream, error) {
	rows, err := tx.ClosedBills(locationID, from, to)
	if err != nil {
		return nil, err
	}
	return func(w io.Writer) error {
		defer rows.Close()
		return writeClosedBills(w, rows, info)
	}, nil
}

// BillScopes are the members of a bill record asked for, one flag per
// scope of GET /v3/bill/{billId}.
type BillScopes struct {
	Items, Payments, Users, Table, TableLocation, Staff bool
}

// GetBill returns one bill record with the members sc selects (GET
// /v3/bill/{billId}), read in one transaction, so the record is a
// consistent snapshot; each query is a primary-key or indexed lookup. A
// bill of a location outside p's scope is a 404001 exactly like an
// unknown one, so ids of other vendors cannot be probed.
func GetBill(tx *store.Tx, p api.Principal, billID string, sc BillScopes) (bills.Bill, error) {
	row, err := tx.GetBill(billID)
	if err != nil {
		return bills.Bill{}, notFound(err, "Bill")
	}
	if !p.CanSeeLocation(row.LocationID) {
		return bills.Bill{}, api.NotFound("Bill")
	}
	return buildBill(tx, row, sc)
}

// storedCheck is the part of a stored check (bills.check_json) that the
// bill record shows beyond the bills columns. The items, the bulk of a
// check, are decoded only when the bill.items scope asks for them; the
// check is read in one pass either way.
type storedCheck struct {
	Discounts []possync.Discount `json:"discounts"`
}

// storedCheckItems is storedCheck with the items.
type storedCheckItems struct {
	Discounts []possync.Discount `json:"discounts"`
	MenuItems []possync.MenuItem `json:"menuItems"`
}

// buildBill turns a bills row into the bill record, reading what the scopes
// ask for in the same transaction. Each scope sets exactly its member;
// slices are non-nil when their scope is set, so they are sent as [] rather
// than left out.
func buildBill(tx *store.Tx, row store.Bill, sc BillScopes) (bills.Bill, error) {
	var chk storedCheckItems
	var err error
	if sc.Items {
		err = json.Unmarshal(row.CheckJSON, &chk)
	} else {
		var d storedCheck
		err = json.Unmarshal(row.CheckJSON, &d)
		chk.Discounts = d.Discounts
	}
	if err != nil {
		return bills.Bill{}, fmt.Errorf("bill %s: stored check: %w", row.BillID, err)
	}
	b := bills.Bill{
		BillID:              row.BillID,
		LocationID:          row.LocationID,
		CheckNumber:         row.CheckNumber,
		Status:              possync.CheckStatus(row.Status),
		LastUpdated:         client.BillTime{Time: time.Unix(row.LastUpdated, 0).UTC()},
		TotalAmount:         client.MoneyFromCents(row.TotalAmount),
		OutstandingAmount:   client.MoneyFromCents(row.OutstandingAmount),
		ServiceChargeAmount: client.MoneyFromCents(row.ServiceChargeAmount),
		TipsPaid:            client.MoneyFromCents(row.TipsPaid),
		Discounts:           nonNil(chk.Discounts),
	}
	if sc.Items {
		b.Items = nonNil(chk.MenuItems)
	}
	if sc.Payments || sc.Users {
		pays, err := tx.BillPayments(row.BillID)
		if err != nil {
			return bills.Bill{}, err
		}
		if sc.Payments {
			b.Payments = make([]bills.Payment, len(pays))
			for i, p := range pays {
				b.Payments[i] = bills.Payment{
					PaymentID: p.PaymentID,
					Amount:    client.MoneyFromCents(p.Amount),
					Tip:       client.MoneyFromCents(p.Tip),
					Status:    wallet.PaymentStatus(p.Status),
					CreatedAt: client.UnixTime{Time: time.Unix(p.CreatedAt, 0).UTC()},
					CardLast4: p.CardLast4,
				}
			}
		}
		if sc.Users {
			// Every user with a payment, pending or accepted, in order of
			// their first payment.
			b.Users = []bills.User{}
			seen := make(map[int64]bool, len(pays))
			for _, p := range pays {
				if !seen[p.UserID] {
					seen[p.UserID] = true
					b.Users = append(b.Users, bills.User{UserID: p.UserID})
				}
			}
		}
	}
	if sc.Table {
		b.Table = &bills.Table{TableNumber: int(row.TableNumber), Guests: int(row.Guests)}
		if sc.TableLocation {
			// The same builder as GET /v1/location/{id}, so the two never
			// drift apart.
			loc, err := GetLocation(tx, row.LocationID)
			if err != nil {
				return bills.Bill{}, err
			}
			b.Table.Location = &loc
		}
	}
	if sc.Staff {
		b.Staff = &bills.Staff{StaffID: row.StaffID}
	}
	return b, nil
}

// nonNil returns s, or an empty slice when s is nil, so that it encodes as
// [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
