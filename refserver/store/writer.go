package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Group commit. SQLite has one writer at a time, so every write
// transaction of the server queues for the single writer connection. Through
// database/sql that queue hands the connection from one request goroutine
// to the next, and under load each woken goroutine waits behind every
// runnable one before it gets a CPU while the connection sits idle; the
// waiters are also served in no particular order, so some wait for seconds.
// Here one goroutine owns the writer connection instead: Write hands it the
// function, and it runs every function waiting at that moment in one
// transaction, in arrival order, each inside a SAVEPOINT so that one
// function's error rolls back only its own writes, then commits once and
// answers them all. A function's writes are durable, and Write returns,
// only after that COMMIT, exactly as with a transaction of its own.
// Under a fleet of POS locations this keeps peak throughput and cuts the
// latency tail at saturation (BENCHMARKS.md has the loadgen figures).

// maxBatch bounds the functions sharing one transaction, so that the first
// of a batch does not wait behind arbitrarily many others.
const maxBatch = 128

// errClosed is returned by Write after Close.
var errClosed = errors.New("store: database closed")

// writeJob is one Write call waiting for the writer.
type writeJob struct {
	ctx context.Context
	fn  func(tx *Tx) error
	// alone, when set instead of fn, runs by itself: no transaction is
	// open and nothing else runs on the writer connection (doAlone).
	alone func() error
	tx    *Tx
	err   error
	panic any // a panic of fn, re-raised in the caller's goroutine
	done  chan struct{}
	// state is who has the job: jobQueued until the writer takes it
	// (jobTaken) or the caller withdraws it because its context ended
	// (jobWithdrawn). Both sides claim it with a compare-and-swap.
	state atomic.Int32
}

const (
	jobQueued = iota
	jobTaken
	jobWithdrawn
)

// writer is the goroutine that owns the writer connection.
type writer struct {
	db      *DB
	queue   chan *writeJob
	closing chan struct{}
	stopped chan struct{}
	once    sync.Once
	// conn is the writer pool's only connection while the writer holds
	// it (a database file: see begin); only the writer goroutine uses it.
	conn *sql.Conn
	own  map[string]driver.StmtExecContext // ownSQL, prepared on conn's driver connection
}

// The savepoint statements. They are compiled once (ownSQL, or the writer
// pool's statement cache): compiling them for every function of every
// batch cost as much as the functions' own statements.
const (
	savepointSQL  = `SAVEPOINT batch_job`
	releaseSQL    = `RELEASE batch_job`
	rollbackToSQL = `ROLLBACK TO batch_job`
)

// queueSize is how many jobs can wait for the writer without their callers
// blocking. A caller that hands over its job goes straight on to wait for
// the answer: with an unbuffered queue each caller was woken twice per
// write, once when the writer took its job and once with the answer, and
// under load every wakeup waits its turn for a CPU.
const queueSize = 4 * maxBatch

func startWriter(db *DB) *writer {
	w := &writer{db: db, queue: make(chan *writeJob, queueSize), closing: make(chan struct{}), stopped: make(chan struct{})}
	go w.loop()
	return w
}

// stop ends the loop once the jobs already handed over are done.
func (w *writer) stop() {
	w.once.Do(func() {
		close(w.closing)
	})
	<-w.stopped
}

// do runs fn as one job and returns its result.
func (w *writer) do(ctx context.Context, fn func(tx *Tx) error) error {
	return w.submit(ctx, &writeJob{ctx: ctx, fn: fn, done: make(chan struct{})})
}

// doAlone runs fn in the writer goroutine after every write queued before
// it has committed and before any write queued after it starts, with the
// writer connection free and no transaction open: what replacing the
// whole database needs (backup.go). fn may run transactions of its own
// with runOne.
func (w *writer) doAlone(ctx context.Context, fn func() error) error {
	return w.submit(ctx, &writeJob{ctx: ctx, alone: fn, done: make(chan struct{})})
}

