package tests

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestAWriteNeverOvertakesItsStreamsEarlierLaunchAfterAnotherStreamUsedTheBuffer:
// A.Launch reads x, B.Launch reads x, A.Write(x = 2), all before anything is
// submitted: A's launch sees x = 1, the value before A's write, however many
// streams used x in between. Without it, one "last touched" token per page
// said only B's batch held x, A did not submit first, and the queue write
// overtook A's launch (it read 2).
func TestAWriteNeverOvertakesItsStreamsEarlierLaunchAfterAnotherStreamUsedTheBuffer(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, gputest.CopyWGSL)
	for _, delay := range []time.Duration{0, time.Millisecond} {
		t.Run(fmt.Sprint("flush delay ", delay), func(t *testing.T) {
			a := gputest.Stream(t, d, recorder.WithFlushDelay(delay))
			b := gputest.Stream(t, d, recorder.WithFlushDelay(delay))
			x := gputest.Upload(t, a, gputest.Fill(64, 1))
			ya := gputest.Empty(t, a, x.Size())
			yb := gputest.Empty(t, b, x.Size())
			if err := a.Launch(k, recorder.Groups(1, 1, 1), x, ya); err != nil {
				t.Fatal(err)
			}
			if err := b.Launch(k, recorder.Groups(1, 1, 1), x, yb); err != nil {
				t.Fatal(err)
			}
			if err := recorder.WriteSlice(a, x, 0, gputest.Fill(64, 2)); err != nil {
				t.Fatal(err)
			}
			if err := b.Sync(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, "A's launch, enqueued before A's write, reads the old contents", gputest.Fill(64, 1), gputest.Read(t, a, ya))
			gputest.WantEqual(t, "work after the write reads the new contents", gputest.Fill(64, 2), gputest.Read(t, a, x))
		})
	}
}

// TestExtremeStreamOptionsStillComputeInOrder: one-dispatch batches, a
// 1 ns flush delay, a one-entry params cache and no background submitter
// (and the same with it) keep every launch, replay and While in stream
// order.
func TestExtremeStreamOptionsStillComputeInOrder(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(fmt.Sprintf("background=%v", async), func(t *testing.T) {
			d, s := gputest.OpenStream(t, recorder.WithSubmitChunks(1, 1), recorder.WithFlushDelay(time.Nanosecond),
				recorder.WithMetadataCache(1), recorder.WithBackgroundSubmit(async), recorder.WithPreEncode(true))
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			dec := gputest.Kernel(t, d, `
@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1)
fn main() { c[0] = c[0] - 1u; }
`)
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			cond, err := s.Upload(gputest.U32(5, 0, 0, 0))
			if err != nil {
				t.Fatal(err)
			}
			step := func() error {
				for i := 1; i <= 70; i++ {
					if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(float32(i%3))); err != nil {
						return err
					}
				}
				return s.While(cond, 0, 8, func() error {
					if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(100)); err != nil {
						return err
					}
					return s.Launch(dec, recorder.Groups(1, 1, 1), cond)
				})
			}
			// One step adds sum(i%3 for i in 1..70) = 70 and 5 iterations × 100.
			const per = 70 + 500
			g, err := s.Capture(step)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			for r := 0; r < 4; r++ {
				if err := recorder.WriteSlice(s, cond, 0, []uint32{5}); err != nil {
					t.Fatal(err)
				}
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
			}
			// warmup (eager) + 4 replays
			gputest.WantEqual(t, "every launch and iteration ran once, in order", gputest.Fill(64, 5*per), gputest.Read(t, s, x))
		})
	}
}

// TestPreEncodedReplaysKeepStreamOrderWithEveryOtherOperation: with
// pre-encoding forced on, a graph of 64 dispatches (whose next replay is
// encoded ahead on another goroutine) interleaved with Writes, Copies,
// Clears, Launches, replays of a short graph, a Rebind and another
// stream's work on the same buffers computes exactly what a plain-Go model
// of the calls in order computes.
func TestPreEncodedReplaysKeepStreamOrderWithEveryOtherOperation(t *testing.T) {
	for _, pre := range []bool{true, false} {
		t.Run(fmt.Sprintf("preencode=%v", pre), func(t *testing.T) {
			d := gputest.Open(t, wgpu.Options{})
			s := gputest.Stream(t, d, recorder.WithPreEncode(pre))
			other := gputest.Stream(t, d)
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			y := gputest.Upload(t, s, gputest.Fill(64, 0))
			long := gputest.Capture(t, s, func() {
				for range 64 {
					if err := bump(s, k, x, 1); err != nil {
						t.Fatal(err)
					}
				}
			})
			short := gputest.Capture(t, s, func() {
				if err := bump(s, k, x, 1000); err != nil {
					t.Fatal(err)
				}
			})
			longY, err := long.Rebind(x, y)
			if err != nil {
				t.Fatal(err)
			}
			defer longY.Release()
			// The model: the captures' warmups ran 64 + 1000 on x.
			mx, my := float32(64+1000), float32(0)
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, "after the warmups", gputest.Fill(64, mx), gputest.Read(t, s, x))
			for round := range 12 {
				steps := []func() error{
					func() error { mx += 64; return long.Replay() },
					func() error { mx = float32(round); return recorder.WriteSlice(s, x, 0, gputest.Fill(64, mx)) },
					func() error { mx += 64; return long.Replay() },
					func() error { my += 64; return longY.Replay() },
					func() error { my = mx; return s.Copy(y, 0, x, 0, x.Size()) },
					func() error { mx += 64; return long.Replay() },
					func() error { mx += 1000; return short.Replay() },
					func() error { mx = 0; return s.Clear(x, 0, x.Size()) },
					func() error { mx += 64; return long.Replay() },
					func() error { mx += 5; return bump(s, k, x, 5) },
					func() error { mx += 64; return long.Replay() },
					func() error {
						// Another stream's work, ordered by submission after a Flush.
						if err := s.Flush(); err != nil {
							return err
						}
						mx += 7
						if err := bump(other, k, x, 7); err != nil {
							return err
						}
						return other.Flush()
					},
					func() error { mx += 64; return long.Replay() },
				}
				for i, f := range steps {
					if err := f(); err != nil {
						t.Fatalf("round %d step %d: %v", round, i, err)
					}
				}
				if round%3 == 2 {
					gputest.WantEqual(t, fmt.Sprintf("round %d: x", round), gputest.Fill(64, mx), gputest.Read(t, s, x))
					gputest.WantEqual(t, fmt.Sprintf("round %d: y", round), gputest.Fill(64, my), gputest.Read(t, s, y))
				}
			}
			gputest.WantEqual(t, "x at the end", gputest.Fill(64, mx), gputest.Read(t, s, x))
			gputest.WantEqual(t, "y at the end", gputest.Fill(64, my), gputest.Read(t, s, y))
		})
	}
}

// batchSizes is the default submission schedule after an idle point.
var batchSizes = []int{16, 24, 36, 54, 81, 121, 181, 256}

// counterElems is the size of the small buffers the tests count in.
const counterElems = 64

// bumps returns a step of n bumps of x by 1 on s (what most graphs
// here capture).
func bumps(s *recorder.Stream, k *wgpu.Kernel, x *recorder.Buffer, n int) func() error {
	return func() error {
		for range n {
			if err := bump(s, k, x, 1); err != nil {
				return err
			}
		}
		return nil
	}
}

// loopUnit is one way of enqueueing dispatches onto the counter x: a single
// launch, or a replay of a captured chain of bumps.
type loopUnit struct {
	name string
	// per is how many dispatches one call enqueues (each adds 1 to x).
	per int
	// call enqueues per dispatches.
	call func() error
}

// TestWriteAndReadAtEveryBatchBoundaryKeepStreamOrder: for every batch size
// of the schedule (16, 24, 36, 54, 81, 121, 181, 256), the stream is brought
// from an idle point to exactly one dispatch before, at and after the end of
// that batch — so the batch holding the counter's last bumps is still open,
// was just handed to the submitter (which is finishing, submitting or
// readying its encoder), or was followed by a new one — and then: Write the
// counter (the write must land after every bump enqueued before it and
// before every bump after it), Read it on the same stream, or Read it on a
// second stream (which must submit this stream's work first). The earlier
// batches are either drained one by one (a Flush after each, so every batch
// ends exactly at its size) or left to pile up behind the submitter (on
// lavapipe and llvmpipe the stream then stalls and its batch grows towards
// 512). The last dispatch before the operation either bumps the counter or
// another buffer, so the counter is used only by an earlier batch or by the
// open one. Launches; replays of a 5-dispatch graph (whose chunks split at
// the boundary); without a flush timer and with pre-encoding forced on,
// replays of a 64-dispatch graph; and with inline submission. The counter
// must equal the Go model after every operation. The default run checks
// each batch size under every other configuration (alternating, so every
// size and every configuration is checked); SOFTGRAPH_LONG=1 checks all.
func TestWriteAndReadAtEveryBatchBoundaryKeepStreamOrder(t *testing.T) {
	skipIfShort(t)
	configs := []struct {
		name string
		opts []recorder.Option
	}{
		{"default", nil},
		{"no flush timer, pre-encoding", []recorder.Option{recorder.WithFlushDelay(0), recorder.WithPreEncode(true)}},
		{"inline submission", []recorder.Option{recorder.WithBackgroundSubmit(false), recorder.WithFlushDelay(0)}},
	}
	d := gputest.Open(t, wgpu.Options{})
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	for ci, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			s := gputest.Stream(t, d, cfg.opts...)
			other := gputest.Stream(t, d)
			x := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
			y := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
			var mx, my float32 // the model
			chain := func(n int) func() error { return bumps(s, add, x, n) }
			g5, err := s.Capture(chain(5))
			if err != nil {
				t.Fatal(err)
			}
			defer g5.Release()
			g64, err := s.Capture(chain(64))
			if err != nil {
				t.Fatal(err)
			}
			defer g64.Release()
			mx += 5 + 64 // the warmups ran
			units := []loopUnit{{"launch", 1, chain(1)}}
			switch cfg.name {
			case "default":
				units = append(units, loopUnit{"replay of 5", 5, g5.Replay})
			case "no flush timer, pre-encoding":
				units = append(units, loopUnit{"replay of 64", 64, g64.Replay})
			}
			ops := []string{"write", "read", "read on another stream"}
			step := 0
			for k, size := range batchSizes {
				if !longRun() && (k+ci)%2 != 0 {
					continue // each size under every other configuration
				}
				before := 0
				for _, c := range batchSizes[:k] {
					before += c
				}
				for _, u := range units {
					for _, drained := range []bool{true, false} {
						for delta := -1; delta <= 1; delta++ {
							for tail := range 2 {
								op := ops[step%len(ops)]
								step++
								what := fmt.Sprintf("batch %d (%d dispatches), drained %v, %s, %+d, last dispatch on %s, then %s", k, size, drained, u.name, delta, map[int]string{0: "the counter", 1: "another buffer"}[tail], op)
								// An idle point: the schedule restarts at 16.
								if err := s.Sync(); err != nil {
									t.Fatalf("%s: Sync: %v", what, err)
								}
								n := size + delta - tail
								if drained {
									// Every earlier batch is handed off at
									// exactly its size, then submitted
									// (a Flush of an empty open batch
									// leaves the schedule alone), so the
									// target batch ends exactly at size.
									for _, c := range batchSizes[:k] {
										for range c {
											if err := bump(s, add, x, 1); err != nil {
												t.Fatalf("%s: %v", what, err)
											}
											mx++
										}
										if err := s.Flush(); err != nil {
											t.Fatalf("%s: Flush: %v", what, err)
										}
									}
								} else {
									// The earlier batches pile up behind the
									// submitter, and on a slow adapter the
									// stream stalls and grows its batch
									// towards 512.
									n += before
								}
								for n >= u.per {
									if err := u.call(); err != nil {
										t.Fatalf("%s: %v", what, err)
									}
									mx += float32(u.per)
									n -= u.per
								}
								for range n {
									if err := bump(s, add, x, 1); err != nil {
										t.Fatalf("%s: %v", what, err)
									}
									mx++
								}
								if tail == 1 {
									if err := bump(s, add, y, 1); err != nil {
										t.Fatalf("%s: %v", what, err)
									}
									my++
								}
								switch op {
								case "write":
									v := float32(1000 * (step + 1)) // small enough for exact f32 counting
									if err := recorder.WriteSlice(s, x, 0, gputest.Fill(counterElems, v)); err != nil {
										t.Fatalf("%s: Write: %v", what, err)
									}
									mx = v
									// Bumps after the write must see it.
									for range 3 {
										if err := bump(s, add, x, 1); err != nil {
											t.Fatalf("%s: %v", what, err)
										}
										mx++
									}
									gputest.WantEqual(t, what+": the counter after the write and 3 bumps", gputest.Fill(counterElems, mx), gputest.Read(t, s, x))
								case "read":
									gputest.WantEqual(t, what+": the counter", gputest.Fill(counterElems, mx), gputest.Read(t, s, x))
								default:
									gputest.WantEqual(t, what+": the counter read on another stream", gputest.Fill(counterElems, mx), gputest.Read(t, other, x))
								}
							}
						}
					}
				}
			}
			gputest.WantEqual(t, "the other buffer", gputest.Fill(counterElems, my), gputest.Read(t, s, y))
			if !slices.Equal(gputest.Read(t, s, x), gputest.Fill(counterElems, mx)) {
				t.Fatal("the counter moved after the last check")
			}
		})
	}
}

// allLoops names every call deviceCloseRound can race with Device.Close.
var allLoops = []string{"Launch", "Replay", "Replay of 64", "Write", "Read", "ReadContext", "SyncContext", "ProfileReplay", "StartProfile/EndProfile"}

// floatsOf decodes little-endian float32s.
func floatsOf(raw []byte) []float32 {
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v
}

// TestFlushDelayExpiryRacingLaunchesKeepsEveryGoroutinesOrder: with flush
// delays from 1 ns to 2 ms, goroutines launch bursts on a shared counter and
// on counters of their own with pauses of a few microseconds between bursts
// (so the timer fires between, and during, launches), write their own
// counters in between and read them back; one goroutine Flushes now and
// then. Every read equals what its goroutine enqueued (its launches and
// writes in order), and the shared counter ends at the total of all
// launches.
func TestFlushDelayExpiryRacingLaunchesKeepsEveryGoroutinesOrder(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	for _, delay := range []time.Duration{time.Nanosecond, time.Microsecond, 30 * time.Microsecond, 300 * time.Microsecond, 2 * time.Millisecond} {
		s := gputest.Stream(t, d, recorder.WithFlushDelay(delay))
		shared := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
		var total atomic.Int64
		var errs collect
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var workers sync.WaitGroup
		for w := range 3 {
			workers.Add(1)
			go func() {
				defer workers.Done()
				x, err := recorder.UploadSlice(s, gputest.Fill(counterElems, 0))
				if err != nil {
					errs.add(err)
					return
				}
				defer x.Release()
				want := float32(0)
				for r := range 30 {
					for j := range 1 + (r*7+w)%23 {
						b, c := x, float32(1)
						if j%3 == 2 {
							b = shared
							total.Add(1)
						}
						if err := bump(s, add, b, c); err != nil {
							errs.add(err)
							return
						}
						if b == x {
							want++
						}
					}
					if r%4 == w {
						want = float32(100 * r)
						if err := recorder.WriteSlice(s, x, 0, gputest.Fill(counterElems, want)); err != nil {
							errs.add(err)
							return
						}
					}
					// Let the timer expire between bursts, now and then.
					time.Sleep(time.Duration((r*13+w*5)%40) * time.Microsecond)
					if r%5 == 4 {
						got, err := recorder.ReadSlice[float32](s, x)
						if err != nil {
							errs.add(err)
							return
						}
						if !slices.Equal(got, gputest.Fill(counterElems, want)) {
							errs.add(fmt.Errorf("flush delay %v, worker %d round %d: read %v, want all %v", delay, w, r, got[:4], want))
							return
						}
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(150 * time.Microsecond):
				}
				if err := s.Flush(); err != nil {
					errs.add(err)
					return
				}
			}
		}()
		waitAll(t, &workers, time.Minute, fmt.Sprintf("flush delay %v: the workers", delay))
		close(stop)
		waitAll(t, &wg, time.Minute, fmt.Sprintf("flush delay %v: the flusher", delay))
		errs.report(t)
		gputest.WantEqual(t, fmt.Sprintf("flush delay %v: the shared counter", delay), gputest.Fill(counterElems, float32(total.Load())), gputest.Read(t, s, shared))
	}
}

// TestReplaysOnOneStreamWhileAnotherWritesTheirBuffersStayAtomic: stream A
// replays (pre-encoded, and not) a graph that computes out = in + 1 and
// bumps acc in place, while stream B writes in and acc with fresh values
// as fast as it can and reads out. Queue writes and submissions are
// atomic with respect to one another, so every read of out (on either
// stream) is all-equal and one more than a value B wrote (or the initial
// one), and acc ends all-equal at B's last value plus at most the number
// of replays. Then the documented way to order a write after another
// stream's enqueued work — Flush that stream first — is checked exactly,
// at every batch boundary: after A.Flush, B's write lands after every
// replay enqueued before it and before every replay after it.
func TestReplaysOnOneStreamWhileAnotherWritesTheirBuffersStayAtomic(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	one := gputest.Kernel(t, d, gputest.AddOneWGSL)
	for _, opts := range [][]recorder.Option{{recorder.WithPreEncode(true)}, nil} {
		a := gputest.Stream(t, d, opts...)
		b := gputest.Stream(t, d)
		in := gputest.Upload(t, a, gputest.Fill(counterElems, 0))
		out := gputest.Empty(t, a, in.Size())
		acc := gputest.Upload(t, b, gputest.Fill(counterElems, 0)) // B's memory, A's graph
		step := func(n int) func() error {
			return func() error {
				for range n {
					if err := a.Launch(one, recorder.Groups(1, 1, 1), in, out, gputest.U32(counterElems)); err != nil {
						return err
					}
					if err := bump(a, add, acc, 1); err != nil {
						return err
					}
				}
				return nil
			}
		}
		g, err := a.Capture(step(1))
		if err != nil {
			t.Fatal(err)
		}
		g64, err := a.Capture(step(32)) // 64 dispatches: pre-encoded where on
		if err != nil {
			t.Fatal(err)
		}
		written := map[float32]bool{0: true}
		var mu sync.Mutex
		var replays atomic.Int64
		var errs collect
		var wg sync.WaitGroup
		stop := make(chan struct{})
		check := func(who string, s *recorder.Stream) error {
			v, err := recorder.ReadSlice[float32](s, out)
			if err != nil {
				return err
			}
			mu.Lock()
			ok := slices.Equal(v, gputest.Fill(counterElems, v[0])) && written[v[0]-1]
			mu.Unlock()
			if !ok {
				return fmt.Errorf("%s read out = %v: want all equal, one more than a value written", who, v[:8])
			}
			return nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				gr, n := g, int64(1)
				if i%4 == 3 {
					gr, n = g64, 32
				}
				if err := gr.Replay(); err != nil {
					errs.add(err)
					return
				}
				replays.Add(n)
				if i%50 == 49 {
					if err := check("A", a); err != nil {
						errs.add(err)
						return
					}
				}
			}
		}()
		var last float32
		for i := range 150 {
			v := float32(1000 * (i + 1))
			mu.Lock()
			written[v] = true
			mu.Unlock()
			if err := recorder.WriteSlice(b, in, 0, gputest.Fill(counterElems, v)); err != nil {
				t.Fatal(err)
			}
			if err := recorder.WriteSlice(b, acc, 0, gputest.Fill(counterElems, v)); err != nil {
				t.Fatal(err)
			}
			last = v
			if i%10 == 9 {
				if err := check("B", b); err != nil {
					t.Error(err)
					break
				}
			}
		}
		close(stop)
		waitAll(t, &wg, time.Minute, "A's replays")
		errs.report(t)
		if t.Failed() {
			return
		}
		got := gputest.Read(t, a, acc)
		if !slices.Equal(got, gputest.Fill(counterElems, got[0])) || got[0] < last || got[0] > last+float32(replays.Load()) {
			t.Fatalf("acc = %v: want all equal, between B's last write %v and that plus the %d replays", got[:8], last, replays.Load())
		}
		if err := check("A", a); err != nil {
			t.Fatal(err)
		}

		// Ordered: A.Flush, then B's write; at every boundary.
		model := got[0]
		for k, size := range batchSizes {
			if err := a.Sync(); err != nil {
				t.Fatal(err)
			}
			for range size + k%3 - 1 {
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				model++
			}
			if err := a.Flush(); err != nil {
				t.Fatal(err)
			}
			v := float32(10000 * (k + 1))
			if err := recorder.WriteSlice(b, acc, 0, gputest.Fill(counterElems, v)); err != nil {
				t.Fatal(err)
			}
			model = v
			for range k + 1 {
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				model++
			}
			gputest.WantEqual(t, fmt.Sprintf("boundary %d (%d): acc after A's replays, A.Flush, B's write and more replays, read on B", k, size), gputest.Fill(counterElems, model), gputest.Read(t, b, acc))
		}
	}
}

// setWGSL: x = p.v over the whole buffer.
const setWGSL = `
struct P { v: f32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = p.v; }
}
`

// TestConcurrentWritesAndReadsNeverOvertakeEarlierLaunches: one
// goroutine launches x = 1, 2, 3, ... (a kernel setting x to its sequence
// number; now and then a launch on another buffer, so x's last use is in an
// earlier batch) and publishes the last number whose Launch returned;
// another writes x = -1, -2, ... and reads x right after each Write; a
// third reads x on the same stream and on a second stream. Calls of one
// stream take effect in call order, so the read after Write -k must show
// -k or a number launched after that Write began — never one whose Launch
// had returned before it (the write overtook it) — and every read must
// show a number at least as high as the last launch that returned before
// it began, or a write. With the flush timer, without it, with inline
// submission and with chunks of 1 (a batch per launch, so the submitter
// is always busy).
func TestConcurrentWritesAndReadsNeverOvertakeEarlierLaunches(t *testing.T) {
	skipIfShort(t)
	d := gputest.Open(t, wgpu.Options{})
	set := gputest.Kernel(t, d, setWGSL)
	for _, cfg := range []struct {
		name string
		opts []recorder.Option
	}{
		{"default", nil},
		{"no flush timer", []recorder.Option{recorder.WithFlushDelay(0)}},
		{"inline submission", []recorder.Option{recorder.WithBackgroundSubmit(false)}},
		{"chunks of 1", []recorder.Option{recorder.WithSubmitChunks(1, 1)}},
	} {
		t.Run(cfg.name, func(t *testing.T) {
			s := gputest.Stream(t, d, cfg.opts...)
			other := gputest.Stream(t, d)
			x := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
			y := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
			var last atomic.Int64 // the last sequence number whose Launch returned
			var writes, reads atomic.Int64
			var errs collect
			var wg sync.WaitGroup
			done := make(chan struct{})
			launches := 0
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(done)
				// At least 1500 launches and 60 writes (the writer competes
				// for the stream's lock), at most 15000 (f32 counts exactly).
				for seq := 1; seq <= 15000 && (seq <= 1500 || writes.Load() < 60 || reads.Load() < 60); seq++ {
					launches = seq
					if err := s.Launch(set, recorder.Groups(1, 1, 1), x, gputest.F32(float32(seq))); err != nil {
						errs.add(err)
						return
					}
					last.Store(int64(seq))
					if seq%7 == 0 {
						if err := s.Launch(set, recorder.Groups(1, 1, 1), y, gputest.F32(float32(seq))); err != nil {
							errs.add(err)
							return
						}
					}
				}
			}()
			// check says what is wrong with a read of v that began when
			// launch number pre had returned ("" if nothing).
			check := func(v []float32, pre int64, write float32) string {
				if !slices.Equal(v, gputest.Fill(len(v), v[0])) {
					return fmt.Sprintf("not all equal: %v", v[:8])
				}
				switch {
				case v[0] == write:
					return ""
				case v[0] < 0 && write == 0:
					return "" // a write, by the writer
				case v[0] < 0:
					return fmt.Sprintf("read %v right after writing %v", v[0], write)
				case int64(v[0]) < pre:
					return fmt.Sprintf("read %v, but launch %d had returned before the call began: it was overtaken", v[0], pre)
				}
				return ""
			}
			wg.Add(1)
			go func() { // the writer
				defer wg.Done()
				for k := 1; ; k++ {
					select {
					case <-done:
						return
					default:
					}
					writes.Add(1)
					pre := last.Load()
					w := -float32(k)
					if err := recorder.WriteSlice(s, x, 0, gputest.Fill(counterElems, w)); err != nil {
						errs.add(err)
						return
					}
					v, err := recorder.ReadSlice[float32](s, x)
					if err != nil {
						errs.add(err)
						return
					}
					if p := check(v, pre+1, w); p != "" {
						errs.add(fmt.Errorf("write %d: %s", k, p))
						return
					}
				}
			}()
			wg.Add(1)
			go func() { // the reader
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-done:
						return
					default:
					}
					on := s
					if i%2 == 1 {
						on = other
					}
					reads.Add(1)
					pre := last.Load()
					v, err := recorder.ReadSlice[float32](on, x)
					if err != nil {
						errs.add(err)
						return
					}
					if p := check(v, pre, 0); p != "" {
						errs.add(fmt.Errorf("read %d: %s", i, p))
						return
					}
				}
			}()
			waitAll(t, &wg, 2*time.Minute, "launches, writes and reads")
			t.Logf("%d launches, %d writes each read back, %d reads", launches, writes.Load(), reads.Load())
			errs.report(t)
			if t.Failed() {
				return
			}
			// The last call on x was the last launch or a later write.
			v := gputest.Read(t, s, x)
			if p := check(v, int64(launches), 0); p != "" {
				t.Fatalf("after everything: %s", p)
			}
			gputest.WantEqual(t, "y after the launches", gputest.Fill(counterElems, float32(launches/7*7)), gputest.Read(t, s, y))
		})
	}
}

// indexWGSL: x[p.i] = p.v.
const indexWGSL = `
struct P { i: u32, v: f32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1)
fn main() { if (p.i < arrayLength(&x)) { x[p.i] = p.v; } }
`

// TestExtremeSubmissionSchedulesComputeInOrder: submission schedules
// at the edges — chunks of 1, growth from 1 and 2 (1, 2, 3, 4, 6, ...), a
// first chunk past the largest a batch can grow to, first chunks so large
// that growing by half overflows int, and non-positive values (ignored) —
// with and without a flush timer, keep launches, replays (chunked and
// pre-encoded), writes and reads in stream order across many hand-offs:
// the counter equals the Go model throughout.
func TestExtremeSubmissionSchedulesComputeInOrder(t *testing.T) {
	skipIfShort(t)
	d := gputest.Open(t, wgpu.Options{})
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	for _, c := range [][2]int{{1, 1}, {1, 2}, {2, 3}, {1000, 2000}, {math.MaxInt/2 + 1, math.MaxInt}, {math.MaxInt / 3 * 2, math.MaxInt}, {math.MaxInt, math.MaxInt}, {-5, -5}, {0, 7}} {
		for _, delay := range []time.Duration{0, time.Millisecond} {
			what := fmt.Sprintf("chunks %d, %d, flush delay %v", c[0], c[1], delay)
			s := gputest.Stream(t, d, recorder.WithSubmitChunks(c[0], c[1]), recorder.WithFlushDelay(delay), recorder.WithPreEncode(true))
			x := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
			model := float32(0)
			graph := func(n int) *recorder.Graph {
				g, err := s.Capture(func() error {
					for range n {
						if err := bump(s, add, x, 1); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				model += float32(n)
				return g
			}
			g7, g64 := graph(7), graph(64)
			for round := range 6 {
				for i := range 40 {
					if err := bump(s, add, x, 1); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					model++
					if i%9 == 0 {
						if err := g7.Replay(); err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						model += 7
					}
				}
				for range 2 {
					if err := g64.Replay(); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					model += 64
				}
				if err := s.Flush(); err != nil { // a hand-off: the schedule grows
					t.Fatalf("%s: %v", what, err)
				}
				if round%2 == 1 {
					model = float32(1000 * round)
					if err := recorder.WriteSlice(s, x, 0, gputest.Fill(counterElems, model)); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
				}
				if err := bump(s, add, x, 1); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				model++
			}
			gputest.WantEqual(t, what+": the counter", gputest.Fill(counterElems, model), gputest.Read(t, s, x))
			g7.Release()
			g64.Release()
			if err := s.Close(); err != nil {
				t.Fatalf("%s: Close: %v", what, err)
			}
		}
	}
}
