package tests

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// syncLog is a goroutine-safe log sink: a stream logging at debug level
// into one lets a test fail on what the library only logs (a reference
// count that would have gone below zero).
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *syncLog) logger() zerolog.Logger { return zerolog.New(l).Level(zerolog.DebugLevel) }

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestProfileReplayRacingEndProfileReturnsAnErrorNeverPanics: ProfileReplay
// on one goroutine and StartProfile/EndProfile on another, over and over on
// one stream: each call returns nil or an error wrapping
// ErrInvalidArgument (the other profile is running), never panics (fresh
// process). Without it ProfileReplay read s.prof.id after unlocking the
// stream and dereferenced nil when EndProfile had just cleared it.
func TestProfileReplayRacingEndProfileReturnsAnErrorNeverPanics(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		k := gputest.Kernel(t, d, gputest.AddConstWGSL)
		x := gputest.Upload(t, s, gputest.Fill(64, 0))
		g := gputest.Capture(t, s, func() {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
				t.Fatal(err)
			}
		})
		var errs collect
		var wg sync.WaitGroup
		const rounds = 200
		ok := map[string]int{}
		var mu sync.Mutex
		count := func(what string) { mu.Lock(); ok[what]++; mu.Unlock() }
		check := func(what string, err error) {
			if err == nil {
				count(what)
				return
			}
			if !errors.Is(err, wgpu.ErrInvalidArgument) || !strings.Contains(err.Error(), "profile") {
				errs.add(fmt.Errorf("%s racing another profile: want nil or ErrInvalidArgument naming the running profile, got %v", what, err))
			}
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range rounds {
				_, err := s.ProfileReplay(g)
				check("ProfileReplay", err)
			}
		}()
		go func() {
			defer wg.Done()
			for range rounds {
				tok, err := s.StartProfile()
				check("StartProfile", err)
				if err == nil {
					_, err = s.EndProfile(tok)
					check("EndProfile", err)
				}
			}
		}()
		waitAll(t, &wg, 2*time.Minute, "ProfileReplay racing StartProfile/EndProfile")
		errs.report(t)
		t.Logf("succeeded: %v", ok)
		// Every ProfileReplay that returned nil ran the graph once; the
		// warmup ran it once more.
		gputest.WantEqual(t, "every successful ProfileReplay ran the graph once", gputest.Fill(64, float32(1+ok["ProfileReplay"])), gputest.Read(t, s, x))
	})
}

// TestEndProfileRefusesEveryTokenButTheRunningOne: a token of another
// stream, the zero token, a token already ended, and a stale token after
// a new profile started are refused with ErrInvalidArgument and leave the
// running profile running; the right token then returns a profile.
func TestEndProfileRefusesEveryTokenButTheRunningOne(t *testing.T) {
	d, s := gputest.OpenStream(t)
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())
	first, err := s.StartProfile()
	if err != nil {
		t.Fatal(err)
	}
	gputest.MustChain(t, s, k, a, b, 2, 64)
	p, err := s.EndProfile(first)
	if err != nil || p.Method == 0 {
		t.Fatalf("EndProfile = %+v, %v", p, err)
	}
	if p.Method == recorder.ProfileTimestamps && p.Passes == 0 {
		t.Errorf("a profile around two launches timed no pass: %+v", p)
	}
	running, err := s.StartProfile()
	if err != nil {
		t.Fatal(err)
	}
	otherTok, err := other.StartProfile()
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]recorder.ProfileToken{
		"the zero token":         {},
		"an ended token":         first,
		"another stream's token": otherTok,
	} {
		if _, err := s.EndProfile(tok); !errors.Is(err, recorder.ErrInvalidArgument) {
			t.Errorf("EndProfile(%s): want ErrInvalidArgument, got %v", name, err)
		}
	}
	if _, err := s.StartProfile(); !errors.Is(err, recorder.ErrInvalidArgument) {
		t.Errorf("a second StartProfile while one runs: want ErrInvalidArgument, got %v", err)
	}
	gputest.MustChain(t, s, k, a, b, 2, 64)
	if p, err := s.EndProfile(running); err != nil || p.Method == 0 {
		t.Errorf("the running profile survives refused tokens: %+v, %v", p, err)
	}
	if _, err := s.EndProfile(running); !errors.Is(err, recorder.ErrInvalidArgument) {
		t.Errorf("EndProfile twice: want ErrInvalidArgument, got %v", err)
	}
	if _, err := other.EndProfile(otherTok); err != nil {
		t.Errorf("the other stream's profile: %v", err)
	}
	gputest.WantEqual(t, "profiled work computes", gputest.Fill(64, 5), gputest.Read(t, s, a))
}

