// Package store holds every SQL statement of the reference server.
//
// The database is SQLite (mattn/go-sqlite3) in WAL mode: one writer
// connection, because SQLite allows one writer at a time anyway and a single
// connection turns lock contention into a queue in database/sql, and a pool
// of read-only connections that WAL lets run beside the writer. Each area
// keeps its statements in its own file (credentials.go, wallet.go, ...) as
// methods on *Tx, so handlers never see SQL.
//
// What keeps it fast: every statement is compiled once per pool, and
// once on the writer's connection (stmtcache.go), concurrent writes share
// transactions run by one goroutine on that connection (writer.go), WAL
// checkpoints run beside the writer rather than on it (checkpoint.go), and
// access tokens, read by every request, are cached (tokencache.go).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3" // also registers the "sqlite3" driver
)

// ErrNotFound is returned by single-row lookups that find no row. Handlers
// turn it into a 404001.
var ErrNotFound = errors.New("store: not found")

// MemoryPath is the DBPath that keeps the whole database in memory.
const MemoryPath = ":memory:"

// DB is the server's database: a writer and a reader pool over one SQLite
// file.
type DB struct {
	path   string
	write  *sql.DB
	read   *sql.DB
	now    func() time.Time
	w      *writer // owns the writer connection; see writer.go
	writeS *stmtCache
	readS  *stmtCache // == writeS when read == write
	tokens tokenCache
	feed   feedWaiters // the feed requests waiting for events; see feedwait.go
	// queued, when set, is called with the context of each write as it
	// enters the writer's queue (NotifyQueued).
	queued func(ctx context.Context)
	// replaceBegun and replaceEnded count the wipes (WipeData) and
	// restores of the whole data since Open, as each begins (before
	// its data can be seen) and as it has ended (the token cache
	// emptied); see ReplaceMark.
	replaceBegun, replaceEnded atomic.Uint64
	// deliveries is closed by each commit that queued webhook deliveries.
	deliveries eventSignal
	webhooks   webhookPresence  // see webhooks.go
	bills      billKeys         // the checks seen stored; see pushpull.go
	ckpt       *checkpointer    // nil for an in-memory database; see checkpoint.go
	lock       *fileLock        // nil for an in-memory database; see lock.go
	tel        *writerTelemetry // nil: none; see telemetry.go
	// unverified: the file was too large to check in Open; Verify checks
	// it (integrity.go).
	unverified bool
	// foregroundCheck is the largest file Open checks in full (see
	// CheckInForegroundUpTo).
	foregroundCheck int64
}

// ReplaceMark is noted by a caller before it checks something outside
// the transaction that acts on it (a request's credential, through the
// token cache): ReplacedSince then tells whether the whole data may have
// been wiped (WipeData) or replaced (RestoreFile, RestoreMemory) in
// between, so that the check must be made again in that transaction,
// where the rows it saw may be gone.
type ReplaceMark struct {
	begun  uint64
	during bool // a wipe or restore was under way: the check may have seen either side
}

// ReplaceMark returns the mark to note before a check.
func (db *DB) ReplaceMark() ReplaceMark {
	// ended first: a wipe that begins between the two loads counts as
	// under way.
	ended := db.replaceEnded.Load()
	begun := db.replaceBegun.Load()
	return ReplaceMark{begun: begun, during: begun != ended}
}

// beginReplace marks a wipe or restore as begun, before its data can be
// seen; endReplace, as ended, once it empties the token cache.
func (db *DB) beginReplace() { db.replaceBegun.Add(1) }

func (db *DB) endReplace() {
	db.tokens.forget()
	db.replaceEnded.Add(1)
}

// ReplacedSince reports whether the data may have been wiped or replaced
// since m: one began since, or one was under way when m was taken. A wipe
// or restore begins before its data can be seen and ends once the token
// cache is emptied, so a transaction that asks after its first read (or,
// in the writer, at any point) and gets false sees the data the check
// saw, as far as wipes and restores go. Every write queued behind a wipe
// or restore gets true.
func (db *DB) ReplacedSince(m ReplaceMark) bool {
	return m.during || db.replaceBegun.Load() != m.begun
}

// NotifyQueued is an OpenOption that calls f with the context of each
// write (and each HoldWrites) as it enters the writer's queue, so that a
// test can send writes in a known order behind HoldWrites.
func NotifyQueued(f func(ctx context.Context)) OpenOption {
	return func(db *DB) { db.queued = f }
}

