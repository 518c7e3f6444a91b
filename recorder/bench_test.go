package recorder_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// BenchmarkEagerLaunch is one eager launch of a tiny kernel (add-one over 64
// floats, with params), the normal launch path: validation, params and bind
// group cache lookups, encoding. The stream submits in chunks by itself; a
// sync every 1000 launches keeps the GPU from falling far behind.
func BenchmarkEagerLaunch(b *testing.B) {
	d, s := gputest.OpenStream(b)
	k := gputest.Kernel(b, d, gputest.AddOneWGSL)
	x := gputest.Upload(b, s, gputest.Fill(64, 0))
	y, _ := s.Alloc(256)
	p := gputest.U32(64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		src, dst := x, y
		if i%2 == 1 {
			src, dst = y, x
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), src, dst, p); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			if err := s.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := s.Sync(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReplay is one replay of an add-one ping-pong graph of len
// dispatches, then a sync, reported per dispatch. allocs/op must not grow
// with len: the replay loop allocates nothing, and Sync a constant amount.
func BenchmarkReplay(b *testing.B) {
	for _, n := range []int{150, 1000, 5000} {
		b.Run(fmt.Sprintf("len=%d", n), func(b *testing.B) {
			d, s := gputest.OpenStream(b)
			k := gputest.Kernel(b, d, gputest.AddOneWGSL)
			x := gputest.Upload(b, s, gputest.Fill(64, 0))
			y, _ := s.Alloc(256)
			g := gputest.Capture(b, s, func() { gputest.MustChain(b, s, k, x, y, n, 64) })
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := g.Replay(); err != nil {
					b.Fatal(err)
				}
				if err := s.Sync(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/dispatch")
		})
	}
}

// BenchmarkShortGraphs does 1000 tiny dependent kernels per op three ways,
// side by side: eager launches, and a graph of g dispatches (g = 1, 2, 8)
// replayed 1000/g times back to back, each followed by one Sync, with the
// stream's defaults (replay_gG) and without pre-encoding (inline_gG). It
// reports ns per kernel and the host time per Replay call (enqueue, before
// the Sync): what a loop replaying one frame's few dispatches costs.
func BenchmarkShortGraphs(b *testing.B) {
	const kernels = 1000
	d, s := gputest.OpenStream(b)
	k := gputest.Kernel(b, d, gputest.AddOneWGSL)
	x := gputest.Upload(b, s, gputest.Fill(64, 0))
	y, _ := s.Alloc(256)
	b.Run("eager", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			gputest.MustChain(b, s, k, x, y, kernels, 64)
			if err := s.Sync(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*kernels), "ns/kernel")
	})
	b.Run("floor", func(b *testing.B) {
		// One pre-encoded command buffer of the same 1000 kernels, submit
		// and wait: what no loop can beat.
		g := gputest.Capture(b, s, func() { gputest.MustChain(b, s, k, x, y, kernels, 64) })
		var best time.Duration
		for b.Loop() {
			p, err := s.ProfileReplay(g, recorder.WithFloor(3))
			if err != nil {
				b.Fatal(err)
			}
			if best == 0 || p.SubmitWait < best {
				best = p.SubmitWait
			}
		}
		b.ReportMetric(float64(best.Nanoseconds())/kernels, "ns/kernel-floor")
	})
	// The same replays on a stream without pre-encoding: no ramps, so the
	// pair shows what ramps do in a tight loop, where the ramp worker's
	// encoding after one Sync overlaps the next iteration's start.
	inline := gputest.Stream(b, d, recorder.WithPreEncode(false))
	xi := gputest.Upload(b, inline, gputest.Fill(64, 0))
	yi, _ := inline.Alloc(256)
	for _, run := range []struct {
		name string
		s    *recorder.Stream
		x, y *recorder.Buffer
		g    int
	}{{"replay_g1", s, x, y, 1}, {"inline_g1", inline, xi, yi, 1}, {"replay_g2", s, x, y, 2}, {"inline_g2", inline, xi, yi, 2}, {"replay_g8", s, x, y, 8}, {"inline_g8", inline, xi, yi, 8}} {
		s, x, y, g := run.s, run.x, run.y, run.g
		b.Run(run.name, func(b *testing.B) {
			gr := gputest.Capture(b, s, func() { gputest.MustChain(b, s, k, x, y, g, 64) })
			reps := kernels / g
			var enqueue time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				for range reps {
					if err := gr.Replay(); err != nil {
						b.Fatal(err)
					}
				}
				enqueue += time.Since(t0)
				if err := s.Sync(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*kernels), "ns/kernel")
			b.ReportMetric(float64(enqueue.Nanoseconds())/float64(b.N*reps), "ns/replay-call")
		})
	}
}

