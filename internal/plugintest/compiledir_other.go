//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package plugintest

// lockFile: no file locks here; CompileDir uses a temporary directory.
func lockFile(string) (unlock func(), ok bool) { return nil, false }
