package contract

import (
	"fmt"
	"slices"
	"strings"
)

// Needs is what a check needs from the service under test and what its
// requests may change there. The runner decides from it alone which checks
// a run can do: there is no second list of careful checks to keep in step.
type Needs uint16

const (
	// NeedsUser: a user's access token (-access-token in careful mode).
	NeedsUser Needs = 1 << iota
	// NeedsPOS: a location's POS access token and the location's id
	// (-pos-token and -location).
	NeedsPOS
	// NeedsLocation: the id of a location (-location), for public reads.
	NeedsLocation
	// NeedsAPIKey: a vendor API key scoped to that location (-api-key).
	NeedsAPIKey
	// NeedsSandbox: the sandbox admin API (-admin-key): the check makes its
	// own users, locations and keys, or uses a sandbox-only feature such as
	// a magic test card.
	NeedsSandbox
	// WritesData: the check changes data that people of a real environment
	// see and that it did not create (a card in a wallet, a pushed check, a
	// heartbeat, an order sent to a POS). Careful mode skips it.
	WritesData
	// MovesMoney: the check makes or accepts a payment, or sends a request
	// to an endpoint that does. Careful mode skips it.
	MovesMoney
)

// needNames spells each flag for reports, in flag order.
var needNames = []struct {
	n    Needs
	name string
}{
	{NeedsUser, "user"}, {NeedsPOS, "pos"}, {NeedsLocation, "location"}, {NeedsAPIKey, "api-key"},
	{NeedsSandbox, "sandbox"}, {WritesData, "writes-data"}, {MovesMoney, "moves-money"},
}

// String lists the flags of n, comma-separated ("user,moves-money").
func (n Needs) String() string {
	var parts []string
	for _, nn := range needNames {
		if n&nn.n != 0 {
			parts = append(parts, nn.name)
		}
	}
	return strings.Join(parts, ",")
}

// Check is one rule of the contract, checked against a running service:
// data (its name, the endpoint it exercises, what it needs) and a function.
// Each rule is defined once, here; the project's own end-to-end tests run
// the same Check values against the reference server (see Run and
// Config.Only).
type Check struct {
	// Name identifies the check in reports and in Config.Only:
	// "<area>/<rule>", lower case ("payments/card-not-tokenised").
	Name string
	// Endpoint is the method and path template of the endpoint the check
	// is about ("POST /payments/v1/payment"), or several, comma-separated.
	Endpoint string
	// Rule says in one sentence what must hold.
	Rule string
	// Needs is what the check needs and what it may change.
	Needs Needs
	// Run performs the check. It reports through t: a failure with
	// t.Errorf or t.Fatalf, nothing when the rule holds.
	Run func(t *T)
}

// checks is every check, in the order Run runs them. Each area file adds
// its own list here.
var checks = slices.Concat(
	wireChecks,
	authChecks,
	walletChecks,
	locationChecks,
	paymentChecks,
	idempotencyChecks,
	posChecks,
	billsChecks,
	orderChecks,
	eventChecks,
)

// Checks returns every check of the contract, in the order Run runs them.
func Checks() []Check { return slices.Clone(checks) }

// Lookup returns the check named name.
func Lookup(name string) (Check, bool) {
	i := slices.IndexFunc(checks, func(c Check) bool { return c.Name == name })
	if i < 0 {
		return Check{}, false
	}
	return checks[i], true
}

// skipReason says why mode m cannot run c, or "" when it can. It is the
// whole definition of careful mode: a check runs with real credentials only
// if it needs no sandbox, changes nothing it did not create, moves no money
// and has the credentials it names.
func (c Check) skipReason(m mode) string {
	if !m.careful {
		return ""
	}
	switch {
	case c.Needs&NeedsSandbox != 0:
		return "needs a sandbox (-admin-key)"
	case c.Needs&MovesMoney != 0:
		return "careful mode: would move money"
	case c.Needs&WritesData != 0:
		return "careful mode: would change data it did not create"
	}
	var missing []string
	if c.Needs&NeedsUser != 0 && !m.user {
		missing = append(missing, "-access-token")
	}
	if c.Needs&NeedsPOS != 0 && !m.pos {
		missing = append(missing, "-pos-token")
	}
	if c.Needs&(NeedsPOS|NeedsLocation|NeedsAPIKey) != 0 && !m.location {
		missing = append(missing, "-location")
	}
	if c.Needs&NeedsAPIKey != 0 && !m.apiKey {
		missing = append(missing, "-api-key")
	}
	if len(missing) > 0 {
		return fmt.Sprintf("needs %s", strings.Join(missing, " and "))
	}
	return ""
}

// mode is what a run has to work with.
type mode struct {
	careful                     bool
	user, pos, location, apiKey bool
}
