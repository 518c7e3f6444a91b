package tests

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestABodyThatClosesTheStreamEndsTheBranchWithErrClosed: Close called
// from inside an If or While body (eager or recorded) does not deadlock
// or panic; the branch returns an error and later calls ErrClosed.
func TestABodyThatClosesTheStreamEndsTheBranchWithErrClosed(t *testing.T) {
	for _, capture := range []bool{false, true} {
		t.Run(fmt.Sprintf("capture=%v", capture), func(t *testing.T) {
			d := gputest.Open(t, wgpu.Options{})
			s := gputest.Stream(t, d)
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			cond, err := s.Upload(gputest.U32(1, 0, 0, 0))
			if err != nil {
				t.Fatal(err)
			}
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			body := func() error {
				if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
					return err
				}
				return s.Close()
			}
			done := make(chan error, 1)
			go func() {
				if capture {
					if err := s.PrepareCapture(); err != nil {
						done <- err
						return
					}
					if err := s.BeginCapture(); err != nil {
						done <- err
						return
					}
				}
				done <- s.While(cond, 0, 3, body)
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Fatalf("a While whose body closed the stream must return an error")
				}
			case <-time.After(20 * time.Second):
				t.Fatal("a While whose body closed the stream hung")
			}
			if err := s.Sync(); !errors.Is(err, wgpu.ErrClosed) {
				t.Fatalf("after Close, Sync must fail with ErrClosed, got %v", err)
			}
		})
	}
}

// TestABodyThatPanicsWhileRecordingCannotSealAGraph: an If or While body
// that panics while recording never returns to close its region. A caller
// who recovers and goes on must not get a graph whose later commands were
// silently recorded into that body (gated by its condition): EndCapture
// fails with a *CaptureError (lifecycle.ErrGraphState), the stream is back
// in NoCapture, and a new capture works. Without the fix the next launch
// was recorded inside the abandoned body and the graph sealed.
func TestABodyThatPanicsWhileRecordingCannotSealAGraph(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		for _, kind := range []string{"If", "While"} {
			d, s := gputest.OpenStream(t)
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			cond, err := s.Upload(gputest.U32(0, 0, 0, 0)) // false: a body never runs
			if err != nil {
				t.Fatal(err)
			}
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			add := func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)) }
			if err := s.PrepareCapture(); err != nil {
				t.Fatal(err)
			}
			if err := add(); err != nil {
				t.Fatal(err)
			}
			if err := s.BeginCapture(); err != nil {
				t.Fatal(err)
			}
			p := noPanic(func() {
				body := func() error { _ = add(); panic("body panics") }
				if kind == "If" {
					_ = s.If(cond, 0, body)
				} else {
					_ = s.While(cond, 0, 2, body)
				}
			})
			if p != "body panics" {
				t.Fatalf("%s: the body's panic must reach the caller, got %q", kind, p)
			}
			if err := add(); err != nil { // at top level, after the recovered panic
				t.Fatal(err)
			}
			g, err := s.EndCapture()
			if err == nil {
				// What the graph would compute: the top-level launch adds 1.
				_ = g.Replay()
				got := gputest.Read(t, s, x)
				g.Release()
				t.Fatalf("%s: EndCapture after a body panicked must fail, not seal a graph (a replay added %v, want 1)", kind, got[0]-1)
			}
			gputest.WantErr(t, kind+": EndCapture after a body panicked fails with a CaptureError", err, []error{lifecycle.ErrGraphState}, "did not return")
			if st := s.State(); st != lifecycle.NoCapture {
				t.Fatalf("%s: after the failed EndCapture the stream must be in NoCapture, is in %v", kind, st)
			}
			g, err = s.Capture(add)
			if err != nil {
				t.Fatalf("%s: a capture after the failed one must work: %v", kind, err)
			}
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			g.Release()
			// warmups 1 + 1, replay 1
			gputest.WantEqual(t, kind+": the stream computes after the failed capture", gputest.Fill(64, 3), gputest.Read(t, s, x))
		}
	})
}

