package refserver

import (
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/internal/cardnum"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/wallet"
)

// validateCardInsert checks a card insert body raw, decoded into req, and
// returns JSON path -> reason for every failing field (nil when none
// fails): the fields missing or null, wallet.InsertCardRequest.Validate's
// rules, and an expiry not in the past at now, the virtual clock's time.
func validateCardInsert(raw []byte, req *wallet.InsertCardRequest, now time.Time) map[string]string {
	var bad fielderr.Set
	bad.Require(raw, "expiryMonth", "expiryYear", "first6Digits", "last4Digits")
	// The SDK's type cannot tell a token sent empty from one not sent; the
	// wire can. A token sent empty is refused as such, and counts as sent
	// for the rule that one of the two is required.
	rules := *req
	absent := fielderr.Missing(raw, "providerBCse", "providerDToken")
	for _, t := range []struct {
		path  string
		token *string
	}{{"providerBCse", &rules.ProviderBCse}, {"providerDToken", &rules.ProviderDToken}} {
		if _, gone := absent[t.path]; !gone && *t.token == "" {
			bad.Add(t.path, "must not be empty")
			*t.token = "(empty)"
		}
	}
	_ = bad.Merge(rules.Validate()) // nil or a *client.ValidationError
	if !bad.Has("expiryMonth") && !bad.Has("expiryYear") && cardnum.Expired(req.ExpiryMonth, req.ExpiryYear, now) {
		bad.Add("expiryYear", cardnum.ReasonExpired)
	}
	return bad.Map()
}

// cardInsertStatus is the status of the entry an insert makes: a Temporary
// Card for "save": false, a Live one for true or absent.
func cardInsertStatus(raw []byte, req *wallet.InsertCardRequest) int {
	if !req.Save && fielderr.Missing(raw, "save") == nil {
		return int(wallet.CardStatusTemporary)
	}
	return int(wallet.CardStatusLive)
}

// checkPaymentRequest returns JSON path -> reason for every failing field
// of a payment body raw, decoded into req (nil when none fails): the
// fields missing or null, then wallet.CreatePaymentRequest.Validate's
// rules.
func checkPaymentRequest(raw []byte, req *wallet.CreatePaymentRequest) map[string]string {
	var bad fielderr.Set
	bad.Require(raw, "locationId", "checkNumber", "cardId", "amount", "tip")
	_ = bad.Merge(req.Validate()) // nil or a *client.ValidationError
	return bad.Map()
}

// cardTypeForBIN derives a card's type from its first six digits, the
// reference server's documented mapping for the three card networks:
//
//	4                      -> 1 (first network)
//	51-55, 2221-2720       -> 2 (second network)
//	34, 37                 -> 3 (third network)
//	anything else          -> 0 (unknown)
//
// Types 4 and 5 (mobile wallets) describe how a card is presented, which a
// BIN cannot tell, so an insert never gets them.
func cardTypeForBIN(first6 string) wallet.CardType {
	if len(first6) < 4 || !cardnum.Digits(first6) {
		return wallet.CardTypeUnknown
	}
	two, _ := strconv.Atoi(first6[:2])
	four, _ := strconv.Atoi(first6[:4])
	switch {
	case first6[0] == '4':
		return wallet.CardTypeNetwork1
	case two >= 51 && two <= 55, four >= 2221 && four <= 2720:
		return wallet.CardTypeNetwork2
	case two == 34 || two == 37:
		return wallet.CardTypeNetwork3
	}
	return wallet.CardTypeUnknown
}

// cardTypeNumber returns the numeric id of a card type, as stored.
func cardTypeNumber(t wallet.CardType) int {
	n, err := strconv.Atoi(string(t))
	if err != nil {
		return 0
	}
	return n
}

// timeUnix converts Unix seconds to a UTC time.
func timeUnix(sec int64) time.Time { return time.Unix(sec, 0).UTC() }
