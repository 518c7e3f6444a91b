package recorder

// The capture rule for refusals, on the fake driver: every call refused
// inside the window fails EndCapture with a *CaptureError naming it, in
// the lock hold that refused it (lifecycle's table, its fails column); a
// running profile refuses what the table's profiling column says.

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/lifecycle"
)

// refusalRig is a stream with a buffer, a sealed graph of one launch on
// it, and that graph's file.
type refusalRig struct {
	r    *fakeRig
	s    *Stream
	x    *Buffer
	g    *Graph
	file []byte
}

func newRefusalRig(t *testing.T) *refusalRig {
	t.Helper()
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 1)
	if err := s.PrepareCapture(); err != nil {
		t.Fatalf("PrepareCapture: %v", err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatalf("BeginCapture: %v", err)
	}
	if err := r.add(s, x, 1); err != nil {
		t.Fatalf("Launch while recording: %v", err)
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatalf("EndCapture: %v", err)
	}
	t.Cleanup(g.Release)
	var file bytes.Buffer
	if _, err := g.WriteTo(&file); err != nil {
		t.Fatalf("WriteTo: %v", err)
	}
	return &refusalRig{r: r, s: s, x: x, g: g, file: file.Bytes()}
}

// open opens a capture window on the rig's stream and records one launch.
func (rr *refusalRig) open(t *testing.T) {
	t.Helper()
	if err := rr.s.PrepareCapture(); err != nil {
		t.Fatalf("PrepareCapture: %v", err)
	}
	if err := rr.s.BeginCapture(); err != nil {
		t.Fatalf("BeginCapture: %v", err)
	}
	if err := rr.r.add(rr.s, rr.x, 10); err != nil {
		t.Fatalf("Launch while recording: %v", err)
	}
}

// wantCaptureFailsNaming ends the window and checks it fails with a
// *CaptureError naming op, leaving a usable NoCapture stream.
func (rr *refusalRig) wantCaptureFailsNaming(t *testing.T, op string) {
	t.Helper()
	g, err := rr.s.EndCapture()
	var ce *CaptureError
	if g != nil || !errors.As(err, &ce) || !errors.Is(err, lifecycle.ErrGraphState) {
		g.Release()
		t.Fatalf("a %s refused inside the window must make EndCapture fail with a *CaptureError and no graph; got %v, %v", op, g, err)
	}
	if !strings.Contains(err.Error(), "lifecycle: "+op+": ") && !strings.Contains(err.Error(), "recorder: "+op+": ") {
		t.Errorf("the CaptureError must name the refused %s: %v", op, err)
	}
	if st := rr.s.State(); st != lifecycle.NoCapture {
		t.Fatalf("after the failed EndCapture the stream is in %v, want NoCapture", st)
	}
}

// streamCall is one call of a stream operation on a refusal rig; each
// call cleans up what it made.
type streamCall struct {
	op   lifecycle.Op
	call func(rr *refusalRig) error
}

