package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestGoroutinesKeepTheirOwnOrderOnASharedStream: three goroutines
// share one pre-encoding stream. Each owns a buffer and two short graphs
// of affine maps on it (not commutative) and runs, in bursts, replays,
// writes, launches, copies, clears, reads, syncs, flushes, cancelled
// syncs, profiles around its replays, eager Ifs whose body replays its
// graph, and reads of its buffer on a second stream, checking its own Go
// model (its calls are ordered: whatever the others do in between —
// settling its deferred replays, or starting their own — must not move
// its replays). Meanwhile all of them, and a goroutine on the second
// stream, add to a shared counter with +1 graphs and launches
// (commutative; the second stream replays a short graph of its own,
// with its own ramp), and two readers (one per stream) check that every read
// of it sees at least every addition that returned before the read began
// and at most those started before it ended, never going down.
func TestGoroutinesKeepTheirOwnOrderOnASharedStream(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	c := &sharedCounter{
		s:    gputest.Stream(t, d, recorder.WithPreEncode(true)),
		s2:   gputest.Stream(t, d, recorder.WithPreEncode(true)),
		k:    gputest.Kernel(t, d, affineWGSL),
		plus: affine{1, 1},
	}
	s, k := c.s, c.k
	c.cnt = gputest.UploadU32(t, s, fillU32(0)...)
	c.gc1 = captureAffines(t, s, k, c.cnt, []affine{c.plus})
	c.gc2 = captureAffines(t, s, k, c.cnt, []affine{c.plus, c.plus})
	c.g2c = captureAffines(t, c.s2, k, c.cnt, []affine{c.plus})
	c.started.Store(4) // the warmups
	c.completed.Store(4)
	ops := 150
	if shortRampRuns() {
		ops = 50
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// Every capture before any goroutine starts: a capture records what
	// the stream's other callers enqueue meanwhile, and refuses their
	// syncs.
	ws := make([]*orderWorker, 3)
	for w := range ws {
		o := &orderWorker{c: c, w: w, rng: rand.New(rand.NewPCG(uint64(w), 99))}
		o.y = gputest.UploadU32(t, s, fillU32(uint32(w))...)
		o.snap = gputest.UploadU32(t, s, fillU32(0)...)
		o.flag = gputest.UploadU32(t, s, 0)
		o.aOps = []affine{{3, uint32(w + 1)}}
		o.bOps = []affine{{1, 7}, {5, 1}}
		o.ga = captureAffines(t, s, k, o.y, o.aOps)
		o.gb = captureAffines(t, s, k, o.y, o.bOps)
		o.my = applyAffines(o.bOps, applyAffines(o.aOps, uint32(w)))
		ws[w] = o
	}
	// Readers of the counter, on both streams.
	for ri, rs := range []*recorder.Stream{s, c.s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.readLoop(ri, rs, stop)
		}()
	}
	var workers sync.WaitGroup
	for _, o := range ws {
		workers.Add(1)
		go func() {
			defer workers.Done()
			o.run(ops)
		}()
	}
	waitAll(t, &workers, 2*time.Minute, "the workers")
	close(stop)
	waitAll(t, &wg, time.Minute, "the readers")
	c.errs.report(t)
	if t.Failed() {
		return
	}
	if c.started.Load() != c.completed.Load() {
		t.Fatalf("additions started %d, completed %d", c.started.Load(), c.completed.Load())
	}
	wantAllU32(t, "the counter counts every addition once", s, c.cnt, uint32(c.completed.Load()))
	t.Logf("replays from ramps: %d", s.MemoryStats().RampReplays)
}

// sharedCounter is the counter every goroutine of
// TestGoroutinesKeepTheirOwnOrderOnASharedStream adds to, with +1 graphs
// of both streams and the number of additions started and completed.
type sharedCounter struct {
	s, s2              *recorder.Stream
	k                  *wgpu.Kernel
	cnt                *recorder.Buffer
	plus               affine
	gc1, gc2, g2c      *recorder.Graph // +1, +2 on s; +1 on s2
	started, completed atomic.Uint64
	errs               collect
}

// add counts n additions started, runs call, and counts them completed if
// it returned nil.
func (c *sharedCounter) add(n uint64, call func() error) error {
	c.started.Add(n)
	if err := call(); err != nil {
		return err
	}
	c.completed.Add(n)
	return nil
}

