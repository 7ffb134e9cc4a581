package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
)

// migrations holds the schema. Files are applied once each, in name order,
// each in its own transaction together with the row that records it, so a
// crash never leaves a half-applied migration behind. Areas own number
// ranges (core 0002-0009, wallet 0010-0019, ...), which keeps the order
// stable when several people add files.
//
//go:embed migrations/*.sql
var migrations embed.FS

func (db *DB) migrate(ctx context.Context) error {
	return db.migrateWith(ctx, db.Write)
}

// migrateWith applies the migrations, each in its own transaction run by
// write: db.Write at start, the writer's own runOne after a restore.
func (db *DB) migrateWith(ctx context.Context, write func(context.Context, func(*Tx) error) error) error {
	err := write(ctx, func(tx *Tx) error {
		_, err := tx.execScript(`CREATE TABLE IF NOT EXISTS schema_migrations (
			name       TEXT PRIMARY KEY,
			applied_at INTEGER NOT NULL
		)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		src, err := migrations.ReadFile(name)
		if err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
		base := name[len("migrations/"):]
		err = write(ctx, func(tx *Tx) error {
			var n int
			if err := tx.queryRow(`SELECT count(*) FROM schema_migrations WHERE name = ?`, base).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.execScript(string(src)); err != nil {
				return err
			}
			_, err := tx.exec(`INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, base, tx.Unix())
			return err
		})
		if err != nil {
			return fmt.Errorf("store: migration %s: %w", base, err)
		}
	}
	return nil
}

// AppliedMigrations lists the names of the applied migrations in order.
func (tx *Tx) AppliedMigrations() ([]string, error) {
	rows, err := tx.query(`SELECT name FROM schema_migrations ORDER BY name`)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanString)
}

// migrationNames lists the names of the embedded migrations in order.
func migrationNames() ([]string, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = n[len("migrations/"):]
	}
	return names, nil
}
