package bills

import "strings"

// Scope selects a part of the bill record that Get returns beyond its base
// members (ids, status, amounts, discounts). Scopes travel comma-separated in
// the scope query parameter.
type Scope string

// The scopes of GET /v3/bill/{billId}. Each adds exactly one member to the
// record.
const (
	// ScopeItems adds Bill.Items: the check's menu items as last pushed.
	ScopeItems Scope = "bill.items"
	// ScopePayments adds Bill.Payments: the payments made through the service.
	ScopePayments Scope = "bill.payments"
	// ScopeUsers adds Bill.Users: one entry per user who paid.
	ScopeUsers Scope = "bill.users"
	// ScopeTable adds Bill.Table: table number and guests.
	ScopeTable Scope = "bill.table"
	// ScopeTableLocation adds Table.Location, the location the table is in.
	// It lives inside Table, so it depends on ScopeTable; Get adds ScopeTable
	// for the caller when it is missing (see NormalizeScopes).
	ScopeTableLocation Scope = "table.location"
	// ScopeStaff adds Bill.Staff: the staff member who closed the bill.
	ScopeStaff Scope = "bill.staff"
)

// AllScopes returns every scope, in the order the service documents them.
// Get(ctx, id, AllScopes()) fetches the complete record.
func AllScopes() []Scope {
	return []Scope{ScopeItems, ScopePayments, ScopeUsers, ScopeTable, ScopeTableLocation, ScopeStaff}
}

// String returns the wire name of the scope.
func (s Scope) String() string { return string(s) }

// Known reports whether s is one of the scopes this SDK knows.
func (s Scope) Known() bool {
	switch s {
	case ScopeItems, ScopePayments, ScopeUsers, ScopeTable, ScopeTableLocation, ScopeStaff:
		return true
	}
	return false
}

// NormalizeScopes returns the scopes Get sends for the given ones: duplicates
// and empty strings removed, order otherwise kept, and ScopeTable inserted
// just before ScopeTableLocation when the caller asked for the table's
// location without the table.
//
// Adding the dependency (rather than refusing the call) is deliberate: the
// location is a member of the table object, so the table is the only way to
// deliver what was asked for, and the result is exactly the requested
// members plus their container. Unknown scopes are passed through unchanged
// so that a scope the service adds later can be used before this SDK knows
// it; the service answers an unknown scope with 400003
// (client.ErrInvalidQuery).
func NormalizeScopes(scopes []Scope) []Scope {
	if len(scopes) == 0 {
		return nil
	}
	hasTable := false
	for _, s := range scopes {
		if s == ScopeTable {
			hasTable = true
			break
		}
	}
	out := make([]Scope, 0, len(scopes)+1)
	seen := make(map[Scope]bool, len(scopes)+1)
	add := func(s Scope) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range scopes {
		if s == ScopeTableLocation && !hasTable {
			add(ScopeTable)
		}
		add(s)
	}
	return out
}

// joinScopes renders scopes as the value of the scope query parameter.
func joinScopes(scopes []Scope) string {
	var b strings.Builder
	for i, s := range scopes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(s))
	}
	return b.String()
}