// readLoop reads the counter on rs until stop: every read sees at least
// the additions that returned before it began and at most those started
// before it ended, never going down. The reader on the second stream
// (ri 1) adds too.
func (c *sharedCounter) readLoop(ri int, rs *recorder.Stream, stop <-chan struct{}) {
	var last uint32
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		lo := c.completed.Load()
		v, err := recorder.ReadSlice[uint32](rs, c.cnt)
		hi := c.started.Load()
		if err != nil {
			c.errs.add(fmt.Errorf("reader %d: %v", ri, err))
			return
		}
		for i := range v {
			if v[i] != v[0] {
				c.errs.add(fmt.Errorf("reader %d: element %d is %d, element 0 %d", ri, i, v[i], v[0]))
				return
			}
		}
		if uint64(v[0]) < lo || uint64(v[0]) > hi || v[0] < last {
			c.errs.add(fmt.Errorf("reader %d, read %d: counter %d; additions returned before the read: %d, started before it ended: %d; the previous read saw %d", ri, n, v[0], lo, hi, last))
			return
		}
		last = v[0]
		if ri == 1 {
			// The second stream adds too: a launch and a burst of
			// replays of its own short graph (its own ramp, which
			// the first stream's reads settle).
			if err := c.add(1, func() error { return launchAffine(c.s2, c.k, c.cnt, c.plus) }); err != nil {
				c.errs.add(fmt.Errorf("launch on the second stream: %v", err))
				return
			}
			for range 1 + n%12 {
				if err := c.add(1, c.g2c.Replay); err != nil {
					c.errs.add(fmt.Errorf("replay on the second stream: %v", err))
					return
				}
			}
		}
	}
}

// orderWorker is one goroutine of
// TestGoroutinesKeepTheirOwnOrderOnASharedStream: its own buffer y, two
// graphs of affine maps on it, and my, the Go model of y.
type orderWorker struct {
	c          *sharedCounter
	w          int
	rng        *rand.Rand
	y, snap    *recorder.Buffer
	flag       *recorder.Buffer
	aOps, bOps []affine
	ga, gb     *recorder.Graph
	my, msnap  uint32
	trail      []string // the last calls, for failure messages
}

func (o *orderWorker) fail(f string, a ...any) {
	if len(o.trail) > 20 {
		o.trail = o.trail[len(o.trail)-20:]
	}
	o.c.errs.add(fmt.Errorf("worker %d: %s (after %v)", o.w, fmt.Sprintf(f, a...), o.trail))
}

// want reads b on rs and reports whether every element is v.
func (o *orderWorker) want(what string, rs *recorder.Stream, b *recorder.Buffer, v uint32) bool {
	got, err := recorder.ReadSlice[uint32](rs, b)
	if err != nil {
		o.fail("%s: %v", what, err)
		return false
	}
	for i := range got {
		if got[i] != v {
			o.fail("%s: element %d is %d, want %d", what, i, got[i], v)
			return false
		}
	}
	return true
}

// run makes ops calls in bursts, checking its model, and reads y at the end.
func (o *orderWorker) run(ops int) {
	for range ops {
		var err error
		ok := true
		if o.rng.IntN(12) == 0 {
			err = o.profileOrIf()
		} else {
			ok, err = o.call()
		}
		if !ok {
			return
		}
		if err != nil {
			o.fail("%v", err)
			return
		}
	}
	o.want("its buffer at the end", o.c.s, o.y, o.my)
}

