package sandbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// A launcher that mapped the sandbox's ports tells it their URLs; the
// sandbox hands them out from then on, and refuses a host its admin API
// does not answer under.
func TestE2EPublicURLs(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()

	got, err := sb.PublicURLs(ctx)
	if err != nil || got != (sandbox.PublicURLs{URL: env.URL, TLSURL: env.TLSURL}) {
		t.Fatalf("PublicURLs = %+v, %v; want the listeners' URLs", got, err)
	}
	got, err = sb.SetPublicURLs(ctx, sandbox.PublicURLs{TLSURL: "https://localhost:32769"})
	if err != nil || got != (sandbox.PublicURLs{URL: env.URL, TLSURL: "https://localhost:32769"}) {
		t.Errorf("SetPublicURLs = %+v, %v", got, err)
	}
	if _, err := sb.SetPublicURLs(ctx, sandbox.PublicURLs{URL: "http://attacker.example:80"}); !errors.Is(err, client.ErrValidation) {
		t.Errorf("a host the admin API refuses: %v, want a 400002", err)
	}
}
