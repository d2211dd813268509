//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || android || ios || windows)

package datadir

import "os"

// tryLock cannot lock here.
func tryLock(*os.File) error { return ErrUnsupported }
