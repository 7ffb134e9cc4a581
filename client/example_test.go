package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/hospo-dev/hospo-go/client"
)

// newExampleServer stands in for the service: it answers the wallet call
// and refuses a payment with 404006.
func newExampleServer() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/user/me", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("accessToken") != "user-token" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":true,"code":401002,"message":"Access token invalid.","contextData":null,"displayString":null,"requestInfo":{"accessTokenStatus":"invalid","serverTime":1700000000,"requestId":null,"apiVersion":0}}`)
			return
		}
		fmt.Fprint(w, `{"user":{"userId":7,"defaultCardId":3},"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":1}}`)
	})
	mux.HandleFunc("POST /payments/v1/payment", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-123")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":true,"code":404006,"message":"Payment card not tokenised.","contextData":null,"displayString":null,"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":0}}`)
	})
	return httptest.NewServer(mux)
}

func Example() {
	srv := newExampleServer()
	defer srv.Close()

	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("user-token"))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// A read: the access token goes in the query, the JSON into out.
	var out struct {
		User struct {
			UserID        int64 `json:"userId"`
			DefaultCardID int64 `json:"defaultCardId"`
		} `json:"user"`
		RequestInfo client.RequestInfo `json:"requestInfo"`
	}
	req := &client.Request{Path: "v1/user/me", Query: url.Values{"scope": {"wallet"}}, Auth: client.AuthAccessToken}
	if _, err := c.Do(ctx, req, &out); err != nil {
		panic(err)
	}
	fmt.Println("user", out.User.UserID, "default card", out.User.DefaultCardID, "api version", out.RequestInfo.APIVersion)

	// A write: the POST carries a generated Idempotency-Key; the error is typed.
	pay := &client.Request{
		Method: http.MethodPost,
		Path:   "payments/v1/payment",
		Auth:   client.AuthAccessToken,
		Body:   map[string]any{"locationId": 1, "checkNumber": 42, "cardId": 3, "amount": client.MustParseMoney("7.69"), "tip": client.MustParseMoney("1.00")},
	}
	_, err = c.Do(ctx, pay, nil)
	if errors.Is(err, client.ErrCardNotTokenised) {
		var apiErr *client.APIError
		errors.As(err, &apiErr)
		fmt.Println("tokenise the card first; request id", apiErr.RequestID)
	}

	// One call with another user's token.
	_, err = c.Do(ctx, req, nil, client.WithAccessToken("someone-else"))
	fmt.Println(errors.Is(err, client.ErrAccessTokenInvalid), err)
	// Output:
	// user 7 default card 3 api version 1
	// tokenise the card first; request id req-123
	// true hospo: GET /v1/user/me: HTTP 401: 401002 Access token invalid.
}

func ExampleMoney() {
	a := client.MustParseMoney("0.10")
	b := client.MustParseMoney("0.20")
	fmt.Println(a.Add(b), a.Add(b) == client.MustParseMoney("0.30"))
	_, err := client.ParseMoney("1.234")
	fmt.Println(err)
	// Output:
	// 0.30 true
	// money: more than 2 fraction digits: "1.234"
}

func ExampleAPIError_FieldErrors() {
	err := error(&client.APIError{
		HTTPStatus:  400,
		Code:        client.CodeValidation,
		ContextData: []byte(`{"menuItems[0].price":"required"}`),
	})
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && errors.Is(err, client.ErrValidation) {
		for path, reason := range apiErr.FieldErrors() {
			fmt.Println(path, reason)
		}
	}
	// Output:
	// menuItems[0].price required
}

// A Validate method's refusal and the service's 400002 are handled by one
// branch: both match ErrValidation and name fields by JSON path.
func ExampleValidationError() {
	err := fmt.Errorf("possync: push: %w", &client.ValidationError{Fields: map[string]string{
		"menuItems[0].quantity": "must not be negative",
	}})
	if errors.Is(err, client.ErrValidation) {
		var ve *client.ValidationError
		if errors.As(err, &ve) {
			fmt.Println(ve.Paths())
		}
		fmt.Println(err)
	}
	// Output:
	// [menuItems[0].quantity]
	// possync: push: hospo: invalid request: menuItems[0].quantity: must not be negative
}