// TestProfilesInterleavedWithReplaysOnTwoStreamsMatchTheModel: on each of two
// streams, goroutines at once replay a short graph and (on the first,
// pre-encoding) a 64-dispatch one, profile replays of both with and
// without a floor, and run StartProfile/EndProfile windows around launches
// and replays. Every call succeeds, except a ProfileReplay refused with
// ErrInvalidArgument because a StartProfile window is open; every profile
// reports the adapter's method (timestamps with one timing per dispatch of
// the graph, and at least one timed pass per window that launched, or wall
// clock); and every counter equals the Go model built from the calls that
// succeeded (a ProfileReplay runs the graph once, plus once per floor
// round).
func TestProfilesInterleavedWithReplaysOnTwoStreamsMatchTheModel(t *testing.T) {
	skipIfShort(t)
	d := gputest.Open(t, wgpu.Options{})
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	method := recorder.ProfileWallClock
	if d.Info().Timestamps {
		method = recorder.ProfileTimestamps
	}
	const rounds = 30
	var errs collect
	var wg sync.WaitGroup
	type counter struct {
		x    *recorder.Buffer
		per  float32 // added by one run of its graph or launch
		runs atomic.Int64
		init float32
	}
	var counters []*counter
	for si, opts := range [][]recorder.Option{{recorder.WithPreEncode(true)}, nil} {
		s := gputest.Stream(t, d, opts...)
		graph := func(n int) (*recorder.Graph, *counter) {
			c := &counter{x: gputest.Upload(t, s, gputest.Fill(counterElems, 0)), per: float32(n)}
			counters = append(counters, c)
			g, err := s.Capture(bumps(s, add, c.x, n))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(g.Release)
			c.init = float32(n) // the warmup
			return g, c
		}
		gs, cs := graph(3)
		graphs := []*recorder.Graph{gs}
		cnts := []*counter{cs}
		if si == 0 {
			gl, cl := graph(64)
			graphs, cnts = append(graphs, gl), append(cnts, cl)
		}
		pc := &counter{x: gputest.Upload(t, s, gputest.Fill(counterElems, 0)), per: 1}
		counters = append(counters, pc)
		run := func(what string, f func() error) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range rounds {
					var err error
					if p := noPanic(func() { err = f() }); p != "" {
						err = fmt.Errorf("panicked: %s", p)
					}
					if err != nil {
						errs.add(fmt.Errorf("stream %d, %s, round %d: %w", si, what, i, err))
						return
					}
				}
			}()
		}
		for gi, g := range graphs {
			c := cnts[gi]
			run(fmt.Sprintf("Replay of %d", g.Len()), func() error {
				for range 4 {
					if err := g.Replay(); err != nil {
						return err
					}
					c.runs.Add(1)
				}
				return nil
			})
			floor := 0
			run(fmt.Sprintf("ProfileReplay of %d", g.Len()), func() error {
				floor = (floor + 1) % 3
				p, err := s.ProfileReplay(g, recorder.WithFloor(floor))
				if errors.Is(err, wgpu.ErrInvalidArgument) {
					return nil // a StartProfile window is open: refused, nothing ran
				}
				if err != nil {
					return err
				}
				c.runs.Add(int64(1 + floor))
				if p.Method != method {
					return fmt.Errorf("profile method %v, want %v", p.Method, method)
				}
				if method == recorder.ProfileTimestamps && len(p.Dispatches) != g.Len() {
					return fmt.Errorf("%d dispatch timings for a graph of %d", len(p.Dispatches), g.Len())
				}
				// Windows' monotonic clock ticks coarsely (CI's wine leg
				// measured a floor of 0s): only a negative floor is wrong there.
				if floor > 0 && (p.SubmitWait < 0 || p.SubmitWait == 0 && runtime.GOOS != "windows") {
					return fmt.Errorf("a floor of %d rounds measured %v", floor, p.SubmitWait)
				}
				return nil
			})
		}
		run("StartProfile/EndProfile", func() error {
			tok, err := s.StartProfile()
			if err != nil {
				return err
			}
			for range 20 {
				if err := bump(s, add, pc.x, 1); err != nil {
					return err
				}
				pc.runs.Add(1)
			}
			if err := gs.Replay(); err != nil {
				return err
			}
			cs.runs.Add(1)
			p, err := s.EndProfile(tok)
			if err != nil {
				return err
			}
			if p.Method != method {
				return fmt.Errorf("profile method %v, want %v", p.Method, method)
			}
			if method == recorder.ProfileTimestamps && p.Passes < 1 {
				return fmt.Errorf("a window of 23 dispatches timed %d passes", p.Passes)
			}
			return nil
		})
	}
	waitAll(t, &wg, 2*time.Minute, "profiles and replays")
	errs.report(t)
	if t.Failed() {
		return
	}
	t.Logf("profile method %v", method)
	for i, c := range counters {
		t.Logf("counter %d: %d runs of %v", i, c.runs.Load(), c.per)
		want := c.init + c.per*float32(c.runs.Load())
		gputest.WantEqual(t, fmt.Sprintf("counter %d: its warmup and %d runs of %v", i, c.runs.Load(), c.per), gputest.Fill(counterElems, want), gputest.Read(t, c.x.Stream(), c.x))
	}
}