// profileOrIf runs a profile or an eager If between the others' calls.
func (o *orderWorker) profileOrIf() error {
	c, s, rng := o.c, o.c.s, o.rng
	var err error
	switch rng.IntN(3) {
	case 0:
		// A profiled replay of a counter graph runs it 1+floor times;
		// refused while another goroutine's StartProfile profile runs.
		floor := uint64(rng.IntN(2))
		c.started.Add(2 * (1 + floor))
		_, err = s.ProfileReplay(c.gc2, recorder.WithFloor(int(floor)))
		switch {
		case err == nil:
			c.completed.Add(2 * (1 + floor))
		case errors.Is(err, wgpu.ErrInvalidArgument):
			c.started.Add(^(2*(1+floor) - 1)) // never ran
			err = nil
		}
		o.trail = append(o.trail, "profiled replay")
	case 1:
		tok, perr := s.StartProfile()
		if errors.Is(perr, wgpu.ErrInvalidArgument) {
			break // another goroutine's profile runs
		}
		if perr != nil {
			err = perr
			break
		}
		for range 1 + rng.IntN(5) {
			if err = o.ga.Replay(); err != nil {
				break
			}
			o.my = applyAffines(o.aOps, o.my)
		}
		if _, perr := s.EndProfile(tok); err == nil {
			err = perr
		}
		o.trail = append(o.trail, "profile")
	case 2:
		on := rng.IntN(2) == 0
		v := uint32(0)
		if on {
			v = 1 + rng.Uint32N(5)
		}
		if err = recorder.WriteSlice(s, o.flag, 0, []uint32{v}); err != nil {
			break
		}
		err = s.If(o.flag, 0, func() error { return o.gb.Replay() })
		if on {
			o.my = applyAffines(o.bOps, o.my)
		}
		o.trail = append(o.trail, fmt.Sprintf("eager If %v", on))
	}
	return err
}

// call makes one call of the common kinds, updating the model; ok is
// false when a read has already failed the test.
func (o *orderWorker) call() (ok bool, err error) {
	c, s, rng := o.c, o.c.s, o.rng
	switch r := rng.IntN(100); {
	case r < 40:
		g, ops, name := o.ga, o.aOps, "a"
		if r%2 == 1 {
			g, ops, name = o.gb, o.bOps, "b"
		}
		n := 1 + rng.IntN(40)
		for range n {
			if err = g.Replay(); err != nil {
				break
			}
			o.my = applyAffines(ops, o.my)
		}
		o.trail = append(o.trail, fmt.Sprintf("%d×%s", n, name))
	case r < 50:
		g, inc := c.gc1, uint64(1)
		if r%2 == 1 {
			g, inc = c.gc2, 2
		}
		n := 1 + rng.IntN(20)
		for range n {
			if err = c.add(inc, g.Replay); err != nil {
				break
			}
		}
		o.trail = append(o.trail, fmt.Sprintf("%d×counter", n))
	case r < 58:
		v := rng.Uint32N(1 << 20)
		err = recorder.WriteSlice(s, o.y, 0, fillU32(v))
		o.my = v
		o.trail = append(o.trail, fmt.Sprintf("write %d", v))
	case r < 64:
		a := affine{2, uint32(o.w)}
		err = launchAffine(s, c.k, o.y, a)
		o.my = a.apply(o.my)
		o.trail = append(o.trail, "launch")
	case r < 72:
		if !o.want("a read of its buffer", s, o.y, o.my) {
			return false, nil
		}
		o.trail = append(o.trail, "read")
	case r < 76:
		err = s.Sync()
		o.trail = append(o.trail, "sync")
	case r < 80:
		err = s.Flush()
		o.trail = append(o.trail, "flush")
	case r < 85:
		err = s.Copy(o.snap, 0, o.y, 0, rampBytes)
		o.msnap = o.my
		o.trail = append(o.trail, "copy")
	case r < 88:
		err = s.Clear(o.y, 0, rampBytes)
		o.my = 0
		o.trail = append(o.trail, "clear")
	case r < 92:
		if !o.want("a read of its snapshot", s, o.snap, o.msnap) {
			return false, nil
		}
		o.trail = append(o.trail, "read snapshot")
	case r < 96:
		if !o.want("a read of its buffer on the second stream", c.s2, o.y, o.my) {
			return false, nil
		}
		o.trail = append(o.trail, "read on s2")
	default:
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if e := s.SyncContext(ctx); !errors.Is(e, context.Canceled) {
			o.fail("SyncContext with a cancelled context: %v", e)
			return false, nil
		}
		o.trail = append(o.trail, "cancelled sync")
	}
	return true, err
}

