package refserver

import (
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/refserver/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// maxNickname is the longest card nickname accepted, in characters.
const maxNickname = 50

// validateCardInsert checks a card insert body and returns JSON path ->
// reason for every failing field (nil when none fails). now is the virtual
// clock's time, against which the expiry is checked.
func validateCardInsert(raw []byte, req *cardInsertRequest, now time.Time) map[string]string {
	bad := missingFields(raw, "expiryMonth", "expiryYear", "first6Digits", "last4Digits")
	if bad == nil {
		bad = map[string]string{}
	}
	if _, missing := bad["first6Digits"]; !missing && (len(req.First6Digits) != 6 || !sandbox.Digits(req.First6Digits)) {
		bad["first6Digits"] = "must be 6 digits"
	}
	if _, missing := bad["last4Digits"]; !missing && (len(req.Last4Digits) != 4 || !sandbox.Digits(req.Last4Digits)) {
		bad["last4Digits"] = "must be 4 digits"
	}
	_, noMonth := bad["expiryMonth"]
	_, noYear := bad["expiryYear"]
	if !noMonth && !noYear {
		for k, v := range sandbox.ExpiryProblems(req.ExpiryMonth, req.ExpiryYear, now) {
			bad[k] = v
		}
	} else if !noMonth && (req.ExpiryMonth < 1 || req.ExpiryMonth > 12) {
		bad["expiryMonth"] = "must be 1 to 12"
	} else if !noYear && (req.ExpiryYear < 0 || req.ExpiryYear > 99) {
		bad["expiryYear"] = "must be a two-digit year (0 to 99)"
	}
	switch {
	case utf8.RuneCountInString(req.Nickname) > maxNickname:
		bad["nickname"] = "must be at most " + strconv.Itoa(maxNickname) + " characters"
	case !printable(req.Nickname):
		bad["nickname"] = "must not contain control characters"
	}
	switch {
	case req.ProviderBCse == nil && req.ProviderDToken == nil:
		const reason = "one of providerBCse and providerDToken is required"
		bad["providerBCse"] = reason
		bad["providerDToken"] = reason
	default:
		if req.ProviderBCse != nil && *req.ProviderBCse == "" {
			bad["providerBCse"] = "must not be empty"
		}
		if req.ProviderDToken != nil && *req.ProviderDToken == "" {
			bad["providerDToken"] = "must not be empty"
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return bad
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
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
	if len(first6) < 4 || !sandbox.Digits(first6) {
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

// twoDigit formats a month or two-digit year as the wallet stores it ("04").
func twoDigit(n int) string {
	if n >= 0 && n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// timeUnix converts Unix seconds to a UTC time.
func timeUnix(sec int64) time.Time { return time.Unix(sec, 0).UTC() }
