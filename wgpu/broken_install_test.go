package wgpu_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// brokenInstallChild tells a re-executed test binary to open a device the
// way a program would, on the environment its parent gave it, and print
// what happened as one JSON line after brokenInstallMark.
const (
	brokenInstallChild = "SOFTGRAPH_BROKEN_INSTALL_CHILD"
	brokenInstallMark  = "broken-install-outcome: "
)

// openOutcome is what a child saw of Open and OpenN.
type openOutcome struct {
	Opened      string   // the backend of the device Open returned, "" on error
	OpenedN     string   // the backend of OpenN(o, 1)'s device, "" on error
	NoAdapter   bool     // Open's error wraps ErrNoAdapter
	Typed       bool     // Open's error is an *AdapterError
	Unavailable []string // the backends its Unavailable names
	Message     string   // Open's error message
}

func openAndReport() openOutcome {
	var out openOutcome
	d, err := wgpu.Open(wgpu.Options{})
	if err == nil {
		out.Opened = d.Info().Backend.String()
		d.Close()
	}
	if ds, err := wgpu.OpenN(wgpu.Options{}, 1); err == nil {
		out.OpenedN = ds[0].Info().Backend.String()
		ds[0].Close()
	}
	if err != nil {
		out.Message = err.Error()
		out.NoAdapter = errors.Is(err, wgpu.ErrNoAdapter)
		var ae *wgpu.AdapterError
		if errors.As(err, &ae) {
			out.Typed = true
			for _, u := range ae.Unavailable {
				b, _, _ := strings.Cut(u, ":")
				out.Unavailable = append(out.Unavailable, b)
			}
		}
	}
	return out
}

