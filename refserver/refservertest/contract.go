package refservertest

import (
	"context"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/contract"
)

// CheckContract runs the contract's checks of the given names (package
// contract; every check when none is named) against the server, as a
// sandbox, and fails t with the report unless each of them passes. Tests
// that prove a rule of the contract call the rule's check rather than
// keeping a second copy of it.
func (e *Env) CheckContract(t testing.TB, names ...string) {
	t.Helper()
	rep, err := contract.Run(context.Background(), contract.Config{BaseURL: e.URL, AdminKey: e.AdminKey, Only: names})
	if err != nil {
		t.Fatalf("refservertest: contract: %v", err)
	}
	if rep.Passed() && rep.Summary.Skipped == 0 {
		return
	}
	var b strings.Builder
	_ = rep.WriteText(&b)
	t.Errorf("refservertest: the server breaks the contract:\n%s", b.String())
}
