package api

import (
	"net/http"
	"testing"
	"time"
)

// WrapTransport wraps the client's transport, or the default one, in a
// copy: the client it is given keeps its own.
func TestWrapTransport(t *testing.T) {
	t.Parallel()
	var got []http.RoundTripper
	wrap := func(next http.RoundTripper) http.RoundTripper { got = append(got, next); return nil }
	own := &http.Transport{}
	hc := &http.Client{Transport: own, Timeout: time.Minute}
	c := WrapTransport(hc, wrap)
	if hc.Transport != own || c == hc || c.Timeout != time.Minute {
		t.Errorf("the client given changed, or the copy lost its timeout: %+v, %+v", hc, c)
	}
	WrapTransport(&http.Client{}, wrap)
	if len(got) != 2 || got[0] != own || got[1] != http.DefaultTransport {
		t.Errorf("wrapped %v, want the client's own transport, then the default", got)
	}
}
