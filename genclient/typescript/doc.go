// Package typescript checks the types that openapi-typescript generates
// from the served document under tsc --strict (see typescript_test.go).
// The pinned tools are in package.json; install them with npm ci here.
package typescript