// TestAnotherStreamsReadSeesDeferredReplays: stream A (no flush
// timer, so replays counted against a ramp step stay deferred until a
// call of the device settles them) replays a 1-dispatch affine graph k
// times, k from 1 to 30 (inside the first step of 8, exactly at its end,
// inside the second of 16, at its end, past it); then stream B reads the
// buffer: it must see all k replays (a Read submits every stream's work
// first). Then B launches on the buffer and reads again, and A reads:
// everything in order. RampReplays must count the steps completed. Then
// k replays, A's Flush (or Sync), and a Write on B: the write lands after
// the replays (a Flush of the other stream orders a cross-stream Write).
func TestAnotherStreamsReadSeesDeferredReplays(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	a := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
	b := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, affineWGSL)
	x := gputest.UploadU32(t, a, fillU32(1)...)
	op := affine{3, 1}
	g := captureAffines(t, a, k, x, []affine{op})
	mx := op.apply(1)
	for kk := 1; kk <= 30; kk++ {
		// Prime: a run of 40 plans steps of 8, 16 and 16 replays.
		for range 40 {
			mustReplay(t, g)
			mx = op.apply(mx)
		}
		if err := a.Sync(); err != nil {
			t.Fatal(err)
		}
		m0 := settledStats(t, a)
		if m0.RampBuffers != 3 {
			t.Fatalf("a run of 40 replays plans 3 steps, got %d buffers", m0.RampBuffers)
		}
		for range kk {
			mustReplay(t, g)
			mx = op.apply(mx)
		}
		wantAllU32(t, fmt.Sprintf("stream B reads after %d replays on stream A", kk), b, x, mx)
		if err := launchAffine(b, k, x, affine{1, 5}); err != nil {
			t.Fatal(err)
		}
		mx += 5
		wantAllU32(t, fmt.Sprintf("stream B reads its launch after %d replays on A", kk), b, x, mx)
		want := uint64(0)
		if kk >= 8 {
			want += 8
		}
		if kk >= 24 {
			want += 16
		}
		if got := a.MemoryStats().RampReplays - m0.RampReplays; got != want {
			t.Fatalf("%d replays: %d ran from the ramp, want %d", kk, got, want)
		}
		wantAllU32(t, fmt.Sprintf("stream A reads after %d replays", kk), a, x, mx)
		// A Write on another stream is ordered after this stream's
		// submitted work only: a Flush (or Sync) of this stream first
		// orders it after the replays counted and not yet encoded.
		for _, order := range []string{"Flush", "Sync"} {
			for range kk {
				mustReplay(t, g)
			}
			var err error
			if order == "Flush" {
				err = a.Flush()
			} else {
				err = a.Sync()
			}
			if err != nil {
				t.Fatal(err)
			}
			mx = uint32(1000 + kk)
			writeU32(t, b, x, mx)
			wantAllU32(t, fmt.Sprintf("%d replays on A, A's %s, then B's Write: B's Read", kk, order), b, x, mx)
			wantAllU32(t, fmt.Sprintf("%d replays on A, A's %s, then B's Write: A's Read", kk, order), a, x, mx)
		}
	}
}

// TestFlushTimerSubmitsDeferredReplays: stream A (flush delay
// 2 ms) replays a +1 graph k times against ramp steps and then does
// nothing; 40 ms later stream B writes the buffer and reads it. A queue
// write is ordered after submitted work only, so B must read exactly
// what it wrote if the timer submitted A's deferred replays within its
// delay; had they waited, B's Read would submit them after the write and
// read more. (Without a flush timer they wait: the control shows the test
// tells the two apart.)
func TestFlushTimerSubmitsDeferredReplays(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, affineWGSL)
	b := gputest.Stream(t, d)
	run := func(t *testing.T, delay time.Duration, kk int) uint32 {
		a := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(delay))
		x := gputest.UploadU32(t, a, fillU32(0)...)
		g := captureAffines(t, a, k, x, []affine{{1, 1}})
		for range 300 { // steps of 8, 16, 32, 64 and 128 replays
			mustReplay(t, g)
		}
		wantAllU32(t, "the priming run", a, x, 301)
		if m := settledStats(t, a); m.RampBuffers != 5 {
			t.Fatalf("a run of 300 replays plans 5 steps, got %d", m.RampBuffers)
		}
		for range kk {
			mustReplay(t, g)
		}
		time.Sleep(40 * time.Millisecond)
		writeU32(t, b, x, 1000)
		got := gputest.ReadU32(t, b, x)
		for i := range got {
			if got[i] != got[0] {
				t.Fatalf("element %d is %d, element 0 %d", i, got[i], got[0])
			}
		}
		wantAllU32(t, "stream A reads what B's read saw", a, x, got[0])
		return got[0]
	}
	for _, kk := range []int{1, 3, 7, 8, 13, 24, 30, 56, 100} {
		t.Run(fmt.Sprintf("%d replays", kk), func(t *testing.T) {
			if got := run(t, 2*time.Millisecond, kk); got != 1000 {
				t.Fatalf("after %d replays and 40 ms idle with a 2 ms flush delay, another stream's write then read gave %d, want 1000: %d of the replays were still unsubmitted after 20 flush delays", kk, got, got-1000)
			}
		})
	}
	t.Run("control: no flush timer", func(t *testing.T) {
		if got := run(t, 0, 3); got != 1003 {
			t.Logf("without a flush timer the 3 deferred replays were submitted anyway (read %d): this test cannot tell the timer's work apart here", got)
		}
	})
}

