package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// benchBody is a wallet response of realistic size (two cards).
const benchBody = `{"user":{"userId":7,"userStatus":1,"dateCreated":1700000000,"lastUpdated":1700000000,"defaultCardId":3,"wallet":[` +
	`{"cardId":3,"last4Digits":"4242","nickname":"Work","cardTypeId":"1","cardStatusId":1,"default":true,"expiryMonth":"12","expiryYear":"29","gateways":{"providerA":false,"providerB":true,"providerC":false,"providerD":false,"providerE":false}},` +
	`{"cardId":4,"last4Digits":"1881","nickname":"Home","cardTypeId":"2","cardStatusId":1,"default":false,"expiryMonth":"01","expiryYear":"30","gateways":{"providerA":false,"providerB":false,"providerC":false,"providerD":true,"providerE":false}}]},` +
	`"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":1}}`

type benchCard struct {
	CardID       int64           `json:"cardId"`
	Last4Digits  string          `json:"last4Digits"`
	Nickname     string          `json:"nickname"`
	CardTypeID   string          `json:"cardTypeId"`
	CardStatusID int             `json:"cardStatusId"`
	Default      bool            `json:"default"`
	ExpiryMonth  string          `json:"expiryMonth"`
	ExpiryYear   string          `json:"expiryYear"`
	Gateways     map[string]bool `json:"gateways"`
}

type benchUser struct {
	User struct {
		UserID        int64       `json:"userId"`
		UserStatus    int         `json:"userStatus"`
		DateCreated   UnixTime    `json:"dateCreated"`
		LastUpdated   UnixTime    `json:"lastUpdated"`
		DefaultCardID int64       `json:"defaultCardId"`
		Wallet        []benchCard `json:"wallet"`
	} `json:"user"`
	RequestInfo RequestInfo `json:"requestInfo"`
}

// BenchmarkClientOverhead compares one SDK GET with the same call written by
// hand with net/http and encoding/json, against the same local server, each
// over its own pooled transport. Run with:
//
//	go test -run '^$' -bench ClientOverhead -benchmem -count 5 ./client/
func BenchmarkClientOverhead(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("accessToken") != "bench-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(HeaderRequestID, "bench")
		w.Write([]byte(benchBody))
	}))
	defer srv.Close()
	newTransport := func() *http.Transport {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 16
		return tr
	}
	ctx := context.Background()

	b.Run("sdk", func(b *testing.B) {
		tr := newTransport()
		defer tr.CloseIdleConnections()
		c, err := New(WithBaseURL(srv.URL), WithAccessToken("bench-token"), WithHTTPClient(&http.Client{Transport: tr}))
		if err != nil {
			b.Fatal(err)
		}
		req := &Request{Path: "v1/user/me", Query: url.Values{"scope": {"wallet"}}, Auth: AuthAccessToken}
		b.ReportAllocs()
		for b.Loop() {
			var out benchUser
			if _, err := c.Do(ctx, req, &out); err != nil {
				b.Fatal(err)
			}
			if len(out.User.Wallet) != 2 {
				b.Fatal("bad decode")
			}
		}
	})

	b.Run("nethttp", func(b *testing.B) {
		tr := newTransport()
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr}
		base := srv.URL + "/v1/user/me"
		b.ReportAllocs()
		for b.Loop() {
			var out benchUser
			if err := handWritten(ctx, hc, base, "bench-token", &out); err != nil {
				b.Fatal(err)
			}
			if len(out.User.Wallet) != 2 {
				b.Fatal("bad decode")
			}
		}
	})

	// paired alternates the two calls in one loop, each first in every
	// other pair, and reports the median time of each and the SDK's
	// overhead between the medians. On a shared machine, load from other
	// processes comes and goes; pairing puts both sides under the same
	// load, and medians ignore the spikes.
	b.Run("paired", func(b *testing.B) { benchPaired(b, srv.URL, newTransport) })

	// paired-telemetry is paired with tracing and metrics on: a span per
	// call (sampled, ended, then dropped for want of an exporter, so the
	// cost is the SDK's recording, not an export) and the duration
	// histogram.
	b.Run("paired-telemetry", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer tp.Shutdown(ctx)
		defer mp.Shutdown(ctx)
		benchPaired(b, srv.URL, newTransport, WithTracerProvider(tp), WithMeterProvider(mp))
	})
}

