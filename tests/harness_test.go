package tests

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// wantState fails unless s is in want.
func wantState(t testing.TB, rule string, s *recorder.Stream, want lifecycle.State) {
	t.Helper()
	if got := s.State(); got != want {
		t.Fatalf("%s: stream is in %v, want %v", rule, got, want)
	}
}

// collect gathers the errors of concurrent workers.
type collect struct {
	mu   sync.Mutex
	errs []error
}

func (c *collect) add(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

func (c *collect) report(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, err := range c.errs {
		if i == 10 {
			t.Errorf("... and %d more", len(c.errs)-10)
			break
		}
		t.Error(err)
	}
}

// within runs f and fails the test if it has not returned after limit: a
// call on a closed or lost device must fail fast, never wait for a GPU
// that is gone, and no call may wait without bound.
func within(t *testing.T, limit time.Duration, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("%s did not return within %v: it hangs", what, limit)
		return nil
	}
}

// live counts the native objects made through d and still alive, as the
// driver boundary under the recorder sees them: what a leak shows in.
func live(t testing.TB, d *wgpu.Device) driver.Live {
	t.Helper()
	drv, err := driver.Of(d)
	if err != nil {
		t.Fatalf("driver.Of: %v", err)
	}
	return drv.Live()
}

// affordableBytes is how much host memory a test may plan to touch: what
// the kernel reports available, divided by the race detector's overhead
// when it runs. 0 when unknown.
func affordableBytes() uint64 {
	raw, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return 0
			}
			if raceEnabled {
				return kb << 10 / 8
			}
			return kb << 10
		}
	}
	return 0
}

// rss is the process's resident set in bytes (0 where /proc is absent).
func rss() uint64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

// bump is AddConstWGSL: x += p.c.
func bump(s *recorder.Stream, k *wgpu.Kernel, x *recorder.Buffer, c float32) error {
	return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(c))
}

// waitAll is waitAll that, on a hang, logs the stacks of the goroutines
// inside softgraph before failing, so the call that hung is named.
func waitAll(t *testing.T, wg *sync.WaitGroup, limit time.Duration, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		var kept []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "softgraph/recorder") || strings.Contains(g, "softgraph/wgpu") {
				kept = append(kept, "stack of "+strings.TrimPrefix(g, "goroutine "))
			}
		}
		t.Fatalf("%s: still running after %v; a call hung. Goroutines in softgraph:\n%s", what, limit, strings.Join(kept, "\n\n"))
	}
}

// isOneOf reports whether err is nil or wraps one of allowed.
func isOneOf(err error, allowed ...error) bool {
	if err == nil {
		return true
	}
	for _, a := range allowed {
		if errors.Is(err, a) {
			return true
		}
	}
	return false
}

// callLoop runs call on a goroutine until it returns an error (or stop is
// closed), then checks that error against allowed. ready is signalled after
// the first call, whatever it returned. A panic is an error.
func callLoop(wg *sync.WaitGroup, errs *collect, ready chan<- struct{}, stop <-chan struct{}, what string, call func() error, allowed ...error) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		signalled := false
		signal := func() {
			if !signalled {
				signalled = true
				ready <- struct{}{}
			}
		}
		defer signal()
		for n := 0; ; n++ {
			var err error
			if p := noPanic(func() { err = call() }); p != "" {
				errs.add(fmt.Errorf("%s: panicked: %s", what, p))
				return
			}
			signal()
			if err != nil {
				if !isOneOf(err, allowed...) {
					errs.add(fmt.Errorf("%s (call %d): want nil or %v, got %v", what, n, allowed, err))
				}
				return
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
}

// longRun reports whether exhaustive sweeps, long chaos runs and bisections
// run in full: with SOFTGRAPH_LONG=1 and without -short. Otherwise each
// runs a shorter representative form that asserts the same rules.
func longRun() bool { return !testing.Short() && os.Getenv("SOFTGRAPH_LONG") == "1" }

// skipIfShort skips t under -short: it takes more than about 2 s of GPU
// work on lavapipe.
func skipIfShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("slower than about 2 s: skipped under -short")
	}
}

// inDefaultSweep reports whether case i of a sweep run in both modes (on
// and off) runs in mode on: in the default run each case runs in one mode
// only, alternating, so every case still runs; SOFTGRAPH_LONG=1 runs every
// case in both modes.
func inDefaultSweep(i int, on bool) bool { return longRun() || (i%2 == 0) == on }
