package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// addUser writes a user and its token in one write.
func addUser(t *testing.T, db *DB, token string) int64 {
	t.Helper()
	var id int64
	err := db.Write(t.Context(), func(tx *Tx) error {
		var err error
		if id, err = tx.InsertUser(); err != nil {
			return err
		}
		return tx.InsertUserToken(HashSecret(token), id, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// tokenWorks reports whether token is found (through the token cache).
func tokenWorks(t *testing.T, db *DB, token string) bool {
	t.Helper()
	_, err := db.AccessToken(t.Context(), SumSecret(token))
	if err != nil && !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// copier makes a copy of db and restores it, the same way for a file and
// an in-memory copy.
type copier struct {
	copy    func(db *DB) error
	restore func(db *DB, then func(*Tx) error) error
}

func copiers(t *testing.T) map[string]func() copier {
	return map[string]func() copier{
		"file": func() copier {
			path := filepath.Join(t.TempDir(), "copy.sqlite")
			return copier{
				copy: func(db *DB) error {
					_, err := db.CopyToFile(t.Context(), path)
					return err
				},
				restore: func(db *DB, then func(*Tx) error) error { return db.RestoreFile(t.Context(), path, then) },
			}
		},
		"memory": func() copier {
			var c *MemoryCopy
			t.Cleanup(func() {
				if c != nil {
					c.Close()
				}
			})
			return copier{
				copy: func(db *DB) (err error) {
					c, err = db.CopyToMemory(t.Context())
					return err
				},
				restore: func(db *DB, then func(*Tx) error) error { return db.RestoreMemory(t.Context(), c, then) },
			}
		},
	}
}

// TestRestoreBringsBackTheCopy: a restore brings back the rows and tokens
// of the copy and drops what came after, through the token cache too: a
// token made after the copy stops working, one deleted after it works
// again.
func TestRestoreBringsBackTheCopy(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"file", MemoryPath} {
		for kind, newCopier := range copiers(t) {
			t.Run(path+"/"+kind, func(t *testing.T) {
				t.Parallel()
				live := path
				if live == "file" {
					live = filepath.Join(t.TempDir(), "live.db")
				}
				db := openTest(t, live, nil)
				c := newCopier()
				before := addUser(t, db, "before")
				if err := db.Write(t.Context(), func(tx *Tx) error { return tx.SetState("k", "snap") }); err != nil {
					t.Fatal(err)
				}
				if err := c.copy(db); err != nil {
					t.Fatal(err)
				}
				addUser(t, db, "after")
				err := db.Write(t.Context(), func(tx *Tx) error {
					if err := tx.SetState("k", "later"); err != nil {
						return err
					}
					return tx.DeleteTokensOf(TokenKindUser, []int64{before})
				})
				if err != nil {
					t.Fatal(err)
				}
				if !tokenWorks(t, db, "after") || tokenWorks(t, db, "before") {
					t.Fatal("tokens before the restore: want after working, before deleted")
				}

				var thenRan, afterCommit bool
				err = c.restore(db, func(tx *Tx) error {
					thenRan = true
					tx.AfterCommit(func() { afterCommit = true })
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !thenRan || !afterCommit {
					t.Errorf("then ran %v, its AfterCommit %v; want both", thenRan, afterCommit)
				}
				if tokenWorks(t, db, "after") {
					t.Error("a token made after the copy still works")
				}
				if !tokenWorks(t, db, "before") {
					t.Error("a token of the copy, deleted after it, does not work again")
				}
				var v string
				var users int64
				err = db.Read(t.Context(), func(tx *Tx) error {
					var err error
					if v, err = tx.State("k"); err != nil {
						return err
					}
					users, err = tx.CountRows("users")
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if v != "snap" || users != 1 {
					t.Errorf("after restore: state %q and %d users, want %q and 1", v, users, "snap")
				}
				// The restored database takes writes as before.
				if id := addUser(t, db, "next"); id != 2 || !tokenWorks(t, db, "next") {
					t.Errorf("write after restore: user id %d, want 2 and a working token", id)
				}
			})
		}
	}
}

// TestRestoreBetweenWrites races many writers with a restore. Each write
// makes two rows (a user and its token); the writer runs them in order, so
// the order the functions ran in says which ran before the restore and
// which after. Those before are gone, those after are all there, whole.
func TestRestoreBetweenWrites(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"file", MemoryPath} {
		for kind, newCopier := range copiers(t) {
			t.Run(path+"/"+kind, func(t *testing.T) {
				t.Parallel()
				live := path
				if live == "file" {
					live = filepath.Join(t.TempDir(), "live.db")
				}
				db := openTest(t, live, nil)
				c := newCopier()
				addUser(t, db, "base")
				if err := c.copy(db); err != nil {
					t.Fatal(err)
				}

				const n = 400
				var (
					mu    sync.Mutex
					order []int // write i, or -1 for the restore
					wg    sync.WaitGroup
				)
				ran := func(i int) {
					mu.Lock()
					order = append(order, i)
					mu.Unlock()
				}
				for i := range n {
					wg.Go(func() {
						err := db.Write(context.Background(), func(tx *Tx) error {
							id, err := tx.InsertUser()
							if err != nil {
								return err
							}
							if err := tx.InsertUserToken(HashSecret(fmt.Sprint("w", i)), id, nil); err != nil {
								return err
							}
							ran(i)
							return nil
						})
						if err != nil {
							t.Errorf("write %d: %v", i, err)
						}
					})
					if i == n/2 {
						wg.Go(func() {
							if err := c.restore(db, func(*Tx) error { ran(-1); return nil }); err != nil {
								t.Errorf("restore: %v", err)
							}
						})
					}
				}
				wg.Wait()

				after := false
				var afterCount int64
				for _, i := range order {
					if i == -1 {
						after = true
						continue
					}
					if got := tokenWorks(t, db, fmt.Sprint("w", i)); got != after {
						t.Errorf("write %d ran after the restore: %v, but its token works: %v", i, after, got)
					}
					if after {
						afterCount++
					}
				}
				if !after {
					t.Fatal("the restore never ran")
				}
				var users, tokens int64
				err := db.Read(t.Context(), func(tx *Tx) error {
					var err error
					if users, err = tx.CountRows("users"); err != nil {
						return err
					}
					tokens, err = tx.CountRows("access_tokens")
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if users != 1+afterCount || tokens != 1+afterCount {
					t.Errorf("%d users and %d tokens, want %d of each (the copy's and the writes after the restore)", users, tokens, 1+afterCount)
				}
			})
		}
	}
}

// TestCopyFileOpens: a copied file is a database of its own, with no -wal
// file beside it, that Open takes and that holds the copied rows.
func TestCopyFileOpens(t *testing.T) {
	t.Parallel()
	for _, path := range []string{filepath.Join(t.TempDir(), "live.db"), MemoryPath} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			db := openTest(t, path, nil)
			addUser(t, db, "tok")
			dir := t.TempDir()
			cp := filepath.Join(dir, "copy.sqlite")
			size, err := db.CopyToFile(t.Context(), cp)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(cp)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() != size || size == 0 {
				t.Errorf("size %d, file has %d bytes", size, fi.Size())
			}
			// Bytes 18 and 19 of the header are 1 for a rollback journal,
			// 2 for WAL.
			if b, err := os.ReadFile(cp); err != nil || len(b) < 20 || b[18] != 1 || b[19] != 1 {
				t.Errorf("the copy is not a rollback-journal file (%v)", err)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want the copy alone", len(entries))
			}
			if _, err := db.CopyToFile(t.Context(), cp); err == nil {
				t.Error("a copy over an existing file succeeded")
			}
			other := openTest(t, cp, nil)
			if !tokenWorks(t, other, "tok") {
				t.Error("the copy opened as a database lacks the token")
			}
		})
	}
}

// TestRestoreRefusesBadCopies: a file that is not a database, or one made
// by a newer server, is refused and changes nothing.
func TestRestoreRefusesBadCopies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := openTest(t, filepath.Join(dir, "live.db"), nil)
	addUser(t, db, "tok")

	junk := filepath.Join(dir, "junk.sqlite")
	if err := os.WriteFile(junk, []byte("this is not a database, not even close to one, at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := db.RestoreFile(t.Context(), junk, nil); !errors.Is(err, ErrDamaged) {
		t.Errorf("junk file: %v, want ErrDamaged", err)
	}

	newer := filepath.Join(dir, "newer.sqlite")
	if _, err := db.CopyToFile(t.Context(), newer); err != nil {
		t.Fatal(err)
	}
	other := openTest(t, newer, nil)
	if err := other.Write(t.Context(), func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_future.sql', 0)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	addUser(t, other, "other")
	other.Close()
	if err := db.RestoreFile(t.Context(), newer, nil); !errors.Is(err, ErrNewerCopy) {
		t.Errorf("newer copy: %v, want ErrNewerCopy", err)
	}
	if err := db.RestoreFile(t.Context(), filepath.Join(dir, "missing.sqlite"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want os.ErrNotExist", err)
	}
	if !tokenWorks(t, db, "tok") || tokenWorks(t, db, "other") {
		t.Error("a refused restore changed the database")
	}
}

// TestRestoreRecompilesStatements: statements compiled before a restore,
// on the readers and the writer, read the restored schema after it, even
// where a table's pages moved (the backup bumps the schema cookie).
func TestRestoreRecompilesStatements(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "live.db"), nil)
	script := func(s string) {
		t.Helper()
		if err := db.Write(t.Context(), func(tx *Tx) error { _, err := tx.execScript(s); return err }); err != nil {
			t.Fatal(err)
		}
	}
	const query = `SELECT a FROM moved`
	read := func() (got string) {
		t.Helper()
		err := db.Read(t.Context(), func(tx *Tx) error { return tx.queryRow(query).Scan(&got) })
		if err != nil {
			t.Fatal(err)
		}
		var w string
		if err := db.Write(t.Context(), func(tx *Tx) error { return tx.queryRow(query).Scan(&w) }); err != nil {
			t.Fatal(err)
		}
		if w != got {
			t.Fatalf("the writer reads %q, a reader %q", w, got)
		}
		return got
	}
	script(`CREATE TABLE moved (a TEXT); INSERT INTO moved VALUES ('snapshot')`)
	path := filepath.Join(t.TempDir(), "copy.sqlite")
	if _, err := db.CopyToFile(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	script(`DROP TABLE moved; CREATE TABLE pad (b BLOB); INSERT INTO pad VALUES (randomblob(100000));
		CREATE TABLE moved (a TEXT); INSERT INTO moved VALUES ('live')`)
	for range 3 { // compiled by now in both caches
		if got := read(); got != "live" {
			t.Fatalf("before the restore: %q", got)
		}
	}
	if err := db.RestoreFile(t.Context(), path, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "snapshot" {
		t.Errorf("after the restore: %q, want snapshot", got)
	}
}

// TestCopyAtMost: a copy bounded below its size fails part-way through
// writing, as on a full disk, with a *CopyTooLargeError telling its whole
// size, and leaves no file (nor a journal) behind; bounded at its size it
// succeeds.
func TestCopyAtMost(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "live.db"), nil)
	addUser(t, db, "tok")
	if err := db.Write(t.Context(), func(tx *Tx) error {
		_, err := tx.execScript(`CREATE TABLE pad (b BLOB); INSERT INTO pad VALUES (randomblob(200000))`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	size, err := dbSize(t.Context(), db.read)
	if err != nil {
		t.Fatal(err)
	}
	tooSmall := size - size/4 // room for most pages: the copy fails writing
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		cp := filepath.Join(dir, "copy.sqlite")
		_, err := db.CopyToFile(t.Context(), cp, CopyAtMost(tooSmall))
		var tl *CopyTooLargeError
		if !errors.As(err, &tl) || tl.Size != size || tl.Max != tooSmall {
			t.Fatalf("copy bounded at %d bytes of %d: %v, want a CopyTooLargeError of %d bytes", tooSmall, size, err, size)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("the failed copy left %v", entries)
		}
		got, err := db.CopyToFile(t.Context(), cp, CopyAtMost(size))
		if err != nil || got != size {
			t.Fatalf("copy bounded at its own size: %d bytes, %v; want %d", got, err, size)
		}
		if !tokenWorks(t, openTest(t, cp, nil), "tok") {
			t.Error("the bounded copy lacks the token")
		}
	})
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		_, err := db.CopyToMemory(t.Context(), CopyAtMost(tooSmall))
		var tl *CopyTooLargeError
		if !errors.As(err, &tl) || tl.Size != size {
			t.Fatalf("copy bounded at %d bytes of %d: %v, want a CopyTooLargeError of %d bytes", tooSmall, size, err, size)
		}
		c, err := db.CopyToMemory(t.Context(), CopyAtMost(size))
		if err != nil {
			t.Fatalf("copy bounded at its own size: %v", err)
		}
		defer c.Close()
		if c.Size() != size {
			t.Errorf("copy of %d bytes, want %d", c.Size(), size)
		}
	})
}