// benchPaired runs the paired comparison of BenchmarkClientOverhead, with
// opts added to the SDK client's options.
func benchPaired(b *testing.B, srvURL string, newTransport func() *http.Transport, opts ...Option) {
	ctx := context.Background()
	tr1, tr2 := newTransport(), newTransport()
	defer tr1.CloseIdleConnections()
	defer tr2.CloseIdleConnections()
	c, err := New(append([]Option{WithBaseURL(srvURL), WithAccessToken("bench-token"), WithHTTPClient(&http.Client{Transport: tr1})}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: tr2}
	req := &Request{Route: "/v1/user/me", Path: "v1/user/me", Query: url.Values{"scope": {"wallet"}}, Auth: AuthAccessToken}
	base := srvURL + "/v1/user/me"
	callSDK := func() time.Duration {
		var out benchUser
		t0 := time.Now()
		if _, err := c.Do(ctx, req, &out); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	callHand := func() time.Duration {
		var out benchUser
		t0 := time.Now()
		if err := handWritten(ctx, hc, base, "bench-token", &out); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	var sdk, hand []time.Duration
	b.ReportAllocs()
	first := true
	for b.Loop() {
		// Each side goes first in every other pair, so that neither
		// always runs while the other's connection finishes its work.
		if first {
			sdk = append(sdk, callSDK())
			hand = append(hand, callHand())
		} else {
			hand = append(hand, callHand())
			sdk = append(sdk, callSDK())
		}
		first = !first
	}
	ms, mh := median(sdk), median(hand)
	b.ReportMetric(float64(ms.Nanoseconds()), "sdk-median-ns")
	b.ReportMetric(float64(mh.Nanoseconds()), "nethttp-median-ns")
	b.ReportMetric(100*(float64(ms)/float64(mh)-1), "overhead-%")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// cannedTransport answers every request with benchBody from memory, so the
// in-memory sub-benchmarks measure the client code alone, without sockets
// and their noise.
type cannedTransport struct{}

func (cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Query().Get("accessToken") != "bench-token" {
		return nil, fmt.Errorf("no token")
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        http.Header{"Content-Type": {"application/json"}, HeaderRequestID: {"bench"}},
		Body:          io.NopCloser(strings.NewReader(benchBody)),
		ContentLength: int64(len(benchBody)),
		Request:       r,
	}, nil
}

// BenchmarkClientOverheadInMemory is BenchmarkClientOverhead over an
// in-memory transport: the SDK's own cost, magnified.
func BenchmarkClientOverheadInMemory(b *testing.B) {
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		c, err := New(WithBaseURL("http://bench.test"), WithAccessToken("bench-token"), WithHTTPClient(&http.Client{Transport: cannedTransport{}}))
		if err != nil {
			b.Fatal(err)
		}
		req := &Request{Path: "v1/user/me", Query: url.Values{"scope": {"wallet"}}, Auth: AuthAccessToken}
		b.ReportAllocs()
		for b.Loop() {
			var out benchUser
			if _, err := c.Do(ctx, req, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk-telemetry", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer tp.Shutdown(ctx)
		defer mp.Shutdown(ctx)
		c, err := New(WithBaseURL("http://bench.test"), WithAccessToken("bench-token"), WithHTTPClient(&http.Client{Transport: cannedTransport{}}),
			WithTracerProvider(tp), WithMeterProvider(mp))
		if err != nil {
			b.Fatal(err)
		}
		req := &Request{Route: "/v1/user/me", Path: "v1/user/me", Query: url.Values{"scope": {"wallet"}}, Auth: AuthAccessToken}
		b.ReportAllocs()
		for b.Loop() {
			var out benchUser
			if _, err := c.Do(ctx, req, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("nethttp", func(b *testing.B) {
		hc := &http.Client{Transport: cannedTransport{}}
		b.ReportAllocs()
		for b.Loop() {
			var out benchUser
			if err := handWritten(ctx, hc, "http://bench.test/v1/user/me", "bench-token", &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// handWritten is the call a careful user would write without the SDK: the
// same headers, a status check, a decode into the same typed struct, and
// the body drained and closed.
func handWritten(ctx context.Context, hc *http.Client, base, token string, out any) error {
	q := url.Values{"scope": {"wallet"}, "accessToken": {token}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "bench")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer func() {
		// Drained, so that the connection goes back to the pool whatever
		// the decoder left unread, as the SDK does.
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
