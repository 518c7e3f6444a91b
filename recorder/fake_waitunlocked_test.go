package recorder

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"

	"github.com/softgraph/softgraph/lifecycle"
)

// besideAWait runs call (in the test's goroutine) once the call that start
// begins (after prime, if any, enqueued what it waits for) has given the
// stream's lock up to wait for the device (the
// stream's waitingUnlocked hook, wait named wait), while the fake device
// holds the stream's submissions; it returns what call returned and how
// long it took, and whether start was still waiting when call returned.
// The device moves on once call returned (or after 3 s in any case, so a
// call held behind the wait fails the test instead of hanging it), and
// start's error is returned too.
func besideAWait(t *testing.T, wait string, prime func(r *fakeRig, s *Stream, x *Buffer) error, start func(s *Stream) error, call func(r *fakeRig, s *Stream, x *Buffer) error) (callErr error, took time.Duration, stillWaiting bool, startErr error) {
	t.Helper()
	return besideAWaitOn(t, waitCase{wait: wait, prime: prime, start: start, call: call})
}

// waitCase is what besideAWaitOn runs: besideAWait's arguments, and
// optionally the rig, the stream's options and a setup run before the
// device is held.
type waitCase struct {
	rig   *fakeRig // nil: a new one
	opts  []Option // nil: no flush timer, one dispatch per batch
	setup func(r *fakeRig, s *Stream, x *Buffer) error
	wait  string
	prime func(r *fakeRig, s *Stream, x *Buffer) error
	start func(s *Stream) error
	call  func(r *fakeRig, s *Stream, x *Buffer) error
}

// besideAWaitOn is besideAWait for a waitCase.
func besideAWaitOn(t *testing.T, c waitCase) (callErr error, took time.Duration, stillWaiting bool, startErr error) {
	t.Helper()
	r, opts := c.rig, c.opts
	if r == nil {
		r = newFakeRig(t)
	}
	if opts == nil {
		opts = []Option{WithFlushDelay(time.Hour), WithSubmitChunks(1, 1)}
	}
	wait, prime, start, call := c.wait, c.prime, c.start, c.call
	s := r.stream(t, opts...)
	x := upload(t, s, 0)
	read(t, s, x)
	if c.setup != nil {
		if err := c.setup(r, s, x); err != nil {
			t.Fatalf("setting the stream up: %v", err)
		}
	}
	release := r.holdSubmitted(t, s, x)
	var once sync.Once
	defer once.Do(release)
	safety := time.AfterFunc(3*time.Second, func() { once.Do(release) })
	defer safety.Stop()
	if prime != nil {
		if err := prime(r, s, x); err != nil {
			t.Fatalf("priming the stream: %v", err)
		}
	}
	waiting := make(chan struct{})
	var hooked sync.Once
	s.waitingUnlocked = func(w string) {
		if w == wait {
			hooked.Do(func() { close(waiting) })
		}
	}
	defer func() { s.waitingUnlocked = nil }()
	done := make(chan error, 1)
	go func() { done <- start(s) }()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("the call returned (%v) without giving the lock up to wait (%q) for the device", err, wait)
	case <-time.After(2 * time.Second):
		t.Fatalf("the call did not give the stream's lock up to wait (%q) for the device", wait)
	}
	t0 := time.Now()
	callErr = call(r, s, x)
	took = time.Since(t0)
	select {
	case startErr = <-done:
	default:
		stillWaiting = true
	}
	once.Do(release)
	if stillWaiting {
		startErr = <-done
	}
	return callErr, took, stillWaiting, startErr
}