// TestReleaseRacingCountedReplaysRunsEachReplayOnce: a short graph with a
// ready ramp is released (a) right after exactly k replays were counted
// against a step, k = 1..12, and (b) while two goroutines replay it in a
// loop until they get ErrReleased. Every replay that returned nil must run
// exactly once, and the stream must keep no ramp of the graph.
func TestReleaseRacingCountedReplaysRunsEachReplayOnce(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, affineWGSL)
	x := gputest.UploadU32(t, s, fillU32(0)...)
	y := gputest.UploadU32(t, s, fillU32(0)...)
	var mx, my uint32
	op := affine{3, 1}
	prime := func(ops []affine, buf *recorder.Buffer, m *uint32) *recorder.Graph {
		g := captureAffines(t, s, k, buf, ops)
		*m = applyAffines(ops, *m)
		for range 60 {
			mustReplay(t, g)
			*m = applyAffines(ops, *m)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		settledStats(t, s)
		return g
	}
	for kk := 1; kk <= 12; kk++ {
		g := prime([]affine{op}, x, &mx)
		// Another graph's ramp stays: its release must not disturb it.
		h := prime([]affine{{1, 2}, {1, 3}}, y, &my)
		for range kk {
			mustReplay(t, g)
			mx = op.apply(mx)
		}
		g.Release()
		if err := g.Replay(); !errors.Is(err, recorder.ErrReleased) {
			t.Fatalf("Replay after Release: %v", err)
		}
		for range 5 {
			mustReplay(t, h)
			my += 5
		}
		h.Release()
		wantAllU32(t, fmt.Sprintf("%d replays counted, then Release", kk), s, x, mx)
		wantAllU32(t, "the other graph's replays", s, y, my)
		if m := s.MemoryStats(); m.Ramps != 0 || m.RampBuffers != 0 || m.RampPending != 0 {
			t.Fatalf("released graphs keep no ramp: %+v", m)
		}
	}
	rounds := 20
	if shortRampRuns() {
		rounds = 6
	}
	for round := range rounds {
		g := prime([]affine{{1, 1}}, x, &mx)
		var ok atomic.Uint32
		var wg sync.WaitGroup
		var errs collect
		replayUntil(&wg, &errs, &ok, g, recorder.ErrReleased)
		time.Sleep(time.Duration(round%5) * 300 * time.Microsecond)
		g.Release()
		waitAll(t, &wg, 30*time.Second, "replays racing Release")
		errs.report(t)
		mx += ok.Load()
		wantAllU32(t, fmt.Sprintf("round %d: %d replays racing Release", round, ok.Load()), s, x, mx)
	}
}