// TestEndCaptureInsideAnIfBodyDoesNotSealAnOpenBody: EndCapture called
// from inside a recorded If body would seal a graph whose If never
// closed; it fails with a *CaptureError instead, the If returns an error,
// and the stream is back in NoCapture and computes.
func TestEndCaptureInsideAnIfBodyDoesNotSealAnOpenBody(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		k := gputest.Kernel(t, d, gputest.AddConstWGSL)
		cond, err := s.Upload(gputest.U32(1, 0, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		x := gputest.Upload(t, s, gputest.Fill(64, 0))
		if err := s.PrepareCapture(); err != nil {
			t.Fatal(err)
		}
		if err := s.BeginCapture(); err != nil {
			t.Fatal(err)
		}
		var inner error
		ifErr := s.If(cond, 0, func() error {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
				return err
			}
			g, err := s.EndCapture()
			if err == nil {
				g.Release()
			}
			inner = err
			return nil
		})
		gputest.WantErr(t, "EndCapture inside an If body fails", inner, []error{lifecycle.ErrGraphState}, "did not return")
		if ifErr == nil {
			t.Fatal("an If whose body ended the capture must return an error")
		}
		if st := s.State(); st != lifecycle.NoCapture {
			t.Fatalf("the stream must be in NoCapture, is in %v", st)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, "the stream computes after the refused EndCapture", gputest.Fill(64, 2), gputest.Read(t, s, x))
	})
}

// countdownWGSL: st[0] is a loop condition; each run takes one from it
// (down to 0) and counts itself in st[1].
const countdownWGSL = `
@group(0) @binding(0) var<storage, read_write> st: array<u32>;
@compute @workgroup_size(1)
fn main() {
	if (st[0] > 0u) { st[0] = st[0] - 1u; }
	st[1] = st[1] + 1u;
}
`

// TestAChildGraphWithControlFlowReplaysInsideAnIfBody: a graph holding a
// While, replayed inside an If body of another capture, runs only when the
// If's condition holds, and then loops as it does alone.
func TestAChildGraphWithControlFlowReplaysInsideAnIfBody(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		k := gputest.Kernel(t, d, countdownWGSL)
		st := gputest.UploadU32(t, s, 0, 0)
		cond := gputest.UploadU32(t, s, 0)
		child, err := s.Capture(func() error {
			return s.While(st, 0, 8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) })
		})
		if err != nil {
			t.Fatal(err)
		}
		defer child.Release()
		var parent *recorder.Graph
		p := noPanic(func() {
			parent, err = s.Capture(func() error {
				return s.If(cond, 0, func() error { return child.Replay() })
			})
		})
		if p != "" {
			t.Fatalf("capturing an If whose body replays a graph with control flow panicked: %s", p)
		}
		if err != nil {
			t.Fatalf("capturing an If whose body replays a graph with a While: %v", err)
		}
		defer parent.Release()
		for _, c := range []struct {
			cond, n uint32
			want    []uint32
		}{
			{0, 3, []uint32{3, 0}}, {1, 3, []uint32{0, 3}}, {1, 20, []uint32{12, 8}},
		} {
			setU32(t, s, st, c.n, 0)
			setU32(t, s, cond, c.cond)
			if err := parent.Replay(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, fmt.Sprintf("cond=%d n=%d", c.cond, c.n), c.want, gputest.ReadU32(t, s, st))
		}
	})
}