// HoldWrites runs fn in the writer with no transaction open, after every
// write queued before it has committed and before any write queued after
// it starts: while fn runs, no write does. It is for tests that need
// writes to queue in a known order, and to see what the ones before have
// committed.
func (db *DB) HoldWrites(ctx context.Context, fn func()) error {
	return db.w.doAlone(ctx, func() error {
		fn()
		return nil
	})
}

// writerDriver is go-sqlite3 with wal_autocheckpoint=0 set on every new
// connection, so the writer never checkpoints inline (checkpoint.go) even
// if database/sql ever replaces its connection.
const writerDriver = "sqlite3-hospo-writer"

func init() {
	sql.Register(writerDriver, &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec(`PRAGMA wal_autocheckpoint = 0`, nil)
			return err
		},
	})
}

// Open opens (creating if needed) the database at path and applies the
// embedded migrations that have not been applied yet. now is the clock that
// stamps every transaction; the server passes its virtual clock.
func Open(ctx context.Context, path string, now func() time.Time, opts ...OpenOption) (*DB, error) {
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	if now == nil {
		now = time.Now
	}
	db := &DB{path: path, now: now, foregroundCheck: DefaultForegroundCheck}
	for _, o := range opts {
		o(db)
	}
	if path == MemoryPath {
		// Every connection to ":memory:" is a database of its own, so the
		// in-memory database gets exactly one connection for reads and writes.
		w, err := sql.Open("sqlite3", ":memory:?_foreign_keys=1&_busy_timeout=5000")
		if err != nil {
			return nil, fmt.Errorf("store: open: %w", err)
		}
		oneConnection(w)
		db.write, db.read = w, w
	} else {
		lock, err := lockDatabase(path)
		if err != nil {
			return nil, err
		}
		db.lock = lock
		if err := makePrivate(path); err != nil {
			lock.release()
			return nil, err
		}
		// _txlock=immediate: a write transaction takes the write lock at
		// BEGIN, so it can never fail half-way by upgrading a read lock.
		// busy_timeout: wait for a lock held by another process (e.g. a
		// sqlite3 shell) instead of failing at once.
		// synchronous=NORMAL is durable across application crashes in WAL
		// mode and much cheaper than FULL.
		const common = "_busy_timeout=5000&_foreign_keys=1&_synchronous=NORMAL"
		w, err := sql.Open(writerDriver, path+"?_journal_mode=WAL&_txlock=immediate&"+common)
		if err != nil {
			lock.release()
			return nil, fmt.Errorf("store: open: %w", err)
		}
		oneConnection(w)
		db.write = w
		// Open the writer first so the file exists and is in WAL mode
		// before any reader connects.
		if err := w.PingContext(ctx); err != nil {
			db.Close()
			return nil, openError(path, err)
		}
		if db.unverified, err = db.startCheck(ctx, w); err != nil {
			db.Close()
			return nil, err
		}
		c, err := sql.Open("sqlite3", path+"?"+common)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("store: open: %w", err)
		}
		oneConnection(c)
		db.ckpt = startCheckpointer(c)
		// query_only makes a mistaken write on a reader fail loudly.
		r, err := sql.Open("sqlite3", path+"?_query_only=1&"+common)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("store: open: %w", err)
		}
		n := max(4, runtime.NumCPU())
		r.SetMaxOpenConns(n)
		r.SetMaxIdleConns(n)
		db.read = r
	}
	db.writeS = newStmtCache(db.write)
	db.readS = db.writeS
	if db.read != db.write {
		db.readS = newStmtCache(db.read)
	}
	db.w = startWriter(db)
	if db.tel != nil {
		if err := db.tel.start(db.w); err != nil {
			db.Close()
			return nil, fmt.Errorf("store: telemetry: %w", err)
		}
	}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.reviveDeliveries() }); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// oneConnection makes pool a single connection that is never closed for
// age or idleness: the writer's and the checkpointer's, and the whole of
// an in-memory database (closing its connection would lose it).
func oneConnection(pool *sql.DB) {
	pool.SetMaxOpenConns(1)
	pool.SetMaxIdleConns(1)
	pool.SetConnMaxLifetime(0)
	pool.SetConnMaxIdleTime(0)
}