// TestStreamCloseRunsCountedReplays: stream A replays a short graph
// that adds to a buffer of stream B. A is closed (a) right after k
// replays were counted against a ramp step, and (b) while goroutines
// replay in a loop until ErrClosed. B, which stays open, must read
// exactly the replays that returned nil: Close submits the deferred ones.
// Once every stream is closed, no command buffer (ramp steps included),
// program or encoder is left alive (the ramp worker's encoder included).
func TestStreamCloseRunsCountedReplays(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	before := live(t, d)
	b := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, affineWGSL)
	y := gputest.UploadU32(t, b, fillU32(0)...)
	var my uint32
	open := func() (*recorder.Stream, *recorder.Graph) {
		a, err := recorder.New(d, recorder.WithPreEncode(true))
		if err != nil {
			t.Fatal(err)
		}
		g, err := a.Capture(func() error { return launchAffine(a, k, y, affine{1, 1}) })
		if err != nil {
			t.Fatal(err)
		}
		my++
		for range 60 {
			mustReplay(t, g)
			my++
		}
		if err := a.Sync(); err != nil {
			t.Fatal(err)
		}
		if m := settledStats(t, a); m.RampBuffers == 0 {
			t.Fatalf("no ramp was planned: %+v", m)
		}
		return a, g
	}
	defer func() {
		if t.Failed() {
			return
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		after := live(t, d)
		if after.CommandBuffers != before.CommandBuffers || after.Programs != before.Programs || after.Encoders != before.Encoders {
			t.Errorf("every stream closed: %d command buffers, %d programs and %d encoders alive, %d, %d and %d before", after.CommandBuffers, after.Programs, after.Encoders, before.CommandBuffers, before.Programs, before.Encoders)
		}
	}()
	for kk := 1; kk <= 10; kk++ {
		a, g := open()
		for range kk {
			mustReplay(t, g)
			my++
		}
		if err := a.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := g.Replay(); !errors.Is(err, recorder.ErrClosed) {
			t.Fatalf("Replay after Close: %v", err)
		}
		wantAllU32(t, fmt.Sprintf("%d replays counted, then Close", kk), b, y, my)
	}
	rounds := 15
	if shortRampRuns() {
		rounds = 5
	}
	for round := range rounds {
		a, g := open()
		var ok atomic.Uint32
		var wg sync.WaitGroup
		var errs collect
		replayUntil(&wg, &errs, &ok, g, recorder.ErrClosed)
		time.Sleep(time.Duration(round%4) * 400 * time.Microsecond)
		if err := within(t, 30*time.Second, "Close racing replays", a.Close); err != nil {
			t.Fatalf("Close: %v", err)
		}
		waitAll(t, &wg, 30*time.Second, "replays racing Close")
		errs.report(t)
		my += ok.Load()
		wantAllU32(t, fmt.Sprintf("round %d: %d replays racing Close", round, ok.Load()), b, y, my)
	}
}

// TestDeviceCloseRacingRampTrafficReturnsNilOrErrClosed: two pre-encoding
// streams (one with the flush timer, one without) with primed ramps;
// goroutines replay short graphs in bursts, sync, read, write, flush,
// profile and read the other stream's buffers, when the device is closed
// under them. Every call returns nil or ErrClosed, none hangs, no process
// abort, the streams close, and a device opened afterwards computes. In a
// fresh process.
func TestDeviceCloseRacingRampTrafficReturnsNilOrErrClosed(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		rounds := 8
		if shortRampRuns() {
			rounds = 3
		}
		for round := range rounds {
			rampDeviceCloseRound(t, round, time.Duration(round%4)*700*time.Microsecond)
			if t.Failed() {
				return
			}
		}
	})
}

