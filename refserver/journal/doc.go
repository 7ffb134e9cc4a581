// Package journal is the sandbox's request journal: the last requests the
// server answered, kept in memory so that an integrator can see what
// reached the service and how it was answered, through GET
// /sandbox/requests and the console's requests page.
//
// An entry records what was asked (method and route pattern, never the
// URL), how it ended and who asked (the kind of credential and the ids it
// stands for). It holds no credential, query string, header or body, so no
// token, key, card number or CVC can end up in it. Its type is the SDK's
// sandbox.JournalEntry: the server answers with the wire format the SDK
// defines.
//
// The server makes one Journal, records into it with Record just inside
// api.Tracing, and serves it with Handler:
//
//	j := journal.New(cfg.JournalSize)
//	r.Use(api.Tracing, journal.Record(j, clock.Now, clock.Real))
//	r.Get(journal.Path, journal.Handler(responder, j))
package journal
