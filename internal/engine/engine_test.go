package engine_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/lockrank"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// gate is a Gate whose answers the test sets, counting the re-asks.
type gate struct {
	verdict   lifecycle.Verdict
	refuse    error // Admit's error
	readmit   error // Readmit's answer
	readmits  int
	admission engine.Admission
}

func (g *gate) Admit(op lifecycle.Op) (engine.Admission, error) {
	a := g.admission
	a.Verdict = g.verdict
	return a, g.refuse
}

func (g *gate) Readmit(op lifecycle.Op) error {
	g.readmits++
	return g.readmit
}

// counting is the fake device with every submission and queue write
// counted.
type counting struct {
	*fake.Device
	submits, writes atomic.Int64
}

func (c *counting) Submit(cbs []driver.CommandBuffer) (driver.Submission, error) {
	c.submits.Add(1)
	return c.Device.Submit(cbs)
}

func (c *counting) WriteBuffer(b driver.Buffer, off uint64, data []byte) error {
	c.writes.Add(1)
	return c.Device.WriteBuffer(b, off, data)
}

type rig struct {
	dev  *counting
	mu   *lockrank.Mutex
	gate *gate
	eng  *engine.Engine
	// hook runs when the engine has released the lock to wait.
	hook func(wait string)
}

func newRig(t testing.TB, async bool) *rig {
	t.Helper()
	r := &rig{dev: &counting{Device: fake.New(fake.Options{})}, mu: &lockrank.Mutex{Rank: lockrank.Stream},
		gate: &gate{verdict: lifecycle.Execute}}
	t.Cleanup(r.dev.Close)
	eng, err := engine.New(engine.Config{Driver: r.dev, Lock: r.mu, Gate: r.gate, Async: async, ID: 1, FlushSubmits: true,
		FirstChunk: 4, MaxChunk: 8,
		WaitingUnlocked: func(wait string) {
			if r.hook != nil {
				r.hook(wait)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	r.eng = eng
	t.Cleanup(func() {
		r.mu.Lock()
		eng.Flush()
		eng.Close()
		r.mu.Unlock()
	})
	return r
}

func (r *rig) buffer(t *testing.T, label string) driver.Buffer {
	t.Helper()
	b, err := r.dev.NewBuffer(16, driver.UsageStorage|driver.UsageCopySrc|driver.UsageCopyDst, label)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Release)
	return b
}

// usage tries each step of a transaction that reaches the GPU and returns
// the error each gave (nil for one that went through).
func usage(tx *engine.Tx, b driver.Buffer) map[string]error {
	got := map[string]error{}
	enc, err := tx.Encoder()
	got["Encoder"] = err
	if err == nil {
		_ = enc.ClearBuffer(b, 0, 16)
	}
	got["WriteBuffer"] = tx.WriteBuffer(b, 0, make([]byte, 4))
	got["HandOff"] = tx.HandOff()
	got["Flush"] = tx.Flush(context.Background())
	return got
}

// sentinel reduces each error to the engine sentinel it matches, for
// comparison.
func sentinel(errs map[string]error) map[string]string {
	out := map[string]string{}
	for k, err := range errs {
		switch {
		case err == nil:
			out[k] = "ok"
		case errors.Is(err, engine.ErrWaited):
			out[k] = "ErrWaited"
		case errors.Is(err, engine.ErrTxDone):
			out[k] = "ErrTxDone"
		case errors.Is(err, engine.ErrLockLost):
			out[k] = "ErrLockLost"
		default:
			out[k] = err.Error()
		}
	}
	return out
}

func all(v string) map[string]string {
	return map[string]string{"Encoder": v, "WriteBuffer": v, "HandOff": v, "Flush": v}
}

// TestAfterWaitNothingReachesTheGPUUntilReadmit: Wait is the only way a
// transaction gives the lock up, and a capture window may open while it
// is given up, so after it encoding, queue writes, hand-offs and flushes
// fail with ErrWaited; Readmit (no transition meanwhile) lets them go on.
// Without the rule a call that waited would encode or submit outside the
// graph of a capture opened under it.
func TestAfterWaitNothingReachesTheGPUUntilReadmit(t *testing.T) {
	r := newRig(t, true)
	b := r.buffer(t, "b")
	var before, waited, readmitted map[string]string
	err := r.eng.Do(lifecycle.Sync, func(tx *engine.Tx) error {
		before = sentinel(usage(tx, b))
		if err := tx.Wait(context.Background(), engine.GPU(0)); err != nil {
			return err
		}
		waited = sentinel(usage(tx, b))
		if err := tx.Readmit(); err != nil {
			return err
		}
		readmitted = sentinel(usage(tx, b))
		return nil
	})
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if diff := cmp.Diff(all("ok"), before); diff != "" {
		t.Errorf("an admitted transaction's steps failed before any wait (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(all("ErrWaited"), waited); diff != "" {
		t.Errorf("after Wait, every step must fail with ErrWaited until Readmit (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(all("ok"), readmitted); diff != "" {
		t.Errorf("after Readmit with no transition, the steps must go on (-want +got):\n%s", diff)
	}
	if r.gate.readmits != 0 {
		t.Errorf("Readmit asked the gate %d times with the epoch unmoved; it is asked only after a transition", r.gate.readmits)
	}
}

// TestReadmitAfterATransitionAsksTheGateAndKeepsItsRefusal: a transition
// while the transaction waits (a capture window opened) moves the epoch,
// so Readmit asks the gate again; its refusal is Readmit's error, and the
// transaction still cannot reach the GPU.
func TestReadmitAfterATransitionAsksTheGateAndKeepsItsRefusal(t *testing.T) {
	r := newRig(t, true)
	b := r.buffer(t, "b")
	refusal := errors.New("refused: a capture window opened")
	r.gate.readmit = refusal
	r.hook = func(string) {
		r.mu.Lock()
		r.eng.Transition()
		r.mu.Unlock()
	}
	var readmitErr error
	var after map[string]string
	err := r.eng.Do(lifecycle.Sync, func(tx *engine.Tx) error {
		if err := tx.Wait(context.Background(), engine.GPU(0)); err != nil {
			return err
		}
		readmitErr = tx.Readmit()
		after = sentinel(usage(tx, b))
		return nil
	})
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if !errors.Is(readmitErr, refusal) {
		t.Errorf("Readmit after a transition returned %v; want the gate's refusal", readmitErr)
	}
	if r.gate.readmits != 1 {
		t.Errorf("Readmit asked the gate %d times after one transition, want 1", r.gate.readmits)
	}
	if diff := cmp.Diff(all("ErrWaited"), after); diff != "" {
		t.Errorf("a transaction refused on Readmit must still reach nothing (-want +got):\n%s", diff)
	}
}

// TestReadmitAfterATransitionTheGateAdmitsGoesOn: a transition the
// operation may cross (the gate admits it again) does not fail it, and the
// epoch taken anew means the next Readmit does not ask again.
func TestReadmitAfterATransitionTheGateAdmitsGoesOn(t *testing.T) {
	r := newRig(t, true)
	r.hook = func(string) {
		r.mu.Lock()
		r.eng.Transition()
		r.mu.Unlock()
	}
	err := r.eng.Do(lifecycle.Sync, func(tx *engine.Tx) error {
		if err := tx.Wait(context.Background(), engine.GPU(0)); err != nil {
			return err
		}
		if err := tx.Readmit(); err != nil {
			return err
		}
		r.hook = nil
		if err := tx.Wait(context.Background(), engine.GPU(0)); err != nil {
			return err
		}
		return tx.Readmit()
	})
	if err != nil {
		t.Fatalf("a transition the gate admits again failed the transaction: %v", err)
	}
	if r.gate.readmits != 1 {
		t.Errorf("the gate was asked %d times; want once, for the one transition", r.gate.readmits)
	}
}

// TestDoRunsNothingTheGateRefusesOrDefers: a refusal is Do's error and a
// deferred refusal is nil, and in both the callback never runs and the
// lock is released.
func TestDoRunsNothingTheGateRefusesOrDefers(t *testing.T) {
	refusal := errors.New("refused")
	for _, c := range []struct {
		name    string
		verdict lifecycle.Verdict
		err     error
	}{
		{"refused", lifecycle.Refuse, refusal},
		{"deferred", lifecycle.DeferError, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, true)
			r.gate.verdict, r.gate.refuse = c.verdict, c.err
			ran := false
			err := r.eng.Do(lifecycle.Write, func(*engine.Tx) error { ran = true; return nil })
			if !errors.Is(err, c.err) || (c.err == nil && err != nil) {
				t.Errorf("Do returned %v, want %v", err, c.err)
			}
			if ran {
				t.Error("Do ran the callback of an operation the gate did not admit")
			}
			if !r.mu.TryLock() {
				t.Fatal("Do kept the lock after a refusal")
			}
			r.mu.Unlock()
		})
	}
}

// TestATransactionIsOverWhenDoReturns: a Tx kept past its Do answers every
// step with ErrTxDone (database/sql's rule): its lock is gone.
func TestATransactionIsOverWhenDoReturns(t *testing.T) {
	r := newRig(t, true)
	b := r.buffer(t, "b")
	var kept *engine.Tx
	if err := r.eng.Do(lifecycle.Write, func(tx *engine.Tx) error { kept = tx; return nil }); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	got := sentinel(usage(kept, b))
	got["Readmit"] = sentinel(map[string]error{"x": kept.Readmit()})["x"]
	r.mu.Unlock()
	want := all("ErrTxDone")
	want["Readmit"] = "ErrTxDone"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a transaction used after Do returned (-want +got):\n%s", diff)
	}
}

// TestTheAdmissionTravelsWithTheTransaction: the verdict and the modes the
// gate gave at admission are the transaction's, unchanged by transitions.
func TestTheAdmissionTravelsWithTheTransaction(t *testing.T) {
	r := newRig(t, true)
	r.gate.admission = engine.Admission{Pool: lifecycle.PoolPriming, Cache: lifecycle.CacheCapture}
	r.gate.verdict = lifecycle.Record
	var got engine.Admission
	_ = r.eng.Do(lifecycle.Launch, func(tx *engine.Tx) error {
		r.eng.Transition()
		got = engine.Admission{Verdict: tx.Verdict(), Pool: tx.PoolMode(), Cache: tx.CacheMode()}
		return nil
	})
	want := engine.Admission{Verdict: lifecycle.Record, Pool: lifecycle.PoolPriming, Cache: lifecycle.CacheCapture}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the transaction's admission (-want +got):\n%s", diff)
	}
}

// TestBatchesAndTheirQueuedValuesReachTheQueueInHandOffOrder: batches
// handed off go to the GPU in order, each batch's queued value written
// right before its commands, on the submitter and inline alike. The
// fake's log is the queue's order.
func TestBatchesAndTheirQueuedValuesReachTheQueueInHandOffOrder(t *testing.T) {
	for _, async := range []bool{true, false} {
		name := map[bool]string{true: "submitter", false: "inline"}[async]
		t.Run(name, func(t *testing.T) {
			r := newRig(t, async)
			mem := pool.New(r.dev, 1<<20, nil, nil)
			defer mem.Close()
			a, c := r.buffer(t, "a"), r.buffer(t, "c")
			err := r.eng.Do(lifecycle.Sync, func(tx *engine.Tx) error {
				for i := range 3 {
					pg, err := mem.Alloc(16, lifecycle.PoolNormal)
					if err != nil {
						return err
					}
					r.eng.QueueWrite(pg, []byte{byte(i), 0, 0, 0})
					enc, err := tx.Encoder()
					if err != nil {
						return err
					}
					if err := enc.ClearBuffer(a, 0, 16); err != nil {
						return err
					}
					if err := enc.ClearBuffer(c, 0, 16); err != nil {
						return err
					}
					if err := tx.HandOff(); err != nil {
						return err
					}
				}
				return tx.Flush(context.Background())
			})
			if err != nil {
				t.Fatal(err)
			}
			r.mu.Lock()
			sub, _ := r.eng.Last()
			r.mu.Unlock()
			if err := r.dev.Wait(context.Background(), sub); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range r.dev.Log() {
				switch {
				case strings.HasPrefix(l, "write"):
					got = append(got, "write")
				case strings.HasPrefix(l, "clear a"):
					got = append(got, "clear a")
				case strings.HasPrefix(l, "clear c"):
					got = append(got, "clear c")
				}
			}
			want := []string{"write", "clear a", "clear c", "write", "clear a", "clear c", "write", "clear a", "clear c"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the queue's order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEverySubmissionIsTheEngines: the engine is the stream's one
// submission site. On the fake, the device's submissions are exactly the
// batches the engine handed off plus SubmitAlone's; and no non-test file
// of the recorder calls the driver's Submit, WriteBuffer, WriteTexture or
// FlushWrites itself (a second site is how cross-stream order and the
// capture rule were broken before).
func TestEverySubmissionIsTheEngines(t *testing.T) {
	r := newRig(t, true)
	a := r.buffer(t, "a")
	const batches = 5
	err := r.eng.Do(lifecycle.Flush, func(tx *engine.Tx) error {
		for range batches {
			enc, err := tx.Encoder()
			if err != nil {
				return err
			}
			if err := enc.ClearBuffer(a, 0, 16); err != nil {
				return err
			}
			r.eng.Flush()
		}
		enc, err := r.dev.NewEncoder()
		if err != nil {
			return err
		}
		defer enc.Release()
		if err := enc.ClearBuffer(a, 0, 16); err != nil {
			return err
		}
		cb, err := enc.Finish()
		if err != nil {
			return err
		}
		_, err = tx.Submit(cb)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.dev.submits.Load(); got != batches+1 {
		t.Errorf("the device saw %d submissions; the engine made %d (one per batch, one SubmitAlone)", got, batches+1)
	}

	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("..", "..", "recorder", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorder sources found: %v", err)
	}
	var outside []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "Submit", "WriteBuffer", "WriteTexture", "FlushWrites":
			default:
				return true
			}
			if recv, ok := sel.X.(*ast.SelectorExpr); ok && recv.Sel.Name == "drv" {
				outside = append(outside, fset.Position(call.Pos()).String())
			}
			return true
		})
	}
	if diff := cmp.Diff([]string(nil), outside); diff != "" {
		t.Errorf("recorder calls the driver's queue directly; every submit and queue write goes through the engine (-want +got):\n%s", diff)
	}
}

// TestACallTokenRunsWithTheLockFreeAndCountsAsAWait: a wait the owner does
// itself (engine.Call: a read's mapping, other streams' hand-offs) runs
// with the lock released, so another caller can take it meanwhile; its
// error is Wait's; and afterwards the transaction's steps fail with
// ErrWaited until Readmit, as after any wait. Without it such a wait would
// either hold the stream's lock for a GPU-length time or let the
// operation go on unchecked across a capture window opened under it.
func TestACallTokenRunsWithTheLockFreeAndCountsAsAWait(t *testing.T) {
	r := newRig(t, true)
	b := r.buffer(t, "b")
	failed := errors.New("mapping failed")
	var freeDuringCall bool
	var waitErr error
	var waited map[string]string
	err := r.eng.Do(lifecycle.Read, func(tx *engine.Tx) error {
		waitErr = tx.Wait(context.Background(), engine.Call("read", func(context.Context) error {
			if freeDuringCall = r.mu.TryLock(); freeDuringCall {
				r.mu.Unlock()
			}
			return failed
		}))
		waited = sentinel(usage(tx, b))
		return nil
	})
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	got := map[string]any{"lock free during the call": freeDuringCall, "Wait returned the call's error": errors.Is(waitErr, failed)}
	want := map[string]any{"lock free during the call": true, "Wait returned the call's error": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a Call wait (-want +got):\n%s", d)
	}
	if d := cmp.Diff(all("ErrWaited"), waited); d != "" {
		t.Errorf("after a Call wait, every step must fail with ErrWaited until Readmit (-want +got):\n%s", d)
	}
}

// TestSubmitWaitSubmitsWithTheLockFreeAndOnlyWhenAdmitted: a floor round's
// submission (Tx.SubmitWait) is refused with ErrWaited after an
// unconfirmed wait, like every step that reaches the GPU; once admitted
// again it submits exactly once with the lock released (another caller
// takes the lock meanwhile: on OpenGL the submit runs the work) and is
// recorded as the newest submission. Without it a profile's timed rounds
// would either run in a capture window opened under them or hold the
// stream's lock for the whole round.
func TestSubmitWaitSubmitsWithTheLockFreeAndOnlyWhenAdmitted(t *testing.T) {
	r := newRig(t, true)
	cb := func() driver.CommandBuffer {
		enc, err := r.dev.NewEncoder()
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Release()
		if err := enc.ClearBuffer(r.buffer(t, "b"), 0, 16); err != nil {
			t.Fatal(err)
		}
		c, err := enc.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	free := false
	r.hook = func(wait string) {
		if wait == "submit" && r.mu.TryLock() {
			free = true
			r.mu.Unlock()
		}
	}
	got := map[string]string{}
	err := r.eng.Do(lifecycle.ProfileReplay, func(tx *engine.Tx) error {
		if err := tx.Wait(context.Background(), engine.GPU(0)); err != nil {
			return err
		}
		before := r.dev.submits.Load()
		_, err := tx.SubmitWait(context.Background(), cb())
		got["after a wait"] = sentinel(map[string]error{"x": err})["x"]
		got["submits after a wait"] = map[bool]string{true: "none", false: "some"}[r.dev.submits.Load() == before]
		if err := tx.Readmit(); err != nil {
			return err
		}
		_, err = tx.SubmitWait(context.Background(), cb())
		got["after Readmit"] = sentinel(map[string]error{"x": err})["x"]
		got["submits after Readmit"] = fmt.Sprint(r.dev.submits.Load() - before)
		_, any := r.eng.Last()
		got["recorded"] = fmt.Sprint(any)
		return nil
	})
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	got["lock free during the submit"] = fmt.Sprint(free)
	want := map[string]string{"after a wait": "ErrWaited", "submits after a wait": "none", "after Readmit": "ok",
		"submits after Readmit": "1", "recorded": "true", "lock free during the submit": "true"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SubmitWait (-want +got):\n%s", d)
	}
}

// TestDrainWaitsWithTheLockFreeAndIsNotAdmittedAgain: Drain (a
// transition's wait for its warmup's submission, Close's for the
// stream's) hands the open batch off and waits, with the lock released,
// until the submitter has submitted it, even behind submissions the device
// holds; a transition meanwhile does not make it ask the gate again (it
// reaches the GPU no more), but it leaves the transaction waited. Without
// it BeginCapture and Close would hold the stream's lock for as long as
// the GPU runs, or fail on the window they opened themselves.
func TestDrainWaitsWithTheLockFreeAndIsNotAdmittedAgain(t *testing.T) {
	r := newRig(t, true)
	b := r.buffer(t, "b")
	release := r.dev.Hold()
	defer release()
	r.gate.readmit = errors.New("refused: a capture window opened")
	free := false
	r.hook = func(wait string) {
		if wait != "flush" || free {
			return
		}
		if free = r.mu.TryLock(); free {
			r.eng.Transition()
			r.mu.Unlock()
		}
		release()
	}
	var drainErr error
	var after map[string]string
	before := r.dev.submits.Load()
	err := r.eng.Do(lifecycle.BeginCapture, func(tx *engine.Tx) error {
		// GPUDepth batches the device holds, one the submitter holds
		// behind them, and the open one Drain hands off and waits for.
		for i := range engine.GPUDepth + 2 {
			enc, err := tx.Encoder()
			if err != nil {
				return err
			}
			if err := enc.ClearBuffer(b, 0, 16); err != nil {
				return err
			}
			r.eng.AddDispatches(1)
			if i < engine.GPUDepth+1 {
				if err := tx.HandOff(); err != nil {
					return err
				}
			}
		}
		drainErr = tx.Drain(context.Background())
		after = sentinel(usage(tx, b))
		return nil
	})
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	got := map[string]string{"Drain": fmt.Sprint(drainErr), "lock free while it waited": fmt.Sprint(free),
		"submitted": fmt.Sprint(r.dev.submits.Load() - before), "gate asked again": fmt.Sprint(r.gate.readmits)}
	want := map[string]string{"Drain": "<nil>", "lock free while it waited": "true",
		"submitted": fmt.Sprint(engine.GPUDepth + 2), "gate asked again": "0"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Drain behind held submissions, a transition while it waited (-want +got):\n%s", d)
	}
	if d := cmp.Diff(all("ErrWaited"), after); d != "" {
		t.Errorf("after Drain the transaction must be waited (-want +got):\n%s", d)
	}
}

// TestAFlushSubmitsQueuedBatchesItselfOnlyWithinTheGPUDepth: a Flush
// whose batches the submitter has not started may finish and submit them
// itself (submitQueued), under the lock, but never one the GPUDepth
// throttle holds back: behind GPUDepth submissions the GPU has not
// finished, the Flush waits with the lock released, no more than GPUDepth
// submitted by then, and every batch goes once the GPU moves. Without
// the throttle's check a Flush would queue work on the device without
// bound, or wait for the GPU holding the lock.
func TestAFlushSubmitsQueuedBatchesItselfOnlyWithinTheGPUDepth(t *testing.T) {
	for round := range 20 {
		r := newRig(t, true)
		b := r.buffer(t, "b")
		release := r.dev.Hold()
		var atWait int64 = -1
		r.hook = func(wait string) {
			if wait == "flush" && atWait < 0 {
				atWait = r.dev.submits.Load()
				release()
			}
		}
		err := r.eng.Do(lifecycle.Flush, func(tx *engine.Tx) error {
			for range engine.GPUDepth + 3 {
				enc, err := tx.Encoder()
				if err != nil {
					return err
				}
				if err := enc.ClearBuffer(b, 0, 16); err != nil {
					return err
				}
				r.eng.AddDispatches(1)
				if err := tx.HandOff(); err != nil {
					return err
				}
			}
			return tx.Flush(context.Background())
		})
		release()
		// The submitter may still have been submitting the first
		// GPUDepth when the Flush gave the lock up (then it waited for
		// them), but never more were submitted while the device held
		// them, and the Flush could not return without a wait.
		got := map[string]string{"Flush": fmt.Sprint(err), "gave the lock up": fmt.Sprint(atWait >= 0),
			"submitted by then, at most GPUDepth": fmt.Sprint(atWait <= engine.GPUDepth), "submitted in all": fmt.Sprint(r.dev.submits.Load())}
		want := map[string]string{"Flush": "<nil>", "gave the lock up": "true",
			"submitted by then, at most GPUDepth": "true", "submitted in all": fmt.Sprint(engine.GPUDepth + 3)}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("round %d: a Flush behind GPUDepth held submissions (-want +got):\n%s", round, d)
		}
	}
}

// TestHandOffFullWaitsForRoomOnlyAsATransaction: a full batch that finds
// room goes at once and leaves the transaction usable; one that finds the
// submitter MaxInflight batches behind (and holds more than the backlog a
// batch may grow to) waits for room with the lock released, is handed off
// after the wait without asking the gate again (its command went in under
// the admission), and leaves the transaction waited, so nothing of it that
// follows reaches the GPU before Readmit. Without it a Launch's room wait
// would give the lock up outside any transaction, and a step after it could
// reach the GPU inside a capture window opened meanwhile.
func TestHandOffFullWaitsForRoomOnlyAsATransaction(t *testing.T) {
	r := newRig(t, true)
	b := r.buffer(t, "b")
	release := r.dev.Hold()
	defer release()
	r.gate.readmit = errors.New("refused: a capture window opened")
	free := false
	r.hook = func(wait string) {
		if wait != "room" || free {
			return
		}
		if free = r.mu.TryLock(); free {
			r.eng.Transition()
			r.mu.Unlock()
		}
		release()
	}
	got := map[string]string{}
	err := r.eng.Do(lifecycle.Launch, func(tx *engine.Tx) error {
		fill := func(n int) error {
			enc, err := tx.Encoder()
			if err != nil {
				return err
			}
			if err := enc.ClearBuffer(b, 0, 16); err != nil {
				return err
			}
			r.eng.AddDispatches(n)
			return nil
		}
		if err := fill(r.eng.Chunk()); err != nil {
			return err
		}
		handed, err := tx.HandOffFull()
		got["with room: handed off"] = fmt.Sprint(handed, err)
		got["with room: then"] = sentinel(usage(tx, b))["Encoder"]
		// The device holds GPUDepth submissions; MaxInflight+1 batches
		// wait behind them for the submitter.
		for range engine.GPUDepth + engine.MaxInflight + 1 {
			if err := fill(1); err != nil {
				return err
			}
			if err := tx.HandOff(); err != nil {
				return err
			}
		}
		if err := fill(1024); err != nil { // past the backlog a batch may grow to
			return err
		}
		handed, err = tx.HandOffFull()
		got["behind: handed off"] = fmt.Sprint(handed, err)
		got["behind: then"] = sentinel(usage(tx, b))["Encoder"]
		return nil
	})
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	got["lock free during the room wait"] = fmt.Sprint(free)
	got["gate asked again"] = fmt.Sprint(r.gate.readmits)
	want := map[string]string{"with room: handed off": "true <nil>", "with room: then": "ok",
		"behind: handed off": "true <nil>", "behind: then": "ErrWaited",
		"lock free during the room wait": "true", "gate asked again": "0"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("HandOffFull with room and behind a held device (-want +got):\n%s", d)
	}
}

// TestAWaitWhoseContextEndsWhileTheLockIsHeldReturnsWithoutIt: a call with
// a deadline must return at it even when, as its wait ends, another
// operation holds the lock for long (a replay waiting for room between its
// chunks). Wait takes the lock back with the caller's context: when that
// ends first it returns ctx's error without the lock, the transaction is
// lost (every later use fails with ErrLockLost, Readmit included), DoContext
// returns at once without releasing the lock it does not hold, and what
// Locked was given runs once the holder lets go, holding the lock. Before,
// Wait took the lock back without the context and the call returned only
// when the holder let go.
func TestAWaitWhoseContextEndsWhileTheLockIsHeldReturnsWithoutIt(t *testing.T) {
	r := newRig(t, true)
	b := r.buffer(t, "b")
	holderHas := make(chan struct{})
	holderGo := make(chan struct{})
	holderDone := make(chan struct{})
	var letGo sync.Once
	release := func() { letGo.Do(func() { close(holderGo) }) }
	// Without the rule the call returns only when the holder lets go: it
	// does after 3 s, so the test fails instead of hanging.
	safety := time.AfterFunc(3*time.Second, release)
	defer safety.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var waitErr error
	var lost bool
	var after map[string]string
	var readmit error
	lockedRan := make(chan bool, 1)
	t0 := time.Now()
	err := r.eng.DoContext(ctx, lifecycle.Read, func(tx *engine.Tx) error {
		waitErr = tx.Wait(ctx, engine.Call("read", func(context.Context) error {
			// Another operation takes the lock while this one waits, and
			// keeps it past the deadline.
			go func() {
				defer close(holderDone)
				r.mu.Lock()
				close(holderHas)
				<-holderGo
				r.mu.Unlock()
			}()
			<-holderHas
			return nil
		}))
		lost = tx.Lost()
		after = sentinel(usage(tx, b))
		readmit = tx.Readmit()
		tx.Locked(func() {
			// Asked from another goroutine (the lockrank build forbids a
			// goroutine to try a second lock of its rank).
			free := make(chan bool)
			go func() {
				ok := r.mu.TryLock()
				if ok {
					r.mu.Unlock()
				}
				free <- ok
			}()
			lockedRan <- !<-free
		})
		return waitErr
	})
	took := time.Since(t0)
	got := map[string]any{"DoContext returned the deadline": errors.Is(err, context.DeadlineExceeded),
		"Wait returned the deadline": errors.Is(waitErr, context.DeadlineExceeded), "lost": lost,
		"returned within 1s": took < time.Second, "Readmit": errors.Is(readmit, engine.ErrLockLost)}
	want := map[string]any{"DoContext returned the deadline": true, "Wait returned the deadline": true, "lost": true,
		"returned within 1s": true, "Readmit": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a wait whose deadline passed while another held the lock (-want +got):\n%s", d)
	}
	if d := cmp.Diff(all("ErrLockLost"), after); d != "" {
		t.Errorf("after the lock was lost, every step must fail with ErrLockLost (-want +got):\n%s", d)
	}
	select {
	case <-lockedRan:
		t.Fatal("Locked ran its function while another operation held the lock")
	case <-time.After(20 * time.Millisecond):
	}
	release()
	<-holderDone
	select {
	case held := <-lockedRan:
		if !held {
			t.Error("Locked ran its function without the lock")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Locked did not run its function once the lock was free")
	}
	// The lock is free and usable: nothing unlocked it twice.
	if err := r.eng.Do(lifecycle.Read, func(*engine.Tx) error { return nil }); err != nil {
		t.Errorf("Do after the lost transaction: %v", err)
	}
}

// BenchmarkDo is one transaction that does nothing: the lock, the gate's
// verdict and the transaction's own cost, which every stream operation
// pays. allocs/op must be 0: the launch path runs through it.
func BenchmarkDo(b *testing.B) {
	r := newRig(b, true)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if err := r.eng.Do(lifecycle.Launch, func(tx *engine.Tx) error {
			n++
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	if n == 0 {
		b.Fatal("Do never ran its function")
	}
}

// TestACallWithAnEndedContextWaitsOutAMomentaryHolder: DoContext with a
// context already cancelled, while another goroutine holds the lock for a
// moment (it lets go once the call found the lock busy, as the flush
// timer's hand-off does within microseconds), still takes the lock and
// runs its operation, so the call is decided by the
// gate (a refusal while recording, say) and not by that moment; a holder
// that keeps the lock past the grace gets the context's error. Before,
// the cancelled call gave up at once when the lock was busy, and which
// error a caller saw was a race (CI's bad-input matrix met it once).
func TestACallWithAnEndedContextWaitsOutAMomentaryHolder(t *testing.T) {
	r := newRig(t, true)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	grace := make(chan struct{}, 1)
	r.hook = func(wait string) {
		if wait == "lock grace" {
			select {
			case grace <- struct{}{}:
			default:
			}
		}
	}
	// try holds the lock on another goroutine until the call has found
	// it busy with its context ended (the "lock grace" hook) or returned,
	// or for at least hold, and returns the call's error.
	try := func(hold time.Duration) error {
		held := make(chan struct{})
		called := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.mu.Lock()
			close(held)
			select {
			case <-grace:
			case <-called:
			}
			time.Sleep(hold)
			r.mu.Unlock()
		}()
		<-held
		err := r.eng.DoContext(cancelled, lifecycle.Read, func(*engine.Tx) error { return nil })
		close(called)
		<-done
		return err
	}
	got := map[string]string{"released in the grace": fmt.Sprint(try(0)), "held 50ms past it": fmt.Sprint(try(50 * time.Millisecond))}
	want := map[string]string{"released in the grace": "<nil>", "held 50ms past it": context.Canceled.Error()}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("DoContext with a cancelled context beside a holder of the lock (-want +got):\n%s", d)
	}
}
