package tests

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// spinWGSL keeps every invocation busy for p.iters dependent steps (under
// the 65535 iterations after which llvmpipe and lavapipe stop a shader
// loop), then adds 1 to x[i] for the invocations that have an element:
// one launch is one unit of work, and x counts the units that ran.
const spinWGSL = `
struct P { iters: u32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	var acc = f32(id.x);
	for (var k = 0u; k < p.iters; k = k + 1u) {
		acc = acc * 1.0000001 + 0.5;
	}
	if (id.x < arrayLength(&x)) {
		// acc is never negative: the branch keeps the loop from being
		// optimised away without changing the result.
		x[id.x] = x[id.x] + select(1.0, 2.0, acc < 0.0);
	}
}
`

// spin is GPU work of a measured duration: launches of spinWGSL over
// groups workgroups, each taking about unit.
type spin struct {
	k      *wgpu.Kernel
	x      *recorder.Buffer
	groups uint32
	unit   time.Duration
	ran    int // launches enqueued so far: what x must hold
}

const (
	spinElems = 1024
	spinIters = 2000
)

// newSpin compiles the kernel and grows the workgroup count until one
// launch takes at least minUnit (or the dimension limit is reached), then
// measures a unit the way the tests use it: a batch of launches submitted
// together, of about a second in all.
func newSpin(t *testing.T, d *wgpu.Device, s *recorder.Stream, minUnit time.Duration) *spin {
	t.Helper()
	sp := &spin{k: gputest.Kernel(t, d, spinWGSL), x: gputest.Upload(t, s, gputest.Fill(spinElems, 0)), groups: 64}
	measure := func(on *recorder.Stream, n int) time.Duration {
		start := time.Now()
		for range n {
			if err := sp.launch(on); err != nil {
				t.Fatal(err)
			}
		}
		if err := on.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := on.Sync(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start) / time.Duration(n)
	}
	maxGroups := d.Info().Limits.MaxComputeWorkgroupsPerDimension
	for {
		per := measure(s, 2)
		if per >= minUnit || sp.groups == maxGroups {
			break
		}
		grow := uint32(2)
		if per < minUnit/16 {
			grow = 8
		}
		sp.groups = min(sp.groups*grow, maxGroups)
	}
	n := max(int(time.Second/measure(s, 1)), 2)
	batch := longStream(t, d, n)
	sp.unit = measure(batch, n)
	if err := batch.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: one unit is %d workgroups × %d iterations ≈ %v (measured over a batch of %d)", d.Info(), sp.groups, spinIters, sp.unit, n)
	return sp
}

// launch enqueues one unit on s.
func (sp *spin) launch(s *recorder.Stream) error {
	if err := s.Launch(sp.k, recorder.Groups(sp.groups, 1, 1), sp.x, gputest.U32(spinIters)); err != nil {
		return err
	}
	sp.ran++
	return nil
}

// units is how many launches make about d of work.
func (sp *spin) units(d time.Duration) int { return max(int(d/sp.unit), 1) }

// check reads x back: every launch enqueued so far must have run.
func (sp *spin) check(t *testing.T, s *recorder.Stream) {
	t.Helper()
	gputest.WantFloats(t, "every unit of work ran exactly once", gputest.Fill(spinElems, float32(sp.ran)), gputest.Read(t, s, sp.x))
}

// longBatch is how much work the early-return tests enqueue: past the 5 s
// after which wgpu-native's blocking wait gave up, by enough that a wait
// ending at 5 s is told from one that waited (see waitedLongEnough).
const longBatch = 7500 * time.Millisecond

// waitedLongEnough fails t if a wait returned while its work was still
// running. The proof is a marker read on another stream right after it: a
// wait that returned early leaves the rest of the batch ahead of the
// marker, which then waits for it. The wait's own duration, against the
// batch's measured length, is only reported.
func waitedLongEnough(t *testing.T, what string, took, want time.Duration, other *recorder.Stream) {
	t.Helper()
	m := gputest.Upload(t, other, gputest.Fill(4, 5))
	start := time.Now()
	gputest.WantEqual(t, "a marker read after the wait", gputest.Fill(4, 5), gputest.Read(t, other, m))
	left := time.Since(start)
	t.Logf("%s returned after %v (the batch measured ≈ %v); a marker read right after it took %v", what, took, want, left)
	if left > max(want/6, 500*time.Millisecond) {
		t.Fatalf("%s must wait until the GPU has finished: it returned after %v, and a marker read after it still waited %v for the rest of the batch", what, took, left)
	}
	// The wait's own length is not checked against the estimate: a GPU that
	// raises its clocks under load runs the batch far faster than the unit
	// measured cold (the H200 ran an estimated 7.5 s batch in 3.2 s, and the
	// marker read right after showed it done). The marker read is the proof.
}