// TestIfBodiesRecordedConcurrentlyOnOneStreamCannotSealAGraph: two
// goroutines record If bodies on one capturing stream at once, so the
// second body opens inside the first. When the first returns before the
// second (with an error, or not), the regions no longer nest: both Ifs
// return errors, EndCapture fails with a *CaptureError, the stream is back
// in NoCapture and a new capture works. Without the fix the second body's
// return indexed a region the first had dropped (a Go panic), or the
// interleaved regions sealed a graph that ran commands twice.
func TestIfBodiesRecordedConcurrentlyOnOneStreamCannotSealAGraph(t *testing.T) {
	for _, firstFails := range []bool{true, false} {
		t.Run(fmt.Sprintf("firstFails=%v", firstFails), func(t *testing.T) {
			d, s := gputest.OpenStream(t)
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			cond := gputest.UploadU32(t, s, 1)
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			add := func(v float32) error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(v)) }
			if err := s.PrepareCapture(); err != nil {
				t.Fatal(err)
			}
			if err := s.BeginCapture(); err != nil {
				t.Fatal(err)
			}
			aOpen, bOpen, aDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
			var errA, errB error
			var panA, panB string
			go func() {
				defer close(aDone)
				panA = noPanic(func() {
					errA = s.If(cond, 0, func() error {
						close(aOpen)
						<-bOpen
						if err := add(1); err != nil {
							return err
						}
						if firstFails {
							return errors.New("first body fails")
						}
						return nil
					})
				})
			}()
			<-aOpen
			bDone := make(chan struct{})
			go func() {
				defer close(bDone)
				panB = noPanic(func() {
					errB = s.If(cond, 0, func() error {
						close(bOpen)
						<-aDone
						return add(10)
					})
				})
			}()
			<-bDone
			if panA != "" || panB != "" {
				t.Fatalf("concurrent If bodies panicked (the API never panics): %q %q", panA, panB)
			}
			if errA == nil && errB == nil {
				t.Fatal("interleaved If bodies must fail, both returned nil")
			}
			if errB == nil || !errors.Is(errB, wgpu.ErrInvalidArgument) {
				t.Errorf("the If whose region no longer nests must fail with ErrInvalidArgument, got %v", errB)
			}
			if err := add(100); err != nil { // at top level
				t.Fatal(err)
			}
			g, err := s.EndCapture()
			if err == nil {
				_ = g.Replay()
				got := gputest.Read(t, s, x)
				g.Release()
				t.Fatalf("EndCapture after interleaved bodies must fail, not seal a graph (a replay added %v)", got[0])
			}
			gputest.WantErr(t, "EndCapture after interleaved bodies", err, []error{lifecycle.ErrGraphState, wgpu.ErrInvalidArgument}, "concurrently")
			wantState(t, "after the failed EndCapture", s, lifecycle.NoCapture)
			g, err = s.Capture(func() error { return add(1) })
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			// warmup 1, replay 1
			gputest.WantEqual(t, "the stream computes after the failed capture", gputest.Fill(64, 2), gputest.Read(t, s, x))
		})
	}
}

// TestAReboundGraphWithAWhileReplaysReboundInsideAnotherCapture: a graph
// holding a While, rebound to another condition buffer, replayed inside an
// If of another capture, loops on the new buffer and leaves the old one
// alone (the included commands are the rebound ones).
func TestAReboundGraphWithAWhileReplaysReboundInsideAnotherCapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownWGSL)
	a := gputest.UploadU32(t, s, 0, 0)
	b := gputest.UploadU32(t, s, 0, 0)
	on := gputest.UploadU32(t, s, 1)
	child, err := s.Capture(func() error {
		return s.While(a, 0, 8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a) })
	})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Release()
	rebound, err := child.Rebind(a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer rebound.Release()
	parent, err := s.Capture(func() error { return s.If(on, 0, rebound.Replay) })
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Release()
	setU32(t, s, a, 5, 0)
	setU32(t, s, b, 4, 0)
	if err := parent.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the rebound child looped on b", []uint32{0, 4}, gputest.ReadU32(t, s, b))
	gputest.WantEqual(t, "and left a alone", []uint32{5, 0}, gputest.ReadU32(t, s, a))
}

// TestALoadedGraphWithControlFlowIsRefusedInsideACapture: a loaded graph
// keeps its If and While only in lowered form, which a capture cannot nest
// or save; replaying it while recording fails with ErrInvalidArgument
// (EndCapture then seals what else was recorded), and it still replays
// on its own.
func TestALoadedGraphWithControlFlowIsRefusedInsideACapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownWGSL)
	st := gputest.UploadU32(t, s, 0, 0)
	g, err := s.Capture(func() error {
		return s.While(st, 0, 8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) })
	})
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if _, err := g.Save(&file, recorder.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	g.Release()
	loaded, err := s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Release()
	lst := loaded.Buffers()[0]
	_, err = s.Capture(func() error { return loaded.Replay() })
	gputest.WantErr(t, "a loaded graph with a While replayed inside a capture", err, []error{wgpu.ErrInvalidArgument}, "loaded graph")
	wantState(t, "after the refused capture", s, lifecycle.NoCapture)
	setU32(t, s, lst, 3, 0)
	if err := loaded.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the loaded graph still loops on its own", []uint32{0, 3}, gputest.ReadU32(t, s, lst))
}

