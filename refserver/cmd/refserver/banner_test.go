package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	sandboxclient "github.com/hospo-dev/hospo-go/sandbox"
)

func TestBannerShowsAClockAhead(t *testing.T) {
	t.Parallel()
	const line = "  Clock      virtual clock +2h0m0s ahead of real time, kept from an earlier run (only a reset sets it back, and it empties the sandbox: POST /sandbox/reset or http://127.0.0.1:8080/console/controls)\n"
	for _, tt := range []struct {
		offset time.Duration
		want   bool
	}{{0, false}, {2 * time.Hour, true}} {
		var out strings.Builder
		banner{baseURL: "http://127.0.0.1:8080", clockOffset: tt.offset}.write(&out)
		if got := strings.Contains(out.String(), line); got != tt.want {
			t.Errorf("offset %v: banner shows the clock line: %v, want %v\n%s", tt.offset, got, tt.want, out.String())
		}
		if !tt.want && strings.Contains(out.String(), "virtual clock") {
			t.Errorf("offset %v: banner mentions the clock:\n%s", tt.offset, out.String())
		}
	}
}

// A clock moved forward before a restart is in the next run's banner: the
// offset is kept in the database, and what the sandbox answers depends on
// it.
func TestRunBannerShowsAClockKeptFromAnEarlierRun(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "clock.db")
	first := startRun(t, "-db", db)
	if strings.Contains(first.stdout.String(), "virtual clock") {
		t.Errorf("first banner shows a clock:\n%s", first.stdout)
	}
	c, err := client.New(client.WithBaseURL(first.base), client.WithAdminKey(DefaultAdminKey))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandboxclient.NewService(c).AdvanceClock(context.Background(), 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	first.cancel()
	if err := <-first.done; err != nil {
		t.Fatal(err)
	}
	first.done <- nil

	second := startRun(t, "-db", db)
	if want := "virtual clock +2h0m0s ahead of real time"; !strings.Contains(second.stdout.String(), want) {
		t.Errorf("second banner lacks %q:\n%s", want, second.stdout)
	}
}

func TestBannerNamesTheDemoUsers(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	banner{fixtures: sandboxclient.Fixtures{Users: []sandboxclient.User{{UserID: 1, AccessToken: "usr_a"}, {UserID: 2, AccessToken: "usr_b"}}}}.write(&out)
	want := "Demo users 1 and 2, diners (query parameter accessToken; the examples use user 1):\n  user 1    usr_a\n  user 2    usr_b\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("banner:\n%s\nwant it to contain:\n%s", out.String(), want)
	}
}

func TestJoinIDs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ids  []int64
		want string
	}{
		{nil, ""},
		{[]int64{1}, "1"},
		{[]int64{1, 2}, "1 and 2"},
		{[]int64{1, 2, 30}, "1, 2 and 30"},
	} {
		if got := joinIDs(tt.ids); got != tt.want {
			t.Errorf("joinIDs(%v) = %q, want %q", tt.ids, got, tt.want)
		}
	}
}

// The README and the banner name the demo users the same way: by id, with
// the one the examples use. "The demo user" alone would be ambiguous with
// two of them.
func TestREADMEAgreesWithTheBannerOnTheDemoUsers(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{"users 1 and 2", "the examples use user 1"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q, as the banner does", want)
		}
	}
	if m := regexp.MustCompile(`(?i)\b(the|a|one) demo (user|diner)\b[^s]`).FindString(readme); m != "" {
		t.Errorf("README.md says %q: say which of the demo users", m)
	}
	var out strings.Builder
	banner{fixtures: sandboxclient.Fixtures{Users: []sandboxclient.User{{UserID: 1}, {UserID: 2}}}}.write(&out)
	if !strings.Contains(out.String(), "Demo users 1 and 2") || !strings.Contains(out.String(), "the examples use user 1") {
		t.Errorf("banner:\n%s", out.String())
	}
}
