// Package api is the refserver's HTTP plumbing: chi middleware and small
// helpers that every endpoint shares, so that a handler reads as decode,
// rule, encode.
//
//   - Tracing gives each request its id (the X-Request-Id header) and a
//     Trace, the ResponseWriter wrapper through which the access log and
//     the request journal learn what was found out further in.
//   - The credential guards (Guards.Public, User, POS, APIKey, Admin) admit
//     or refuse a request and make its request record once: id, API
//     version, principal, body. Handlers read it with RequestFrom. It is the
//     one value the plumbing puts into a request's context, and it never
//     changes.
//   - Responder renders every error body (Error) and JSON body (JSON, with
//     Info for requestInfo); Decode is how a handler decodes its body,
//     with package codec, its findings made catalogue errors.
//   - Reads runs every request that reads state: the handler's Read in one
//     read transaction, its value sent as JSON (or streamed, a Stream),
//     its error rendered.
//   - Writes runs every request that changes state: Idempotency-Key replay
//     and 409004, the handler's Write in the write transaction, and the
//     sealed response stored with it, as one mechanism.
//   - The guards also limit each caller's rate (Guards.Limit, keyed by the
//     verified caller, or by client address for a failed credential) and
//     read the body only once the credential is admitted.
//   - LimitBody, RequireJSON, InFlight, Faults, Recover and AccessLog are
//     the rest of the chain. Recover is Recoverer with the API's answer; the
//     console uses Recoverer with a page of its own.
//
// Route groups carry the middleware they need (the API gets the faults,
// limits and the OpenAPI validator, the sandbox admin API only its guard),
// so no list of paths is kept beside the router.
package api
