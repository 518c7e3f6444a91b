package wgpu_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// runtimeDirChild tells a re-executed test binary to enumerate the
// adapters and report what it found and which XDG_RUNTIME_DIR it ended with.
const runtimeDirChild = "SOFTGRAPH_RUNTIME_DIR_CHILD"

// TestEnumeratingAdaptersWithoutRuntimeDirPrintsNothing: a process with no
// usable XDG_RUNTIME_DIR enumerates adapters without a word on stderr, and
// ends with the variable naming a directory only its user can use, while a
// usable one given by the caller is kept. Without the private directory
// wgpu wants made before its first instance, libwayland (loaded by Mesa's
// Vulkan and EGL drivers) printed "error: XDG_RUNTIME_DIR is invalid or not
// set in the environment." five times in every program on a headless Linux
// machine. The adapters are enumerated in a fresh process, since the
// variable is read when an instance is created, once per process.
func TestEnumeratingAdaptersWithoutRuntimeDirPrintsNothing(t *testing.T) {
	if os.Getenv(runtimeDirChild) == "1" {
		fmt.Printf("adapters: %d\n", len(wgpu.Adapters(wgpu.BackendAuto)))
		fmt.Printf("XDG_RUNTIME_DIR=%s\n", os.Getenv("XDG_RUNTIME_DIR"))
		return
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		t.Skip("Mesa, which wants XDG_RUNTIME_DIR, is not the driver on " + runtime.GOOS)
	}
	given := gputest.TempDir(t)
	// Two temporary directories where the name softgraph reuses for its
	// runtime directory is taken by something it must not use: a directory
	// others may enter, and a symbolic link (to a private directory).
	shared, linked := gputest.TempDir(t), gputest.TempDir(t)
	name := fmt.Sprintf("softgraph-runtime-%d", os.Getuid())
	if err := os.Mkdir(filepath.Join(shared, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(shared, name), 0o755); err != nil { // past the umask
		t.Fatal(err)
	}
	if err := os.Symlink(given, filepath.Join(linked, name)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		env   []string // XDG_RUNTIME_DIR's setting (none when empty), TMPDIR's
		keep  string   // the directory the child must keep, "" for a private one
		taken string   // a path the private directory must not be
	}{
		{name: "unset"},
		{name: "relative", env: []string{"XDG_RUNTIME_DIR=run/user"}},
		{name: "missing", env: []string{"XDG_RUNTIME_DIR=" + filepath.Join(given, "missing")}},
		{name: "usable", env: []string{"XDG_RUNTIME_DIR=" + given}, keep: given},
		{name: "unset, its usual name a shared directory", env: []string{"TMPDIR=" + shared}, taken: filepath.Join(shared, name)},
		{name: "unset, its usual name a symbolic link", env: []string{"TMPDIR=" + linked}, taken: filepath.Join(linked, name)},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()[:strings.IndexByte(t.Name(), '/')]+"$", "-test.count=1")
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(append(cmd.Env, runtimeDirChild+"=1"), c.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("the child process: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
			}
			var n int
			var dir string
			for _, l := range strings.Split(stdout.String(), "\n") {
				fmt.Sscanf(l, "adapters: %d", &n)
				if v, ok := strings.CutPrefix(l, "XDG_RUNTIME_DIR="); ok {
					dir = v
				}
			}
			if n == 0 {
				// With no adapter there is no driver to print anything,
				// and the test would prove nothing.
				gputest.SkipIfNoAdapter(t, wgpu.ErrNoAdapter)
				t.Fatalf("the child found no adapter:\n%s%s", &stdout, &stderr)
			}
			var noise []string
			for _, l := range strings.Split(stderr.String(), "\n") {
				if strings.Contains(l, "XDG_RUNTIME_DIR") {
					noise = append(noise, l)
				}
			}
			if diff := cmp.Diff([]string(nil), noise); diff != "" {
				t.Errorf("enumerating %d adapters with XDG_RUNTIME_DIR %s must print nothing about it on stderr (-want +got):\n%s", n, c.name, diff)
			}
			if c.keep != "" {
				if dir != c.keep {
					t.Errorf("a usable XDG_RUNTIME_DIR must be kept: want %q, the child ended with %q", c.keep, dir)
				}
				return
			}
			fi, err := os.Lstat(dir)
			if err != nil || !filepath.IsAbs(dir) || !fi.IsDir() || fi.Mode().Perm() != 0o700 || dir == c.taken {
				t.Errorf("with XDG_RUNTIME_DIR %s the process must end with it naming a private directory (absolute, mode 0700, not %q); got %q: %v, %v", c.name, c.taken, dir, fi, err)
			}
		})
	}
}
