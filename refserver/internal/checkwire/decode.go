package checkwire

import (
	"errors"

	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// A Push is the decoded body of a check push.
type Push struct {
	// Check is the pushed check. A member that was missing or null is
	// left at its zero value.
	Check possync.Check
	// missing holds the members that may not be missing or null and were.
	missing fielderr.Set
	// broken holds the values that broke their own type's rule (money with
	// too many decimals or out of range), path -> reason; Check has them
	// as zero.
	broken map[string]string
}

// errUndecodable is what Decode returns for a body that encoding/json
// accepts and the decoder still cannot read: a bug of the decoder, so it
// becomes a 500001 rather than a made-up 400.
var errUndecodable = errors.New("checkwire: the decoder refused a body that encoding/json accepts")

// Decode decodes the body of a check push. Its errors are those of
// api.DecodeBytes: a 400001 for a body that is not a JSON object of the
// check's shape (naming the member of the wrong type). Members that are
// missing or null, and money with more than two decimals or out of range,
// are not an error here; Validate reports them all together. body must
// have passed api.CheckText, as every request body the server reads has.
func Decode(body []byte) (*Push, error) {
	p := new(Push)
	if p.decode(string(body), false) {
		return p, nil
	}
	broken, err := api.ValueProblems(api.DecodeBytes(body, new(possync.Check)))
	if err != nil {
		return nil, err
	}
	// encoding/json took the body but for the broken values, if any: read
	// it again taking those as zero, and if that fails too a member came
	// more than once.
	*p = Push{broken: broken}
	if len(broken) > 0 && p.decode(string(body), true) {
		return p, nil
	}
	merged, ok := mergeRepeated(string(body))
	*p = Push{broken: broken}
	if !ok || !p.decode(merged, len(broken) > 0) {
		return nil, errUndecodable
	}
	return p, nil
}

// decode reads s into p and reports whether it could. lenient takes
// broken money values as zero (see scanner.lenient).
func (p *Push) decode(s string, lenient bool) bool {
	d := getDecoder(s, &p.missing)
	defer putDecoder(d)
	d.lenient = lenient
	if d.null() {
		// encoding/json leaves the value as it was for a null body.
		for _, m := range checkMembers {
			p.missing.Add(m.name, fielderr.ReasonRequired)
		}
	} else if !d.check(&p.Check) {
		return false
	}
	d.ws()
	return d.i == len(d.s)
}

// LocationID returns the check's locationId, or nil when the body has
// none (missing or null).
func (p *Push) LocationID() *int64 {
	if p.missing.Has("locationId") {
		return nil
	}
	return &p.Check.LocationID
}

// Validate returns nil or a 400002 naming every value that broke its own
// type's rule, every member that was missing or null ("required") and
// every field that breaks a rule of possync.Check.Validate. A field
// already named keeps its first reason: the rule its zero value breaks
// would only be a misleading second one.
func (p *Push) Validate() error {
	err := p.missing.Merge(p.Check.Validate())
	if err == nil && p.missing.Len() > 0 {
		err = api.InvalidSet(&p.missing)
	}
	return api.WithDecoded(p.broken, err)
}
