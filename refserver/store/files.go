package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// PrivateMode is the mode of every file the server keeps: the database
// holds hashes of every credential and secrets sealed with a key derived
// from the admin key, so no other local user may read it, whatever the
// umask the server was started under.
const PrivateMode fs.FileMode = 0o600

// makePrivate creates the database file at path, empty (which SQLite
// takes as a new database), unless it exists, and makes it and the -wal
// and -shm files beside it PrivateMode. SQLite gives the -wal and -shm
// files it creates later the database file's mode, so they are private
// from the start too.
func makePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, PrivateMode)
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return fmt.Errorf("store: create %s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := Chmod(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store: %w", err)
		}
	}
	return nil
}

// Chmod makes the file at path PrivateMode, unless it is already (the
// umask can only have taken bits away from a file created PrivateMode).
func Chmod(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm() == PrivateMode {
		return nil
	}
	return os.Chmod(path, PrivateMode)
}
