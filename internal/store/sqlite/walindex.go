package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"syscall"

	"github.com/slashd/slashd/internal/store/sqlstore"
)

// walIndex reads the header of the database's WAL index (the -shm file)
// to stamp its state without a query: every commit of every process
// rewrites that header, bumping its change counter (iChange), and so
// does a reset of the log. The layout is SQLite's documented file format
// (https://www.sqlite.org/walformat.html, "The WAL-Index Header"): two
// copies of a 48-byte header at offsets 0 and 48, in the writer's native
// byte order; a writer writes the second copy, then the first, so a
// reader that finds the two equal (and initialized) has a whole one.
//
// The file's first page is mapped, as SQLite's own connections map it:
// a read is a copy from memory, no system call (a pread and an fstat
// were about 3 µs, four times per invocation). A mapped file must stay
// the one SQLite uses, and whole: SQLite deletes the -shm file, or
// truncates it to start over, only when it opens or closes the last
// connection of every process, and attach keeps a connection of its
// own open until close (in WAL mode an open connection holds a SHARED
// lock on the database file, so no other can take the EXCLUSIVE one the
// deletion needs). Should something else cut the file anyway, the read
// faults, and that fault is recovered as "cannot say".
type walIndex struct {
	path string
	mu   sync.RWMutex // reads share it; attach and close take it whole
	mem  []byte       // the file's first page, mapped read-only; nil: not attached, or closed
	hold *sql.DB      // the connection that keeps the file in place
	// file is the descriptor the page was mapped through, open until
	// the holder has closed: closing any descriptor of a file drops
	// every POSIX lock the process holds on it, SQLite's connections'
	// included (its shared lock on the -shm file's DMS byte, without
	// which another process takes itself for the first, truncates the
	// file and rebuilds the index under this one's feet). So a store is
	// the only one open on its file in its process, as slashd runs (a
	// second store on the same file, as some tests open, would lose its
	// locks when the first closes, until it closes too).
	file *os.File
	done bool
}

// walIndexMapSize is how much of the file is mapped: a page, within the
// first 32 KiB region SQLite gives the file as it creates it.
const walIndexMapSize = 4096

const (
	walIndexHeaderSize = 48
	walIndexVersion    = 3007000 // WALINDEX_MAX_VERSION
)

func newWalIndex(dbPath string) *walIndex { return &walIndex{path: dbPath + "-shm"} }

// stamp is the header as it stands; false when it cannot be read whole
// (no file yet, a header being written, a file being rebuilt): the
// caller then asks the database.
func (w *walIndex) stamp() (sqlstore.CommitStamp, bool) {
	var buf [2 * walIndexHeaderSize]byte
	if !w.read(buf[:]) {
		return sqlstore.CommitStamp{}, false
	}
	return parseWalIndexHeader(buf[:])
}

// read fills buf from the file's start; false before attach, after
// close, or if the file was cut under the map.
func (w *walIndex) read(buf []byte) (ok bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.mem == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	copy(buf, w.mem)
	return true
}

// logSize is the size of the log the header describes: its frames, or
// none once all of them are in the database (the next writer starts
// the log over, writing over the file rather than growing it); false
// when the header cannot be read whole.
func (w *walIndex) logSize() (int64, bool) {
	var buf [2*walIndexHeaderSize + 4]byte // the headers, then the checkpoint's nBackfill
	if !w.read(buf[:]) {
		return 0, false
	}
	return parseWalLogSize(buf[:])
}

// parseWalLogSize reads the log's size from the file's first bytes: the
// header's mxFrame (bytes 16–19) frames of szPage (bytes 14–15, 1 for
// 65536) bytes and a 24-byte header each, after the log's 32-byte
// header; nothing when nBackfill (the checkpoint information's first
// field, bytes 96–99) has reached mxFrame.
func parseWalLogSize(b []byte) (int64, bool) {
	if _, ok := parseWalIndexHeader(b); !ok || len(b) < 2*walIndexHeaderSize+4 {
		return 0, false
	}
	frames := int64(binary.NativeEndian.Uint32(b[16:20]))
	backfilled := int64(binary.NativeEndian.Uint32(b[2*walIndexHeaderSize:]))
	if frames == 0 || backfilled >= frames {
		return 0, true
	}
	page := int64(binary.NativeEndian.Uint16(b[14:16]))
	if page == 1 {
		page = 65536
	}
	return 32 + frames*(24+page), true
}

// parseWalIndexHeader reads a stamp from the file's first bytes: both
// copies of the header alike, initialized (isInit, byte 12), of the
// version this layout is (iVersion, bytes 0–3); iChange is bytes 8–11.
func parseWalIndexHeader(b []byte) (sqlstore.CommitStamp, bool) {
	if len(b) < 2*walIndexHeaderSize {
		return sqlstore.CommitStamp{}, false
	}
	first, second := b[:walIndexHeaderSize], b[walIndexHeaderSize:2*walIndexHeaderSize]
	if string(first) != string(second) || first[12] != 1 || binary.NativeEndian.Uint32(first[0:4]) != walIndexVersion {
		return sqlstore.CommitStamp{}, false
	}
	st := sqlstore.CommitStamp{Seq: binary.NativeEndian.Uint32(first[8:12])}
	copy(st.State[:], first)
	return st, true
}

// attach opens a connection of db and keeps it, having read through it
// (a read opens the WAL index, and from then on the connection holds
// the database's SHARED lock), then maps the -shm file. db is the
// index's own: close closes it.
func (w *walIndex) attach(ctx context.Context, db *sql.DB) error {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&version); err != nil {
		db.Close()
		return fmt.Errorf("attach %s: %w", w.path, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || w.file != nil {
		db.Close()
		return fmt.Errorf("attach %s: closed or attached already", w.path)
	}
	f, err := os.Open(w.path)
	if err != nil {
		db.Close()
		return fmt.Errorf("attach %s: %w", w.path, err)
	}
	// Kept from here on, mapped or not: only close closes it (see file).
	w.file, w.hold = f, db
	mem, err := mapFirstPage(f)
	if err != nil {
		return err
	}
	w.mem = mem
	return nil
}

// mapFirstPage maps the first walIndexMapSize bytes of f, read-only and
// shared.
func mapFirstPage(f *os.File) ([]byte, error) {
	path := f.Name()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	if info.Size() < walIndexMapSize {
		return nil, fmt.Errorf("map %s: %d bytes, fewer than a page", path, info.Size())
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	var mem []byte
	ctlErr := rc.Control(func(fd uintptr) {
		mem, err = syscall.Mmap(int(fd), 0, walIndexMapSize, syscall.PROT_READ, syscall.MAP_SHARED)
	})
	if ctlErr != nil {
		err = ctlErr
	}
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return mem, nil
}

// close unmaps the file and lets its connection go; stamp reports
// nothing after it.
func (w *walIndex) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	var errs []error
	if w.mem != nil {
		if err := syscall.Munmap(w.mem); err != nil {
			errs = append(errs, fmt.Errorf("unmap %s: %w", w.path, err))
		}
		w.mem = nil
	}
	if w.hold != nil {
		if err := w.hold.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", w.path, err))
		}
		w.hold = nil
	}
	// Last: the store's connections are closed by now, so this close
	// drops no lock of theirs.
	if w.file != nil {
		if err := w.file.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", w.path, err))
		}
		w.file = nil
	}
	return errors.Join(errs...)
}
