package outbox_test

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/possync/outbox"
)

// An application opens the database itself (here with the same driver,
// but any database/sql SQLite driver will do) and hands it to New: the
// outbox lives beside the application's own tables, survives a new store
// on the same database, and Close leaves the application's *sql.DB open.
func TestNewOnAnApplicationsDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "pos.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE pos_tickets (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}

	o, err := outbox.New(ctx, db, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.SaveChecks(ctx, []*possync.Check{check(7, 700)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := o.PutSavedPayment(ctx, 99, 7); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO pos_tickets (id) VALUES (1)`); err != nil {
		t.Fatalf("the application's database after the store's Close: %v", err)
	}

	again, err := outbox.New(ctx, db, 1)
	if err != nil {
		t.Fatal(err)
	}
	checks, saved := summary(t, again)
	if !slices.Equal(checks, []string{"7:7.00"}) || !slices.Equal(saved, []int64{99}) {
		t.Errorf("a second store on the same database loaded %q and %v", checks, saved)
	}
}

func TestNewNeedsADatabase(t *testing.T) {
	t.Parallel()
	if _, err := outbox.New(context.Background(), nil, 1); err == nil {
		t.Error("New(nil) succeeded")
	}
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "pos.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := outbox.New(context.Background(), db, 1); err == nil || !strings.Contains(err.Error(), "outbox: create tables") {
		t.Errorf("New on a closed database: %v", err)
	}
}

// Without cgo the package builds, with New, and brings no cgo driver
// along; a program that calls Open fails to compile with a sentence that
// says what to do.
func TestBuildWithoutCgo(t *testing.T) {
	t.Parallel()
	goCmd := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := goCmd("build", "-o", os.DevNull, "."); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	deps, err := goCmd("list", "-deps", ".")
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, deps)
	}
	if strings.Contains(deps, "mattn/go-sqlite3") {
		t.Errorf("without cgo the package still depends on the cgo driver:\n%s", deps)
	}
	out, err := goCmd("build", "-o", os.DevNull, "./testdata/callsopen")
	if err == nil || !strings.Contains(out, "needs cgo and a C compiler, or open the file and call New") {
		t.Errorf("CGO_ENABLED=0 build of a program calling Open: %v\n%s", err, out)
	}
}
