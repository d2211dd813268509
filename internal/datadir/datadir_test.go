package datadir

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAcquire: a held directory is refused at once with its holder's
// record; released, it can be taken again.
func TestAcquire(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // made by Acquire
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	first, err := Acquire(dir, Holder{PID: 42, Addr: "127.0.0.1:8080", Started: started})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the data directory: %v, %v; want mode 700", fi, err)
	}
	fi, err := os.Stat(filepath.Join(dir, LockName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the lock file: %v, %v; want mode 600", fi, err)
	}

	checkLocked := func(want Holder, wantText string) {
		t.Helper()
		l, err := Acquire(dir, Holder{PID: 43})
		var locked *LockedError
		if !errors.As(err, &locked) {
			if l != nil {
				l.Release()
			}
			t.Fatalf("second Acquire: %v, want a *LockedError", err)
		}
		if locked.Holder != want || locked.Dir != dir {
			t.Errorf("holder %+v in %s, want %+v in %s", locked.Holder, locked.Dir, want, dir)
		}
		if !strings.Contains(err.Error(), wantText) || !strings.Contains(err.Error(), "--data DIR") {
			t.Errorf("error %q, want it to say %q and --data DIR", err, wantText)
		}
	}
	checkLocked(Holder{PID: 42, Addr: "127.0.0.1:8080", Started: started}, "(pid 42, starting on 127.0.0.1:8080)")
	listening := Holder{PID: 42, Addr: "127.0.0.1:8081", URL: "http://127.0.0.1:8081", Started: started}
	if err := first.Update(listening); err != nil {
		t.Fatal(err)
	}
	checkLocked(listening, "(pid 42, listening on http://127.0.0.1:8081)")

	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	second, err := Acquire(dir, Holder{PID: 44})
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	second.Release()
}

// TestLockedErrorText: what the second server says in each state of
// the first.
func TestLockedErrorText(t *testing.T) {
	for _, tc := range []struct {
		h    Holder
		want string
	}{
		{Holder{}, "(its pid and address are not recorded yet: it is starting)"},
		{Holder{PID: 7}, "(pid 7)"},
		{Holder{PID: 7, Addr: ":8080"}, "(pid 7, starting on :8080)"},
		{Holder{PID: 7, Addr: "0.0.0.0:8080", URL: "http://127.0.0.1:8080"}, "(pid 7, listening on http://127.0.0.1:8080)"},
	} {
		err := &LockedError{Dir: "/srv/data", Holder: tc.h}
		want := "data directory /srv/data is in use by another slashd serve " + tc.want
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v: %q, want it to start with %q", tc.h, err, want)
		}
	}
}

// TestLockDiesWithItsProcess: another process holds the directory while
// it lives, and the operating system releases it when the process is
// killed (no chance to clean up).
func TestLockDiesWithItsProcess(t *testing.T) {
	if os.Getenv("DATADIR_TEST_HOLD") != "" {
		return // the helper process runs TestMain's hold instead
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DATADIR_TEST_HOLD="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if _, err := cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "held" {
		t.Fatalf("the helper said %q, %v; want held", line, err)
	}

	_, err = Acquire(dir, Holder{PID: os.Getpid()})
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder.PID != cmd.Process.Pid || locked.Holder.Addr != "helper:1" {
		t.Fatalf("Acquire beside the helper (pid %d): %v (%+v)", cmd.Process.Pid, err, locked)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
	done <- nil // for the cleanup
	l, err := Acquire(dir, Holder{PID: os.Getpid()})
	if err != nil {
		t.Fatalf("Acquire after the holder was killed: %v", err)
	}
	l.Release()
}

func TestMain(m *testing.M) {
	if dir := os.Getenv("DATADIR_TEST_HOLD"); dir != "" {
		hold(dir)
	}
	os.Exit(m.Run())
}

// hold is the helper process: it takes dir, says so, and waits to be
// killed.
func hold(dir string) {
	if _, err := Acquire(dir, Holder{PID: os.Getpid(), Addr: "helper:" + strconv.Itoa(1)}); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("held\n")
	// Until killed, or until the test is gone (its end of stdin closes).
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}
