package main

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"
)

// textHandler writes every record as slog's TextHandler does, whether
// appendPlain takes it or hands it on.
func TestTextHandlerWritesAsTheTextHandler(t *testing.T) {
	t.Parallel()
	zones := []*time.Location{time.UTC, time.FixedZone("", 5*3600+30*60), time.FixedZone("", -7*3600)}
	times := []time.Time{
		time.Date(2026, 11, 27, 8, 30, 0, 0, time.UTC),
		time.Date(2026, 11, 27, 8, 30, 59, 999_999_999, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 60_000, time.UTC),
		time.Now(), // with a monotonic reading
		{},
	}
	attrs := [][]slog.Attr{
		nil,
		{slog.String("method", "POST"), slog.String("route", "/v1/location/{locationId}"), slog.Int("status", 200),
			slog.Duration("duration", 1234567*time.Nanosecond), slog.String("request_id", "0123456789abcdef")},
		{slog.Int("status", -5), slog.Duration("d", 0), slog.Duration("d", -90*time.Second), slog.String("path", `a\b`)},
		{slog.String("route", "-")},
		{slog.String("method", "GET POST")},
		{slog.String("x", "")},
		{slog.String("x", "a=b")},
		{slog.String("x", `say "hi"`)},
		{slog.String("x", "é")},
		{slog.String("x", "tab\there")},
		{slog.String("", "keyless")},
		{slog.String("a b", "key with a space")},
		{slog.Bool("ok", true)},
		{slog.Float64("f", 1.5)},
		{slog.Any("err", nil)},
		{slog.Group("g", slog.Int("n", 1))},
		{slog.Time("at", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
		{slog.Uint64("u", 7)},
	}
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2, slog.LevelDebug - 1}
	msgs := []string{"request", "", "panic in handler", "a=b"}
	ctx := context.Background()
	n := 0
	for _, zone := range zones {
		for _, tm := range times {
			if !tm.IsZero() {
				tm = tm.In(zone)
			}
			for _, as := range attrs {
				for _, lv := range levels {
					for _, msg := range msgs {
						var got, want bytes.Buffer
						r := slog.NewRecord(tm, lv, msg, 0)
						r.AddAttrs(as...)
						if err := newTextHandler(&got, slog.LevelDebug-4).Handle(ctx, r); err != nil {
							t.Fatal(err)
						}
						if err := slog.NewTextHandler(&want, &slog.HandlerOptions{Level: slog.LevelDebug - 4}).Handle(ctx, r); err != nil {
							t.Fatal(err)
						}
						if got.String() != want.String() {
							t.Errorf("got  %q\nwant %q", got.String(), want.String())
						}
						if _, plain := appendPlain(nil, r); plain {
							n++
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Error("no record took the short way")
	}
}

// A handler made by WithAttrs or WithGroup writes as the TextHandler
// does, attributes and groups included.
func TestTextHandlerDerived(t *testing.T) {
	t.Parallel()
	var got, want bytes.Buffer
	slog.New(newTextHandler(&got, slog.LevelInfo)).With("a", 1).WithGroup("g").Info("m", "k", "v")
	slog.New(slog.NewTextHandler(&want, &slog.HandlerOptions{Level: slog.LevelInfo})).With("a", 1).WithGroup("g").Info("m", "k", "v")
	// The times differ; the rest must not.
	cut := func(b *bytes.Buffer) string { s := b.String(); return s[bytes.IndexByte(b.Bytes(), ' '):] }
	if cut(&got) != cut(&want) {
		t.Errorf("got %q, want %q", got.String(), want.String())
	}
}
