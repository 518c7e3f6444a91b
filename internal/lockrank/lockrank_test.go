package lockrank_test

import (
	"strings"
	"testing"

	"github.com/softgraph/softgraph/internal/lockrank"
)

func TestLocksInRankOrderAreAllowed(t *testing.T) {
	a := &lockrank.Mutex{Rank: lockrank.Stream}
	b := &lockrank.Mutex{Rank: lockrank.Pool}
	held := 0
	a.Lock()
	b.Lock()
	held++ // both held: the order is allowed
	b.Unlock()
	a.Unlock()
	b.Lock() // a lower rank after the higher one was let go
	held++
	b.Unlock()
	if held != 2 {
		t.Fatalf("held %d times, want 2", held)
	}
}

func TestOutOfOrderAndSameRankLocksPanicInCheckedBuilds(t *testing.T) {
	if !lockrank.Checked {
		t.Skip("ranks are checked only with -tags lockrank")
	}
	cases := []struct {
		name        string
		first, then lockrank.Rank
		want        string
	}{
		{"a stream lock under a pool lock", lockrank.Pool, lockrank.Stream, "taking a Stream lock while holding a Pool lock"},
		{"two stream locks", lockrank.Stream, lockrank.Stream, "taking a Stream lock while holding a Stream lock"},
		// The ramp worker releasing a command buffer (a driver call) under
		// its lock: the Ramp rank is held while taking nothing.
		{"a driver lock under the ramp worker's", lockrank.Ramp, lockrank.Driver, "taking a Driver lock while holding a Ramp lock (a Ramp lock is held while taking nothing)"},
		{"a driver lock under a submitter's", lockrank.Submitter, lockrank.Driver, "taking a Driver lock while holding a Submitter lock (a Submitter lock is held while taking nothing)"},
		// wgpu: a scoped call under the GL context's lock, and a native
		// call from inside a callback's leaf lock.
		{"the error-scope lock under the GL lock", lockrank.GL, lockrank.Scope, "taking a Scope lock while holding a GL lock"},
		{"the GL lock under a native leaf", lockrank.Native, lockrank.GL, "taking a GL lock while holding a Native lock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outer := &lockrank.Mutex{Rank: c.first}
			inner := &lockrank.Mutex{Rank: c.then}
			outer.Lock()
			defer outer.Unlock()
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, c.want) {
					t.Fatalf("panic %q, want one containing %q", msg, c.want)
				}
			}()
			inner.Lock()
			defer inner.Unlock()
			t.Fatalf("no panic")
		})
	}
}

// TestReadersAndWritersOfAnRWMutexKeepTheOrder: holding an RWMutex shared
// counts as holding it, for the order, and a reader's hold ends with its
// RUnlock while another reader still holds it.
func TestReadersAndWritersOfAnRWMutexKeepTheOrder(t *testing.T) {
	scope := &lockrank.RWMutex{Rank: lockrank.Scope}
	gl := &lockrank.Mutex{Rank: lockrank.GL}
	held := 0
	scope.RLock()
	gl.Lock() // in order under a reader
	held++
	gl.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		scope.RLock() // a second reader
		held++
		scope.RUnlock()
	}()
	<-done
	scope.RUnlock()
	scope.Lock()
	gl.Lock()
	held++
	gl.Unlock()
	scope.Unlock()
	if held != 3 {
		t.Fatalf("held %d times, want 3", held)
	}
	if !lockrank.Checked {
		return
	}
	gl.Lock()
	defer gl.Unlock()
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "taking a Scope lock while holding a GL lock") {
			t.Fatalf("panic %q, want the order broken", msg)
		}
	}()
	scope.RLock()
	t.Fatalf("no panic")
}