// Path returns the path the database was opened with.
func (db *DB) Path() string { return db.path }

// Close closes every connection and then lets another DB open the file.
// With the last connection gone SQLite checkpoints the WAL into the main
// file.
func (db *DB) Close() error {
	if db.tel != nil {
		db.tel.stop()
	}
	if db.w != nil {
		db.w.stop()
	}
	var errs []error
	if db.ckpt != nil {
		db.ckpt.close()
		errs = append(errs, db.ckpt.conn.Close())
	}
	if db.readS != nil {
		db.readS.close()
		db.writeS.close()
	}
	if db.read != nil && db.read != db.write {
		errs = append(errs, db.read.Close())
	}
	errs = append(errs, db.write.Close())
	errs = append(errs, db.lock.release())
	return errors.Join(errs...)
}

// Read runs fn in a read-only transaction. The transaction sees one
// consistent snapshot. fn's error is returned unchanged.
func (db *DB) Read(ctx context.Context, fn func(tx *Tx) error) error {
	return db.run(ctx, db.read, db.readS, fn)
}

// Write runs fn in a write transaction and commits it when fn returns nil;
// otherwise it rolls back fn's writes and returns fn's error unchanged.
// Writes are serialised: never call Write from inside fn (it would wait for
// itself). Functions registered with tx.AfterCommit run after a successful
// commit. Concurrent writes share transactions (group commit, writer.go),
// each isolated in a savepoint; fn's statements are not interrupted when
// ctx ends once fn has started, and Write returns only after the commit.
func (db *DB) Write(ctx context.Context, fn func(tx *Tx) error) error {
	return db.w.do(ctx, fn)
}

// run runs fn in a transaction of pool. The wait for a connection ends
// with ctx, but the transaction and its statements run under ctx without
// its cancellation: with a context that can end, go-sqlite3 runs BEGIN and
// every step of a row in a goroutine of its own (so that it can interrupt
// SQLite), and database/sql watches every query with one more: a fifth
// of the instructions of the payments poll, a read of three rows, and half
// the time of a long list (BENCHMARKS.md). A read still stops when ctx
// ends, at its next row (rows.Next).
func (db *DB) run(ctx context.Context, pool *sql.DB, stmts *stmtCache, fn func(tx *Tx) error) error {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	tx, err := db.runOn(ctx, conn, stmts, fn)
	// The connection goes back to the pool before the statements are
	// compiled: an in-memory database's pool has no other.
	_ = conn.Close()
	if err != nil {
		return err
	}
	stmts.prepareMissed()
	for _, f := range tx.afterCommit {
		f()
	}
	return nil
}

// runOn runs fn in a transaction on conn and commits it.
func (db *DB) runOn(ctx context.Context, conn *sql.Conn, stmts *stmtCache, fn func(tx *Tx) error) (*Tx, error) {
	sctx := context.WithoutCancel(ctx)
	stx, err := conn.BeginTx(sctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: begin: %w", err)
	}
	tx := &Tx{db: db, q: stx, stx: stx, stmts: stmts, ctx: ctx, sctx: sctx, now: db.now()}
	if err := fn(tx); err != nil {
		_ = stx.Rollback()
		return nil, err
	}
	if err := stx.Commit(); err != nil {
		return nil, fmt.Errorf("store: commit: %w", err)
	}
	return tx, nil
}

// scanner is what the scan functions read a row from: a *sql.Row or the
// current row of *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanString scans a row of one text column, for collect.
func scanString(sc scanner, s *string) error { return sc.Scan(s) }

// rows is the result of Tx.query: *sql.Rows that looks at the
// transaction's context before each row and stops with its error once it
// has ended. The statement itself runs under a context that never ends
// (see DB.run), so this is what stops a long read whose client has gone.
type rows struct {
	*sql.Rows
	ctx context.Context
	err error // the context's, once it ended
}

// Next moves to the next row, and reports whether there is one.
func (r *rows) Next() bool {
	if r.err == nil {
		r.err = r.ctx.Err()
	}
	return r.err == nil && r.Rows.Next()
}

// Err returns the error that ended the rows early, if any.
func (r *rows) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.Rows.Err()
}

// resultRows is what collect reads: the rows of Tx.query, or *sql.Rows.
type resultRows interface {
	scanner
	Next() bool
	Err() error
	Close() error
}

