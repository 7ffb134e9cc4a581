package outbound

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Policy says how often and how fast a delivery is tried. Its zero value
// is not useful; every field must be set.
type Policy struct {
	// MaxTries is the number of tries after which a delivery that still
	// fails is given up.
	MaxTries int
	// Base and Max bound the backoff: the wait after the n-th failed try
	// is Base x 2^(n-1), at most Max.
	Base, Max time.Duration
	// Temporary reports whether a failed try may succeed later (a 5xx, a
	// timeout). A delivery whose try fails otherwise fails at once.
	Temporary func(error) bool
	// MaxDetail bounds the description of a failure kept in a delivery's
	// record, in bytes.
	MaxDetail int
}

// Backoff is the wait after the n-th failed try (n >= 1).
func (p Policy) Backoff(n int) time.Duration {
	d := p.Base
	for i := 1; i < n && d < p.Max; i++ {
		d *= 2
	}
	return min(d, p.Max)
}

// Outcome is what one try came to and what happens next, as a Policy
// judges it. An Attempt records it.
type Outcome struct {
	// Try is the try's number, counting from 1.
	Try int
	// Err is why the try failed; nil when the delivery was made.
	Err error
	// Detail describes a failed try for the delivery's record and
	// timeline, what happens next included; "" when the delivery was made.
	Detail string
	// RetryIn is the wait before the next try; zero when the delivery is
	// settled (made, or failed for good).
	RetryIn time.Duration
}

// Judge decides what follows try number try, which ended with err.
func (p Policy) Judge(try int, err error) Outcome {
	o := Outcome{Try: try, Err: err}
	if err == nil {
		return o
	}
	o.Detail = p.describe(try, err)
	switch {
	case !p.Temporary(err):
	case try >= p.MaxTries:
		o.Detail += "; giving up after " + strconv.Itoa(try) + " tries"
	default:
		o.RetryIn = p.Backoff(try)
		o.Detail += "; next try in " + o.RetryIn.String()
	}
	return o
}

// describe names the try and its failure, cut to MaxDetail bytes. The
// callers' errors carry the status and the receiver's message, never a
// credential.
func (p Policy) describe(try int, err error) string {
	d := fmt.Sprintf("try %d: %v", try, err)
	if len(d) > p.MaxDetail {
		d = strings.ToValidUTF8(d[:p.MaxDetail], "") + "..."
	}
	return d
}
