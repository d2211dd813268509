package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// The world clock is read from the database only when some commit may
// have moved it: while the WAL index's header stands still, or moved only
// by this store's own invocation writes, the last reading is served.
// Every other commit, by another handle or another process, world write
// or not, makes the next reading query again, and a world write is seen.
func TestWorldClockQueriesOnlyAfterOthersCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	quiet := withLimits(walLimits{CheckpointAt: 16 << 20, HardLimit: 40 << 20, RetryStep: 4 << 20,
		Interval: time.Hour, Wait: time.Second}) // no checkpoint resets the log between steps
	a := openTest(t, path, quiet)
	ctx := t.Context()
	b, err := Open(ctx, path, quiet) // another handle on the same file
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	clock := a.WorldClock()
	f := seedInvocations(t, a)

	var version int64
	step := func(name string, write func() error, wantQueries int64, moves bool) {
		t.Helper()
		if err := write(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		before := a.WorldClockQueries()
		v, err := clock(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := a.WorldClockQueries() - before; got != wantQueries {
			t.Errorf("after %s: the clock was read with %d queries, want %d", name, got, wantQueries)
		}
		if moved := v != version; moved != moves {
			t.Errorf("after %s: the clock went %d → %d, want moved=%v", name, version, v, moves)
		}
		version = v
	}
	nothing := func() error { return nil }
	step("the first reading", nothing, 1, true)
	step("nothing", nothing, 0, false)
	step("this store's answered invocation", func() error { return f.answer(ctx, a) }, 0, false)
	step("another handle's answered invocation", func() error { return f.answer(ctx, b) }, 1, false)
	step("another handle's new user", func() error { return f.user(ctx, b) }, 1, true)
	step("nothing again", nothing, 0, false)
	step("this store's new user", func() error { return f.user(ctx, a) }, 1, true)
	step("another process's new user", func() error { return writeInAnotherProcess(t, path) }, 1, true)
	step("this store's answered invocation, again", func() error { return f.answer(ctx, a) }, 0, false)
	step("another handle's new user, then this store's answered invocation", func() error {
		if err := f.user(ctx, b); err != nil {
			return err
		}
		return f.answer(ctx, a)
	}, 1, true)
	step("this store's answered invocation, once more", func() error { return f.answer(ctx, a) }, 0, false)
}

// invocationFixture is a guild and channel to answer invocations in.
type invocationFixture struct {
	owner, guild, channel snowflake.ID
	next                  *int64
}

func seedInvocations(t *testing.T, s *sqlstore.Store) invocationFixture {
	t.Helper()
	ctx := t.Context()
	at := time.UnixMilli(1_700_000_000_000)
	f := invocationFixture{owner: 10, guild: 20, channel: 30, next: new(int64)}
	for _, err := range []error{
		s.CreateUser(ctx, store.User{ID: f.owner, Username: "owner", CreatedAt: at}),
		s.CreateGuild(ctx, store.Guild{ID: f.guild, Name: "g", OwnerID: f.owner, CreatedAt: at}),
		s.CreateChannel(ctx, guild.Channel{ID: f.channel, GuildID: f.guild, Type: guild.ChannelText, Name: "general"}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// answer records an invocation answered inline with a message, as an
// HTTP app's inline answer is.
func (f invocationFixture) answer(ctx context.Context, s *sqlstore.Store) error {
	*f.next++
	id := snowflake.ID(1_000_000 + 2**f.next)
	token := sha256.Sum256([]byte(strconv.FormatInt(*f.next, 10)))
	at := time.Now()
	rec := store.Interaction{ID: id, ApplicationID: 5, Type: 2, TokenHash: token[:], GuildID: f.guild, ChannelID: f.channel,
		UserID: f.owner, CreatedAt: at}
	_, err := s.CreateAnsweredInteraction(ctx, rec, func(cur store.Interaction) (store.Answer, error) {
		m := store.Message{ID: id + 1, ChannelID: f.channel, GuildID: f.guild, AuthorID: 5, InteractionID: id,
			Body: []byte(`{"content":"hi"}`), CreatedAt: at}
		cur.ResponseType, cur.AnsweredAt, cur.OriginalMessageID = 4, at, m.ID
		return store.Answer{Interaction: cur, Put: &m}, nil
	})
	return err
}

func (f invocationFixture) user(ctx context.Context, s *sqlstore.Store) error {
	*f.next++
	return s.CreateUser(ctx, store.User{ID: snowflake.ID(5_000_000 + *f.next), Username: "u", CreatedAt: time.Now()})
}

// writeInAnotherProcess runs this test binary again to create a user in
// the database at path, as the CLI does beside a running server.
func writeInAnotherProcess(t *testing.T, path string) error {
	t.Helper()
	inAnotherProcess(t, "TestWorldWriterProcess", "SLASHD_TEST_WORLD_WRITER="+path)
	return nil
}

// inAnotherProcess runs this test binary again, only the test named, with
// env added, and returns its output; it fails t if the run fails.
func inAnotherProcess(t *testing.T, test, env string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the other process: %v\n%s", err, out)
	}
	return out
}

// TestWorldWriterProcess is writeInAnotherProcess's child; by itself it
// does nothing.
func TestWorldWriterProcess(t *testing.T) {
	path := os.Getenv("SLASHD_TEST_WORLD_WRITER")
	if path == "" {
		t.Skip("run by TestWorldClockQueriesOnlyAfterOthersCommit")
	}
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateUser(t.Context(), store.User{ID: 9_999_999, Username: "cli", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

// attachedWalIndex is a WAL index of the database at path, attached
// through a handle of its own.
func attachedWalIndex(t *testing.T, path string) *walIndex {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, defaultLimits))
	if err != nil {
		t.Fatal(err)
	}
	w := newWalIndex(path)
	if err := w.attach(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	return w
}

// The WAL index's file stays while its index is attached: the store
// that made it closes (its last connection would have had SQLite delete
// the file), another opens the database, and the stamp still follows
// every commit, read from the file SQLite uses. Before attach and after
// close, a stamp cannot be read.
func TestWalIndexHoldsItsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	if _, ok := newWalIndex(path).stamp(); ok {
		t.Fatal("a stamp from an index not attached")
	}
	first, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	w := attachedWalIndex(t, path)
	st, ok := w.stamp()
	if !ok {
		t.Fatal("no stamp of an open database")
	}
	if err := first.CreateUser(t.Context(), store.User{ID: 1, Username: "a", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	before, ok := w.stamp()
	if !ok || before.Seq == st.Seq {
		t.Fatalf("a commit left the stamp at %d (%v)", before.Seq, ok)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-shm"); err != nil {
		t.Fatalf("the WAL index's file went while attached: %v", err)
	}
	second, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if err := second.CreateUser(t.Context(), store.User{ID: 2, Username: "b", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if after, ok := w.stamp(); !ok || after == before {
		t.Fatalf("a commit of the second store left the stamp as it was (%v)", ok)
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.stamp(); ok {
		t.Fatal("a stamp after close")
	}
}

// A header is taken only whole: both copies alike, initialized, of the
// known version; anything else (torn, empty, short) asks the database
// (or, for the log's size, the file).
func FuzzParseWalIndexHeader(f *testing.F) {
	whole := make([]byte, 2*walIndexHeaderSize)
	binary.NativeEndian.PutUint32(whole[0:], walIndexVersion)
	binary.NativeEndian.PutUint32(whole[8:], 41)
	whole[12] = 1
	copy(whole[walIndexHeaderSize:], whole[:walIndexHeaderSize])
	f.Add(whole)
	torn := slices.Clone(whole)
	torn[8] = 42
	f.Add(torn)
	f.Add(whole[:50])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		size, sized := parseWalLogSize(b)
		st, ok := parseWalIndexHeader(b)
		if sized && (!ok || size < 0 || size > 32+int64(^uint32(0))*(24+65536)) {
			t.Fatalf("took %x as a log of %d bytes", b, size)
		}
		if !ok {
			return
		}
		h := b[:walIndexHeaderSize]
		if !bytes.Equal(h, b[walIndexHeaderSize:2*walIndexHeaderSize]) || h[12] != 1 ||
			!bytes.Equal(st.State[:], h) || st.Seq != binary.NativeEndian.Uint32(h[8:]) {
			t.Fatalf("took %x as %+v", b, st)
		}
	})
}

// Stamps read while the index closes come back or say they cannot: they
// never read an unmapped page (the race detector watches the rest).
func TestWalIndexStampWhileClosing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	w := attachedWalIndex(t, path)
	if _, ok := w.stamp(); !ok {
		t.Fatal("no stamp of an open database")
	}
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 2000 {
				w.stamp()
			}
		}()
	}
	if err := w.close(); err != nil {
		t.Error(err)
	}
	for range 4 {
		<-done
	}
	if _, ok := w.stamp(); ok {
		t.Error("a stamp after close")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// The log's size is its frames and their headers after the log's own,
// until a checkpoint has copied every frame.
func TestParseWalLogSize(t *testing.T) {
	header := func(frames, backfilled uint32, page uint16) []byte {
		b := make([]byte, 2*walIndexHeaderSize+4)
		binary.NativeEndian.PutUint32(b[0:], walIndexVersion)
		b[12] = 1
		binary.NativeEndian.PutUint16(b[14:], page)
		binary.NativeEndian.PutUint32(b[16:], frames)
		copy(b[walIndexHeaderSize:], b[:walIndexHeaderSize])
		binary.NativeEndian.PutUint32(b[2*walIndexHeaderSize:], backfilled)
		return b
	}
	for _, c := range []struct {
		name               string
		frames, backfilled uint32
		page               uint16
		want               int64
	}{
		{"empty", 0, 0, 4096, 0},
		{"ten frames", 10, 0, 4096, 32 + 10*(24+4096)},
		{"partly copied", 10, 4, 4096, 32 + 10*(24+4096)},
		{"all copied", 10, 10, 4096, 0},
		{"64 KiB pages", 2, 0, 1, 32 + 2*(24+65536)},
	} {
		if got, ok := parseWalLogSize(header(c.frames, c.backfilled, c.page)); !ok || got != c.want {
			t.Errorf("%s: %d (%v), want %d", c.name, got, ok, c.want)
		}
	}
	if _, ok := parseWalLogSize(header(10, 0, 4096)[:2*walIndexHeaderSize]); ok {
		t.Error("a size without the checkpoint's information")
	}
}

// shmDMSLock is the byte of the -shm file on which every process with
// the database open holds a shared lock (SQLite's unix VFS: UNIX_SHM_DMS,
// after the WAL index's 8 lock bytes at 120); a process that finds it
// unlocked takes itself for the first, truncates the file and rebuilds
// the index under the others' feet.
const shmDMSLock = 128

// The WAL index's file is read without dropping this process's locks on
// it: a POSIX lock goes when the process closes any descriptor of the
// file, so the index keeps the one it mapped through open. Another
// process, as the CLI beside a running server, must still see the
// server's shared lock on the -shm file once the store is open (with it
// gone, the CLI reset the index and failed with "locking protocol").
func TestWalIndexKeepsTheProcessLocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	s := openTest(t, path)
	if err := s.CreateUser(t.Context(), store.User{ID: 1, Username: "a", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	out := inAnotherProcess(t, "TestShmLockProbeProcess", "SLASHD_TEST_SHM_LOCK="+path+"-shm")
	if want := fmt.Sprintf("held by %d", os.Getpid()); !strings.Contains(string(out), want) {
		t.Fatalf("the other process found the -shm file's DMS byte %s, want %s", out, want)
	}
}

// TestShmLockProbeProcess is TestWalIndexKeepsTheProcessLocks's child:
// it asks who holds a lock on the DMS byte; by itself it does nothing.
func TestShmLockProbeProcess(t *testing.T) {
	path := os.Getenv("SLASHD_TEST_SHM_LOCK")
	if path == "" {
		t.Skip("run by TestWalIndexKeepsTheProcessLocks")
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart, Start: shmDMSLock, Len: 1}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		t.Fatal(err)
	}
	if lk.Type == syscall.F_UNLCK {
		fmt.Println("unlocked")
		return
	}
	fmt.Printf("held by %d\n", lk.Pid)
}
