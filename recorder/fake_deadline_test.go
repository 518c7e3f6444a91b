package recorder

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReadContextDeadlineHoldsWhileAnotherStreamsSubmissionIsIncomplete:
// a ReadContext on stream a returns at its deadline with an error wrapping
// context.DeadlineExceeded while the device holds stream b's work
// incomplete (the fake's Hold stands for long GPU work), and both streams'
// reads succeed once the device moves on. The second case holds more
// submissions than b's submitter may have outstanding (gpuDepth), so b's
// submitter itself waits for the device while a reads. Without it, a
// caller's deadline is only as good as the slowest stream on the device.
func TestReadContextDeadlineHoldsWhileAnotherStreamsSubmissionIsIncomplete(t *testing.T) {
	cases := []struct {
		name     string
		launches int
		opts     []Option
	}{
		{"one flushed submission", 1, nil},
		{"more submissions than the submitter may have outstanding", 3 * gpuDepth, []Option{WithFlushDelay(time.Hour), WithSubmitChunks(1, 1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newFakeRig(t)
			a := r.stream(t)
			b := r.stream(t, c.opts...)
			xa := upload(t, a, 1)
			xb := upload(t, b, 1)
			if err := a.Sync(); err != nil {
				t.Fatalf("Sync: %v", err)
			}
			release := r.dev.Hold()
			defer release()
			for range c.launches {
				if err := r.add(b, xb, 1); err != nil {
					t.Fatalf("Launch on b: %v", err)
				}
			}
			if c.launches == 1 {
				if err := b.Flush(); err != nil {
					t.Fatalf("Flush on b: %v", err)
				}
			}
			const deadline = 100 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			start := time.Now()
			_, err := a.ReadContext(ctx, xa)
			took := time.Since(start)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("ReadContext behind held work returned %v; want an error wrapping context.DeadlineExceeded", err)
			}
			if took > deadline+time.Second {
				t.Errorf("ReadContext with a %v deadline returned after %v while another stream's work was held", deadline, took)
			}
			release()
			if diff := cmp.Diff([]uint32{1}, read(t, a, xa)); diff != "" {
				t.Errorf("a's read after the device moved on (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]uint32{1 + uint32(c.launches)}, read(t, b, xb)); diff != "" {
				t.Errorf("b's launches after the device moved on (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCloseContextGivesUpAtItsDeadlineWhileTheDeviceHoldsTheWork:
// CloseContext returns at its deadline with an error wrapping
// context.DeadlineExceeded while the stream's submitted work is held, the
// stream refuses new work at once, and a later Close returns once the
// device moves on and the teardown that went on in the background ends.
func TestCloseContextGivesUpAtItsDeadlineWhileTheDeviceHoldsTheWork(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 1)
	release := r.dev.Hold()
	defer release()
	if err := r.add(s, x, 1); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if err := s.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	const deadline = 100 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	err := s.CloseContext(ctx)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CloseContext behind held work returned %v; want an error wrapping context.DeadlineExceeded", err)
	}
	if took > deadline+time.Second {
		t.Errorf("CloseContext with a %v deadline returned after %v", deadline, took)
	}
	if _, err := s.Alloc(64); !errors.Is(err, ErrClosed) {
		t.Errorf("Empty after CloseContext gave up: err = %v, want ErrClosed", err)
	}
	release()
	if err := s.Close(); err != nil {
		t.Errorf("Close after the device moved on: %v", err)
	}
}

// TestDeadlinesHoldWhileTheStreamsLockIsHeld: a call may still wait for
// the stream's submissions holding its lock (a replay waiting for room
// between two chunks of its graph, the flushes design.md lists); the test
// holds the lock itself, standing in for one, while the device holds the
// stream's work. A SyncContext and a ReadContext on that stream meanwhile
// return at their deadline with an error wrapping
// context.DeadlineExceeded, and both work once the lock is let go and the
// device moves on. Before, they waited for the stream's lock as long as
// the other call waited for the GPU, deadline or not. (BeginCapture and
// Flush held the lock this way until their waits went through their
// transactions: TestBeginCaptureDoesNotHoldTheStreamWhileItsWarmupIsSubmitted,
// TestFlushDoesNotHoldTheStreamWhileItWaitsForTheSubmitter.)
func TestDeadlinesHoldWhileTheStreamsLockIsHeld(t *testing.T) {
	calls := []struct {
		name string
		call func(ctx context.Context, s *Stream, x *Buffer) error
	}{
		{"SyncContext", func(ctx context.Context, s *Stream, _ *Buffer) error { return s.SyncContext(ctx) }},
		{"ReadContext", func(ctx context.Context, s *Stream, x *Buffer) error { _, err := s.ReadContext(ctx, x); return err }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			r := newFakeRig(t)
			s := r.stream(t, WithFlushDelay(time.Hour), WithSubmitChunks(1, 1))
			x := upload(t, s, 0)
			read(t, s, x)
			release := r.holdSubmitted(t, s, x)
			defer release()
			if err := r.add(s, x, 1); err != nil { // a batch behind the held submissions
				t.Fatalf("Launch: %v", err)
			}
			// Another goroutine holds the lock (lock ranks are checked
			// per goroutine), until unlock.
			held, letGo := make(chan struct{}), make(chan struct{})
			go func() {
				s.mu.Lock()
				close(held)
				<-letGo
				s.mu.Unlock()
			}()
			<-held
			var unlockOnce sync.Once
			unlock := func() { unlockOnce.Do(func() { close(letGo) }) }
			defer unlock()
			const deadline = 100 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			// The lock is let go after 3 s in any case, so a call that
			// waits for it fails the test instead of hanging it.
			safety := time.AfterFunc(3*time.Second, unlock)
			defer safety.Stop()
			start := time.Now()
			err := c.call(ctx, s, x)
			took := time.Since(start)
			unlock()
			release()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s beside a held stream lock returned %v; want an error wrapping context.DeadlineExceeded", c.name, err)
			}
			if took > deadline+time.Second {
				t.Errorf("%s with a %v deadline returned after %v while the stream's lock was held", c.name, deadline, took)
			}
			if diff := cmp.Diff([]uint32{gpuDepth + 1}, read(t, s, x)); diff != "" {
				t.Errorf("x once the device moved on (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrepareCaptureDoesNotWaitForTheDevice: PrepareCapture hands the
// stream's open batch off and returns, even while the device holds the
// stream's earlier submissions (the submitter waiting for the GPU), and
// the warmup and the capture that follow compute what they should once the
// device moves on. Before, it waited for the submitter holding the stream's
// lock, so it and every other call of the stream waited as long as the GPU.
func TestPrepareCaptureDoesNotWaitForTheDevice(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t, WithFlushDelay(time.Hour), WithSubmitChunks(1, 1))
	x := upload(t, s, 0)
	read(t, s, x)
	release := r.holdSubmitted(t, s, x)
	defer release()
	if err := r.add(s, x, 1); err != nil { // the open batch PrepareCapture hands off
		t.Fatalf("Launch: %v", err)
	}
	safety := time.AfterFunc(3*time.Second, release)
	defer safety.Stop()
	start := time.Now()
	err := s.PrepareCapture()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("PrepareCapture: %v", err)
	}
	if took > time.Second {
		t.Errorf("PrepareCapture waited %v for the held device", took)
	}
	if err := r.add(s, x, 10); err != nil { // the warmup
		t.Fatalf("Launch in the warmup: %v", err)
	}
	release()
	if err := s.BeginCapture(); err != nil {
		t.Fatalf("BeginCapture: %v", err)
	}
	if err := r.add(s, x, 100); err != nil {
		t.Fatalf("Launch while recording: %v", err)
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatalf("EndCapture: %v", err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if diff := cmp.Diff([]uint32{gpuDepth + 1 + 10 + 100}, read(t, s, x)); diff != "" {
		t.Errorf("x after the held work, the warmup and one replay (-want +got):\n%s", diff)
	}
}

// TestDeadlinesHoldWhenAReplayTookTheLockDuringTheirWait: a ReadContext
// (waiting for its copy) or a SyncContext (waiting for the GPU) gives the
// stream's lock up to wait; a Replay on the same stream takes the lock
// meanwhile and keeps it while it waits for room between its chunks (the
// device holds the stream's work). The call still returns at its deadline,
// with an error wrapping context.DeadlineExceeded, without waiting for the
// replay to let go of the lock, and the replay runs whole once the device
// moves on. Before, the call took the lock back without its deadline and
// returned only when the replay was done.
func TestDeadlinesHoldWhenAReplayTookTheLockDuringTheirWait(t *testing.T) {
	calls := []struct {
		name string
		wait string
		call func(ctx context.Context, s *Stream, x *Buffer) error
	}{
		{"ReadContext", "flush", func(ctx context.Context, s *Stream, x *Buffer) error { _, err := s.ReadContext(ctx, x); return err }},
		{"SyncContext", "sync", func(ctx context.Context, s *Stream, x *Buffer) error { return s.SyncContext(ctx) }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			deadlineBesideAReplay(t, c.wait, c.call)
		})
	}
}

func deadlineBesideAReplay(t *testing.T, wait string, call func(ctx context.Context, s *Stream, x *Buffer) error) {
	r := newFakeRig(t)
	s := r.stream(t, WithFlushDelay(time.Hour), WithSubmitChunks(1, 1))
	x := upload(t, s, 0)
	const n = 600 // past the backlog at which a replay waits for room holding the lock
	g := r.captureAdds(t, s, x, n)
	read(t, s, x)
	release := r.holdSubmitted(t, s, x)
	var once sync.Once
	defer once.Do(release)
	safety := time.AfterFunc(3*time.Second, func() { once.Do(release) })
	defer safety.Stop()
	waiting := make(chan struct{})
	var hooked sync.Once
	s.waitingUnlocked = func(w string) {
		if w == wait {
			hooked.Do(func() { close(waiting) })
		}
	}
	defer func() { s.waitingUnlocked = nil }()
	const deadline = 300 * time.Millisecond
	type result struct {
		err  error
		took time.Duration
	}
	readDone := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		t0 := time.Now()
		err := call(ctx, s, x)
		readDone <- result{err, time.Since(t0)}
	}()
	select {
	case <-waiting:
	case <-time.After(2 * time.Second):
		t.Fatalf("the call did not give the lock up to wait (%q)", wait)
	}
	replayDone := make(chan error, 1)
	go func() { replayDone <- g.Replay() }()
	rd := <-readDone
	got := map[string]any{"deadline exceeded": errors.Is(rd.err, context.DeadlineExceeded), "returned within 1s": rd.took < time.Second}
	want := map[string]any{"deadline exceeded": true, "returned within 1s": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a call with a %v deadline beside a replay holding the lock returned %v after %v (-want +got):\n%s", deadline, rd.err, rd.took, d)
	}
	once.Do(release)
	if err := <-replayDone; err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if d := cmp.Diff([]uint32{uint32(gpuDepth + n)}, read(t, s, x)); d != "" {
		t.Errorf("the held launches and the whole replay ran (-want +got):\n%s", d)
	}
}

// TestDeadlineCallsRacingReplaysLaunchesTrimsAndCloseLeaveTheStreamExact:
// goroutines replay a long graph, launch, trim, and call ReadContext and
// SyncContext with deadlines of a few milliseconds on one stream whose
// device takes 2 ms per submission, so deadlines pass in every phase of a
// call (waiting for the lock, for the submitter, for the GPU, for the lock
// back while a replay holds it). Nothing panics or deadlocks, every read
// that succeeds sees no less than the one before it, and the buffer ends
// holding exactly what the calls that returned nil did; then Close races
// more deadline calls, which each return nil or an error. Lost
// transactions must leave the stream as whole as finished ones.
func TestDeadlineCallsRacingReplaysLaunchesTrimsAndCloseLeaveTheStreamExact(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 0)
	const n = 600
	g := r.captureAdds(t, s, x, n)
	read(t, s, x)
	r.dev.Delay(2 * time.Millisecond)
	var replays, adds, lost atomic.Int64
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(name string, f func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					fail("%s panicked: %v", name, p)
				}
			}()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				f(i)
			}
		}()
	}
	loop("Replay", func(int) {
		if err := g.Replay(); err != nil {
			fail("Replay: %v", err)
			return
		}
		replays.Add(1)
	})
	loop("Launch", func(int) {
		if err := r.add(s, x, 1); err != nil {
			fail("Launch: %v", err)
			return
		}
		adds.Add(1)
		time.Sleep(time.Millisecond)
	})
	loop("Trim", func(int) {
		if _, err := s.Trim(); err != nil {
			fail("Trim: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	})
	for k := range 2 {
		last := uint32(0)
		loop(fmt.Sprintf("ReadContext %d", k), func(i int) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+i%7)*time.Millisecond)
			defer cancel()
			raw, err := s.ReadContext(ctx, x)
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				lost.Add(1)
			case err != nil:
				fail("ReadContext: %v", err)
			default:
				if v := words(raw)[0]; v < last {
					fail("a read saw %d after one saw %d", v, last)
				} else {
					last = v
				}
			}
		})
	}
	loop("SyncContext", func(i int) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+i%5)*time.Millisecond)
		defer cancel()
		if err := s.SyncContext(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			fail("SyncContext: %v", err)
		}
	})
	time.Sleep(time.Second)
	close(stop)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the calls did not all return within 30 s of being stopped")
	}
	for _, f := range failures {
		t.Error(f)
	}
	want := uint32(replays.Load())*n + uint32(adds.Load())
	if d := cmp.Diff([]uint32{want}, read(t, s, x)); d != "" {
		t.Errorf("after %d replays of %d and %d launches (-want +got):\n%s", replays.Load(), n, adds.Load(), d)
	}
	t.Logf("%d replays, %d launches, %d deadline calls gave up", replays.Load(), adds.Load(), lost.Load())
	if lost.Load() == 0 {
		t.Error("no deadline passed: the test exercised nothing it names")
	}
	// Close beside more deadline calls: each returns, Close returns nil.
	var closers sync.WaitGroup
	for k := range 4 {
		closers.Add(1)
		go func() {
			defer closers.Done()
			for i := range 50 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+(i+k)%4)*time.Millisecond)
				if p := noPanicFake(func() { _, _ = s.ReadContext(ctx, x) }); p != "" {
					fail("ReadContext beside Close panicked: %s", p)
				}
				if p := noPanicFake(func() { _ = s.SyncContext(ctx) }); p != "" {
					fail("SyncContext beside Close panicked: %s", p)
				}
				cancel()
			}
		}()
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close beside deadline calls: %v", err)
	}
	closers.Wait()
	for _, f := range failures {
		t.Error(f)
	}
}

// noPanicFake runs f and returns what it panicked with, or "".
func noPanicFake(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprint(p)
		}
	}()
	f()
	return ""
}
