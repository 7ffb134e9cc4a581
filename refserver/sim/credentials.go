package sim

import (
	"crypto/rand"
	"encoding/base64"
)

// NewCredential returns a fresh random credential for the admin API to
// hand out once: prefix (UserTokenPrefix, POSTokenPrefix or APIKeyPrefix)
// followed by 192 random bits.
func NewCredential(prefix string) string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}