// longStream opens a stream that submits n launches as one batch: no flush
// timer, a first chunk larger than n.
func longStream(t *testing.T, d *wgpu.Device, n int) *recorder.Stream {
	return gputest.Stream(t, d, recorder.WithFlushDelay(0), recorder.WithSubmitChunks(n+1, n+1))
}

// TestSyncWaitsForALongBatchToFinish: Sync behind one batch of about 7.5 s
// of GPU work returns only when the batch is done, and the result is
// exact. Without it, on Vulkan, Sync returned nil after 5.0 s while the GPU
// was still working (wgpu-native's blocking wait gave up and treated the
// work as done), and on lavapipe the process then died in the driver's
// queue thread.
func TestSyncWaitsForALongBatchToFinish(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the batch takes 7.5 s")
	}
	d, s := gputest.OpenStream(t)
	sp := newSpin(t, d, s, 20*time.Millisecond)
	n := sp.units(longBatch)
	ls := longStream(t, d, n)
	for range n {
		if err := sp.launch(ls); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	if err := ls.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := ls.Sync(); err != nil {
		t.Fatalf("Sync behind a long batch: %v", err)
	}
	waitedLongEnough(t, fmt.Sprintf("Sync behind %d launches", n), time.Since(start), time.Duration(n)*sp.unit, s)
	sp.check(t, s)
}