// collect reads every row of rows with scan, and closes rows.
func collect[T any](rows resultRows, scan func(sc scanner, v *T) error) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Tx is one transaction. Every statement of the server is a method on Tx in
// this package. A Tx is for the goroutine it was given to.
type Tx struct {
	db *DB
	// q runs the statements: a *sql.Tx, or the connection the writer
	// holds, in a transaction the writer began itself (writer.go).
	q   querier
	stx *sql.Tx // q when it is a *sql.Tx, which stmts' statements are bound to
	// stmts compiles the statements: on the pool of stx, or on q itself.
	stmts *stmtCache
	// bound holds the statements already bound to stx, when several Tx
	// values share it (the functions of one write batch on an in-memory
	// database): binding a statement to a transaction makes a new
	// sql.Stmt each time.
	bound map[string]*sql.Stmt
	// ctx is the caller's context; sctx, the same without its
	// cancellation, is what the statements run under (see DB.run). For
	// a write both never end: a write is never interrupted (writer.go).
	ctx, sctx   context.Context
	now         time.Time
	afterCommit []func()
	atEndFns    []func() // see atEnd
}

// Now returns the (virtual) time stamped on the transaction when it began.
// Everything a transaction writes uses this one time, so rows written
// together carry the same timestamp.
func (tx *Tx) Now() time.Time { return tx.now }

// SetNow stamps the rest of the transaction with t instead: for a
// transaction that moves the clock itself (a reset puts the virtual clock
// back to real time, and the fixture it seeds is stamped by that time).
func (tx *Tx) SetNow(t time.Time) { tx.now = t }

// Unix returns Now as Unix seconds, the unit of every time column.
func (tx *Tx) Unix() int64 { return tx.now.Unix() }

// Context returns the context the transaction runs under.
func (tx *Tx) Context() context.Context { return tx.ctx }

// AfterCommit registers f to run once the transaction has committed (never
// if it rolls back). Use it for side effects that must only happen for
// committed data, such as waking a background worker.
func (tx *Tx) AfterCommit(f func()) { tx.afterCommit = append(tx.afterCommit, f) }

// atEnd registers f to run in the writer once the transaction of a write
// has committed or rolled back, before the writer runs the next one,
// unlike AfterCommit's functions, which run in the caller's goroutine
// and only after a commit. Only writes run them.
func (tx *Tx) atEnd(f func()) { tx.atEndFns = append(tx.atEndFns, f) }

// querier is what a Tx runs statements on: *sql.Tx and *sql.Conn.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// exec, query and queryRow run one statement, compiled once per pool
// (stmtcache.go). query must be a single statement; scripts go through
// execScript.
func (tx *Tx) exec(query string, args ...any) (sql.Result, error) {
	if st := tx.stmt(query); st != nil {
		return st.ExecContext(tx.sctx, args...)
	}
	return tx.q.ExecContext(tx.sctx, query, args...)
}

func (tx *Tx) query(query string, args ...any) (*rows, error) {
	var (
		r   *sql.Rows
		err error
	)
	if st := tx.stmt(query); st != nil {
		r, err = st.QueryContext(tx.sctx, args...)
	} else {
		r, err = tx.q.QueryContext(tx.sctx, query, args...)
	}
	if err != nil {
		return nil, err
	}
	return &rows{Rows: r, ctx: tx.ctx}, nil
}

func (tx *Tx) queryRow(query string, args ...any) *sql.Row {
	if st := tx.stmt(query); st != nil {
		return st.QueryRowContext(tx.sctx, args...)
	}
	return tx.q.QueryRowContext(tx.sctx, query, args...)
}

// stmt returns query's compiled statement ready to run in tx, or nil when
// it is not compiled yet.
func (tx *Tx) stmt(query string) *sql.Stmt {
	if st := tx.bound[query]; st != nil {
		return st
	}
	st := tx.stmts.get(query)
	if st == nil || tx.stx == nil { // prepared on the connection tx runs on
		return st
	}
	st = tx.stx.StmtContext(tx.sctx, st)
	if tx.bound != nil {
		tx.bound[query] = st
	}
	return st
}

// execScript runs SQL text that may hold several statements (migrations)
// or that is built at run time, without caching it.
func (tx *Tx) execScript(script string) (sql.Result, error) {
	return tx.q.ExecContext(tx.sctx, script)
}

// notFound maps sql.ErrNoRows to ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
