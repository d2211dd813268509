// Package datadir keeps one server to a data directory. A data
// directory holds a SQLite store and bootstrap.json, whose base_url
// names the one server that clients of the directory reach; two servers
// on it would split it (each caches what the other writes, both make
// ids as node 0, and bootstrap.json follows whichever started last).
//
// The server takes an exclusive OS lock on the file serve.lock in the
// directory (flock on Unix, LockFileEx on Windows) before it writes
// anything there, and holds it while it runs; the operating system
// releases it when the process ends, however it ends, so a crash never
// leaves the directory locked. The file also says who holds the lock
// (pid and address), so that a second server can name the first. The
// command-line verbs that write to the store do not take the lock: they
// write beside the running server, through the store's own locking
// (SQLite's), as they always have.
package datadir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LockName is the lock file's name in the data directory.
const LockName = "serve.lock"

// Holder says which process holds a data directory, as its lock file
// records it.
type Holder struct {
	PID int `json:"pid"`
	// Addr is the address the server was asked to listen on until it
	// listens, then the address it listens on.
	Addr string `json:"addr"`
	// URL is where clients reach the server, once it listens.
	URL     string    `json:"url,omitempty"`
	Started time.Time `json:"started"`
}

// describe says who h is, for messages.
func (h Holder) describe() string {
	switch {
	case h.PID == 0:
		return "its pid and address are not recorded yet: it is starting"
	case h.URL != "":
		return fmt.Sprintf("pid %d, listening on %s", h.PID, h.URL)
	case h.Addr != "":
		return fmt.Sprintf("pid %d, starting on %s", h.PID, h.Addr)
	}
	return fmt.Sprintf("pid %d", h.PID)
}

// LockedError is the error of Acquire on a directory another process
// holds.
type LockedError struct {
	Dir    string
	Holder Holder // zero when the holder has not recorded itself yet
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("data directory %s is in use by another slashd serve (%s); one server runs on a data directory "+
		"at a time: stop that one, or give this one its own directory with --data DIR", e.Dir, e.Holder.describe())
}

// ErrUnsupported is wrapped by Acquire's error on a platform without
// file locks; the caller may carry on unguarded.
var ErrUnsupported = errors.New("file locks are not supported on this platform")

// Lock is a held data directory.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes dir for the process described by h, creating dir (mode
// 0700) when it does not exist. It fails at once, with a *LockedError,
// when another process holds it.
func Acquire(dir string, h Holder) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the data directory's lock: %w", err)
	}
	switch err := tryLock(f); {
	case errors.Is(err, errLocked):
		f.Close()
		return nil, &LockedError{Dir: dir, Holder: readHolder(path)}
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	l := &Lock{f: f, path: path}
	if err := l.Update(h); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// Update records h as the holder.
func (l *Lock) Update(h Holder) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	if _, err := l.f.WriteAt(append(b, '\n'), 0); err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	return nil
}

// Release lets the directory go: the record is emptied (the file stays:
// removing it could let two processes lock two different files of one
// name) and the lock released.
func (l *Lock) Release() error {
	l.f.Truncate(0)
	return l.f.Close() // closing releases the lock
}

// readHolder reads the lock file's record; a record that cannot be read
// (the holder is between its lock and its first record) is the zero
// Holder.
func readHolder(path string) Holder {
	var h Holder
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &h) != nil {
		return Holder{}
	}
	return h
}

// errLocked is tryLock's error when another process holds the lock.
var errLocked = errors.New("locked by another process")
