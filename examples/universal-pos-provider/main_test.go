package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/universalpos"
)

// TestPassesConformance runs the example POS and fails if any check of
// the conformance checker fails.
func TestPassesConformance(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newHandler("example-token", slog.New(slog.DiscardHandler)))
	defer srv.Close()
	report := universalpos.RunConformance(context.Background(), universalpos.ConformanceConfig{
		URL: srv.URL, Token: "example-token", HTTPClient: srv.Client(),
	})
	var out strings.Builder
	_ = report.Write(&out)
	if !report.Passed() {
		t.Fatalf("conformance check failed:\n%s", out.String())
	}
	t.Log("\n" + out.String())
}

func TestMenuIsValid(t *testing.T) {
	t.Parallel()
	menus, _ := newShop(slog.New(slog.DiscardHandler)).Menus(context.Background())
	if probs := universalpos.ValidateMenus(menus); len(probs) > 0 {
		t.Fatalf("menu problems: %v", probs)
	}
}