// submit queues j and waits for its answer.
func (w *writer) submit(ctx context.Context, j *writeJob) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-w.closing: // checked first: the queue may still have room
		return errClosed
	default:
	}
	select {
	case w.queue <- j:
	case <-w.closing:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	if w.db.queued != nil {
		w.db.queued(ctx)
	}
	// While the job waits in the queue the caller may withdraw it when
	// ctx ends. Once the writer has taken it, fn may run: wait for it
	// whatever ctx does, so that the caller never reads what fn writes
	// while fn runs. The loop answers every job it takes before it stops,
	// so a job still unanswered once it has stopped was queued too late
	// and never ran.
	ctxDone := ctx.Done()
wait:
	for {
		select {
		case <-j.done:
			break wait
		case <-ctxDone:
			if j.state.CompareAndSwap(jobQueued, jobWithdrawn) {
				return ctx.Err()
			}
			ctxDone = nil // the writer has it: wait for the answer
		case <-w.stopped:
			if !isClosed(j.done) {
				return errClosed
			}
			break wait
		}
	}
	if j.panic != nil {
		panic(j.panic)
	}
	if j.err != nil {
		return j.err
	}
	if j.tx != nil {
		for _, f := range j.tx.afterCommit {
			f()
		}
	}
	return nil
}

// isClosed reports whether c is closed, without waiting.
func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (w *writer) loop() {
	defer close(w.stopped)
	defer w.release(false)
	batch := make([]*writeJob, 0, maxBatch)
	for {
		select {
		case j := <-w.queue:
			w.runBatch(take(batch[:0], j))
		case <-w.closing:
			// Jobs queued before the close still run.
			for {
				select {
				case j := <-w.queue:
					w.runBatch(take(batch[:0], j))
				default:
					return
				}
			}
		}
	}
}

// take appends j to batch unless its caller has withdrawn it.
func take(batch []*writeJob, j *writeJob) []*writeJob {
	if j.state.CompareAndSwap(jobQueued, jobTaken) {
		batch = append(batch, j)
	}
	return batch
}

// runBatch adds the jobs waiting in the queue to batch, up to maxBatch,
// runs them in one transaction and answers them.
func (w *writer) runBatch(batch []*writeJob) {
	if len(batch) == 1 && batch[0].alone != nil {
		w.runAlone(batch[0])
		return
	}
	// Let the goroutines that are ready to run go first: under load, some
	// are about to queue a write, which then shares this transaction's
	// BEGIN and COMMIT instead of paying for its own. With nothing else
	// to run, the yield returns at once.
	runtime.Gosched()
	// next is a job that must run alone: it ends the batch, and the jobs
	// queued after it wait for it.
	var next *writeJob
collect:
	for len(batch) < maxBatch {
		select {
		case j := <-w.queue:
			if j.alone != nil {
				next = j
				break collect
			}
			batch = take(batch, j)
		default:
			break collect
		}
	}
	if len(batch) > 0 {
		var end func(bool)
		if w.db.tel != nil {
			end = w.db.tel.startBatch(batch)
		}
		committed := w.run(batch)
		if end != nil {
			end(committed)
		}
		for _, j := range batch {
			close(j.done)
		}
		w.afterBatch(committed)
	}
	if next != nil && len(take(nil, next)) > 0 {
		w.runAlone(next)
	}
}

// runAlone runs a job of doAlone and answers it. The job finds the
// writer pool's connection free.
func (w *writer) runAlone(j *writeJob) {
	w.release(false)
	if err := j.ctx.Err(); err != nil {
		j.err = err
	} else {
		j.panic, j.err = runJob(func(*Tx) error { return j.alone() }, nil)
	}
	close(j.done)
	w.afterBatch(true)
}

// runOne runs fn in a transaction of its own on the writer connection, and
// then the functions it registered with AfterCommit. Only a job of
// doAlone may call it: it is the writer goroutine.
func (w *writer) runOne(fn func(tx *Tx) error) error {
	j := &writeJob{ctx: context.Background(), fn: fn}
	w.run([]*writeJob{j})
	if j.panic != nil {
		panic(j.panic)
	}
	if j.err != nil {
		return j.err
	}
	for _, f := range j.tx.afterCommit {
		f()
	}
	return nil
}

