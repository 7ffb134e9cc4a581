package refserver

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// defaultJournalLimit is how many entries GET /sandbox/requests returns
// without a limit parameter.
const defaultJournalLimit = 100

// journalResponse is the body of GET /sandbox/requests.
type journalResponse struct {
	// Requests are the selected entries, newest first.
	Requests []journalEntry `json:"requests"`
	// LastSeq is the Seq of the newest request recorded, selected or not;
	// pass it back as after= to get only what came since.
	LastSeq int64 `json:"lastSeq"`
	// Capacity is how many requests the journal keeps.
	Capacity int `json:"capacity"`
}

// journalHandler serves GET /sandbox/requests?limit=&locationId=&status=&after=:
// the latest requests of j, newest first. status is an exact status (404)
// or a class (4xx); after is a Seq, for pollers. A bad parameter is a
// 400003 naming it.
func journalHandler(rd *api.Responder, j *journal) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f, bad := parseJournalQuery(r.URL.Query(), j.capacity())
		if len(bad) > 0 {
			rd.Error(w, r, apiErrMsg(client.CodeInvalidQuery, describeBadParams(bad)))
			return
		}
		entries, last := j.query(f)
		rd.JSON(w, r, http.StatusOK, journalResponse{Requests: entries, LastSeq: last, Capacity: j.capacity()})
	}
}

// parseJournalQuery reads the journal's filter parameters. bad maps each
// invalid parameter to what it must be; empty parameters are ignored.
func parseJournalQuery(q url.Values, capacity int) (f journalFilter, bad map[string]string) {
	bad = map[string]string{}
	f.Limit = min(defaultJournalLimit, max(capacity, 1))
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
