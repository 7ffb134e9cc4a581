package main

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// textHandler is slog's TextHandler with a shorter way for the records
// that the server writes most, one per request (api.AccessLog): a record
// whose attributes are strings, integers and durations that need no
// quoting is written by appendPlain, byte for byte as the TextHandler
// writes it, without the TextHandler's general machinery. Any other
// record, and every record of a handler made by WithAttrs or WithGroup,
// goes to the TextHandler.
type textHandler struct {
	*slog.TextHandler
	w io.Writer // safe for concurrent Writes (logWriter)
}

// newTextHandler returns the handler of records of level or above,
// written to w.
func newTextHandler(w io.Writer, level slog.Leveler) *textHandler {
	return &textHandler{TextHandler: slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}), w: w}
}

// Handle writes r, through appendPlain when it can.
func (h *textHandler) Handle(ctx context.Context, r slog.Record) error {
	bp := linePool.Get().(*[]byte)
	defer linePool.Put(bp)
	line, ok := appendPlain((*bp)[:0], r)
	if !ok {
		return h.TextHandler.Handle(ctx, r)
	}
	*bp = line
	_, err := h.w.Write(line)
	return err
}

var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// appendPlain appends r's line as slog's TextHandler (without options
// but the level) writes it, and reports whether it could: false for a
// record with no time, a level other than DEBUG, INFO, WARN or ERROR, an
// attribute of another kind, or a key or string that the TextHandler
// would quote.
func appendPlain(b []byte, r slog.Record) ([]byte, bool) {
	if r.Time.IsZero() || !plainText(r.Message) {
		return b, false
	}
	switch r.Level {
	case slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError:
	default:
		return b, false
	}
	b = append(b, "time="...)
	// The TextHandler's time: milliseconds, truncated, and the zone.
	b = r.Time.Round(0).Truncate(time.Millisecond).AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, " level="...)
	b = append(b, r.Level.String()...)
	b = append(b, " msg="...)
	b = append(b, r.Message...)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		if !plainText(a.Key) {
			ok = false
			return false
		}
		b = append(b, ' ')
		b = append(b, a.Key...)
		b = append(b, '=')
		switch v := a.Value; v.Kind() {
		case slog.KindString:
			if ok = plainText(v.String()); ok {
				b = append(b, v.String()...)
			}
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindDuration:
			b = append(b, v.Duration().String()...)
		default:
			ok = false
		}
		return ok
	})
	return append(b, '\n'), ok
}

// plainText reports whether the TextHandler writes s as it is: not
// empty, printable ASCII without space, '=' or '"'. (It quotes no other
// ASCII string; a string this refuses goes to the TextHandler, which
// decides.)
func plainText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '=' || c == '"' {
			return false
		}
	}
	return true
}
