//go:build unix && !darwin

package wgpu

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// runtimeDirOnce makes ensureRuntimeDir's work happen once per process.
var runtimeDirOnce sync.Once

// ensureRuntimeDir gives the process an XDG_RUNTIME_DIR when it has no
// usable one; primaryInstance and glInstance call it before creating their
// instance. Mesa's Vulkan and EGL drivers try a Wayland connection while
// wgpu-native enumerates adapters, and libwayland prints "error:
// XDG_RUNTIME_DIR is invalid or not set in the environment." to stderr
// (five lines on a Linux machine with lavapipe and llvmpipe) when the
// variable is unset or not an absolute path. Nothing softgraph does needs
// the directory: it only keeps stderr clean on headless machines and CI,
// where the variable is usually missing.
//
// A variable naming an existing directory is left alone. Otherwise the
// variable is set for the whole process (os.Setenv calls setenv under cgo,
// so the C libraries see it) to a directory of this user's, mode 0700,
// under os.TempDir: softgraph-runtime-UID, the same one for every process
// of the user so that runs leave no litter, or a fresh one when that name
// is taken by something else. A failure changes nothing but the noise, so
// it is not reported.
func ensureRuntimeDir() {
	runtimeDirOnce.Do(func() {
		if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				return
			}
		}
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("softgraph-runtime-%d", os.Getuid()))
		if !privateDir(dir) {
			var err error
			// MkdirTemp makes the directory with mode 0700.
			if dir, err = os.MkdirTemp("", "softgraph-runtime-"); err != nil {
				return
			}
		}
		os.Setenv("XDG_RUNTIME_DIR", dir)
	})
}

// privateDir makes dir (mode 0700) if it does not exist and says whether it
// is now a directory only this user can use: not a symbolic link, owned by
// this user, with no permissions for group or others. Another user could
// have made the name first (os.TempDir is shared) and planted a Wayland
// socket in it for Mesa to connect to; os.TempDir is usually sticky, so
// once the directory is ours no other user can rename or remove it.
func privateDir(dir string) bool {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return false
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
