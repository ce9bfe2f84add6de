//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package plugintest

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path without waiting; the lock ends
// with unlock or with the process.
func lockFile(path string) (unlock func(), ok bool) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, true
}
