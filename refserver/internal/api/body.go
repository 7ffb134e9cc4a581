package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
)

// MaxBodyBytes is the largest request body accepted (413001 beyond).
const MaxBodyBytes = 1 << 20

// bufferedBody is a request body that has been read in full. It replaces
// r.Body once read, so that the bytes are read once: the guard puts them
// into the request record, and a handler reading r.Body itself still gets
// them.
type bufferedBody struct {
	bytes.Reader
	b []byte
}

func (*bufferedBody) Close() error { return nil }

// readBody returns r's body, reading it in full the first time (r.Body
// becomes bb, the caller's, so that it takes no allocation of its own) and
// telling the trace of w. A body over the limit is a 413001; one that is
// not UTF-8 text is a 400001 (CheckText), whichever decoder reads it later.
func readBody(w http.ResponseWriter, r *http.Request, bb *bufferedBody) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if bb, ok := r.Body.(*bufferedBody); ok {
		return bb.b, nil
	}
	b, err := readAll(r.Body, r.ContentLength)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, Err(client.CodeBodyTooLarge)
		}
		return nil, fmt.Errorf("read request body: %w", err)
	}
	if err := CheckText(b); err != nil {
		return nil, err
	}
	bb.b = b
	bb.Reset(b)
	r.Body = bb
	if t := TraceOf(w); t != nil {
		t.body = b
	}
	return b, nil
}

// bufferedBytes returns r's body if it has been read already, else nil.
func bufferedBytes(r *http.Request) []byte {
	if bb, ok := r.Body.(*bufferedBody); ok {
		return bb.b
	}
	return nil
}

// maxPrealloc bounds the buffer readAll sets aside before any byte has
// arrived: a client can declare a length it never sends.
const maxPrealloc = 32 << 10

// readAll reads body to its end, a *http.MaxBytesError past MaxBodyBytes.
// A declared length (up to maxPrealloc) sizes the buffer at once, instead
// of io.ReadAll growing it through several copies; the body may still turn
// out shorter or longer than declared.
func readAll(body io.Reader, declared int64) ([]byte, error) {
	if declared <= 0 || declared > maxPrealloc {
		b, err := io.ReadAll(io.LimitReader(body, MaxBodyBytes+1))
		if err == nil && len(b) > MaxBodyBytes {
			err = &http.MaxBytesError{Limit: MaxBodyBytes}
		}
		return b, err
	}
	b := make([]byte, 0, declared+1) // +1: room to see EOF without growing
	for {
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if len(b) > MaxBodyBytes {
			return b, &http.MaxBytesError{Limit: MaxBodyBytes}
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than declared: let append grow it
		}
	}
}

// LimitBody returns middleware that caps request bodies at MaxBodyBytes. A
// declared length over the cap is refused at once; a body of unknown length
// (chunked) is a 413001 once the reading passes the cap. Nothing is read
// here: the route's guard reads the body of a request it admits, whether
// or not the handler uses it, so every admitted request with too large a
// body is a 413001.
func (rd *Responder) LimitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			rd.Error(w, r, Err(client.CodeBodyTooLarge))
			return
		}
		// A body of declared length ends there (net/http's server reads
		// no further, and readAll holds in-process requests to the cap
		// too), so only one of unknown length needs the limiting reader.
		if r.Body != nil && r.ContentLength < 0 {
			r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		}
		next.ServeHTTP(w, r)
	})
}

// RequireJSON returns middleware that answers 415001 to a POST, PUT or
// PATCH that carries a body whose Content-Type is not application/json
// (parameters such as charset are allowed). A request without a body needs
// no Content-Type.
func (rd *Responder) RequireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
		default:
			next.ServeHTTP(w, r)
			return
		}
		if !hasBody(r) {
			next.ServeHTTP(w, r)
			return
		}
		ct := r.Header.Get("Content-Type")
		if ct == "application/json" { // what clients send: nothing to parse
			next.ServeHTTP(w, r)
			return
		}
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			rd.Error(w, r, Err(client.CodeUnsupportedMediaType))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hasBody reports whether r carries at least one byte of body. For a body
// of unknown length it reads one byte ahead and puts it back.
func hasBody(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return false
	}
	if r.ContentLength > 0 {
		return true
	}
	if bb, ok := r.Body.(*bufferedBody); ok {
		return len(bb.b) > 0
	}
	var b [1]byte
	n, err := io.ReadFull(r.Body, b[:])
	if n == 0 {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			// Unreadable (e.g. too large): let the body reader report it.
			r.Body = io.NopCloser(errReader{err})
			return true
		}
		r.Body = http.NoBody
		return false
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(strings.NewReader(string(b[:n])), r.Body), r.Body}
	return true
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