// everyStreamCall is a call of every stream operation but EndProfile (If
// stands for Branch: the rig's control kernels run it on the fake).
func everyStreamCall() []streamCall {
	return []streamCall{
		{lifecycle.Launch, func(rr *refusalRig) error { return rr.r.add(rr.s, rr.x, 1) }},
		{lifecycle.Write, func(rr *refusalRig) error { return rr.s.Write(rr.x, 0, u32s(1)) }},
		{lifecycle.Read, func(rr *refusalRig) error { _, err := rr.s.Read(rr.x); return err }},
		{lifecycle.Sync, func(rr *refusalRig) error { return rr.s.Sync() }},
		{lifecycle.Profile, func(rr *refusalRig) error {
			tok, err := rr.s.StartProfile()
			if err == nil {
				_, err = rr.s.EndProfile(tok)
			}
			return err
		}},
		{lifecycle.ProfileReplay, func(rr *refusalRig) error { _, err := rr.s.ProfileReplay(rr.g); return err }},
		{lifecycle.Replay, func(rr *refusalRig) error { return rr.g.Replay() }},
		{lifecycle.Rebind, func(rr *refusalRig) error {
			g, err := rr.g.Rebind(rr.x, rr.x)
			if err == nil {
				g.Release()
			}
			return err
		}},
		{lifecycle.Copy, func(rr *refusalRig) error {
			y, err := rr.s.Alloc(4)
			if err != nil {
				return err
			}
			defer y.Release()
			return rr.s.Copy(y, 0, rr.x, 0, 4)
		}},
		{lifecycle.Clear, func(rr *refusalRig) error { return rr.s.Clear(rr.x, 0, 4) }},
		{lifecycle.Alloc, func(rr *refusalRig) error {
			b, err := rr.s.Alloc(4)
			if err == nil {
				b.Release()
			}
			return err
		}},
		{lifecycle.Trim, func(rr *refusalRig) error { _, err := rr.s.Trim(); return err }},
		{lifecycle.Flush, func(rr *refusalRig) error { return rr.s.Flush() }},
		{lifecycle.Load, func(rr *refusalRig) error {
			g, err := rr.s.LoadGraph(bytes.NewReader(rr.file))
			if err == nil {
				g.Release()
			}
			return err
		}},
		{lifecycle.Save, func(rr *refusalRig) error {
			_, err := rr.g.Save(&bytes.Buffer{}, SaveOptions{Contents: true})
			return err
		}},
		{lifecycle.Branch, func(rr *refusalRig) error {
			return rr.s.If(rr.x, 0, func() error { return rr.r.add(rr.s, rr.x, 1) })
		}},
		{lifecycle.SetVar, func(rr *refusalRig) error {
			v, err := rr.s.NewVar(u32s(3))
			if err == nil {
				v.Release()
			}
			return err
		}},
	}
}

// TestEveryCallRefusedInsideTheWindowFailsEndCaptureNamingIt: inside a
// capture window every stream call does what lifecycle's table says (its
// Capture cell and fails column are asked, so the test restates no cell):
// a refused call returns ErrGraphState on the spot, a deferred one (a
// write) returns nil having done nothing, and each of them makes
// EndCapture fail with a *CaptureError naming it, so a caller that ignores
// the error cannot seal a graph its step does not describe; a call that
// records or executes leaves the capture able to seal. Before the rule was
// one column of lifecycle's table, several refused calls let the graph
// seal anyway.
func TestEveryCallRefusedInsideTheWindowFailsEndCaptureNamingIt(t *testing.T) {
	covered := map[lifecycle.Op]bool{}
	for _, c := range append(everyStreamCall(), streamCall{lifecycle.EndProfile, func(rr *refusalRig) error {
		_, err := rr.s.EndProfile(ProfileToken{})
		return err
	}}) {
		covered[c.op] = true
		t.Run(c.op.String(), func(t *testing.T) {
			verdict, fails := lifecycle.Capture.Admit(c.op), lifecycle.Capture.FailsCapture(c.op)
			rr := newRefusalRig(t)
			rr.open(t)
			err := c.call(rr)
			got := map[string]any{"refused with ErrGraphState": errors.Is(err, lifecycle.ErrGraphState), "error": err != nil}
			want := map[string]any{"refused with ErrGraphState": verdict == lifecycle.Refuse, "error": verdict == lifecycle.Refuse}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%v while recording (the table says %v) returned %v (-want +got):\n%s", c.op, verdict, err, d)
			}
			if (verdict == lifecycle.Refuse || verdict == lifecycle.DeferError) && fails {
				rr.wantCaptureFailsNaming(t, c.op.String())
			} else {
				g, err := rr.s.EndCapture()
				if err != nil {
					t.Fatalf("%v inside the window (%v; fails the capture: %v) must leave it able to seal: %v", c.op, verdict, fails, err)
				}
				g.Release()
			}
			// The refusal failed that capture only: the next one seals.
			rr.open(t)
			g, err := rr.s.EndCapture()
			if err != nil {
				t.Fatalf("a capture after the failed one must seal: %v", err)
			}
			g.Release()
			// Recorded launches never ran, and the refused call changed
			// nothing: x holds its upload.
			if diff := cmp.Diff([]uint32{1}, read(t, rr.s, rr.x)); diff != "" {
				t.Errorf("nothing recorded may run and the refused call must change nothing (-want +got):\n%s", diff)
			}
		})
	}
	for _, op := range lifecycle.Ops() {
		if !covered[op] {
			t.Errorf("no call of %v is tried inside the window", op)
		}
	}
}