// TestSyncContextAndCloseWaitForALongBatchToFinish: SyncContext with a 60 s
// deadline behind a batch of about 7.5 s returns nil only when the batch is
// done; then a stream Close behind another such batch returns only when
// that one is done, and the device closes and the next one computes (fresh
// process: a Close that returned early let lavapipe's queue thread crash).
// Without it, SyncContext (even with a 60 s deadline) and Close returned
// nil after 5.0 s of a longer batch.
func TestSyncContextAndCloseWaitForALongBatchToFinish(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the batches take 15 s")
	}
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		sp := newSpin(t, d, s, 20*time.Millisecond)
		n := sp.units(longBatch)
		ls := longStream(t, d, n)
		for range n {
			if err := sp.launch(ls); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		if err := ls.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := ls.SyncContext(ctx); err != nil {
			t.Fatalf("SyncContext(60 s) behind a long batch: %v", err)
		}
		waitedLongEnough(t, fmt.Sprintf("SyncContext(60 s) behind %d launches", n), time.Since(start), time.Duration(n)*sp.unit, s)
		sp.check(t, s)

		for range n {
			if err := sp.launch(ls); err != nil {
				t.Fatal(err)
			}
		}
		start = time.Now()
		if err := ls.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := ls.Close(); err != nil {
			t.Fatalf("Close behind a long batch: %v", err)
		}
		waitedLongEnough(t, fmt.Sprintf("Close behind %d launches", n), time.Since(start), time.Duration(n)*sp.unit, s)
		sp.check(t, s)
		if err := within(t, 30*time.Second, "Device.Close", d.Close); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDeadlinesHoldBehindLongDispatchesOnEveryBackend: behind long
// dispatches (about 0.5 s each, 3 s in all) SyncContext with a 300 ms
// deadline returns by the deadline, plus slack, with an error wrapping
// context.DeadlineExceeded (or nil if the work was done), and the work
// stays enqueued: a plain Sync completes it and the result is exact. That
// holds with the stream's default batching (the flush timer submits the
// batch) and with every launch submitted at once (a submission chunk of
// 1), where Launch must not block behind the GPU either; and a stream
// Close behind such work returns once it is done, not much later. It runs
// on the backend SOFTGRAPH_BACKEND picks: run it with SOFTGRAPH_BACKEND=gl
// too. Without it, on GL, SyncContext(300 ms) stayed blocked 20 s behind a
// long dispatch, Launch blocked with a chunk of 1, and Close hung for 60 s.
func TestDeadlinesHoldBehindLongDispatchesOnEveryBackend(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		sp := newSpin(t, d, s, 500*time.Millisecond)
		n := sp.units(3 * time.Second)
		const deadline = 300 * time.Millisecond
		// waitWithin calls SyncContext (or, read, ReadContext of another
		// buffer) with the deadline behind the work enqueued on ls.
		waitWithin := func(t *testing.T, ls *recorder.Stream, read bool) {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			call, op := "SyncContext", "Sync"
			f := func() error { return ls.SyncContext(ctx) }
			if read {
				other := gputest.Upload(t, ls, gputest.Fill(4, 1))
				defer other.Release()
				call, op = "ReadContext", "Read"
				f = func() error {
					_, err := ls.ReadContext(ctx, other)
					return err
				}
			}
			start := time.Now()
			err := within(t, time.Minute, call+"(300 ms)", f)
			took := time.Since(start)
			t.Logf("%s(%v) behind ≈ %v of work returned after %v: %v", call, deadline, time.Duration(n)*sp.unit, took, err)
			if took > deadline+time.Second {
				t.Errorf("%s must return by its deadline (%v) plus slack, took %v", call, deadline, took)
			}
			if err != nil {
				gputest.WantErr(t, "a "+call+" that ran out of time", err, []error{context.DeadlineExceeded}, op)
			}
			if err := ls.Sync(); err != nil {
				t.Fatalf("the work stays enqueued after the deadline; Sync completes it: %v", err)
			}
			sp.check(t, s)
		}

		t.Run("batched", func(t *testing.T) {
			ls := gputest.Stream(t, d)
			for range n {
				if err := sp.launch(ls); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(10 * time.Millisecond) // past the flush delay: the timer submits the batch
			waitWithin(t, ls, false)
		})

		// The batch still unsubmitted when the SyncContext or ReadContext
		// comes: its flush submits it itself where a submit only queues
		// the work, but not where the submit runs it (OpenGL, lavapipe
		// inside the call): there the SyncContext returned after all of
		// it, 3 s, on llvmpipe's GL, and the ReadContext on lavapipe.
		for _, read := range []bool{false, true} {
			t.Run(fmt.Sprintf("unsubmitted, read %v", read), func(t *testing.T) {
				ls := gputest.Stream(t, d, recorder.WithFlushDelay(time.Hour))
				for range n {
					if err := sp.launch(ls); err != nil {
						t.Fatal(err)
					}
				}
				waitWithin(t, ls, read)
			})
		}

		t.Run("chunk of 1", func(t *testing.T) {
			ls := gputest.Stream(t, d, recorder.WithSubmitChunks(1, 1))
			var slowest time.Duration
			// More submissions than a stream keeps in flight (3), so a
			// Launch that waits for a slot shows; fewer than the backlog
			// at which a Launch waits by design (512 unsubmitted
			// dispatches: a GL submit runs the work, so the H200's 678
			// units of 4 ms reached it).
			launches := min(max(n, 6), 400)
			for range launches {
				start := time.Now()
				if err := sp.launch(ls); err != nil {
					t.Fatal(err)
				}
				slowest = max(slowest, time.Since(start))
			}
			t.Logf("%d launches of ≈ %v each, submitted one by one; the slowest Launch took %v", launches, sp.unit, slowest)
			// A Launch may wait for the driver's submit, which some drivers
			// (lavapipe under wine) make wait for the previous submission:
			// about one unit. Blocking behind the GPU would wait for the
			// work enqueued before it, many units.
			if slowest > max(2*sp.unit, 500*time.Millisecond) {
				t.Errorf("Launch must not block behind the GPU: one took %v with units of ≈ %v", slowest, sp.unit)
			}
			waitWithin(t, ls, false)

			for range n {
				if err := sp.launch(ls); err != nil {
					t.Fatal(err)
				}
			}
			work := time.Duration(n) * sp.unit
			start := time.Now()
			if err := within(t, time.Minute, "Stream.Close", ls.Close); err != nil {
				t.Fatalf("Close behind long dispatches: %v", err)
			}
			took := time.Since(start)
			t.Logf("Close behind ≈ %v of work returned after %v", work, took)
			if took > 2*work+2*time.Second {
				t.Errorf("Close must return once the work is done: it took %v behind ≈ %v of work", took, work)
			}
			sp.check(t, s)
			if err := ls.Sync(); !errors.Is(err, wgpu.ErrClosed) {
				t.Fatalf("a closed stream answers ErrClosed, got %v", err)
			}
		})
	})
}

