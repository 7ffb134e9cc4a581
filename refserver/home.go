package refserver

import (
	"net/http"
	"strconv"

	"github.com/hospo-dev/hospo-go/refserver/console"
)

// quickStartURL is the README's quick start, which the home page links.
const quickStartURL = "https://github.com/hospo-dev/hospo-go#quick-start"

// homePage is what a browser opening the base URL sees: where to go next.
// API clients never ask for /, so it needs no content negotiation; every
// other unknown path stays a 404001 for them.
var homePage = []byte(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hospo sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code{background:#eee;padding:0 .2em}</style>
</head>
<body>
<h1>hospo sandbox</h1>
<p>This is the hospo reference server, running as a sandbox. Point an API client at this
address as its base URL; the API's paths start below it (<code>/v1/user/me</code>, ...).</p>
<ul>
<li><a href="` + console.Prefix + `">Console</a>: locations, checks, payments, users and the
request journal; advance the clock, inject faults, reset. Sign in with the admin key the
sandbox printed when it started.</li>
<li><a href="/openapi.json">/openapi.json</a>: the API, with every endpoint, body and error.</li>
<li><a href="/universal-pos/openapi.json">/universal-pos/openapi.json</a>: the contract a
universal POS implements.</li>
<li><a href="/sandbox/ca.pem">/sandbox/ca.pem</a>: the certificate of the HTTPS listener.</li>
<li><a href="` + quickStartURL + `">Quick start</a>: a complete Go program that pays a check
here; from a checkout of the SDK, run <code>go run ./examples/quickstart</code>.</li>
</ul>
</body>
</html>
`)

// handleHome serves GET /, the home page. It is static and loads nothing
// else, so it forbids every script, frame and outside resource.
func handleHome(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(homePage)))
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(homePage)
}