// BenchmarkReplayAfterSetVar compares changing a graph's params between
// replays through a Var (SetVar) with the buffer pattern it replaces (a
// caller-made uniform Buffer rewritten with Write): the decode-loop step
// "set this token's params, replay". Each path runs on a stream of its own
// (one device), so each finds its own previous replay unsubmitted, as a
// loop does: SetVar+Replay of a graph reading a Var, Write+Replay of the
// same graph captured over a 16-byte uniform Buffer, the same 8 bytes
// each; the control is a Replay alone of the same graph with constant
// params on a third stream (nothing to order, nothing submitted). The
// three are interleaved in one loop, so drift of the machine hits each
// alike; a sync of every stream each 64 iterations keeps the GPU close. It
// reports each path's median and interquartile spread, and setvar/write,
// whose contract is ≤ 1 (plus noise): SetVar is a Write of the Var's bytes.
func BenchmarkReplayAfterSetVar(b *testing.B) {
	d := gputest.Open(b, wgpu.Options{})
	info := d.Info()
	b.Logf("adapter: %s (%s)", info.Name, info.Backend)
	k := gputest.Kernel(b, d, mulAddWGSL)
	const dispatches = 8
	path := func(p func(s *recorder.Stream) recorder.Arg) (*recorder.Stream, *recorder.Graph, recorder.Arg) {
		s := gputest.Stream(b, d, recorder.WithPreEncode(true))
		x, err := recorder.UploadSlice(s, make([]uint32, 64))
		if err != nil {
			b.Fatal(err)
		}
		arg := p(s)
		g, err := s.Capture(func() error {
			for range dispatches {
				if err := s.Launch(k, recorder.Groups(1, 1, 1), x, arg); err != nil {
					return err
				}
			}
			return nil
		}, recorder.WithoutWarmup())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(g.Release)
		return s, g, arg
	}
	sv, gv, av := path(func(s *recorder.Stream) recorder.Arg {
		v, err := s.NewVar(recorder.ParamsOf[uint32](1, 0))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(v.Release)
		return v
	})
	sw, gw, aw := path(func(s *recorder.Stream) recorder.Arg { return gputest.UploadU32(b, s, 1, 0, 0, 0) })
	sc, gc, _ := path(func(*recorder.Stream) recorder.Arg { return recorder.ParamsOf[uint32](1, 1) })
	v, u := av.(*recorder.Var), aw.(*recorder.Buffer)
	var tv, tw, tc []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := recorder.ParamsOf(1, uint32(i))
		t0 := time.Now()
		if err := sv.SetVar(v, p); err != nil {
			b.Fatal(err)
		}
		if err := gv.Replay(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := sw.Write(u, 0, p); err != nil {
			b.Fatal(err)
		}
		if err := gw.Replay(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := gc.Replay(); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		tv, tw, tc = append(tv, t1.Sub(t0)), append(tw, t2.Sub(t1)), append(tc, t3.Sub(t2))
		if i%64 == 63 {
			for _, s := range []*recorder.Stream{sv, sw, sc} {
				if err := s.Sync(); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.StopTimer()
	for _, s := range []*recorder.Stream{sv, sw, sc} {
		if err := s.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	mv, qv := medianSpread(tv)
	mw, qw := medianSpread(tw)
	mc, qc := medianSpread(tc)
	b.ReportMetric(float64(mv.Nanoseconds()), "setvar+replay-ns")
	b.ReportMetric(float64(mw.Nanoseconds()), "write+replay-ns")
	b.ReportMetric(float64(mc.Nanoseconds()), "replay-ns")
	if mw > 0 {
		b.ReportMetric(float64(mv)/float64(mw), "setvar/write")
	}
	b.Logf("median (IQR) over %d: SetVar+Replay %v (%v), Write+Replay %v (%v), Replay alone %v (%v)", len(tv), mv, qv, mw, qw, mc, qc)
}

// medianSpread is the median of ds and its interquartile range.
func medianSpread(ds []time.Duration) (median, iqr time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := append([]time.Duration(nil), ds...)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*3/4] - s[len(s)/4]
}

// BenchmarkRoundTrip is what a decode loop's token costs beyond its GPU
// work: a graph of n tiny dependent dispatches replayed, then a read of
// its 256-byte result (replay+read, n = 1 and 8) or a Sync (replay+sync);
// a 4-byte read alone, of a buffer nothing writes (read); a 4-byte Write
// then its read (write+read). Each op waits for the GPU, so ns/op is the
// round trip through the submission path, the GPU's queue and the mapping.
func BenchmarkRoundTrip(b *testing.B) {
	d, s := gputest.OpenStream(b)
	k := gputest.Kernel(b, d, gputest.AddOneWGSL)
	x := gputest.Upload(b, s, gputest.Fill(64, 0))
	y, _ := s.Alloc(256)
	one, err := s.Alloc(4)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 8} {
		g := gputest.Capture(b, s, func() { gputest.MustChain(b, s, k, x, y, n, 64) })
		b.Run(fmt.Sprintf("replay+read/%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := g.Replay(); err != nil {
					b.Fatal(err)
				}
				if _, err := recorder.ReadSlice[float32](s, y); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("replay+sync/%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := g.Replay(); err != nil {
					b.Fatal(err)
				}
				if err := s.Sync(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := recorder.ReadSlice[float32](s, one); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("write+read", func(b *testing.B) {
		w := []byte{1, 2, 3, 4}
		for b.Loop() {
			if err := s.Write(one, 0, w); err != nil {
				b.Fatal(err)
			}
			if _, err := recorder.ReadSlice[float32](s, one); err != nil {
				b.Fatal(err)
			}
		}
	})
}