func rampDeviceCloseRound(t *testing.T, round int, delay time.Duration) {
	d, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := gputest.Kernel(t, d, affineWGSL)
	var errs collect
	var wg sync.WaitGroup
	stop := make(chan struct{})
	ready := make(chan struct{}, 64)
	closed := []error{wgpu.ErrClosed}
	var streams []*recorder.Stream
	var xs []*recorder.Buffer
	calls := 0
	for i, opts := range [][]recorder.Option{
		{recorder.WithPreEncode(true)},
		{recorder.WithPreEncode(true), recorder.WithFlushDelay(0)},
	} {
		s, err := recorder.New(d, opts...)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, s)
		x := gputest.UploadU32(t, s, fillU32(0)...)
		y := gputest.UploadU32(t, s, fillU32(0)...)
		xs = append(xs, x)
		g1, err := s.Capture(func() error { return launchAffine(s, k, x, affine{1, 1}) })
		if err != nil {
			t.Fatal(err)
		}
		g3, err := s.Capture(func() error {
			for _, o := range affineShape(3) {
				if err := launchAffine(s, k, y, o); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for range 60 {
			mustReplay(t, g1)
			mustReplay(t, g3)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		settledStats(t, s)
		burst := func(g *recorder.Graph) func() error {
			return func() error {
				for range 10 {
					if err := g.Replay(); err != nil {
						return err
					}
				}
				return nil
			}
		}
		name := func(op string) string { return fmt.Sprintf("round %d, stream %d: %s", round, i, op) }
		loops := []struct {
			what string
			call func() error
		}{
			{"Replay g1", burst(g1)},
			{"Replay g3", burst(g3)},
			{"Replay g1 again", burst(g1)},
			{"Sync", s.Sync},
			{"Read", func() error { _, err := s.Read(y); return err }},
			{"Write", func() error { return recorder.WriteSlice(s, x, 0, fillU32(7)) }},
			{"Flush", s.Flush},
			{"ProfileReplay", func() error { _, err := s.ProfileReplay(g3); return err }},
			{"300 replays, then Sync (the worker encodes 5 steps)", func() error {
				for range 30 {
					if err := burst(g1)(); err != nil {
						return err
					}
				}
				return s.Sync()
			}},
		}
		if i == 1 {
			loops = append(loops, struct {
				what string
				call func() error
			}{"Read on the other stream", func() error { _, err := s.Read(xs[0]); return err }})
		}
		for _, l := range loops {
			callLoop(&wg, &errs, ready, stop, name(l.what), l.call, closed...)
			calls++
		}
	}
	for range calls {
		<-ready
	}
	time.Sleep(delay)
	closeDeviceUnderTraffic(t, d, &wg, streams, round, "Device.Close under ramp traffic", &errs)
	close(stop)
	errs.report(t)
}

// TestDeadlinesWhileReplaysAreDeferredLoseNoReplay: one goroutine replays two
// short +1 graphs in bursts; another calls SyncContext and ReadContext
// with deadlines from 1 µs to 300 µs (and already cancelled ones), which
// may fail with the context's error but must neither lose nor repeat a
// replay; at the end one Read counts every replay that returned nil.
func TestDeadlinesWhileReplaysAreDeferredLoseNoReplay(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, affineWGSL)
	x := gputest.UploadU32(t, s, fillU32(0)...)
	g1 := captureAffines(t, s, k, x, []affine{{1, 1}})
	g2 := captureAffines(t, s, k, x, []affine{{1, 1}, {1, 1}})
	var total atomic.Uint64
	total.Store(3)
	for range 60 {
		mustReplay(t, g1)
		mustReplay(t, g2)
		total.Add(3)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	settledStats(t, s)
	bursts := 300
	if shortRampRuns() {
		bursts = 80
	}
	var errs collect
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		rng := rand.New(rand.NewPCG(11, 12))
		for range bursts {
			g, inc := g1, uint64(1)
			if rng.IntN(2) == 0 {
				g, inc = g2, 2
			}
			for range 1 + rng.IntN(30) {
				if err := g.Replay(); err != nil {
					errs.add(err)
					return
				}
				total.Add(inc)
			}
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-done:
				return
			default:
			}
			var ctx context.Context
			var cancel context.CancelFunc
			if n%5 == 0 {
				ctx, cancel = context.WithCancel(context.Background())
				cancel()
			} else {
				ctx, cancel = context.WithTimeout(context.Background(), time.Duration(1+(n*37)%300)*time.Microsecond)
			}
			var err error
			if n%2 == 0 {
				err = s.SyncContext(ctx)
			} else {
				var v []byte
				v, err = s.ReadContext(ctx, x)
				if err == nil && len(v) != rampBytes {
					errs.add(fmt.Errorf("ReadContext returned %d bytes", len(v)))
				}
			}
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				errs.add(fmt.Errorf("call %d with a deadline: %v", n, err))
				return
			}
		}
	}()
	waitAll(t, &wg, time.Minute, "replays and deadlines")
	errs.report(t)
	wantAllU32(t, "every replay ran once", s, x, uint32(total.Load()))
}

