package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// stmtCacheSize bounds the statements kept compiled per pool. The server's
// statements are constants, a few hundred at most; the bound only guards
// against SQL built at run time, which then runs compiled-and-discarded.
const stmtCacheSize = 512

// stmtCache keeps the statements the server runs compiled. SQLite's
// compilation of a statement costs about as much as running it, and on the
// single writer connection that cost is paid while every other write
// waits, so each statement is prepared once and then reused. A reader
// pool's statements are prepared on the pool and bound to each
// transaction (Tx.StmtContext: database/sql keeps them compiled per
// connection); the writer's are prepared on the connection the writer
// holds (writer.go) and run on it as they are.
//
// A statement is prepared when no transaction is running: the writer
// connection is busy for the whole transaction that first meets a
// statement. So a miss runs the statement uncompiled, as before, and
// records it; what was recorded is prepared once the transaction has
// ended (prepareMissed), and the next transaction finds it.
type stmtCache struct {
	pool   preparer // nil: nothing to prepare on (the writer holds no connection)
	mu     sync.Mutex
	m      map[string]*sql.Stmt // nil value: seen, not (yet) prepared
	missed []string
}

// preparer is what a stmtCache prepares on: a pool (*sql.DB) or one of
// its connections (*sql.Conn).
type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func newStmtCache(pool preparer) *stmtCache {
	return &stmtCache{pool: pool, m: make(map[string]*sql.Stmt)}
}

// get returns query's statement, or nil if it is not prepared yet. A
// pragma is never kept: SQLite carries many of them out while compiling
// (defer_foreign_keys among them), so a compiled pragma run again would
// silently do nothing.
func (c *stmtCache) get(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.m[query]
	if !ok && len(c.m) < stmtCacheSize && !isPragma(query) { // a pragma is never recorded
		c.m[query] = nil
		c.missed = append(c.missed, query)
	}
	return st
}

// isPragma reports whether query is a PRAGMA statement.
func isPragma(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	return len(q) >= len("PRAGMA") && strings.EqualFold(q[:len("PRAGMA")], "PRAGMA")
}

// prepareMissed prepares the statements that missed since the last call;
// with none it does not touch the pool. Call it with no transaction of the
// pool open in the calling goroutine.
// A statement that fails to prepare stays uncompiled for good; running it
// reports the same error to its caller.
func (c *stmtCache) prepareMissed() {
	c.mu.Lock()
	missed, pool := c.missed, c.pool
	c.missed = nil
	c.mu.Unlock()
	if pool == nil { // the next reset starts the cache afresh
		return
	}
	for _, q := range missed {
		st, err := pool.PrepareContext(context.Background(), q)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if c.pool == pool {
			c.m[q] = st
		} else { // reset meanwhile: st belongs to a connection let go
			st.Close()
		}
		c.mu.Unlock()
	}
}

// close closes every cached statement; the pool closes after it.
func (c *stmtCache) close() { c.reset(nil) }

// reset closes every cached statement and prepares from now on on pool:
// for the writer, which prepares on the connection it holds and must let
// it go at times (writer.go).
func (c *stmtCache) reset(pool preparer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		if st != nil {
			st.Close()
		}
		delete(c.m, q)
	}
	c.missed = nil
	c.pool = pool
}
