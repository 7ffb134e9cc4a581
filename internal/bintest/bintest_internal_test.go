package bintest

import (
	"strings"
	"testing"
)

func TestReadBannerTakesTheHTTPLine(t *testing.T) {
	t.Parallel()
	banner := "hospo reference server\n" +
		"  HTTPS      https://127.0.0.1:41235\n" +
		"  HTTP       http://127.0.0.1:41234\n" +
		"  Console    http://127.0.0.1:41234/console (log in with the admin key)\n"
	if got := readBanner(strings.NewReader(banner)); got != "http://127.0.0.1:41234" {
		t.Errorf("readBanner = %q, want the HTTP base URL", got)
	}
	if got := readBanner(strings.NewReader("refserver: -db: no such directory\n")); got != "" {
		t.Errorf("readBanner of output without a banner = %q, want none", got)
	}
}
