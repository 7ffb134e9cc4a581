package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/universalpos"
)

type pos struct{ broken bool }

func (p pos) Health(context.Context) (universalpos.HealthStatus, error) {
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}

func (p pos) Menus(context.Context) ([]universalpos.Menu, error) {
	item := universalpos.Item{PLU: "A", Name: "Tea", Price: client.MustParseMoney("2.00"), Available: true}
	items := []universalpos.Item{item}
	if p.broken {
		items = append(items, item) // duplicate PLU
	}
	return []universalpos.Menu{{Reference: "m", Name: "M", Type: universalpos.MenuTypeAny,
		Categories: []universalpos.Category{{Reference: "c", Name: "Drinks", Items: items}}}}, nil
}

func (p pos) CreateOrder(_ context.Context, o universalpos.Order) (string, error) {
	return "P-" + o.OrderID, nil
}

func TestRun(t *testing.T) {
	t.Parallel()
	good := httptest.NewServer(universalpos.NewHandler(pos{}, universalpos.HandlerOptions{Token: "tok"}))
	t.Cleanup(good.Close)
	bad := httptest.NewServer(universalpos.NewHandler(pos{broken: true}, universalpos.HandlerOptions{Token: "tok"}))
	t.Cleanup(bad.Close)
	noEnv := func(string) string { return "" }
	tests := []struct {
		name   string
		args   []string
		getenv func(string) string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"passes", []string{"-url", good.URL, "-token", "tok"}, noEnv, 0, "8 checks: 8 passed, 0 failed", ""},
		{"token from env", []string{"-url", good.URL}, func(k string) string {
			if k == "POS_TOKEN" {
				return "tok"
			}
			return ""
		}, 0, "PASS orders/accepted", ""},
		{"fails", []string{"-url", bad.URL, "-token", "tok"}, noEnv, 1, "FAIL menus/consistency", ""},
		{"wrong token", []string{"-url", good.URL, "-token", "nope"}, noEnv, 1, "FAIL health", ""},
		{"no url", []string{"-token", "tok"}, noEnv, 2, "", "-url is required"},
		{"no token", []string{"-url", good.URL}, noEnv, 2, "", "-token (or $POS_TOKEN) is required"},
		{"bad url", []string{"-url", "pos.example.com", "-token", "tok"}, noEnv, 2, "", "not an absolute http or https URL"},
		{"bad flag", []string{"-nope"}, noEnv, 2, "", "flag provided but not defined"},
		{"extra args", []string{"-url", good.URL, "-token", "tok", "more"}, noEnv, 2, "", "unexpected arguments"},
		{"help", []string{"-h"}, noEnv, 0, "", "usage: posconform"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr strings.Builder
			code := run(context.Background(), tc.args, tc.getenv, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stdout:\n%s\nstderr:\n%s\nwant %q / %q", stdout.String(), stderr.String(), tc.stdout, tc.stderr)
			}
			if strings.Contains(stdout.String()+stderr.String(), "tok\n") {
				t.Error("output shows the token")
			}
		})
	}
}
