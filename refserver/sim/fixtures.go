package sim

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/hospo-dev/hospo-go/sandbox"
)

// Fixtures is the body of GET /sandbox/fixtures: the demo fixture's
// credentials. Credentials created later through the admin API are shown
// once, in the creating response, and are not listed here. The SDK's
// sandbox package defines the wire format; the server answers with it.
type Fixtures = sandbox.Fixtures

// FixtureUser is a demo user and its access token.
type FixtureUser = sandbox.User

// FixtureLocation is a demo location with its POS access token (for the
// push-pull endpoints) and payment gateway.
type FixtureLocation = sandbox.Location

// FixtureAPIKey is a demo vendor API key and the locations it may read.
type FixtureAPIKey = sandbox.APIKey

// DemoLocation describes one location of the demo fixture.
type DemoLocation struct {
	Name    string
	Gateway string
}

// The shape of the demo fixture: DemoUsers users, these locations, and one
// API key per entry of DemoAPIKeyScopes (indexes into DemoLocations).
var (
	DemoUsers     = 2
	DemoLocations = []DemoLocation{
		{Name: "Harbour Grill", Gateway: "providerB"},
		{Name: "Garden Cafe", Gateway: "providerD"},
	}
	DemoAPIKeyScopes = [][]int{{0}, {0, 1}}
)

// DemoPOSPath is where the built-in demo universal POS is served, relative
// to the server's base URL. Demo locations are registered with
// BaseURL + DemoPOSPath.
const DemoPOSPath = "/sandbox/demo-pos"

// Prefixes of the server's credentials, so a leaked string is recognisable
// (and greppable) for what it is.
const (
	UserTokenPrefix = "usr_"
	POSTokenPrefix  = "pos_"
	APIKeyPrefix    = "key_"
)

// derive is HMAC-SHA256(adminKey, label), hex, cut to 40 characters (160
// bits): unguessable without the admin key, reproducible with it.
func derive(adminKey, label string) string {
	m := hmac.New(sha256.New, []byte(adminKey))
	m.Write([]byte("hospo-sandbox/" + label))
	return hex.EncodeToString(m.Sum(nil))[:40]
}

// DemoUserToken returns the access token of demo user n (1-based).
func DemoUserToken(adminKey string, n int) string {
	return UserTokenPrefix + "demo" + strconv.Itoa(n) + "_" + derive(adminKey, "user/"+strconv.Itoa(n))
}

// DemoPOSAccessToken returns the POS access token (push-pull endpoints) of
// demo location n (1-based).
func DemoPOSAccessToken(adminKey string, n int) string {
	return POSTokenPrefix + "demo" + strconv.Itoa(n) + "_" + derive(adminKey, "pos-access/"+strconv.Itoa(n))
}

// DemoAPIKey returns demo vendor API key n (1-based).
func DemoAPIKey(adminKey string, n int) string {
	return APIKeyPrefix + "demo" + strconv.Itoa(n) + "_" + derive(adminKey, "api-key/"+strconv.Itoa(n))
}

// DemoPOSToken returns the bearer token that the service sends to the demo
// universal POS (served at DemoPOSPath) and that the demo POS accepts. It is
// the universal POS contract's token, not a push-pull access token.
func DemoPOSToken(adminKey string) string {
	return "demopos_" + derive(adminKey, "demo-pos")
}

// AdminKeyFingerprint identifies an admin key without revealing it; the
// server stores it to notice that the demo credentials must be re-derived.
func AdminKeyFingerprint(adminKey string) string {
	return derive(adminKey, "fingerprint")
}
