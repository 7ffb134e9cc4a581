package wallet

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

var walletJSON = `{"wallet":[
	{"cardId":1,"last4Digits":"1111","nickname":"old","cardTypeId":"1","cardStatusId":1,"default":true,"expiryMonth":"04","expiryYear":"29","gateways":{"providerA":false,"providerB":true,"providerC":false,"providerD":false,"providerE":false}},
	{"cardId":2,"last4Digits":"4444","nickname":"new","cardTypeId":"2","cardStatusId":4,"default":false,"expiryMonth":"12","expiryYear":"30","gateways":{"providerA":false,"providerB":true,"providerC":false,"providerD":true,"providerE":false}}
],` + requestInfoJSON + `}`

func TestInsertCard(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodPost, "v3/user/me/wallet/card/insert", 200, walletJSON)

	cards, err := s.InsertCard(context.Background(), InsertCardRequest{
		ExpiryMonth: 12, ExpiryYear: 30, First6Digits: "555555", Last4Digits: "4444",
		Nickname: "new", Save: false, Default: false, ProviderBCse: "cse", ProviderDToken: "tok",
	})
	if err != nil {
		t.Fatalf("InsertCard: %v", err)
	}
	c := rec.Last(t)
	sdktest.TestPath(t, c, http.MethodPost, "/prefix/v3/user/me/wallet/card/insert")
	if got := c.Query["accessToken"]; len(got) != 1 || got[0] != testToken {
		t.Errorf("accessToken = %v", got)
	}
	if c.Header.Get("Idempotency-Key") == "" || c.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers = %v", c.Header)
	}
	sdktest.TestJSONBody(t, c, `{"expiryMonth":12,"expiryYear":30,"first6Digits":"555555","last4Digits":"4444",
		"nickname":"new","save":false,"default":false,"providerBCse":"cse","providerDToken":"tok"}`)
	want := []Card{
		{CardID: 1, Last4Digits: "1111", Nickname: "old", CardTypeID: CardTypeNetwork1, CardStatusID: CardStatusLive, Default: true, ExpiryMonth: "04", ExpiryYear: "29", Gateways: Gateways{ProviderB: true}},
		{CardID: 2, Last4Digits: "4444", Nickname: "new", CardTypeID: CardTypeNetwork2, CardStatusID: CardStatusTemporary, ExpiryMonth: "12", ExpiryYear: "30", Gateways: Gateways{ProviderB: true, ProviderD: true}},
	}
	if d := cmp.Diff(want, cards); d != "" {
		t.Errorf("wallet (-want +got):\n%s", d)
	}
	if n, ok := NewestCard(cards); !ok || n.CardID != 2 {
		t.Errorf("NewestCard = %v, %v", n.CardID, ok)
	}
}

func TestInsertCardOmitsEmptyTokens(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodPost, "v3/user/me/wallet/card/insert", 200, walletJSON)
	if _, err := s.InsertCard(context.Background(), InsertCardRequest{ExpiryMonth: 1, ExpiryYear: 30, First6Digits: "411111", Last4Digits: "1111", Save: true, ProviderDToken: "t"}); err != nil {
		t.Fatal(err)
	}
	sdktest.TestJSONBody(t, rec.Last(t), `{"expiryMonth":1,"expiryYear":30,"first6Digits":"411111","last4Digits":"1111","nickname":"","save":true,"default":false,"providerDToken":"t"}`)
}

func TestInsertCardValidationError(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Reply(http.MethodPost, "v3/user/me/wallet/card/insert", 400, sdktest.ErrorBody(client.CodeValidation, `{"first6Digits":"must be 6 digits","providerBCse":"one of providerBCse or providerDToken is required"}`))
	_, err := s.InsertCard(context.Background(), InsertCardRequest{})
	var apiErr *client.APIError
	if !errors.Is(err, client.ErrValidation) || !errors.As(err, &apiErr) {
		t.Fatalf("err = %v", err)
	}
	if got := apiErr.FieldErrors(); len(got) != 2 || got["first6Digits"] == "" {
		t.Errorf("FieldErrors = %v", got)
	}
}