// TestProfileReplayRacingCapturesOnItsStreamLeavesEveryGraphExact: one
// goroutine profiles a replay long enough to need several timestamp query
// sets while another captures, replays and releases short graphs on the
// same stream. Each ProfileReplay either runs whole (every dispatch timed,
// the replay computed once) or is refused with ErrGraphState before it
// replays anything; each capture seals exactly its own launches; and the
// buffers end as the count of what ran says. Without it, a profile step
// encoded after a wait could land in a capture's window, or a profile
// refused half-way could leave its replay half-run.
func TestProfileReplayRacingCapturesOnItsStreamLeavesEveryGraphExact(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	const (
		profiled = 2048 + 4 // two query sets
		short    = 4
		wantRuns = 2    // profiles that must run while captures go on
		attempts = 2000 // profile calls at most
		elems    = 64
	)
	pa := gputest.Upload(t, s, gputest.Fill(elems, 0))
	pb := gputest.Empty(t, s, pa.Size())
	ca := gputest.Upload(t, s, gputest.Fill(elems, 0))
	cb := gputest.Empty(t, s, ca.Size())
	g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, pa, pb, profiled, elems) })

	var profiles, refused, captures, failed atomic.Int32
	var profiling atomic.Bool
	profiling.Store(true)
	var errs collect
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer profiling.Store(false)
		for i := 0; i < attempts && profiles.Load() < wantRuns; i++ {
			p, err := s.ProfileReplay(g)
			switch {
			case err == nil:
				profiles.Add(1)
				if d.Info().Timestamps && len(p.Dispatches) != profiled {
					errs.add(fmt.Errorf("profile %d timed %d dispatches, want %d", i, len(p.Dispatches), profiled))
				}
			case errors.Is(err, lifecycle.ErrGraphState):
				refused.Add(1)
				time.Sleep(100 * time.Microsecond) // a capture is recording: try again soon
			default:
				errs.add(fmt.Errorf("profile %d: %w (want nil or ErrGraphState)", i, err))
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; profiling.Load() && i < attempts; i++ {
			time.Sleep(500 * time.Microsecond) // leave the profiles room between captures
			cg, err := s.Capture(func() error { return gputest.Chain(s, k, ca, cb, short, elems) })
			if refusedProfilesOnly(err) {
				// A profile refused inside the window fails that capture
				// (lifecycle's table); its warmup ran, its graph did not seal.
				failed.Add(1)
				continue
			}
			if err != nil {
				errs.add(fmt.Errorf("capture %d: %w", i, err))
				return
			}
			captures.Add(1)
			if got := cg.Len(); got != short {
				errs.add(fmt.Errorf("capture %d sealed %d dispatches, want its own %d launches", i, got, short))
			}
			if err := cg.Replay(); err != nil {
				errs.add(fmt.Errorf("replay of capture %d: %w", i, err))
			}
			cg.Release()
		}
	}()
	wg.Wait()
	errs.report(t)
	t.Logf("%d profiles ran and %d were refused while %d captures sealed and %d failed", profiles.Load(), refused.Load(), captures.Load(), failed.Load())
	if profiles.Load() < wantRuns || captures.Load() == 0 {
		t.Fatalf("%d profiles ran beside %d captures in %d attempts; the test needs %d beside at least one", profiles.Load(), captures.Load(), attempts, wantRuns)
	}
	if failed.Load() > refused.Load() {
		t.Errorf("%d captures failed for refused profiles, but only %d profiles were refused", failed.Load(), refused.Load())
	}
	n := float32(profiled) * float32(1+profiles.Load()) // the capture's warmup, then each profile
	gputest.WantFloats(t, "the profiled buffer", gputest.Fill(elems, n), gputest.Read(t, s, pa))
	// Each sealed capture ran its warmup and one replay; each failed one, its warmup only.
	want := float32(short * (2*captures.Load() + failed.Load()))
	gputest.WantFloats(t, "the captured buffer (each capture's warmup, and one replay of each that sealed)", gputest.Fill(elems, want), gputest.Read(t, s, ca))
}

