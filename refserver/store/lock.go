package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrLocked is returned by Open when another DB, in this process or in
// another one, has the same database file open.
var ErrLocked = errors.New("store: database is in use")

// lockSuffix names the file beside the database that Open locks, e.g.
// refserver.db.lock.
const lockSuffix = ".lock"

// fileLock is the exclusive lock that makes one DB the only user of a
// database file. SQLite itself lets several processes share a file, but the
// server keeps state beside it (the write queue, the token cache, the
// virtual clock, idempotency locks) that only works with one owner.
//
// The lock is taken on a separate file rather than on the database: SQLite
// holds POSIX record locks on the database, and closing any other
// descriptor of that file in the same process would drop them all. The
// lock file is never removed, so two servers starting at once cannot each
// lock a different file of the same name.
type fileLock struct {
	f *os.File
}

// lockDatabase takes the lock of the database at path, or fails at once
// with ErrLocked when someone else holds it. Symbolic links are resolved,
// so that two names of one file share one lock.
func lockDatabase(path string) (*fileLock, error) {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	name := path + lockSuffix
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, PrivateMode)
	if err != nil {
		return nil, fmt.Errorf("store: lock %s: %w", name, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: lock %s: %w", name, err)
	}
	if !held {
		f.Close()
		return nil, fmt.Errorf("%w: %s is open in another server (it holds %s); stop that server or use another database file", ErrLocked, path, name)
	}
	return &fileLock{f: f}, nil
}

// release lets the next DB open the file. Closing the descriptor drops
// the lock; so does the end of the process, however it ends.
func (l *fileLock) release() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}
