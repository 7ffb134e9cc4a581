package sim

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// Snapshot is what the admin API shows of a snapshot. The SDK's sandbox
// package defines the wire format.
type Snapshot = sandbox.Snapshot

// Snapshots keeps the sandbox's snapshots: copies of the whole database
// (store.DB.CopyToFile), made and restored through the admin API. A file
// database keeps them beside it, in SnapshotDir, each a plain SQLite file
// <id>.sqlite that also works as a database to start a server from, with
// its name and time in <id>.json; they outlive the server, and a restore
// does not touch them (a snapshot made after the one restored stays
// listed). An in-memory database keeps them in memory. Either way their
// number and total size are bounded (SnapshotLimits). It is safe for
// concurrent use; one operation runs at a time.
type Snapshots struct {
	db     *store.DB
	dir    string // "" keeps the copies in memory
	now    func() time.Time
	limits SnapshotLimits

	mu   sync.Mutex
	mem  map[string]*memSnapshot
	seq  int64 // orders the in-memory snapshots
	done bool  // closed
}

type memSnapshot struct {
	meta snapshotMeta
	copy *store.MemoryCopy
}

// snapshotMeta is the <id>.json beside a snapshot file.
type snapshotMeta struct {
	SnapshotID string `json:"snapshotId"`
	Name       string `json:"name"`
	CreatedAt  int64  `json:"createdAt"`
	// Made orders the snapshots: real time in nanoseconds (CreatedAt
	// follows the virtual clock, which a restore can put back).
	Made int64 `json:"made"`
}

// SnapshotLimits bound the snapshots kept: each is a whole copy of the
// database, on the database's disk (or in memory), so without a bound a
// client that saves in a loop fills the disk.
type SnapshotLimits struct {
	// Count is the most snapshots kept at once; 0 or less: no bound.
	Count int
	// Bytes is the most bytes all the snapshots may take together; 0 or
	// less: no bound.
	Bytes int64
}

// TooManySnapshotsError is the error of a Create while SnapshotLimits.Count
// snapshots are kept already.
type TooManySnapshotsError struct{ Max int }

func (e *TooManySnapshotsError) Error() string {
	return fmt.Sprintf("sandbox: snapshot: %d snapshots are kept already, the most allowed", e.Max)
}

// SnapshotsTooLargeError is the error of a Create whose copy would take
// the snapshots past SnapshotLimits.Bytes: Held bytes are taken already,
// the copy needs Need more. Nothing of the copy is kept.
type SnapshotsTooLargeError struct{ Held, Need, Max int64 }

func (e *SnapshotsTooLargeError) Error() string {
	return fmt.Sprintf("sandbox: snapshot: the snapshots take %d bytes and the copy needs %d, more than the %d allowed", e.Held, e.Need, e.Max)
}

// SnapshotDir returns the directory that keeps the snapshots of the
// database at dbPath.
func SnapshotDir(dbPath string) string { return dbPath + ".snapshots" }

// NewSnapshots returns the snapshots of db, opened from dbPath (beside
// which they are kept, or in memory for store.MemoryPath); now is the
// virtual clock, for CreatedAt.
func NewSnapshots(db *store.DB, dbPath string, now func() time.Time, limits SnapshotLimits) *Snapshots {
	s := &Snapshots{db: db, now: now, limits: limits}
	if dbPath == store.MemoryPath {
		s.mem = map[string]*memSnapshot{}
	} else {
		s.dir = SnapshotDir(dbPath)
		removeLeftovers(s.dir)
	}
	return s
}

// leftoverPattern matches what a save cut short leaves in the snapshot
// directory: a copy or metadata under its temporary name (and SQLite's
// journal of the copy), from a process killed during a save or a save
// that failed on a full disk.
var leftoverPattern = regexp.MustCompile(`^snap_[0-9a-f]{16}\.(sqlite|json)\.tmp(-journal|-wal|-shm)?$`)

