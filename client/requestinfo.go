package client

import "time"

// RequestInfo is the requestInfo object that the service puts in its
// responses and error bodies.
type RequestInfo struct {
	// AccessTokenStatus is "authenticated", "missing", "invalid" or "expired".
	AccessTokenStatus string `json:"accessTokenStatus"`
	// ServerTime is the server's clock in Unix seconds.
	ServerTime int64 `json:"serverTime"`
	// RequestID is always null in bodies; the request id travels in the
	// X-Request-Id header (see APIError.RequestID).
	RequestID *string `json:"requestId"`
	// APIVersion is the version of the answering endpoint; 0 in errors.
	APIVersion int `json:"apiVersion"`
}

// Time returns ServerTime as a time.Time in UTC.
func (ri RequestInfo) Time() time.Time { return time.Unix(ri.ServerTime, 0).UTC() }
