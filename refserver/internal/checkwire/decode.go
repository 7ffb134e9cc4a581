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
}

// errUndecodable is what Decode returns for a body that encoding/json
// accepts and the decoder still cannot read: a bug of the decoder, so it
// becomes a 500001 rather than a made-up 400.
var errUndecodable = errors.New("checkwire: the decoder refused a body that encoding/json accepts")

// Decode decodes the body of a check push. Its errors are those of
// api.DecodeBytes: a 400001 for a body that is not a JSON object of the
// check's shape (naming the member of the wrong type), or a 400002 for
// money with more than two decimals or out of range. Members that are
// missing or null are not an error here; Validate reports them.
func Decode(body []byte) (*Push, error) {
	p := new(Push)
	if p.decode(string(body)) {
		return p, nil
	}
	if err := api.DecodeBytes(body, new(possync.Check)); err != nil {
		return nil, err
	}
	// encoding/json took the body, so a member came more than once.
	merged, ok := mergeRepeated(string(body))
	*p = Push{}
	if !ok || !p.decode(merged) {
		return nil, errUndecodable
	}
	return p, nil
}

// decode reads s into p and reports whether it could.
func (p *Push) decode(s string) bool {
	d := newDecoder(s, &p.missing)
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

// Validate returns nil or a 400002 naming every member that was missing
// or null ("required") and every field that breaks a rule of
// possync.Check.Validate. A member found missing keeps "required": the
// rule its zero value breaks would only be a misleading second reason.
func (p *Push) Validate() error {
	if err := p.missing.Merge(p.Check.Validate()); err != nil {
		return err
	}
	if p.missing.Len() > 0 {
		return api.Invalid(p.missing.Map())
	}
	return nil
}