// removeLeftovers deletes, at start when no save runs, the temporary
// files of saves cut short and the copies whose metadata was never
// written (killed between the two). It is best-effort: what it cannot
// remove is never listed anyway.
func removeLeftovers(dir string) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range des {
		name := de.Name()
		if leftoverPattern.MatchString(name) {
			_ = os.Remove(filepath.Join(dir, name))
			continue
		}
		if id, ok := strings.CutSuffix(name, ".sqlite"); ok && snapshotIDPattern.MatchString(id) {
			if _, err := os.Stat(filepath.Join(dir, id+".json")); errors.Is(err, os.ErrNotExist) {
				_ = os.Remove(filepath.Join(dir, name))
			}
		}
	}
}

// snapshotIDPattern is the shape of the ids newSnapshotID makes. Any other
// id is unknown, whatever files there are: an id becomes a file name.
var snapshotIDPattern = regexp.MustCompile(`^snap_[0-9a-f]{16}$`)

// newSnapshotID returns a new random snapshot id, such as
// "snap_3fa9c1d2e4b50617".
func newSnapshotID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "snap_" + hex.EncodeToString(b[:])
}

// Create saves a consistent copy of the whole database under name (checked
// by the caller) and returns it. Past a limit it fails with a
// *TooManySnapshotsError or a *SnapshotsTooLargeError and keeps nothing:
// the bound on bytes holds while the copy is written
// (store.CopyAtMost), so a copy that would pass it stops there.
func (s *Snapshots) Create(ctx context.Context, name string) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return Snapshot{}, errors.New("sandbox: snapshots closed")
	}
	kept, err := s.list()
	if err != nil {
		return Snapshot{}, err
	}
	if s.limits.Count > 0 && len(kept) >= s.limits.Count {
		return Snapshot{}, &TooManySnapshotsError{Max: s.limits.Count}
	}
	var held int64
	for _, k := range kept {
		held += k.SizeBytes
	}
	var bound []store.CopyOption
	if s.limits.Bytes > 0 {
		bound = append(bound, store.CopyAtMost(max(s.limits.Bytes-held, 1)))
	}
	meta := snapshotMeta{SnapshotID: newSnapshotID(), Name: name, CreatedAt: s.now().Unix(), Made: time.Now().UnixNano()}
	if s.dir == "" {
		c, err := s.db.CopyToMemory(ctx, bound...)
		if err != nil {
			return Snapshot{}, s.limitErr(err, held)
		}
		s.seq++
		meta.Made = s.seq
		s.mem[meta.SnapshotID] = &memSnapshot{meta: meta, copy: c}
		return meta.snapshot(c.Size()), nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return Snapshot{}, fmt.Errorf("sandbox: snapshot: %w", err)
	}
	file := s.file(meta.SnapshotID)
	size, err := s.db.CopyToFile(ctx, file, bound...)
	if err != nil {
		return Snapshot{}, s.limitErr(err, held)
	}
	if err := writeMeta(s.metaFile(meta.SnapshotID), meta); err != nil {
		_ = os.Remove(file)
		return Snapshot{}, err
	}
	return meta.snapshot(size), nil
}

// limitErr turns the error of a copy that passed the bound on bytes into
// a *SnapshotsTooLargeError; held is what the other snapshots take.
func (s *Snapshots) limitErr(err error, held int64) error {
	var tl *store.CopyTooLargeError
	if errors.As(err, &tl) {
		return &SnapshotsTooLargeError{Held: held, Need: tl.Size, Max: s.limits.Bytes}
	}
	return err
}

// List returns the snapshots, oldest first.
func (s *Snapshots) List() ([]Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list()
}

// list is List, with s.mu held.
func (s *Snapshots) list() ([]Snapshot, error) {
	type entry struct {
		meta snapshotMeta
		size int64
	}
	var all []entry
	if s.dir == "" {
		for _, m := range s.mem {
			all = append(all, entry{m.meta, m.copy.Size()})
		}
	} else {
		des, err := os.ReadDir(s.dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("sandbox: snapshots: %w", err)
		}
		for _, de := range des {
			id, ok := strings.CutSuffix(de.Name(), ".json")
			if !ok || !snapshotIDPattern.MatchString(id) {
				continue
			}
			meta, size, err := s.read(id)
			if errors.Is(err, store.ErrNotFound) {
				continue // being deleted, or left half by a crash
			}
			if err != nil {
				return nil, err
			}
			all = append(all, entry{meta, size})
		}
	}
	slices.SortFunc(all, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.meta.Made, b.meta.Made), strings.Compare(a.meta.SnapshotID, b.meta.SnapshotID))
	})
	out := make([]Snapshot, 0, len(all))
	for _, e := range all {
		out = append(out, e.meta.snapshot(e.size))
	}
	return out, nil
}