// TestADeadlineHoldsWhileAWriteWaitsForTheSubmitter: a Write to memory the
// stream's unsubmitted work uses must wait until that work is submitted,
// and behind long dispatches submitted one by one that takes many units
// (the submitter keeps at most 8 submissions unfinished on the GPU). A
// SyncContext with a deadline on the same stream meanwhile must still
// return by its deadline. Without it the Write waited holding the stream's
// lock, and the SyncContext waited for the lock as long as the Write did.
func TestADeadlineHoldsWhileAWriteWaitsForTheSubmitter(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		sp := newSpin(t, d, s, 200*time.Millisecond)
		ls := gputest.Stream(t, d, recorder.WithSubmitChunks(1, 1))
		work := 3 * time.Second
		if longRun() {
			work = 8 * time.Second
		}
		n := max(sp.units(work), 24)
		for range n {
			if err := sp.launch(ls); err != nil {
				t.Fatal(err)
			}
		}
		wrote := make(chan error, 1)
		go func() { wrote <- recorder.WriteSlice(ls, sp.x, 0, gputest.Fill(spinElems, 0)) }()
		time.Sleep(50 * time.Millisecond) // the Write is waiting for the submitter
		const deadline = 300 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		start := time.Now()
		err := within(t, time.Minute, "SyncContext(300 ms)", func() error { return ls.SyncContext(ctx) })
		took := time.Since(start)
		t.Logf("%d units of ≈ %v: SyncContext(%v) beside a waiting Write returned after %v: %v", n, sp.unit, deadline, took, err)
		if took > deadline+time.Second {
			t.Errorf("SyncContext must return by its deadline (%v) plus slack while a Write waits, took %v", deadline, took)
		}
		if err := within(t, time.Minute, "Write", func() error { return <-wrote }); err != nil {
			t.Fatalf("the Write completes once the work before it is submitted: %v", err)
		}
		if err := ls.Sync(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDeadlinesWhileTheSubmitterIsBusyReturnOnlyTheContextsError: while
// goroutines keep a stream's submitter busy (launches, pre-encoded
// 64-dispatch replays, and Writes of their own counters that wait for it),
// SyncContext and ReadContext run with deadlines from already expired to 5
// ms. Each returns nil or an error wrapping context.DeadlineExceeded (or
// Canceled), never another error; a ReadContext that returns data returns
// exactly what its goroutine enqueued before it (each counter has one
// writer); after everything a plain Sync returns nil, every counter equals
// the model, and no staging buffer or other native object is left behind by
// the reads cut short.
func TestDeadlinesWhileTheSubmitterIsBusyReturnOnlyTheContextsError(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	for _, opts := range [][]recorder.Option{{recorder.WithPreEncode(true)}, {recorder.WithFlushDelay(0)}} {
		s := gputest.Stream(t, d, opts...)
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		before := live(t, d)
		timeouts := []time.Duration{-1, time.Nanosecond, 20 * time.Microsecond, 200 * time.Microsecond, time.Millisecond, 5 * time.Millisecond}
		ctxFor := func(i int) (context.Context, context.CancelFunc) {
			if to := timeouts[i%len(timeouts)]; to >= 0 {
				return context.WithTimeout(context.Background(), to)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}
		expired := func(err error) bool {
			return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
		}
		var errs collect
		var wg sync.WaitGroup
		var cut, done atomic.Int64
		const workers = 3
		xs := make([]*recorder.Buffer, workers)
		wants := make([]float32, workers)
		var graphs []*recorder.Graph
		for i := range workers {
			x := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
			xs[i] = x
			var g *recorder.Graph
			if i == 0 {
				var err error
				if g, err = s.Capture(func() error {
					for range 64 {
						if err := bump(s, add, x, 1); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				graphs = append(graphs, g)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				want := float32(0)
				if g != nil {
					want = 64
				}
				defer func() { wants[i] = want }()
				for r := range 40 {
					for range 17 + r%13 {
						if err := bump(s, add, x, 1); err != nil {
							errs.add(err)
							return
						}
						want++
					}
					if g != nil && r%3 == 0 {
						if err := g.Replay(); err != nil {
							errs.add(err)
							return
						}
						want += 64
					}
					if r%10 == 9 {
						want = float32(1000 * r)
						if err := recorder.WriteSlice(s, x, 0, gputest.Fill(counterElems, want)); err != nil {
							errs.add(err)
							return
						}
					}
					ctx, cancel := ctxFor(r + i)
					v, err := recorder.ReadSlice[float32](s, x) // a plain read every round ...
					if err == nil && r%2 == 0 {
						var raw []byte
						raw, err = s.ReadContext(ctx, x) // ... and one with a deadline
						if err == nil {
							v = floatsOf(raw)
							done.Add(1)
						} else if expired(err) {
							cut.Add(1)
							err = nil
						}
					}
					cancel()
					if err != nil {
						errs.add(fmt.Errorf("worker %d round %d: %w", i, r, err))
						return
					}
					if !slices.Equal(v, gputest.Fill(counterElems, want)) {
						errs.add(fmt.Errorf("worker %d round %d: read %v, want all %v", i, r, v[:4], want))
						return
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				ctx, cancel := ctxFor(i)
				err := s.SyncContext(ctx)
				cancel()
				switch {
				case err == nil:
					done.Add(1)
				case expired(err):
					cut.Add(1)
				default:
					errs.add(fmt.Errorf("SyncContext %d: want nil or a deadline's error, got %v", i, err))
					return
				}
			}
		}()
		waitAll(t, &wg, 2*time.Minute, "deadlines under traffic")
		errs.report(t)
		if t.Failed() {
			return
		}
		t.Logf("%d waits cut short by their deadline, %d completed", cut.Load(), done.Load())
		if err := s.Sync(); err != nil {
			t.Fatalf("a plain Sync after the deadlines: %v", err)
		}
		for i, x := range xs {
			gputest.WantEqual(t, fmt.Sprintf("worker %d's counter", i), gputest.Fill(counterElems, wants[i]), gputest.Read(t, s, x))
		}
		for _, x := range xs {
			x.Release()
		}
		for _, g := range graphs {
			g.Release()
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Trim(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		// What may remain: spare encoders, a params page, a staging buffer
		// or two; a staging buffer leaked per read cut short would show as
		// dozens.
		wantLiveBounded(t, "native objects after reads cut short, with everything released and trimmed", before, live(t, d))
	}
}

// TestCloseWaitsForTheStreamsWorkOnEveryBackend: on every backend this
// machine has (Vulkan and OpenGL, whatever SOFTGRAPH_BACKEND says), a
// stream Close behind about 2 s of launches returns only once they have
// run — launches flushed before Close, launches still enqueued at Close,
// and a Close made while another goroutine's Flush is submitting them —
// proven by a marker read on another stream right after it (a Close that
// returned early leaves the rest of the work ahead of the marker) and by
// the count every launch adds. The issue reported Close returning after
// 15 s of an endless kernel on the H200's GL; on llvmpipe GL the submit
// itself runs the work (Flush blocks for it, measured 2.2 s for 200
// launches) and Close then finds it done, on lavapipe Flush returns at once
// and Close waits: the same contract both ways.
func TestCloseWaitsForTheStreamsWorkOnEveryBackend(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		gputest.OnEveryBackend(t, func(t *testing.T, b wgpu.Backend) {
			d := gputest.Open(t, wgpu.Options{Backend: b, IgnoreEnv: true})
			s := gputest.Stream(t, d)
			sp := newSpin(t, d, s, 20*time.Millisecond)
			n := sp.units(2 * time.Second)
			work := time.Duration(n) * sp.unit
			closeBehind := func(t *testing.T, what string, flush, racing bool) {
				ls := longStream(t, d, n)
				for range n {
					if err := sp.launch(ls); err != nil {
						t.Fatal(err)
					}
				}
				start := time.Now()
				var flushed chan error
				switch {
				case racing:
					flushed = make(chan error, 1)
					go func() { flushed <- ls.Flush() }()
					time.Sleep(50 * time.Millisecond) // the Flush is submitting
				case flush:
					if err := ls.Flush(); err != nil {
						t.Fatal(err)
					}
				}
				if err := within(t, time.Minute, "Stream.Close", ls.Close); err != nil {
					t.Fatalf("Close %s: %v", what, err)
				}
				waitedLongEnough(t, "Close "+what, time.Since(start), work, s)
				if flushed != nil {
					if err := <-flushed; err != nil && !errors.Is(err, wgpu.ErrClosed) {
						t.Fatalf("a Flush racing Close returns nil or ErrClosed, got %v", err)
					}
				}
				sp.check(t, s)
			}
			t.Run("flushed", func(t *testing.T) { closeBehind(t, fmt.Sprintf("behind %d flushed launches", n), true, false) })
			t.Run("enqueued", func(t *testing.T) { closeBehind(t, fmt.Sprintf("behind %d enqueued launches", n), false, false) })
			t.Run("during a Flush", func(t *testing.T) {
				closeBehind(t, fmt.Sprintf("while another goroutine flushes %d launches", n), false, true)
			})
		})
	})
}
