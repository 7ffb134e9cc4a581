package sandbox

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
)

func TestAdminKeyMissing(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t, client.WithAdminKey(""))
	var rec recorder
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/fixtures", rec.json(200, fixturesJSON))

	_, err := s.Fixtures(context.Background())
	if !errors.Is(err, client.ErrNoCredential) || !strings.Contains(err.Error(), "WithAdminKey") {
		t.Errorf("err = %v, want ErrNoCredential naming WithAdminKey", err)
	}
	if rec.count() != 0 {
		t.Error("a request was sent without the admin key")
	}

	// A per-call key is enough.
	if _, err := s.Fixtures(context.Background(), client.WithAdminKey(testAdminKey)); err != nil {
		t.Errorf("with a per-call admin key: %v", err)
	}
	testAdminRequest(t, rec.last(t), http.MethodGet, "/prefix/sandbox/fixtures")
}

// A wrong key is a 401005; whatever the server or the transport says, the
// key never shows in an error or a log line.
func TestAdminKeyInvalidIsRedacted(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, mt := newMockService(t, client.WithLogger(logger))
	// A careless proxy echoing the header it got.
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/users", new(recorder).json(401,
		errorBody(client.CodeAdminKeyInvalid, "Admin key invalid: "+testAdminKey, "")))
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/clock", new(recorder).json(503, `<html>key `+testAdminKey+`</html>`))

	_, err := s.CreateUser(context.Background())
	if !errors.Is(err, client.ErrAdminKeyInvalid) {
		t.Errorf("err = %v, want ErrAdminKeyInvalid", err)
	}
	_, err2 := s.Clock(context.Background())
	if err2 == nil {
		t.Fatal("503: no error")
	}
	for _, text := range []string{err.Error(), err2.Error(), logs.String()} {
		if strings.Contains(text, testAdminKey) {
			t.Errorf("the admin key shows in %q", text)
		}
	}
}
