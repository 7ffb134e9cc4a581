package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// listenBoth opens the HTTP (-addr) and HTTPS (-tls-addr) listeners. It
// tries both even when the first fails, so that a second sandbox started
// with its defaults hears about both flags at once rather than one run at
// a time.
func listenBoth(o options) (ln, tln net.Listener, err error) {
	ln, lerr := listen("-addr", o.addr)
	tln, terr := listen("-tls-addr", o.tlsAddr)
	if err := errors.Join(lerr, terr); err != nil {
		for _, l := range []net.Listener{ln, tln} {
			if l != nil {
				l.Close()
			}
		}
		if o.db != ":memory:" && (errors.Is(lerr, syscall.EADDRINUSE) || errors.Is(terr, syscall.EADDRINUSE)) {
			err = fmt.Errorf("%w\na second sandbox on the same database is refused too: give this one a -db other than %s (another file, or :memory: to keep nothing on disk)", err, o.db)
		}
		return nil, nil, err
	}
	return ln, tln, nil
}

// listen opens a TCP listener on addr, the value of flag. Its error names
// the flag; when the address is taken, most often by a sandbox already
// running, it also offers a free address to pass instead, where net's
// error alone says only "address already in use".
func listen(flag, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%s %s: %w", flag, addr, err)
	}
	fix := "choose a free address with " + flag
	if free := freeAddrNear(addr); free != "" {
		fix = "start this one with " + flag + " " + free + ", which is free"
	}
	return nil, fmt.Errorf("%s %s is in use, most likely by a sandbox already running: %s (%w)", flag, addr, fix, err)
}

// freeAddrNear returns an address on addr's host whose port is one of the
// next few after addr's and free at the time of asking, or "" if there is
// none. A port next to the usual one is easier to remember than the
// random one that port 0 would give.
func freeAddrNear(addr string) string {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 {
		return ""
	}
	for next := port + 1; next <= min(port+100, 65535); next++ {
		cand := net.JoinHostPort(host, strconv.Itoa(next))
		if l, err := net.Listen("tcp", cand); err == nil {
			l.Close()
			return cand
		}
	}
	return ""
}