// TestOpenOnABrokenDriverInstallReturnsAnAdapterErrorInsteadOfAborting: on
// a machine whose OpenGL or Vulkan install is broken, Open and OpenN
// return a device on whatever backend still works, or an *AdapterError
// (wrapping ErrNoAdapter) whose Unavailable names each broken backend with
// what to install or set; the process never aborts. Without the EGL check
// before the GL instance, EGL with no vendor library (libegl1 without
// libegl-mesa0, made here with __EGL_VENDOR_LIBRARY_DIRS=/nonexistent)
// aborted the process with SIGABRT inside wgpuCreateInstance (wgpu-hal
// unwraps the EGL display), from Open on a machine where lavapipe works.
// Each case runs in a fresh process: the instances are made once per
// process, and an abort is then this test's failure.
func TestOpenOnABrokenDriverInstallReturnsAnAdapterErrorInsteadOfAborting(t *testing.T) {
	if os.Getenv(brokenInstallChild) == "1" {
		b, _ := json.Marshal(openAndReport())
		os.Stdout.Write(append([]byte("\n"+brokenInstallMark), append(b, '\n')...))
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("the broken installs are made with Linux's Vulkan loader and libglvnd variables")
	}
	// What this machine has when nothing is broken decides what each case
	// can still open.
	hasVulkan := len(wgpu.Adapters(wgpu.BackendVulkan)) > 0
	hasGL := len(wgpu.Adapters(wgpu.BackendGL)) > 0
	if !hasVulkan && !hasGL {
		gputest.SkipIfNoAdapter(t, wgpu.ErrNoAdapter)
	}
	dir := gputest.TempDir(t)
	notELF := filepath.Join(dir, "libnot_a_driver.so")
	if err := os.WriteFile(notELF, []byte("not a shared object\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	icd := func(name, lib string) string {
		p := filepath.Join(dir, name)
		j := `{"file_format_version": "1.0.0", "ICD": {"library_path": "` + lib + `", "api_version": "1.3.0"}}`
		if err := os.WriteFile(p, []byte(j), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badICD := icd("not_elf_icd.json", notELF)
	missingICD := icd("missing_icd.json", filepath.Join(dir, "libvulkan_absent.so"))

	noVendor := []string{"__EGL_VENDOR_LIBRARY_DIRS=/nonexistent", "__EGL_VENDOR_LIBRARY_FILENAMES="}
	noICD := func(path string) []string { return []string{"VK_ICD_FILENAMES=" + path, "VK_DRIVER_FILES=" + path} }
	// failed is the outcome when nothing opens: an *AdapterError naming
	// the broken backends.
	failed := func(unavailable ...string) openOutcome {
		return openOutcome{NoAdapter: true, Typed: true, Unavailable: unavailable}
	}
	opened := func(backend string) openOutcome { return openOutcome{Opened: backend, OpenedN: backend} }
	orFailed := func(ok bool, backend string, unavailable ...string) openOutcome {
		if ok {
			return opened(backend)
		}
		return failed(unavailable...)
	}
	for _, c := range []struct {
		name    string
		env     []string
		want    openOutcome
		mention []string // fragments the error must contain
	}{
		{name: "EGL without a vendor", env: noVendor, want: orFailed(hasVulkan, "vulkan", "gl"),
			mention: []string{"libegl-mesa0", "SOFTGRAPH_BACKEND=vulkan"}},
		{name: "EGL without a vendor, OpenGL asked for", env: append(noVendor, "SOFTGRAPH_BACKEND=gl"), want: failed("gl"),
			mention: []string{"no EGL vendor library", `__EGL_VENDOR_LIBRARY_DIRS="/nonexistent" is set`, "install libegl-mesa0", "SOFTGRAPH_BACKEND=vulkan"}},
		{name: "no Vulkan driver", env: noICD("/nonexistent"), want: orFailed(hasGL, "gl", "vulkan", "gl"),
			mention: []string{"mesa-vulkan-drivers"}},
		{name: "no Vulkan driver, Vulkan asked for", env: append(noICD("/nonexistent"), "SOFTGRAPH_BACKEND=vulkan"), want: failed("vulkan"),
			mention: []string{"found no driver", `VK_DRIVER_FILES="/nonexistent" is set`, "install mesa-vulkan-drivers", "SOFTGRAPH_BACKEND=gl"}},
		{name: "an ICD whose library is not a shared object", env: append(noICD(badICD), "SOFTGRAPH_BACKEND=vulkan"), want: failed("vulkan"),
			mention: []string{"found no driver", "VK_DRIVER_FILES=", "install mesa-vulkan-drivers"}},
		{name: "an ICD whose library is missing", env: append(noICD(missingICD), "SOFTGRAPH_BACKEND=vulkan"), want: failed("vulkan"),
			mention: []string{"found no driver", "install mesa-vulkan-drivers"}},
		{name: "an ICD that fails to load, OpenGL left", env: noICD(badICD), want: orFailed(hasGL, "gl", "vulkan", "gl")},
		{name: "both missing", env: append(noVendor, noICD("/nonexistent")...), want: failed("vulkan", "gl"),
			mention: []string{"vulkan: ", "gl: ", "libegl-mesa0", "mesa-vulkan-drivers"}},
		{name: "both missing, the ICD not a shared object", env: append(noVendor, noICD(badICD)...), want: failed("vulkan", "gl")},
		{name: "nothing broken, OpenGL asked for", env: []string{"SOFTGRAPH_BACKEND=gl"}, want: orFailed(hasGL, "gl")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !c.want.Typed {
				// A case that opens needs no message.
				c.mention = nil
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestOpenOnABrokenDriverInstallReturnsAnAdapterErrorInsteadOfAborting$", "-test.count=1")
			cmd.Env = childEnv(os.Environ(), c.env)
			cmd.Env = append(append(cmd.Env, brokenInstallChild+"=1"), c.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if err != nil {
				t.Fatalf("with %q, opening a device must return, never abort the process; the child: %v\nstdout:\n%s\nstderr:\n%s", c.env, err, &stdout, panicOf(stderr.String()))
			}
			_, line, ok := strings.Cut(stdout.String(), brokenInstallMark)
			var got openOutcome
			if !ok || json.Unmarshal([]byte(strings.SplitN(line, "\n", 2)[0]), &got) != nil {
				t.Fatalf("the child printed no outcome:\n%s%s", &stdout, &stderr)
			}
			if diff := cmp.Diff(c.want, got, cmpopts.IgnoreFields(openOutcome{}, "Message"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("with %q, Open must open what still works or return an *AdapterError naming each broken backend (-want +got):\n%s\nmessage: %s", c.env, diff, got.Message)
			}
			for _, m := range c.mention {
				if !strings.Contains(got.Message, m) {
					t.Errorf("with %q, Open's error must say %q (what is missing, what to install or set); got %q", c.env, m, got.Message)
				}
			}
		})
	}
}

// panicOf is the part of a crashed child's stderr worth reading: a native
// panic's message, or the last lines.
func panicOf(s string) string {
	if i := strings.Index(s, "panicked at"); i >= 0 {
		s = s[i:]
		if len(s) > 600 {
			s = s[:600] + "..."
		}
		return s
	}
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// childEnv is the environment of a broken-install case: the parent's,
// less its adapter choice (each case asks for its own backend, or none),
// and less its settings of each family the case breaks (the Vulkan
// loader's, libglvnd's EGL), so that nothing of the parent's repairs what
// the case breaks; then the case's own. The settings of a family the case
// leaves alone stay: they are how this machine finds that driver (NVIDIA's
// Vulkan ICD outside the loader's search path, named by VK_DRIVER_FILES).
func childEnv(parent, broken []string) []string {
	family := func(k string) string {
		switch {
		case strings.HasPrefix(k, "VK_"):
			return "vulkan"
		case strings.HasPrefix(k, "__EGL_"):
			return "egl"
		}
		return ""
	}
	breaks := map[string]bool{}
	for _, kv := range broken {
		k, _, _ := strings.Cut(kv, "=")
		breaks[family(k)] = true
	}
	var env []string
	for _, kv := range parent {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "SOFTGRAPH_BACKEND", "SOFTGRAPH_ADAPTER", "SOFTGRAPH_FALLBACK":
			continue
		case "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_ADD_DRIVER_FILES", "__EGL_VENDOR_LIBRARY_DIRS", "__EGL_VENDOR_LIBRARY_FILENAMES":
			if breaks[family(k)] {
				continue
			}
		}
		env = append(env, kv)
	}
	return append(append(env, brokenInstallChild+"=1"), broken...)
}

// TestABrokenInstallCaseKeepsTheParentsSettingsOfWhatItLeavesAlone: a
// case that breaks EGL keeps the parent's Vulkan driver files (the H100's
// NVIDIA ICD is found only through VK_DRIVER_FILES, and a case that
// dropped it found no Vulkan there), and one that breaks Vulkan keeps its
// EGL vendor settings; both drop the parent's adapter choice and every
// setting of the family they break.
func TestABrokenInstallCaseKeepsTheParentsSettingsOfWhatItLeavesAlone(t *testing.T) {
	parent := []string{"HOME=/root", "SOFTGRAPH_BACKEND=gl", "VK_DRIVER_FILES=/opt/nvidia_icd.json", "VK_ADD_DRIVER_FILES=/opt/extra.json",
		"__EGL_VENDOR_LIBRARY_DIRS=/opt/egl"}
	for _, c := range []struct {
		name   string
		broken []string
		want   []string
	}{
		{"EGL broken", []string{"__EGL_VENDOR_LIBRARY_DIRS=/nonexistent", "__EGL_VENDOR_LIBRARY_FILENAMES="},
			[]string{"HOME=/root", "VK_DRIVER_FILES=/opt/nvidia_icd.json", "VK_ADD_DRIVER_FILES=/opt/extra.json", brokenInstallChild + "=1",
				"__EGL_VENDOR_LIBRARY_DIRS=/nonexistent", "__EGL_VENDOR_LIBRARY_FILENAMES="}},
		{"Vulkan broken", []string{"VK_ICD_FILENAMES=/nonexistent", "VK_DRIVER_FILES=/nonexistent"},
			[]string{"HOME=/root", "__EGL_VENDOR_LIBRARY_DIRS=/opt/egl", brokenInstallChild + "=1", "VK_ICD_FILENAMES=/nonexistent", "VK_DRIVER_FILES=/nonexistent"}},
		{"nothing broken", []string{"SOFTGRAPH_BACKEND=vulkan"},
			[]string{"HOME=/root", "VK_DRIVER_FILES=/opt/nvidia_icd.json", "VK_ADD_DRIVER_FILES=/opt/extra.json", "__EGL_VENDOR_LIBRARY_DIRS=/opt/egl",
				brokenInstallChild + "=1", "SOFTGRAPH_BACKEND=vulkan"}},
	} {
		if diff := cmp.Diff(c.want, childEnv(parent, c.broken)); diff != "" {
			t.Errorf("%s: the child's environment (-want +got):\n%s", c.name, diff)
		}
	}
}
