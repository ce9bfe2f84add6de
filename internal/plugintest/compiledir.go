package plugintest

import (
	"os"
	"path/filepath"
)

// CompileDir returns the directory parent/name for generated code that a
// test builds with the go command, emptied, and release, which removes it.
// The path is the same on every run, so the packages written there have
// the same import paths and contents each time and the go command's build
// cache reuses what the last run compiled and vetted; a fresh temporary
// directory per run would compile everything again. While another test
// process holds parent/name (the lock parent/name.lock), or where file
// locks are not supported, it returns a new temporary directory
// parent/name-* instead, which builds uncached but correctly.
func CompileDir(parent, name string) (dir string, release func(), err error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", nil, err
	}
	dir = filepath.Join(parent, name)
	unlock, locked := lockFile(dir + ".lock")
	if !locked {
		tmp, err := os.MkdirTemp(parent, name+"-")
		if err != nil {
			return "", nil, err
		}
		return tmp, func() { os.RemoveAll(tmp) }, nil
	}
	// Left by a run that was killed: start empty.
	if err := os.RemoveAll(dir); err != nil {
		unlock()
		return "", nil, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		unlock()
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir); unlock() }, nil
}
