package contract_test

import (
	"bytes"
	"testing"

	"github.com/hospo-dev/hospo-go/contract"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// run runs the checks named (all when none) against env in sandbox mode.
func run(t *testing.T, env *refservertest.Env, only ...string) *contract.Report {
	t.Helper()
	rep, err := contract.Run(t.Context(), contract.Config{BaseURL: env.URL, AdminKey: env.AdminKey, Only: only})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// text is the report as the command prints it.
func text(t *testing.T, rep *contract.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Every check passes against a fresh reference server.
func TestPassesAgainstRefserver(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	rep := run(t, env)
	if !rep.Passed() || rep.Summary.Skipped != 0 {
		t.Errorf("against a fresh refserver:\n%s", text(t, rep))
	}
	if n := len(contract.Checks()); n < 40 {
		t.Errorf("%d checks, want at least 40", n)
	}
}