// TestStartProfileDoesNotHoldTheStreamWhileItWaitsForTheDevice: a
// wall-clock StartProfile waits for the stream's earlier work to finish
// (the profile covers only what follows) with the stream's lock given up
// (Tx.Wait), so a Launch on the same stream meanwhile returns at once
// instead of queueing behind the GPU; the profile then starts and ends
// normally. Before, StartProfile waited holding the lock, and the Launch
// waited as long as the device held the work.
func TestStartProfileDoesNotHoldTheStreamWhileItWaitsForTheDevice(t *testing.T) {
	var tok ProfileToken
	var s0 *Stream
	callErr, took, stillWaiting, startErr := besideAWait(t, "sync", nil, func(s *Stream) error {
		s0 = s
		var err error
		tok, err = s.StartProfile()
		return err
	}, func(r *fakeRig, s *Stream, x *Buffer) error { return r.add(s, x, 1) })
	got := map[string]any{"Launch error": errString(callErr), "Launch returned within 1s": took < time.Second,
		"StartProfile still waiting then": stillWaiting, "StartProfile error": errString(startErr)}
	want := map[string]any{"Launch error": "", "Launch returned within 1s": true,
		"StartProfile still waiting then": true, "StartProfile error": ""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a Launch beside StartProfile's wait for the device (-want +got):\n%s", d)
	}
	if startErr == nil {
		if _, err := s0.EndProfile(tok); err != nil {
			t.Errorf("EndProfile after the wait: %v", err)
		}
	}
}

// TestAProfileTimesTheDispatchesEnqueuedAfterItStartsWhateverCameInItsWait:
// with GPU timestamps, a profile times the compute passes its dispatches
// open. While StartProfile waits for the earlier work with the lock given
// up, a Launch on the same stream leaves the encoder's compute pass open;
// the profile's own dispatches after StartProfile returns must still open
// a timed pass of their own (the stream batches many dispatches, so the
// Launch is not handed off on its own). Before, they went into the pass the earlier
// Launch had left open, and EndProfile reported a window of dispatches
// timed in 0 passes (seen under wine, where such a race is frequent).
func TestAProfileTimesTheDispatchesEnqueuedAfterItStartsWhateverCameInItsWait(t *testing.T) {
	r := newFakeRigOn(t, fake.Options{Info: driver.Info{Timestamps: true}})
	var tok ProfileToken
	var s0 *Stream
	var x0 *Buffer
	callErr, _, stillWaiting, startErr := besideAWaitOn(t, waitCase{rig: r, opts: []Option{WithFlushDelay(time.Hour)}, wait: "flush",
		prime: func(r *fakeRig, s *Stream, x *Buffer) error {
			return r.add(s, x, 1) // earlier work, which StartProfile hands off and waits for
		},
		start: func(s *Stream) error {
			s0 = s
			var err error
			tok, err = s.StartProfile()
			return err
		},
		call: func(r *fakeRig, s *Stream, x *Buffer) error {
			x0 = x
			return r.add(s, x, 10) // enqueued during the wait: before the profile
		}})
	if startErr != nil || callErr != nil {
		t.Fatalf("StartProfile: %v; the Launch during its wait: %v", startErr, callErr)
	}
	for range 3 {
		if err := r.add(s0, x0, 100); err != nil {
			t.Fatalf("a Launch in the profile: %v", err)
		}
	}
	p, err := s0.EndProfile(tok)
	if err != nil {
		t.Fatalf("EndProfile: %v", err)
	}
	got := map[string]any{"StartProfile still waiting during the Launch": stillWaiting,
		"method": p.Method, "some pass timed": p.Passes > 0}
	want := map[string]any{"StartProfile still waiting during the Launch": true,
		"method": ProfileTimestamps, "some pass timed": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a profile begun while a Launch came in (-want +got):\n%s", d)
	}
}

