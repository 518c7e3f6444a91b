package tests

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// What the suite shares with the library's own tests (opening devices and
// streams, the WGSL kernels, uploads, reads, assertions, fresh processes)
// lives in tests/gputest. This file holds only what the reliability suite
// alone uses.

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

// waitAll waits for wg, failing the test instead of hanging forever.
func waitAll(t *testing.T, wg *sync.WaitGroup, limit time.Duration, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s: still running after %v; a call hung", what, limit)
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