// TestARefusalOutsideTheWindowFailsNoCapture: Trim and LoadGraph are
// refused while a capture is prepared, but no window is open yet, so the
// capture that follows seals. Were Prepare's refusals queued, a warmup
// could fail a capture for a call made before it began.
func TestARefusalOutsideTheWindowFailsNoCapture(t *testing.T) {
	rr := newRefusalRig(t)
	if err := rr.s.PrepareCapture(); err != nil {
		t.Fatalf("PrepareCapture: %v", err)
	}
	if _, err := rr.s.Trim(); !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("Trim while prepared returned %v; want lifecycle.ErrGraphState", err)
	}
	if _, err := rr.s.LoadGraph(bytes.NewReader(rr.file)); !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("LoadGraph while prepared returned %v; want lifecycle.ErrGraphState", err)
	}
	if err := rr.s.BeginCapture(); err != nil {
		t.Fatalf("BeginCapture after refusals in Prepare must open the window: %v", err)
	}
	g, err := rr.s.EndCapture()
	if err != nil {
		t.Fatalf("refusals before the window must not fail the capture: %v", err)
	}
	g.Release()
}

// TestAReadAskedAgainAfterACaptureBeganFailsThatCapture: a Read admitted
// before the window waits, with its lock released, for another stream's
// hand-off; a capture begins meanwhile; the Read asks again, is refused,
// and that refusal fails the capture it met — decided in the hold that
// refused it. Before, the second refusal was returned and the capture
// sealed without the caller's Read. (Had the Read not reached its wait
// before BeginCapture, its first admission refuses it: the same outcome.)
func TestAReadAskedAgainAfterACaptureBeganFailsThatCapture(t *testing.T) {
	rr := newRefusalRig(t)
	other := rr.r.stream(t)
	// Another goroutine holds the other stream's lock (no goroutine holds
	// two streams' locks): the Read's flushOthers waits for it.
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		other.mu.Lock()
		close(held)
		<-release
		other.mu.Unlock()
	}()
	<-held
	var wg sync.WaitGroup
	var readErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, readErr = rr.s.Read(rr.x)
	}()
	time.Sleep(20 * time.Millisecond) // let the Read reach its wait
	rr.open(t)
	close(release)
	wg.Wait()
	if !errors.Is(readErr, lifecycle.ErrGraphState) {
		t.Fatalf("the Read that met the window returned %v; want lifecycle.ErrGraphState", readErr)
	}
	rr.wantCaptureFailsNaming(t, "Read")
}

