package sdktest

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/jarcoal/httpmock"
)

// Code is an error code of the service's catalogue: client.Code, taken as
// a type parameter so that this package need not import the client.
type Code interface {
	~int
	HTTPStatus() int
	Message() string
}

// ServerTime is the serverTime of every requestInfo this package writes
// (2023-11-14T22:13:20Z).
const ServerTime = 1700000000

// RequestInfo returns the member `"requestInfo":{...}` of an answer of
// apiVersion for an authenticated caller, to splice into a response body.
func RequestInfo(apiVersion int) string {
	return `"requestInfo":{"accessTokenStatus":"authenticated","serverTime":` + strconv.Itoa(ServerTime) +
		`,"requestId":null,"apiVersion":` + strconv.Itoa(apiVersion) + `}`
}

// ErrorBody is the service's error body for code with the catalogue's
// message. contextData is a JSON value, such as the field errors of a
// 400002 (`{"items[0].plu":"required"}`); "" stands for null.
func ErrorBody[C Code](code C, contextData string) string {
	if contextData == "" {
		contextData = "null"
	}
	msg, _ := json.Marshal(code.Message())
	return `{"error":true,"code":` + strconv.Itoa(int(code)) + `,"message":` + string(msg) +
		`,"contextData":` + contextData + `,"displayString":null,` + RequestInfo(0) + `}`
}

// ErrorResponse is the service's answer for code: its HTTP status,
// ErrorBody(code, ""), a request id "req-<code>" in X-Request-Id and the
// header pairs given (name, value, name, value...).
func ErrorResponse[C Code](code C, header ...string) *http.Response {
	resp := JSONResponse(code.HTTPStatus(), ErrorBody(code, ""))
	resp.Header.Set("X-Request-Id", "req-"+strconv.Itoa(int(code)))
	for i := 0; i+1 < len(header); i += 2 {
		resp.Header.Set(header[i], header[i+1])
	}
	return resp
}

// ErrorResponder answers every request with ErrorResponse(code, header...).
func ErrorResponder[C Code](code C, header ...string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) { return ErrorResponse(code, header...), nil }
}