// TestNestedLoopsOverTheLoweringBoundAreRefusedBeforeTheyAreBuilt: While
// loops of MaxWhileIterations nested three deep would unroll to 2^36
// commands; EndCapture refuses them with ErrInvalidArgument, counting
// instead of building (without the fix it built a million commands first,
// hundreds of megabytes, before refusing), and the stream computes after.
func TestNestedLoopsOverTheLoweringBoundAreRefusedBeforeTheyAreBuilt(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownWGSL)
	st := gputest.UploadU32(t, s, 0, 0, 0, 0)
	const max = recorder.MaxWhileIterations
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	loop := func(off uint64, body func() error) error { return s.While(st, off, max, body) }
	if err := loop(0, func() error {
		return loop(4, func() error {
			return loop(8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) })
		})
	}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := s.EndCapture()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	gputest.WantErr(t, "nested loops over the bound", err, []error{lifecycle.ErrGraphState, wgpu.ErrInvalidArgument}, "unrolls to more than")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("refusing the nested loops allocated %d MiB in %v; it must count, not build", grew>>20, took)
	}
	wantState(t, "after the refusal", s, lifecycle.NoCapture)
	setU32(t, s, st, 2, 0, 0, 0)
	if err := s.While(st, 0, 4, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) }); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the stream loops after the refusal", []uint32{0, 2, 0, 0}, gputest.ReadU32(t, s, st))
}

// TestHostileBodiesComputeWhatTheyRecord: an If body that clears its own
// condition and then tests it again in a nested If (the nested body must
// not run: the GPU reads the condition when it reaches the gate) and an
// If nested in an If on the same word, eagerly and replayed; and a While
// whose body records nothing (eagerly it runs maxIterations times;
// captured, the work after it runs once and the condition is untouched).
func TestHostileBodiesComputeWhatTheyRecord(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownWGSL)
	st := gputest.Empty(t, s, 16)
	cond := gputest.Empty(t, s, 16)
	step := func() error {
		// cond[0] = 1 on entry. Outer If runs: it counts once, clears
		// cond[0], and its inner If must see 0.
		return s.If(cond, 0, func() error {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), st); err != nil {
				return err
			}
			if err := s.If(cond, 0, func() error {
				return s.Launch(k, recorder.Groups(1, 1, 1), st) // same word, still 1
			}); err != nil {
				return err
			}
			if err := s.Clear(cond, 0, 4); err != nil {
				return err
			}
			return s.If(cond, 0, func() error {
				return s.Launch(k, recorder.Groups(100, 1, 1), st)
			})
		})
	}
	reset := func() {
		t.Helper()
		setU32(t, s, st, 0, 0, 0, 0)
		setU32(t, s, cond, 1, 0, 0, 0)
	}
	reset()
	if err := step(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "eagerly: the outer and the same-word inner body ran, the cleared one did not", []uint32{0, 2, 0, 0}, gputest.ReadU32(t, s, st))
	reset()
	g, err := s.Capture(func() error { reset(); return step() })
	// The recorded run's reset is a Write while recording: Capture fails.
	if err == nil {
		g.Release()
		t.Fatal("a Write inside the recorded run must fail the capture")
	}
	reset()
	g = gputest.Capture(t, s, func() {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	})
	reset()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "replayed: the outer and the same-word inner body ran, the cleared one did not", []uint32{0, 2, 0, 0}, gputest.ReadU32(t, s, st))

	// A While whose body records nothing: the condition never changes.
	setU32(t, s, cond, 1, 0, 0, 0)
	calls := 0
	if err := s.While(cond, 0, 5, func() error { calls++; return nil }); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "an eager While with an empty body runs maxIterations times", 5, calls)
	empty := gputest.Capture(t, s, func() {
		if err := s.While(cond, 0, 7, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), st); err != nil {
			t.Fatal(err)
		}
	})
	setU32(t, s, st, 0, 0, 0, 0)
	if err := empty.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the launch after a While with an empty body runs once", []uint32{0, 1, 0, 0}, gputest.ReadU32(t, s, st))
	gputest.WantEqual(t, "the condition is untouched", []uint32{1, 0, 0, 0}, gputest.ReadU32(t, s, cond))
}
