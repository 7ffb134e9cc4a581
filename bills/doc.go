// Package bills retrieves the closed bills of a location: the closed-bills
// list (GET /v3/location/{locationId}/bills/closed), the bill record with its
// scopes (GET /v3/bill/{billId}), and All, an iterator that exports a range
// of any length.
//
// The endpoints take a vendor API key, issued by the operator and scoped to a
// set of locations:
//
//	c, err := client.New(client.WithBaseURL(baseURL), client.WithAPIKey(apiKey))
//	if err != nil { ... }
//	svc := bills.NewService(c)
//
// # Listing and fetching
//
// ListClosed lists the bills closed with lastUpdated in [from, to], both ends
// included, for ranges of up to 31 days (MaxRange). The times may be in any
// time zone: they are sent as ISO 8601 with their own offset, with the "+"
// percent-encoded (an unencoded "+" would reach the service as a space).
// lastUpdated has whole-second precision and is returned in UTC.
//
// Get fetches one bill. Without scopes it returns the base record: ids,
// status, lastUpdated, the amounts and the check-level discounts. Each Scope
// adds one member: ScopeItems the menu items, ScopePayments the payments
// made through the service, ScopeUsers the users who paid, ScopeTable the
// table, ScopeTableLocation the table's location (inside Table) and
// ScopeStaff the staff member who closed the bill. ScopeTableLocation needs
// ScopeTable; Get adds ScopeTable for the caller rather than failing, since
// the location can only be delivered inside the table (see NormalizeScopes).
//
// # Exporting a range
//
// All lists a range of any length in windows of at most 31 days and fetches
// every bill once, a few at a time (WithConcurrency), yielding them in a
// stable order: by lastUpdated, then bill id. Breaking out of the loop or
// cancelling ctx stops the requests in flight, and All returns only after
// every goroutine it started has ended:
//
//	scopes := []bills.Scope{bills.ScopeItems, bills.ScopePayments}
//	for b, err := range svc.All(ctx, locationID, from, to, scopes) {
//		if err != nil {
//			return err // the first error ends the iteration
//		}
//		fmt.Println(b.BillID, b.TotalAmount)
//	}
//
// # What the service does in detail
//
//   - A bill is the check its POS pushed; its lastUpdated is the time of the
//     latest push that changed the check. Only bills whose latest push has
//     status closed are listed; open and void bills never are, but Get
//     returns a bill in any status (Bill.Status says which).
//   - from and to are instants: any offsets may be mixed, and the 31 days are
//     measured between the two instants.
//   - Payments (ScopePayments) are those made through the service towards
//     the bill, pending or accepted, oldest first; Users (ScopeUsers) has one
//     entry per user with such a payment, in order of their first payment.
//   - The list checks the key's scope before the query, so a location
//     outside the key is 403001 whatever the range; a bill outside it is
//     404001, exactly like an unknown id.
//   - The scope parameter is comma-separated (it may also be repeated); scope
//     names are case-sensitive and empty entries are ignored.
//
// # Errors
//
// Failures are *client.APIError values; match them with errors.Is and the
// client sentinels: client.ErrInvalidQuery (400003: a bad range, an unknown
// scope), client.ErrForbidden (403001: the key is not scoped to the
// location), client.ErrNotFound (404001: an unknown bill, or one of a
// location outside the key's scope), client.ErrAPIKeyMissing and
// client.ErrAPIKeyInvalid.
//
// Money amounts are client.Money (exact hundredths), and the item, modifier,
// category and discount types are those of package possync, because a bill
// is the check its POS pushed.
package bills