// TestARunningProfileRefusesWhatTheTablesProfilingColumnSays: while a
// profile runs, every stream call is refused exactly when lifecycle's
// table says so (a Session with a running profile is asked, so the test
// restates no cell: a rule changes in lifecycle alone), such a refusal
// matches ErrInvalidArgument and lifecycle.ErrProfileRunning with a
// *lifecycle.ProfileError inside and says a profile is still running, and
// once EndProfile ran the same call is admitted.
func TestARunningProfileRefusesWhatTheTablesProfilingColumnSays(t *testing.T) {
	calls := everyStreamCall()
	covered := map[lifecycle.Op]bool{lifecycle.EndProfile: true} // ending the profile is the test's own step
	for _, c := range calls {
		covered[c.op] = true
		t.Run(c.op.String(), func(t *testing.T) {
			var table lifecycle.Session[int, int]
			if err := table.StartProfile(1); err != nil {
				t.Fatalf("lifecycle: StartProfile: %v", err)
			}
			want := table.Admit(c.op) == lifecycle.Refuse
			rr := newRefusalRig(t)
			tok, err := rr.s.StartProfile()
			if err != nil {
				t.Fatalf("StartProfile: %v", err)
			}
			during := c.call(rr)
			var pe *lifecycle.ProfileError
			refused := errors.Is(during, lifecycle.ErrProfileRunning)
			if d := cmp.Diff(want, refused); d != "" {
				t.Fatalf("%v while a profile runs returned %v; refused by the profiling column (-table +recorder):\n%s", c.op, during, d)
			}
			if refused && (!errors.Is(during, ErrInvalidArgument) || !errors.As(during, &pe) || !strings.Contains(during.Error(), "still running")) {
				t.Errorf("%v's refusal must match ErrInvalidArgument, hold a *lifecycle.ProfileError and say a profile is still running: %v", c.op, during)
			}
			if !refused && during != nil {
				t.Errorf("%v while a profile runs must execute as the table says: %v", c.op, during)
			}
			if _, err := rr.s.EndProfile(tok); err != nil {
				t.Fatalf("EndProfile: %v", err)
			}
			if err := c.call(rr); err != nil {
				t.Errorf("%v after the profile ended must be admitted: %v", c.op, err)
			}
		})
	}
	for _, op := range lifecycle.Ops() {
		if !covered[op] {
			t.Errorf("no call of %v is tried while a profile runs", op)
		}
	}
}

// TestAProfileStartedDuringAProfiledReplaysFloorRoundsRefusesNoneOfThem:
// a ProfileReplay admitted while no profile ran runs its replay and every
// floor round even when another goroutine starts a profile meanwhile; the
// profiling column decides what may begin while a profile runs, not what
// already began. Before, each round asked the whole table again: the
// profile refused the rounds after it with ErrInvalidArgument, which says
// nothing ran, though the replay and the rounds before had run (a model
// counting runs by the errors, as the profiles-and-replays test does,
// came out short).
func TestAProfileStartedDuringAProfiledReplaysFloorRoundsRefusesNoneOfThem(t *testing.T) {
	rr := newRefusalRig(t)
	const rounds = 4
	rr.r.dev.Delay(10 * time.Millisecond) // each round waits for its submission
	before := rr.r.dispatchCount()
	var profErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, profErr = rr.s.ProfileReplay(rr.g, WithFloor(rounds))
	}()
	// Once the profiled replay has executed, the floor rounds follow, one
	// submission and wait at a time.
	for rr.r.dispatchCount() == before {
		time.Sleep(time.Millisecond)
	}
	tok, err := rr.s.StartProfile()
	if err != nil {
		t.Fatalf("StartProfile while a ProfileReplay waits between rounds: %v", err)
	}
	<-done
	rr.r.dev.Delay(0)
	if profErr != nil {
		t.Fatalf("a ProfileReplay admitted before the profile started must run to its end; got %v", profErr)
	}
	if _, err := rr.s.EndProfile(tok); err != nil {
		t.Fatalf("EndProfile: %v", err)
	}
	if diff := cmp.Diff([]uint32{1 + 1 + rounds}, read(t, rr.s, rr.x)); diff != "" {
		t.Errorf("the profiled replay and its %d floor rounds each ran once (-want +got):\n%s", rounds, diff)
	}
}