// afterBatch does what can wait until the batch's callers have their
// answers: with the writer connection free, compile the statements the
// batch met first and see to the WAL (checkpoint.go).
func (w *writer) afterBatch(committed bool) {
	w.db.writeS.prepareMissed()
	if committed && w.db.ckpt != nil {
		var q rowQuerier = w.db.write
		if w.conn != nil {
			q = w.conn
		}
		w.db.ckpt.committed(q)
	}
}

// run carries out a batch in one transaction. A function whose context has
// ended before its turn is not run. Statements run under contexts that are
// never cancelled: an interrupted statement would make SQLite roll back the
// whole transaction, and with it the other functions of the batch.
//
// With several functions, each runs inside a savepoint of its own, which
// is released before the next one opens (nested savepoints would make
// SQLite copy each page to the sub-journal of every savepoint open: 7 %
// more instructions per write in batches of about twenty). SQLite rolls a
// transaction back by itself after some errors (a full disk, for one);
// the failed ROLLBACK TO or RELEASE then fails the whole batch rather
// than run what is left of it outside any transaction, and a single
// function's COMMIT fails.
func (w *writer) run(batch []*writeJob) (committed bool) {
	defer func() {
		for _, j := range batch {
			if j.tx != nil {
				for _, f := range j.tx.atEndFns {
					f()
				}
			}
		}
	}()
	b, err := w.begin()
	if err != nil {
		for _, j := range batch {
			j.err = fmt.Errorf("store: begin: %w", err)
		}
		return
	}
	savepoints := len(batch) > 1
	var ran []*writeJob // functions that succeeded, to be committed
	fail := func(err error) {
		b.rollback()
		for _, j := range batch {
			if j.err == nil && j.panic == nil {
				j.err = err
			}
		}
	}
	for _, j := range batch {
		if err := j.ctx.Err(); err != nil {
			j.err = err
			continue
		}
		if savepoints {
			if err := b.exec(savepointSQL); err != nil {
				fail(fmt.Errorf("store: savepoint: %w", err))
				return
			}
		}
		ctx := context.WithoutCancel(j.ctx)
		j.tx = &Tx{db: w.db, q: b.q, stx: b.stx, stmts: w.db.writeS, bound: b.bound, ctx: ctx, sctx: ctx, now: w.db.now()}
		j.panic, j.err = runJob(j.fn, j.tx)
		ok := j.err == nil && j.panic == nil
		if savepoints && !ok {
			if err := b.exec(rollbackToSQL); err != nil {
				fail(fmt.Errorf("store: rollback to savepoint: %w", err))
				return
			}
		}
		if savepoints {
			// RELEASE also tells that the transaction is still open: it
			// fails once SQLite has rolled it back.
			if err := b.exec(releaseSQL); err != nil {
				fail(fmt.Errorf("store: release: %w", err))
				return
			}
		}
		if ok {
			ran = append(ran, j)
		}
	}
	if len(ran) == 0 {
		b.rollback()
		return false
	}
	if err := b.commit(); err != nil {
		for _, j := range ran {
			j.err = fmt.Errorf("store: commit: %w", err)
		}
		return false
	}
	return true
}

// batchTx is the transaction of a batch: on the connection the writer
// holds, begun and ended with statements of its own (conn set), or a
// *sql.Tx of the writer pool (stx set; an in-memory database).
type batchTx struct {
	w     *writer
	q     querier
	conn  *sql.Conn
	stx   *sql.Tx
	bound map[string]*sql.Stmt // for stx
	sp    Tx                   // runs the writer's own statements in stx
}

// Statements the writer runs on the connection it holds.
const (
	beginSQL    = `BEGIN IMMEDIATE`
	commitSQL   = `COMMIT`
	rollbackSQL = `ROLLBACK`
)

