package client

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
)

func TestDoCopiesTheBodyToAWriter(t *testing.T) {
	t.Parallel()
	const base = "https://api.test/prefix/"
	mt := httpmock.NewMockTransport()
	c, err := New(WithBaseURL(base), WithHTTPClient(&http.Client{Transport: mt}), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	const pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
	mt.RegisterResponder("GET", base+"sandbox/ca.pem", httpmock.NewStringResponder(200, pem))
	mt.RegisterResponder("GET", base+"sandbox/missing.pem", httpmock.NewStringResponder(404,
		`{"error":true,"code":404001,"message":"Not found.","contextData":null,"displayString":null,`+
			`"requestInfo":{"accessTokenStatus":"missing","serverTime":1700000000,"requestId":null,"apiVersion":0}}`))

	var buf bytes.Buffer
	if _, err := c.Do(context.Background(), &Request{Path: "sandbox/ca.pem"}, &buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != pem {
		t.Errorf("body = %q, want %q as it was sent", buf.String(), pem)
	}

	// An error answer is still decoded into an *APIError, and nothing of
	// it reaches the writer.
	buf.Reset()
	_, err = c.Do(context.Background(), &Request{Path: "sandbox/missing.pem"}, &buf)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
	if buf.Len() != 0 {
		t.Errorf("writer got %q from an error answer", buf.String())
	}
}
