package main

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves Go's runtime profiles (/debug/pprof/) on their own
// listener at addr, so that a profile of the server under load can be
// taken with `go tool pprof http://ADDR/debug/pprof/profile`. They are
// never mounted on the API listeners: a profile shows internals, and the
// flag is meant for a loopback address on a developer machine. The
// command line is not served: it carries -admin-key.
func servePprof(addr string, logger *slog.Logger) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, net.ErrClosed) {
			logger.Warn("pprof listener stopped", "err", err)
		}
	}()
	logger.Info("serving runtime profiles", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return ln, nil
}
