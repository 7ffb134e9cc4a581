package sandbox

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
)

const journalJSON = `{"requests":[
	{"seq":12,"time":"2026-05-01T12:00:00Z","method":"POST","route":"/v2/payment/","status":409,"errorCode":409003,
	 "durationMs":1.25,"requestId":"rid-12","credential":"user","userId":1,"posLocationId":null,"keyId":null,"locationId":2},
	{"seq":11,"time":"2026-05-01T11:59:59Z","method":"GET","route":"-","status":404,"errorCode":404001,
	 "durationMs":0.5,"requestId":"rid-11","credential":"none","userId":null,"posLocationId":null,"keyId":null,"locationId":null}
],"lastSeq":12,"capacity":1000}`

func TestRequests(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/requests", rec.json(200, journalJSON))

	tests := []struct {
		name  string
		q     JournalQuery
		query map[string][]string
	}{
		{"everything", JournalQuery{}, map[string][]string{}},
		{"every filter", JournalQuery{Limit: 5, LocationID: 2, Status: "4xx", After: 10},
			map[string][]string{"limit": {"5"}, "locationId": {"2"}, "status": {"4xx"}, "after": {"10"}}},
	}
	for _, tt := range tests {
		j, err := s.Requests(context.Background(), tt.q)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		c := rec.last(t)
		testAdminRequest(t, c, http.MethodGet, "/prefix/sandbox/requests")
		if d := cmp.Diff(tt.query, c.Query); d != "" {
			t.Errorf("%s: query (-want +got):\n%s", tt.name, d)
		}
		one, two := int64(1), int64(2)
		conflict, notFound := client.CodeLocationOffline, client.CodeNotFound
		want := Journal{
			Requests: []JournalEntry{
				{Seq: 12, Time: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Method: "POST", Route: "/v2/payment/", Status: 409,
					ErrorCode: &conflict, DurationMs: 1.25, RequestID: "rid-12", Credential: "user", UserID: &one, LocationID: &two},
				{Seq: 11, Time: time.Date(2026, 5, 1, 11, 59, 59, 0, time.UTC), Method: "GET", Route: "-", Status: 404,
					ErrorCode: &notFound, DurationMs: 0.5, RequestID: "rid-11", Credential: "none"},
			},
			LastSeq:  12,
			Capacity: 1000,
		}
		if d := cmp.Diff(want, j); d != "" {
			t.Errorf("%s: journal (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestRequestsBadQuery(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/requests", new(recorder).json(400,
		errorBody(client.CodeInvalidQuery, "Invalid query parameter: status must be a status such as 404, or a class such as 4xx.", "")))

	_, err := s.Requests(context.Background(), JournalQuery{Status: "four"})
	var apiErr *client.APIError
	if !errors.Is(err, client.ErrInvalidQuery) || !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want a 400003", err)
	}
}
