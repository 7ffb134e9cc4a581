package possync_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// TestE2EPushCheckValidates: a check that the Agent's Push would refuse is
// refused by Service.PushCheck too, with the same error, and never reaches
// the service; a valid one does.
func TestE2EPushCheckValidates(t *testing.T) {
	t.Parallel()
	s := newSite(t, nil)
	sb := sandbox.NewService(s.env.Client(t, client.WithAdminKey(s.env.AdminKey)))
	ctx := context.Background()
	before, err := sb.Requests(ctx, sandbox.JournalQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}

	bad := loadCheck(t, s.ID)
	bad.MenuItems[0].Quantity = -1
	_, err = s.POS.PushCheck(ctx, bad)
	if !errors.Is(err, client.ErrValidation) {
		t.Fatalf("PushCheck of an invalid check: %v, want a validation error", err)
	}
	agent, aerr := possync.NewAgent(s.POS, fastAgent(s.ID, noSave))
	if aerr != nil {
		t.Fatal(aerr)
	}
	defer agent.Close()
	if perr := agent.Push(bad); perr == nil || perr.Error() != err.Error() {
		t.Errorf("Agent.Push: %v\nService.PushCheck: %v\nwant the same error", perr, err)
	}
	if errors.As(err, new(*client.APIError)) {
		t.Errorf("PushCheck: %v came from the service", err)
	}
	j, err := sb.Requests(ctx, sandbox.JournalQuery{After: before.LastSeq})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range j.Requests {
		if r.Route == "/v1/pos/push-pull/check" {
			t.Errorf("an invalid check reached the service: %+v", r)
		}
	}

	good := loadCheck(t, s.ID)
	if _, err := s.POS.PushCheck(ctx, good); err != nil {
		t.Fatalf("PushCheck of a valid check: %v", err)
	}
}