// refusedProfilesOnly reports whether err is a capture that failed only
// because profiles were refused inside its window: the rule that every call
// refused while recording fails EndCapture, which a test racing profiles
// against captures must expect.
func refusedProfilesOnly(err error) bool {
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) || len(ce.Causes) == 0 {
		return false
	}
	for _, c := range ce.Causes {
		var se *lifecycle.StateError
		if !errors.As(c, &se) || (se.Op != lifecycle.ProfileReplay.String() && se.Op != lifecycle.Profile.String()) {
			return false
		}
	}
	return true
}

// TestReplaySpanIsTheGraphsGPUTimeInOneCommandBuffer: WithFloor's Span is
// the GPU time of the whole graph in one command buffer. Neither a graph
// of one long dispatch nor one of six dependent ones spans longer than its
// own submit and wait (the GPU's work lies within it) or less than a third
// of it (the span covers the graph, not one pass of it), six span more
// than one, each floor round runs the graph's work exactly once, and
// OpenGL measures no span, with or without timestamps (llvmpipe's GL under
// wine has them, and wrote a one-dispatch span of 90 ns). The bounds are
// loose: the tests share two cores with lavapipe's "GPU".
func TestReplaySpanIsTheGraphsGPUTimeInOneCommandBuffer(t *testing.T) {
	gputest.OnEveryBackend(t, func(t *testing.T, b wgpu.Backend) {
		d := gputest.Open(t, wgpu.Options{Backend: b, IgnoreEnv: true})
		s := gputest.Stream(t, d)
		k := gputest.Kernel(t, d, spinWGSL)
		const rounds = 3
		profile := func(launches int) recorder.ReplayProfile {
			x := gputest.Upload(t, s, gputest.Fill(spinElems, 0))
			defer x.Release()
			g := gputest.Capture(t, s, func() {
				for range launches {
					if err := s.Launch(k, recorder.Groups(16, 1, 1), x, gputest.U32(20000)); err != nil {
						t.Fatal(err)
					}
				}
			})
			p, err := s.ProfileReplay(g, recorder.WithFloor(rounds))
			if err != nil {
				t.Fatalf("ProfileReplay(%d launches, WithFloor(%d)): %v", launches, rounds, err)
			}
			// The warmup, the profiled replay and each round ran the work once.
			gputest.WantFloats(t, fmt.Sprintf("x after the warmup, the profile and %d floor rounds of %d launches", rounds, launches),
				gputest.Fill(spinElems, float32((2+rounds)*launches)), gputest.Read(t, s, x))
			return p
		}
		one, six := profile(1), profile(6)
		t.Logf("%v: span %v (submit and wait %v) for one launch, %v (%v) for six", d.Info(), one.Span, one.SubmitWait, six.Span, six.SubmitWait)
		if !d.Info().Timestamps || b == wgpu.BackendGL {
			gputest.WantEqual(t, "Span without timestamps or on OpenGL", [2]time.Duration{}, [2]time.Duration{one.Span, six.Span})
			return
		}
		if six.Span < one.Span+one.Span/2 {
			t.Errorf("six dependent launches span %v, one spans %v: want six well over one", six.Span, one.Span)
		}
		// Under wine Go's clock steps by the timer tick: a SubmitWait of 0
		// is a measurement there, and bounds nothing.
		for _, p := range []recorder.ReplayProfile{one, six} {
			if p.SubmitWait > 0 && (p.Span > p.SubmitWait+p.SubmitWait/20 || p.Span < p.SubmitWait/3) {
				t.Errorf("span %v against the submit and wait around it, %v: want between a third and all of it", p.Span, p.SubmitWait)
			}
		}
	})
}
