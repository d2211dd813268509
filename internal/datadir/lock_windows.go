//go:build windows

package datadir

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock locks one byte of f far beyond its end, without waiting:
// Windows locks are mandatory for the bytes they cover, and the record
// at the start must stay readable by the process the lock refuses.
func tryLock(f *os.File) error {
	ol := &windows.Overlapped{Offset: 0, OffsetHigh: 0x7fffffff}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLocked
	}
	return err
}