// TestBeginCaptureDoesNotHoldTheStreamWhileItsWarmupIsSubmitted:
// BeginCapture submits the warmup before it takes the warmup's errors, and
// that submission waits behind the submissions the device holds; it waits
// with the stream's lock given up (Tx.Drain), so a Launch on the stream
// meanwhile returns at once, recorded into the window BeginCapture opened
// (the state moves before the work), and BeginCapture then succeeds and
// EndCapture seals a graph of that one launch. Before, BeginCapture held
// the lock for the whole wait, and the Launch waited as long as the
// device held the work.
func TestBeginCaptureDoesNotHoldTheStreamWhileItsWarmupIsSubmitted(t *testing.T) {
	var s0 *Stream
	callErr, took, stillWaiting, startErr := besideAWait(t, "flush", func(r *fakeRig, s *Stream, x *Buffer) error {
		if err := s.PrepareCapture(); err != nil {
			return err
		}
		return r.add(s, x, 1) // the warmup, which BeginCapture submits
	}, func(s *Stream) error {
		s0 = s
		return s.BeginCapture()
	}, func(r *fakeRig, s *Stream, x *Buffer) error { return r.add(s, x, 10) })
	got := map[string]any{"Launch error": errString(callErr), "Launch returned within 1s": took < time.Second,
		"BeginCapture still waiting then": stillWaiting, "BeginCapture error": errString(startErr)}
	want := map[string]any{"Launch error": "", "Launch returned within 1s": true,
		"BeginCapture still waiting then": true, "BeginCapture error": ""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a Launch beside BeginCapture's wait for its warmup (-want +got):\n%s", d)
	}
	g, err := s0.EndCapture()
	if err != nil {
		t.Fatalf("EndCapture: %v", err)
	}
	defer g.Release()
	if d := cmp.Diff(1, g.Stats().Dispatches); d != "" {
		t.Errorf("dispatches recorded: the Launch made while BeginCapture waited (-want +got):\n%s", d)
	}
}

// TestCloseDoesNotHoldTheStreamWhileItWaitsForItsWork: Close submits the
// stream's work and waits for it with the stream's lock given up
// (Tx.Drain, Tx.Wait), so a call that takes the lock meanwhile (State
// here; another stream's Read takes it to flush this one) returns at once;
// Close then ends cleanly once the device moves on. Before, Close waited
// for the submitter holding the lock.
func TestCloseDoesNotHoldTheStreamWhileItWaitsForItsWork(t *testing.T) {
	callErr, took, stillWaiting, startErr := besideAWait(t, "flush", func(r *fakeRig, s *Stream, x *Buffer) error {
		return r.add(s, x, 1) // a batch behind the held submissions
	}, func(s *Stream) error {
		return s.Close()
	}, func(r *fakeRig, s *Stream, x *Buffer) error {
		if st := s.State(); st != lifecycle.NoCapture {
			return fmt.Errorf("State of a closing stream: %v", st)
		}
		return nil
	})
	got := map[string]any{"State error": errString(callErr), "State returned within 1s": took < time.Second,
		"Close still waiting then": stillWaiting, "Close error": errString(startErr)}
	want := map[string]any{"State error": "", "State returned within 1s": true,
		"Close still waiting then": true, "Close error": ""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a call taking the lock beside Close's wait for the stream's work (-want +got):\n%s", d)
	}
}

// TestFlushDoesNotHoldTheStreamWhileItWaitsForTheSubmitter: Flush waits
// until its batch is submitted, behind submissions the device holds, with
// the stream's lock given up (Tx.Drain), so a Launch on the stream
// meanwhile returns at once; the Flush then returns nil once the device
// moves on. Before, Flush waited for the submitter holding the lock.
func TestFlushDoesNotHoldTheStreamWhileItWaitsForTheSubmitter(t *testing.T) {
	callErr, took, stillWaiting, startErr := besideAWait(t, "flush", func(r *fakeRig, s *Stream, x *Buffer) error {
		return r.add(s, x, 1) // a batch behind the held submissions
	}, func(s *Stream) error {
		return s.Flush()
	}, func(r *fakeRig, s *Stream, x *Buffer) error { return r.add(s, x, 1) })
	got := map[string]any{"Launch error": errString(callErr), "Launch returned within 1s": took < time.Second,
		"Flush still waiting then": stillWaiting, "Flush error": errString(startErr)}
	want := map[string]any{"Launch error": "", "Launch returned within 1s": true,
		"Flush still waiting then": true, "Flush error": ""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a Launch beside Flush's wait for the submitter (-want +got):\n%s", d)
	}
}

