package journal

import (
	"errors"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/hospo-dev/hospo-go/sandbox"
)

// defaultLimit is how many entries Query returns without a limit
// parameter.
const defaultLimit = 100

// Page is the answer to a query of the journal, the body of GET
// /sandbox/requests: the selected entries newest first, the Seq of the
// newest entry recorded (selected or not) and the journal's capacity.
type Page = sandbox.Journal

// Query returns the entries that q selects. q holds the parameters of GET
// /sandbox/requests: limit (default 100), locationId, status (an exact
// status such as 404 or a class such as 4xx) and after (a Seq, for
// pollers); empty parameters are ignored. The error names each bad
// parameter and what it must be, in words fit for a person.
func (j *Journal) Query(q url.Values) (Page, error) {
	f, bad := parseQuery(q, j.Capacity())
	if len(bad) > 0 {
		return Page{}, errors.New(describeBadParams(bad))
	}
	entries, last := j.query(f)
	return Page{Requests: entries, LastSeq: last, Capacity: j.Capacity()}, nil
}

// parseQuery reads the filter parameters. bad maps each invalid parameter
// to what it must be.
func parseQuery(q url.Values, capacity int) (f filter, bad map[string]string) {
	bad = map[string]string{}
	f.Limit = min(defaultLimit, max(capacity, 1))
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > max(capacity, 1) {
			bad["limit"] = "an integer from 1 to " + strconv.Itoa(max(capacity, 1))
		} else {
			f.Limit = n
		}
	}
	if v := q.Get("locationId"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id < 1 {
			bad["locationId"] = "a location id"
		} else {
			f.LocationID = &id
		}
	}
	if v := q.Get("status"); v != "" {
		lo, hi, ok := parseStatusFilter(v)
		if !ok {
			bad["status"] = "a status such as 404, or a class such as 4xx"
		} else {
			f.StatusMin, f.StatusMax = lo, hi
		}
	}
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			bad["after"] = "a sequence number"
		} else {
			f.AfterSeq = n
		}
	}
	return f, bad
}

// parseStatusFilter parses "404" as [404, 404] and "4xx" as [400, 499].
func parseStatusFilter(v string) (lo, hi int, ok bool) {
	if len(v) != 3 || v[0] < '1' || v[0] > '5' {
		return 0, 0, false
	}
	if rest := strings.ToLower(v[1:]); rest == "xx" {
		lo = int(v[0]-'0') * 100
		return lo, lo + 99, true
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, 0, false
	}
	return n, n, true
}

// describeBadParams turns parameter -> expectation into one message, in
// parameter order so that it is stable.
func describeBadParams(bad map[string]string) string {
	names := make([]string, 0, len(bad))
	for k := range bad {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + " must be " + bad[k]
	}
	return "Invalid query parameter: " + strings.Join(parts, "; ") + "."
}