// TestReleasesRacingReplaysOfManyShortGraphsRunEachReplayOnce: 24 short
// graphs (1 to 5 dispatches of +1 on a counter of another stream) on one
// pre-encoding stream; three goroutines replay random ones in bursts and
// call Sync or Read now and then (each sync point plans ramps, at most 4,
// for graphs another goroutine may be releasing), while a fourth releases
// the graphs one by one at random moments (while their replays are counted
// against a step, while the ramp worker encodes their steps, while they are
// planned). A replay answers nil, and then runs exactly once, or
// ErrReleased. At the end the counter holds every replay that returned nil,
// and once every graph is released the stream keeps no ramp, no command
// buffer or program is left alive, and no page stays pinned.
func TestReleasesRacingReplaysOfManyShortGraphsRunEachReplayOnce(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	b := gputest.Stream(t, d)
	s := gputest.Stream(t, d, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, affineWGSL)
	c := gputest.UploadU32(t, b, fillU32(0)...)
	rounds := 3
	if shortRampRuns() {
		rounds = 1
	}
	var total atomic.Uint64
	before := live(t, d)
	inUse := b.MemoryStats().InUse
	for round := range rounds {
		const n = 24
		graphs := make([]*recorder.Graph, n)
		adds := make([]uint64, n)
		for i := range graphs {
			l := 1 + i%5
			ops := make([]affine, l)
			for j := range ops {
				ops[j] = affine{1, 1}
			}
			graphs[i] = captureAffines(t, s, k, c, ops)
			adds[i] = uint64(l)
			total.Add(uint64(l))
		}
		// Prime: ramps for the first graphs replayed.
		for i := range graphs {
			for range 10 {
				mustReplay(t, graphs[i])
				total.Add(adds[i])
			}
			if i%3 == 2 {
				if err := s.Sync(); err != nil {
					t.Fatal(err)
				}
			}
		}
		var errs collect
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				for {
					select {
					case <-stop:
						return
					default:
					}
					i := rng.IntN(n)
					for range 1 + rng.IntN(30) {
						err := graphs[i].Replay()
						if errors.Is(err, recorder.ErrReleased) {
							break
						}
						if err != nil {
							errs.add(fmt.Errorf("replay of graph %d: %v", i, err))
							return
						}
						total.Add(adds[i])
					}
					switch rng.IntN(6) {
					case 0:
						if err := s.Sync(); err != nil {
							errs.add(err)
							return
						}
					case 1:
						if _, err := s.Read(c); err != nil {
							errs.add(err)
							return
						}
					case 2:
						if m := s.MemoryStats(); m.Ramps > 4 {
							errs.add(fmt.Errorf("%d ramps: at most 4 are kept", m.Ramps))
							return
						}
					}
				}
			}()
		}
		rng := rand.New(rand.NewPCG(uint64(round), 77))
		for _, i := range rng.Perm(n) {
			time.Sleep(time.Duration(rng.IntN(1500)) * time.Microsecond)
			graphs[i].Release()
		}
		time.Sleep(2 * time.Millisecond)
		close(stop)
		waitAll(t, &wg, time.Minute, "replays racing releases")
		errs.report(t)
		if t.Failed() {
			return
		}
		wantAllU32(t, fmt.Sprintf("round %d: every replay that returned nil ran once", round), b, c, uint32(total.Load()))
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		if m := s.MemoryStats(); m.Ramps != 0 || m.RampBuffers != 0 || m.RampPending != 0 {
			t.Fatalf("round %d: every graph is released, yet the stream keeps ramps: %d ramps, %d buffers, %d pending", round, m.Ramps, m.RampBuffers, m.RampPending)
		}
		// Nothing of the graphs and their ramps is left: no command
		// buffer, no program, no pinned page of the counter's stream.
		if err := b.Sync(); err != nil {
			t.Fatal(err)
		}
		after := live(t, d)
		if after.CommandBuffers != before.CommandBuffers || after.Programs != before.Programs {
			t.Fatalf("round %d: after releasing every graph, %d command buffers and %d programs are alive, %d and %d before", round, after.CommandBuffers, after.Programs, before.CommandBuffers, before.Programs)
		}
		if got := b.MemoryStats().InUse; got != inUse {
			t.Fatalf("round %d: the counter's stream has %d bytes in use, %d before the graphs: a released graph's pages are still held", round, got, inUse)
		}
	}
}

// replayUntil starts two goroutines that replay g until it fails with
// end, counting the replays that returned nil in ok; any other error goes
// to errs.
func replayUntil(wg *sync.WaitGroup, errs *collect, ok *atomic.Uint32, g *recorder.Graph, end error) {
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				err := g.Replay()
				if errors.Is(err, end) {
					return
				}
				if err != nil {
					errs.add(err)
					return
				}
				ok.Add(1)
			}
		}()
	}
}