func TestGetWallet(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodGet, "v1/user/me", 200, `{"user":{"userId":5,"userStatus":1,
		"dateCreated":1700000000,"lastUpdated":1700000100,"defaultCardId":1,"wallet":[
		{"cardId":1,"last4Digits":"1111","nickname":"","cardTypeId":"7","cardStatusId":42,"default":true,"expiryMonth":"04","expiryYear":"29","gateways":{"providerB":true}}]},`+requestInfoJSON+`}`)

	u, err := s.GetWallet(context.Background(), client.WithAccessToken("other-user"))
	if err != nil {
		t.Fatalf("GetWallet: %v", err)
	}
	c := rec.Last(t)
	sdktest.TestPath(t, c, http.MethodGet, "/prefix/v1/user/me")
	if d := cmp.Diff(url.Values{"scope": {"wallet"}, "accessToken": {"other-user"}}, c.Query); d != "" {
		t.Errorf("query (-want +got):\n%s", d)
	}
	want := User{
		UserID: 5, UserStatus: 1,
		DateCreated:   client.UnixTime{Time: time.Unix(1700000000, 0).UTC()},
		LastUpdated:   client.UnixTime{Time: time.Unix(1700000100, 0).UTC()},
		DefaultCardID: 1,
		Wallet: []Card{{CardID: 1, Last4Digits: "1111", CardTypeID: "7", CardStatusID: 42, Default: true,
			ExpiryMonth: "04", ExpiryYear: "29", Gateways: Gateways{ProviderB: true}}},
	}
	if d := cmp.Diff(want, u); d != "" {
		t.Errorf("user (-want +got):\n%s", d)
	}
	if dc, ok := u.DefaultCard(); !ok || dc.CardID != 1 {
		t.Errorf("DefaultCard = %v, %v", dc, ok)
	}
	if u.Wallet[0].CardTypeID.Known() || u.Wallet[0].CardStatusID.Known() {
		t.Error("unknown enum values reported as known")
	}
}

func TestNoCredentialSendsNothing(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	_, err := s.GetWallet(context.Background(), client.WithAccessToken(""))
	if !errors.Is(err, client.ErrNoCredential) {
		t.Fatalf("err = %v, want ErrNoCredential", err)
	}
	if n := m.Calls(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestInsertCardRequestValidate(t *testing.T) {
	t.Parallel()
	ok := InsertCardRequest{ExpiryMonth: 6, ExpiryYear: 30, First6Digits: "411111", Last4Digits: "1111", Nickname: "work", Save: true, ProviderDToken: "t"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid request: %v", err)
	}
	bad := InsertCardRequest{ExpiryMonth: 13, ExpiryYear: 2030, First6Digits: "41111", Last4Digits: "11a1", Nickname: "a\u0007b"}
	err := bad.Validate()
	var ve *client.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, client.ErrValidation) {
		t.Fatalf("Validate = %v, want a *client.ValidationError", err)
	}
	want := map[string]string{
		"expiryMonth":    "must be 1 to 12",
		"expiryYear":     "must be a two-digit year (0 to 99)",
		"first6Digits":   "must be 6 digits",
		"last4Digits":    "must be 4 digits",
		"nickname":       "must not contain control characters",
		"providerBCse":   "one of providerBCse and providerDToken is required",
		"providerDToken": "one of providerBCse and providerDToken is required",
	}
	if d := cmp.Diff(want, ve.Fields); d != "" {
		t.Errorf("fields (-want +got):\n%s", d)
	}
	long := ok
	long.Nickname = "ééééééééééééééééééééééééééééééééééééééééééééééééééé" // 51 characters
	if err := long.Validate(); !errors.As(err, &ve) || ve.Fields["nickname"] != "must be at most 50 characters" {
		t.Errorf("Validate(51-character nickname) = %v", err)
	}
}