// TestACallThatWaitedWhileACaptureOpenedIsAskedAgain: a Write, a Read, a
// Sync and a SetVar admitted outside any window, which then give the
// stream's lock up to wait for the submitter (the device holds the
// stream's earlier submissions), are asked again when they take it back.
// Another caller opens a capture window while each waits (the stream's
// waitingUnlocked hook, in the waiting call's goroutine, with the lock
// free): the Write then does nothing and returns nil, the others are
// refused with ErrGraphState, and EndCapture fails naming the call. Before
// the re-ask they ran inside the window: the Write wrote, the SetVar
// queued its value, and the graph sealed.
func TestACallThatWaitedWhileACaptureOpenedIsAskedAgain(t *testing.T) {
	cases := []struct {
		op string
		// prime leaves the open batch such that call waits for the
		// submitter (which waits for the held device).
		prime func(r *fakeRig, s *Stream, x *Buffer, v *Var) error
		call  func(s *Stream, x *Buffer, v *Var) error
		// refused: the call returns ErrGraphState (a Write returns nil).
		refused bool
	}{
		{"Write", func(r *fakeRig, s *Stream, x *Buffer, _ *Var) error { return r.add(s, x, 1) },
			func(s *Stream, x *Buffer, _ *Var) error { return s.Write(x, 0, u32s(1000)) }, false},
		{"Read", func(r *fakeRig, s *Stream, x *Buffer, _ *Var) error { return r.add(s, x, 1) },
			func(s *Stream, x *Buffer, _ *Var) error { _, err := s.Read(x); return err }, true},
		{"Sync", func(r *fakeRig, s *Stream, x *Buffer, _ *Var) error { return r.add(s, x, 1) },
			func(s *Stream, _ *Buffer, _ *Var) error { return s.Sync() }, true},
		{"SetVar", func(r *fakeRig, s *Stream, x *Buffer, v *Var) error {
			// maxInflight batches handed off behind the held ones, then
			// a launch reading v in the open batch: SetVar must wait for
			// room before it hands that batch off.
			for range maxInflight {
				if err := r.add(s, x, 1); err != nil {
					return err
				}
			}
			return r.addVar(s, x, v)
		}, func(s *Stream, _ *Buffer, v *Var) error { return s.SetVar(v, u32s(1000, 0, 0, 0)) }, true},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			r := newFakeRig(t)
			s := r.stream(t, WithFlushDelay(time.Hour), WithSubmitChunks(1, 1))
			x := upload(t, s, 0)
			v := newVarU32(t, s, 0)
			read(t, s, x)
			release := r.holdSubmitted(t, s, x)
			defer release()
			if err := c.prime(r, s, x, v); err != nil {
				t.Fatalf("priming the open batch: %v", err)
			}
			opened := false
			s.waitingUnlocked = func(string) {
				if opened {
					return
				}
				opened = true
				release()
				if err := s.PrepareCapture(); err != nil {
					t.Errorf("PrepareCapture while %s waited: %v", c.op, err)
				}
				if err := s.BeginCapture(); err != nil {
					t.Errorf("BeginCapture while %s waited: %v", c.op, err)
				}
			}
			err := c.call(s, x, v)
			s.waitingUnlocked = nil
			release()
			if !opened {
				t.Fatalf("%s did not wait with the lock released; the test opens no window (err %v)", c.op, err)
			}
			if c.refused != errors.Is(err, lifecycle.ErrGraphState) || !c.refused && err != nil {
				t.Fatalf("%s that met the window returned %v; want ErrGraphState: %v", c.op, err, c.refused)
			}
			// Refused after its wait, the call returns the lifecycle's
			// refusal as a call refused on the spot does, not wrapped
			// in another error: one form for one refusal.
			if _, bare := err.(*lifecycle.StateError); c.refused && !bare {
				t.Errorf("%s that met the window returned %T %q; want the *lifecycle.StateError itself", c.op, err, err)
			}
			if st := s.State(); st != lifecycle.Capture {
				t.Fatalf("the stream is in %v after the call, want capture", st)
			}
			if err := r.add(s, x, 10000); err != nil {
				t.Fatalf("Launch while recording: %v", err)
			}
			rr := &refusalRig{r: r, s: s, x: x}
			rr.wantCaptureFailsNaming(t, c.op)
			// Every eager +1 ran; the write of 1000 and the recorded
			// +10000 did not.
			want := uint32(gpuDepth + 1)
			if c.op == "SetVar" {
				want = gpuDepth + maxInflight // addVar added v's value, 0
			}
			if diff := cmp.Diff([]uint32{want}, read(t, s, x)); diff != "" {
				t.Errorf("x after the refused %s (-want +got):\n%s", c.op, diff)
			}
			if c.op == "SetVar" {
				if err := r.addVar(s, x, v); err != nil {
					t.Fatalf("Launch: %v", err)
				}
				if diff := cmp.Diff([]uint32{want}, read(t, s, x)); diff != "" {
					t.Errorf("a launch reading v after the refused SetVar saw its value (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestAFloorRoundAfterACaptureOpenedIsRefused: a ProfileReplay's floor
// round waits for the stream's earlier work with the lock released; a
// capture window opened during that wait refuses the round when it is
// asked again before its submit (ErrGraphState, and EndCapture fails
// naming ProfileReplay), so the round's replay does not run in the window.
// Before, the round was asked only before the wait and was submitted
// inside the window.
func TestAFloorRoundAfterACaptureOpenedIsRefused(t *testing.T) {
	rr := newRefusalRig(t)
	before := read(t, rr.s, rr.x)[0]
	opened := false
	rr.s.waitingUnlocked = func(wait string) {
		if opened || wait != "floor" {
			return
		}
		opened = true
		if err := rr.s.PrepareCapture(); err != nil {
			t.Errorf("PrepareCapture while a floor round waited: %v", err)
		}
		if err := rr.s.BeginCapture(); err != nil {
			t.Errorf("BeginCapture while a floor round waited: %v", err)
		}
	}
	_, err := rr.s.ProfileReplay(rr.g, WithFloor(3))
	rr.s.waitingUnlocked = nil
	if !opened {
		t.Fatalf("the floor round did not wait with the lock released; the test opens no window (err %v)", err)
	}
	if !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("a floor round that met the window returned %v; want lifecycle.ErrGraphState", err)
	}
	rr.wantCaptureFailsNaming(t, "ProfileReplay")
	// The profiled replay ran (+1); no floor round did.
	if diff := cmp.Diff([]uint32{before + 1}, read(t, rr.s, rr.x)); diff != "" {
		t.Errorf("x after the refused floor round (-want +got):\n%s", diff)
	}
}

// TestASyncWaitingAcrossAWindowLeavesItsRefusalsToEndCapture: a Sync
// admitted before a capture window takes the stream's errors after its
// wait for the GPU, which ends inside the window; a Write refused in the
// window (deferred) must stay the capture's: the Sync returns nil and
// EndCapture fails naming the Write. Before, the refusals were queued with
// the stream's deferred errors, the Sync returned the Write's refusal as
// its own error, and the graph sealed without the write.
func TestASyncWaitingAcrossAWindowLeavesItsRefusalsToEndCapture(t *testing.T) {
	rr := newRefusalRig(t)
	release := rr.r.dev.Hold()
	defer release()
	if err := rr.r.add(rr.s, rr.x, 1); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	opened := false
	rr.s.waitingUnlocked = func(wait string) {
		if opened || wait != "sync" {
			return
		}
		opened = true
		rr.open(t)
		if err := rr.s.Write(rr.x, 0, u32s(1000)); err != nil {
			t.Errorf("a Write inside the window returns nil (deferred), got %v", err)
		}
		release()
	}
	err := rr.s.Sync()
	rr.s.waitingUnlocked = nil
	if !opened {
		t.Fatalf("the Sync did not wait with the lock released; the test opens no window (err %v)", err)
	}
	if err != nil {
		t.Fatalf("the Sync admitted before the window returned %v; the window's refusals are the capture's", err)
	}
	rr.wantCaptureFailsNaming(t, "Write")
}
