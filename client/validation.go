package client

import (
	"fmt"
	"slices"
	"strings"
)

// ValidationError is a request that the SDK refuses before sending it,
// because fields of it break the service's rules. Fields uses the JSON
// paths and reasons the service gives in the contextData of a 400002, and
// errors.Is(err, ErrValidation) matches both, so one branch of a caller
// handles a local refusal and a remote one alike:
//
//	var ve *client.ValidationError
//	if errors.As(err, &ve) { ... ve.Fields["menuItems[0].quantity"] ... }
//
// The Validate methods of the area packages (a check, a fulfillment method,
// an order, card details...) return it.
type ValidationError struct {
	// Fields maps the JSON path of each failing field
	// ("customer.address.postcode", "items[1].options[0].plu") to the
	// reason it is refused ("required").
	Fields map[string]string
	// Omitted counts the failing fields that Fields leaves out: Validate
	// names the first 1,000 failures of a value and counts the rest, so
	// that refusing a huge value stays cheap.
	Omitted int
}

// Error lists every failing path with its reason, in path order. Reasons
// never repeat the refused values, so the message is safe to log.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("hospo: invalid request")
	for i, p := range e.Paths() {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(p)
		b.WriteString(": ")
		b.WriteString(e.Fields[p])
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&b, "; and %d more", e.Omitted)
	}
	return b.String()
}

// Paths returns the failing JSON paths, sorted.
func (e *ValidationError) Paths() []string {
	paths := make([]string, 0, len(e.Fields))
	for p := range e.Fields {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// Is makes errors.Is(err, ErrValidation) true, like for a 400002 from the
// service.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation }
