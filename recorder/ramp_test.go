package recorder_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// rampTestFlushDelay is the flush delay of the interruption test.
const rampTestFlushDelay = 200 * time.Millisecond

// waitRamps waits until the stream's ramp worker has encoded want command
// buffers (it encodes them in the background after a sync point).
func waitRamps(t *testing.T, s *recorder.Stream, want int) recorder.MemoryStats {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := s.MemoryStats()
		if m.RampBuffers == want {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ramp worker made %d command buffers, want %d (%+v)", m.RampBuffers, want, m)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRampServesTheNextRunOfAShortGraph: after a run of replays and a sync
// point, the next run of the same length reaches the GPU from the ramp's
// command buffers (up to 248 dispatches' worth) and computes what the Go
// model says; the rest of a longer run is encoded as before.
func TestRampServesTheNextRunOfAShortGraph(t *testing.T) {
	cases := []struct {
		name     string
		short    bool // the 1-dispatch graph, else the 2-dispatch one
		replays  int
		steps    int
		fromRamp uint64
	}{
		// 2 dispatches: steps of 4, 8, 16 and 22 replays cover 50.
		{"the 2-dispatch graph", false, 50, 4, 50},
		// 1 dispatch: steps of 8, 16, 32, 64 and 128 replays of 300.
		{"the 1-dispatch graph", true, 300, 5, 248},
		// One replay a frame: one step of one replay.
		{"the 2-dispatch graph once a frame", false, 1, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// No flush timer: on a loaded machine it could fire inside a
			// step's run of replays and settle them (correctly), which
			// would change the counts this test checks.
			f := newRunFixture(t, recorder.WithFlushDelay(0))
			g := f.g
			if c.short {
				g = f.h
			}
			// The first run plans the ramp; a later one must run exactly
			// the planned steps from it. On a loaded machine a full batch
			// can find the submitter behind, and its retry timer then
			// sends replays counted against a step out as ordinary work
			// (correctly, but not from the ramp): a few runs are allowed
			// for one undisturbed run, and every run is checked.
			var got []uint64
			for run := 0; run < 7; run++ {
				f.set(t, 1)
				before := f.s.MemoryStats()
				for range c.replays {
					f.replay(t, g)
				}
				f.check(t, fmt.Sprintf("run %d of %d replays", run, c.replays))
				after := waitRamps(t, f.s, c.steps)
				if run == 0 {
					continue
				}
				n := after.RampReplays - before.RampReplays
				got = append(got, n)
				if n > c.fromRamp {
					t.Fatalf("run %d: %d of %d replays ran from the ramp, more than the %d its steps hold", run, n, c.replays, c.fromRamp)
				}
				if n == c.fromRamp && run >= 2 {
					break
				}
			}
			if got[len(got)-1] != c.fromRamp {
				t.Errorf("replays that ran from the ramp, run by run: %v; want a run with %d", got, c.fromRamp)
			}
			if m := f.s.MemoryStats(); m.Ramps != 1 {
				t.Errorf("one graph was replayed: want 1 ramp, got %+v", m)
			}
		})
	}
}

// TestReplaysCountedAgainstARampRunWhereTheyWereCalled: replays counted
// against a ramp step and not yet submitted are encoded where they were
// called when any other call comes between them: each interrupting call
// here sees the replays before it and none after it, the step stays ready
// for a later run, and replays use it again once the open batch holds no
// live work.
func TestReplaysCountedAgainstARampRunWhereTheyWereCalled(t *testing.T) {
	// The flush delay is long, so that only "the flush timer" meets it
	// (elsewhere a loaded machine could pause the test inside a run of
	// replays long enough for the timer to settle them, correctly, and
	// change the counts checked here).
	type fixture struct {
		*runFixture
		copyK *wgpu.Kernel
		snap  *recorder.Buffer
	}
	// Each interruption, and how many of the 12 replays after it run from
	// the ramp: 12 when the call submits what the stream holds (the 3
	// replays, encoded where they were called); 0 when it leaves work
	// encoded in the open batch (a step would have to hand that off as a
	// batch of its own first: the replays stay live until it is
	// submitted); 3 at a sync point, which plans the ramp anew for the 3
	// replays before it (one step of 3).
	const (
		submits = iota
		leavesWork
		syncPoint
	)
	interrupts := []struct {
		name string
		kind int
		do   func(t *testing.T, f fixture)
	}{
		{"a write", submits, func(t *testing.T, f fixture) { f.set(t, 7) }},
		{"a launch", leavesWork, func(t *testing.T, f fixture) {
			if err := f.s.Launch(f.mul, recorder.Groups(1, 1, 1), f.x); err != nil {
				t.Fatal(err)
			}
			f.current = f.current*3 + 1
		}},
		{"a copy kernel", leavesWork, func(t *testing.T, f fixture) {
			if err := f.s.Launch(f.copyK, recorder.Groups(1, 1, 1), f.x, f.snap); err != nil {
				t.Fatal(err)
			}
			f.snapWant = f.current
		}},
		{"another graph", leavesWork, func(t *testing.T, f fixture) { f.replay(t, f.h) }},
		{"a flush", submits, func(t *testing.T, f fixture) {
			if err := f.s.Flush(); err != nil {
				t.Fatal(err)
			}
		}},
		{"the flush timer", submits, func(t *testing.T, f fixture) { time.Sleep(2 * rampTestFlushDelay) }},
		{"a profile", submits, func(t *testing.T, f fixture) {
			if _, err := f.s.ProfileReplay(f.h); err != nil {
				t.Fatal(err)
			}
			f.current = f.current*3 + 1
		}},
		{"a capture", submits, func(t *testing.T, f fixture) {
			g := gputest.Capture(t, f.s, func() {
				if err := f.s.Launch(f.mul, recorder.Groups(1, 1, 1), f.x); err != nil {
					t.Fatal(err)
				}
			})
			f.current = f.current*3 + 1 // the warmup runs
			g.Release()
		}},
		{"a read", syncPoint, func(t *testing.T, f fixture) { f.check(t, "the read between replays") }},
		{"a sync", syncPoint, func(t *testing.T, f fixture) {
			if err := f.s.Sync(); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, in := range interrupts {
		t.Run(in.name, func(t *testing.T) {
			f := fixture{runFixture: newRunFixture(t, recorder.WithFlushDelay(rampTestFlushDelay))}
			f.copyK = gputest.Kernel(t, f.d, gputest.CopyWGSL)
			f.snap = gputest.Empty(t, f.s, f.x.Size())
			// A run of 40 plans steps of 4, 8, 16 and 12 replays of g.
			f.set(t, 1)
			for range 40 {
				f.replay(t, f.g)
			}
			f.check(t, "the priming run")
			waitRamps(t, f.s, 4)
			before := f.s.MemoryStats().RampReplays
			f.set(t, 2)
			f.snapWant = 0
			// 3 replays counted against the first step (of 4), the call,
			// then 12 replays: from the first two steps, which stay
			// ready, unless the call planned anew.
			for range 3 {
				f.replay(t, f.g)
			}
			in.do(t, f)
			want := map[int]uint64{submits: 12, leavesWork: 0, syncPoint: 3}[in.kind]
			if in.kind == syncPoint {
				waitRamps(t, f.s, 1)
			}
			for range 12 {
				f.replay(t, f.g)
			}
			f.check(t, "3 replays, "+in.name+", 12 replays")
			if got := f.s.MemoryStats().RampReplays - before; got != want {
				t.Errorf("%d replays ran from the ramp, want %d", got, want)
			}
			if f.snapWant != 0 {
				got := gputest.ReadU32(t, f.s, f.snap)
				if got[0] != f.snapWant {
					t.Errorf("the copy read %d, want %d (x after the 3 replays)", got[0], f.snapWant)
				}
			}
		})
	}
}

// TestReleaseWhileReplaysAreCountedAgainstARamp: Release and Close right
// after replays counted against a ramp step: the replays run.
func TestReleaseWhileReplaysAreCountedAgainstARamp(t *testing.T) {
	f := newRunFixture(t)
	f.set(t, 1)
	for range 30 {
		f.replay(t, f.g)
	}
	f.check(t, "the priming run")
	waitRamps(t, f.s, 4) // 4, 8, 16 and 2 replays
	f.set(t, 4)
	for range 3 {
		f.replay(t, f.g)
	}
	f.g.Release()
	f.check(t, "three replays, then Release")
	if err := f.g.Replay(); !errors.Is(err, recorder.ErrReleased) {
		t.Fatalf("Replay after Release: %v, want ErrReleased", err)
	}
	if m := f.s.MemoryStats(); m.Ramps != 0 || m.RampBuffers != 0 {
		t.Errorf("a released graph keeps no ramp: %+v", m)
	}
}

// TestRampsUnderConcurrentReplaysReadsAndReleases: goroutines replaying
// two +1 graphs (commutative, so any interleaving gives one total) while
// others read, write elsewhere and sync; then a graph released while
// another goroutine replays it. Every replay that returned nil counts.
func TestRampsUnderConcurrentReplaysReadsAndReleases(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithPreEncode(true))
	inc := gputest.Kernel(t, d, plusTwoWGSL)
	x, err := recorder.UploadSlice(s, make([]uint32, 64))
	if err != nil {
		t.Fatal(err)
	}
	other, err := recorder.UploadSlice(s, make([]uint32, 64))
	if err != nil {
		t.Fatal(err)
	}
	one := func() *recorder.Graph {
		return gputest.Capture(t, s, func() {
			if err := s.Launch(inc, recorder.Groups(1, 1, 1), x); err != nil {
				t.Fatal(err)
			}
		})
	}
	g1, g2 := one(), one() // the warmups add 2
	var total uint32 = 2
	var mu sync.Mutex
	count := func(n uint32) {
		mu.Lock()
		total += n
		mu.Unlock()
	}
	for round := range 4 {
		var wg sync.WaitGroup
		for w := range 4 {
			g := g1
			if w%2 == 1 {
				g = g2
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 150 {
					if err := g.Replay(); err != nil {
						t.Error(err)
						return
					}
					count(1)
					if i%50 == 49 {
						if err := s.Sync(); err != nil {
							t.Error(err)
							return
						}
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if err := recorder.WriteSlice(s, other, 0, make([]uint32, 64)); err != nil {
					t.Error(err)
					return
				}
				if _, err := recorder.ReadSlice[uint32](s, other); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		wg.Wait()
		got := gputest.ReadU32(t, s, x)
		if got[0] != total || got[63] != total {
			t.Fatalf("round %d: x = %d…%d, want %d (every replay once)", round, got[0], got[63], total)
		}
	}
	// Release racing replays of the released graph.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			err := g1.Replay()
			if errors.Is(err, recorder.ErrReleased) {
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
			count(1)
		}
	}()
	time.Sleep(2 * time.Millisecond)
	g1.Release()
	wg.Wait()
	got := gputest.ReadU32(t, s, x)
	if got[0] != total {
		t.Fatalf("after Release racing replays: x = %d, want %d", got[0], total)
	}
}