// begin begins a batch's transaction. On a database file the writer holds
// the pool's only connection from its first batch on, so that the
// statements stay prepared on it from one batch to the next, and runs
// BEGIN and COMMIT on it itself: a *sql.Tx would bind every statement to
// itself anew in each batch and watch each query with a goroutine of its
// own. An in-memory database's connection also serves the reads, so there
// the writer takes it only for the transaction, as a *sql.Tx.
func (w *writer) begin() (*batchTx, error) {
	bg := context.Background()
	if w.db.read == w.db.write {
		stx, err := w.db.write.BeginTx(bg, nil)
		if err != nil {
			return nil, err
		}
		b := &batchTx{q: stx, stx: stx, bound: make(map[string]*sql.Stmt)}
		b.sp = Tx{db: w.db, q: stx, stx: stx, stmts: w.db.writeS, bound: b.bound, ctx: bg, sctx: bg}
		return b, nil
	}
	if w.conn == nil {
		if err := w.hold(); err != nil {
			return nil, err
		}
	}
	b := &batchTx{w: w, q: w.conn, conn: w.conn}
	if err := b.exec(beginSQL); err != nil {
		if errors.Is(err, sql.ErrConnDone) { // a new one for the next batch
			w.release(false)
		}
		return nil, err
	}
	return b, nil
}

// ownSQL are the statements the writer runs on the connection it holds
// for itself. They run on the driver's connection directly, compiled
// once: the savepoints alone are two statements per write, and
// database/sql's work around each cost about as much as SQLite's.
var ownSQL = []string{beginSQL, commitSQL, rollbackSQL, savepointSQL, releaseSQL, rollbackToSQL}

// hold takes the writer pool's connection and prepares ownSQL on it.
func (w *writer) hold() error {
	c, err := w.db.write.Conn(context.Background())
	if err != nil {
		return err
	}
	own := make(map[string]driver.StmtExecContext, len(ownSQL))
	err = c.Raw(func(dc any) error {
		conn, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		for _, q := range ownSQL {
			st, err := conn.Prepare(q)
			if err == nil {
				if own[q], ok = st.(driver.StmtExecContext); !ok {
					delete(own, q)
					_ = st.Close()
					err = fmt.Errorf("unexpected driver statement %T", st)
				}
			}
			if err != nil {
				closeOwn(own)
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = c.Close()
		return err
	}
	w.conn, w.own = c, own
	w.db.writeS.reset(c)
	return nil
}

// closeOwn closes the statements of own, on their connection.
func closeOwn(own map[string]driver.StmtExecContext) {
	for _, st := range own {
		_ = st.(driver.Stmt).Close()
	}
}

// release lets go of the connection the writer holds, if any: back to
// the pool, for a job that runs alone and may use the pool itself, or
// closed for good (discard), so that the pool opens a new one and nothing
// left open on it can outlive it.
func (w *writer) release(discard bool) {
	if w.conn == nil {
		return
	}
	w.db.writeS.reset(nil) // its statements go with it
	_ = w.conn.Raw(func(any) error {
		closeOwn(w.own)
		if discard {
			return driver.ErrBadConn
		}
		return nil
	})
	_ = w.conn.Close()
	w.conn, w.own = nil, nil
}

// exec runs one of the writer's own statements.
func (b *batchTx) exec(query string) error {
	if b.stx != nil {
		_, err := b.sp.exec(query)
		return err
	}
	st := b.w.own[query]
	return b.conn.Raw(func(any) error {
		_, err := st.ExecContext(context.Background(), nil)
		return err
	})
}

func (b *batchTx) commit() error {
	if b.stx != nil {
		return b.stx.Commit()
	}
	err := b.exec(commitSQL)
	if err != nil {
		// A failed COMMIT may leave the transaction open.
		b.rollback()
	}
	return err
}

// rollback ends the transaction, writing nothing. Should ROLLBACK fail
// (if only because SQLite had rolled back already), the connection is
// discarded: the next batch must not find a transaction open.
func (b *batchTx) rollback() {
	if b.stx != nil {
		_ = b.stx.Rollback()
		return
	}
	if err := b.exec(rollbackSQL); err != nil {
		b.w.release(true)
	}
}

// runJob calls fn, turning a panic into a value for the caller's goroutine.
func runJob(fn func(tx *Tx) error, tx *Tx) (panicked any, err error) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	return nil, fn(tx)
}