// Restore replaces the whole database with snapshot id, as
// store.DB.RestoreFile describes (then runs right after it, before any
// other write), or returns store.ErrNotFound for an unknown id.
func (s *Snapshots) Restore(ctx context.Context, id string, then func(tx *store.Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		m := s.mem[id]
		if m == nil {
			return store.ErrNotFound
		}
		return s.db.RestoreMemory(ctx, m.copy, then)
	}
	if _, _, err := s.read(id); err != nil {
		return err
	}
	return s.db.RestoreFile(ctx, s.file(id), then)
}

// Delete removes snapshot id, or returns store.ErrNotFound for an unknown
// id.
func (s *Snapshots) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		m := s.mem[id]
		if m == nil {
			return store.ErrNotFound
		}
		delete(s.mem, id)
		return m.copy.Close()
	}
	if !snapshotIDPattern.MatchString(id) {
		return store.ErrNotFound
	}
	// The metadata goes first: without it the snapshot is not listed.
	if err := os.Remove(s.metaFile(id)); errors.Is(err, os.ErrNotExist) {
		return store.ErrNotFound
	} else if err != nil {
		return fmt.Errorf("sandbox: delete snapshot: %w", err)
	}
	if err := os.Remove(s.file(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("sandbox: delete snapshot: %w", err)
	}
	return nil
}

// File returns the SQLite file of snapshot id, to copy out and start
// another server from; store.ErrNotFound for an unknown id, or for every
// id when the snapshots are kept in memory.
func (s *Snapshots) File(id string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		return "", store.ErrNotFound
	}
	if _, _, err := s.read(id); err != nil {
		return "", err
	}
	return s.file(id), nil
}

// Close frees the in-memory snapshots; the files stay.
func (s *Snapshots) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	var errs []error
	for id, m := range s.mem {
		errs = append(errs, m.copy.Close())
		delete(s.mem, id)
	}
	return errors.Join(errs...)
}

func (s *Snapshots) file(id string) string     { return filepath.Join(s.dir, id+".sqlite") }
func (s *Snapshots) metaFile(id string) string { return filepath.Join(s.dir, id+".json") }

// read returns the metadata and file size of snapshot id, or
// store.ErrNotFound.
func (s *Snapshots) read(id string) (snapshotMeta, int64, error) {
	var meta snapshotMeta
	if !snapshotIDPattern.MatchString(id) {
		return meta, 0, store.ErrNotFound
	}
	b, err := os.ReadFile(s.metaFile(id))
	if errors.Is(err, os.ErrNotExist) {
		return meta, 0, store.ErrNotFound
	}
	if err != nil {
		return meta, 0, fmt.Errorf("sandbox: snapshot %s: %w", id, err)
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.SnapshotID != id {
		return meta, 0, fmt.Errorf("sandbox: snapshot %s: bad %s", id, s.metaFile(id))
	}
	fi, err := os.Stat(s.file(id))
	if errors.Is(err, os.ErrNotExist) {
		return meta, 0, store.ErrNotFound
	}
	if err != nil {
		return meta, 0, fmt.Errorf("sandbox: snapshot %s: %w", id, err)
	}
	return meta, fi.Size(), nil
}

func (m snapshotMeta) snapshot(size int64) Snapshot {
	return Snapshot{SnapshotID: m.SnapshotID, Name: m.Name, CreatedAt: m.CreatedAt, SizeBytes: size}
}

// writeMeta writes meta to path whole: under a temporary name, then
// renamed.
func writeMeta(path string, meta snapshotMeta) error {
	b, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, store.PrivateMode); err != nil {
		return fmt.Errorf("sandbox: snapshot: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("sandbox: snapshot: %w", err)
	}
	return nil
}
