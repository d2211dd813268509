package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
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
// The file is read with pread rather than mapped: a map of a file that
// another process truncates would fault, a read just comes back short.
type walIndex struct {
	path string
	f    atomic.Pointer[os.File]
	mu   sync.Mutex // opening and closing
	done bool
}

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

// read fills buf from the file's start; false when there is no file or
// it is shorter.
func (w *walIndex) read(buf []byte) bool {
	f := w.file()
	if f == nil {
		return false
	}
	_, err := f.ReadAt(buf, 0)
	return err == nil
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

// file is the open -shm file, opened again when the one held was
// unlinked (SQLite deletes it when the last connection of every process
// closes; a new one would start over).
func (w *walIndex) file() *os.File {
	if f := w.f.Load(); f != nil && linked(f) {
		return f
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	if f := w.f.Load(); f != nil {
		if linked(f) {
			return f
		}
		w.f.Store(nil)
		f.Close()
	}
	f, err := os.Open(w.path)
	if err != nil {
		return nil
	}
	w.f.Store(f)
	return f
}

// linked reports whether f still has a name: a stale file's header would
// never move again. (Through SyscallConn, which holds the descriptor
// for the call: close may run at the same time.)
func linked(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	named := false
	err = rc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		named = syscall.Fstat(int(fd), &st) == nil && st.Nlink > 0
	})
	return err == nil && named
}

// close lets the file go; stamp reports nothing after it.
func (w *walIndex) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	f := w.f.Swap(nil)
	if f == nil {
		return nil
	}
	if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("close %s: %w", w.path, err)
	}
	return nil
}