// TestProfilesAndTrimDoNotHoldTheStreamWhileTheyWaitForTheSubmitter:
// EndProfile, ProfileReplay (each with GPU timestamps and on the wall
// clock) and Trim hand the stream's work off and wait for its submission,
// behind submissions the device holds, with the stream's lock given up
// (Tx.Drain, Tx.Flush), so a Launch on the stream meanwhile returns at
// once, and each then succeeds once the device moves on. Before, each
// waited for the submitter holding the lock (Engine.Flush), and the
// Launch waited as long as the device held the work.
func TestProfilesAndTrimDoNotHoldTheStreamWhileTheyWaitForTheSubmitter(t *testing.T) {
	type call struct {
		name  string
		setup func(t *testing.T, r *fakeRig, s *Stream, x *Buffer) error
		start func(s *Stream) error
	}
	var tok ProfileToken
	var g *Graph
	calls := []call{
		{"EndProfile", func(t *testing.T, r *fakeRig, s *Stream, x *Buffer) (err error) {
			tok, err = s.StartProfile()
			return err
		}, func(s *Stream) error { _, err := s.EndProfile(tok); return err }},
		{"ProfileReplay", func(t *testing.T, r *fakeRig, s *Stream, x *Buffer) error {
			g = r.captureAdds(t, s, x, 3)
			return nil
		}, func(s *Stream) error { _, err := s.ProfileReplay(g); return err }},
		{"Trim", nil, func(s *Stream) error { _, err := s.Trim(); return err }},
	}
	for _, c := range calls {
		for _, ts := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/timestamps=%v", c.name, ts), func(t *testing.T) {
				r := newFakeRigOn(t, fake.Options{Info: driver.Info{Timestamps: ts}})
				var setup func(r *fakeRig, s *Stream, x *Buffer) error
				if c.setup != nil {
					setup = func(r *fakeRig, s *Stream, x *Buffer) error { return c.setup(t, r, s, x) }
				}
				callErr, took, stillWaiting, startErr := besideAWaitOn(t, waitCase{rig: r, setup: setup, wait: "flush",
					prime: func(r *fakeRig, s *Stream, x *Buffer) error { return r.add(s, x, 1) },
					start: c.start,
					call:  func(r *fakeRig, s *Stream, x *Buffer) error { return r.add(s, x, 1) }})
				got := map[string]any{"Launch error": errString(callErr), "Launch returned within 1s": took < time.Second,
					c.name + " still waiting then": stillWaiting, c.name + " error": errString(startErr)}
				want := map[string]any{"Launch error": "", "Launch returned within 1s": true,
					c.name + " still waiting then": true, c.name + " error": ""}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("a Launch beside %s's wait for the submitter (-want +got):\n%s", c.name, d)
				}
			})
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestAResolveTheDeviceRefusesLosesNoneOfTheProfiledWork: EndProfile and
// ProfileReplay encode their timestamp resolves after the profiled work
// and discard the encoder when the device refuses one; the work went on
// its way first, so it still runs (the buffer counts it) and only the
// profile fails. Without the hand-off, a refused resolve dropped the
// launches it was encoded after.
func TestAResolveTheDeviceRefusesLosesNoneOfTheProfiledWork(t *testing.T) {
	r := newFakeRigOn(t, fake.Options{Info: driver.Info{Timestamps: true}})
	s := r.stream(t, WithFlushDelay(time.Hour))
	x := upload(t, s, 0)
	g := r.captureAdds(t, s, x, 4)
	tok, err := s.StartProfile()
	if err != nil {
		t.Fatalf("StartProfile: %v", err)
	}
	for range 3 {
		if err := r.add(s, x, 1); err != nil {
			t.Fatalf("Launch: %v", err)
		}
	}
	r.dev.Fail(fake.OpResolve, 1)
	_, endErr := s.EndProfile(tok)
	r.dev.Fail(fake.OpResolve, 1)
	_, replayErr := s.ProfileReplay(g)
	got := map[string]any{"EndProfile failed": endErr != nil, "ProfileReplay failed": replayErr != nil,
		"x": read(t, s, x)}
	want := map[string]any{"EndProfile failed": true, "ProfileReplay failed": true,
		"x": []uint32{3 + 4}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("profiles whose resolve the device refused (EndProfile: %v; ProfileReplay: %v) (-want +got):\n%s", endErr, replayErr, d)
	}
}
