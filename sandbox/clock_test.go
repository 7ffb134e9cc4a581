package sandbox

import (
	"context"
	"net/http"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/clock", rec.json(200, `{"serverTime":1700000360,"offsetSeconds":360}`))

	c, err := s.Clock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	testAdminRequest(t, rec.last(t), http.MethodGet, "/prefix/sandbox/clock")
	if want := time.Unix(1700000360, 0).UTC(); !c.ServerTime.Equal(want) {
		t.Errorf("ServerTime = %v, want %v", c.ServerTime, want)
	}
	if c.Offset() != 6*time.Minute {
		t.Errorf("Offset = %v, want 6m", c.Offset())
	}
}

func TestAdvanceClock(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/clock", rec.json(200, `{"serverTime":1700000420,"offsetSeconds":420}`))

	c, err := s.AdvanceClock(context.Background(), 7*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	r := rec.last(t)
	testAdminRequest(t, r, http.MethodPost, "/prefix/sandbox/clock")
	testBody(t, r, `{"advanceSeconds":420}`)
	if c.Offset() != 7*time.Minute || c.ServerTime.Unix() != 1700000420 {
		t.Errorf("clock = %+v", c)
	}

	// Half a second cannot be sent; it is refused, not cut to nothing.
	if _, err := s.AdvanceClock(context.Background(), 1500*time.Millisecond); err == nil {
		t.Error("AdvanceClock(1.5s) succeeded, want an error")
	}
	if n := rec.count(); n != 1 {
		t.Errorf("%d requests sent, want 1", n)
	}
}
