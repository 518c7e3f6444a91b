package recorder_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// BenchmarkEagerLaunch is one eager launch of a tiny kernel (add-one over 64
// floats, with params), the normal launch path: validation, params and bind
// group cache lookups, encoding. The stream submits in chunks by itself; a
// sync every 1000 launches keeps the GPU from falling far behind.
func BenchmarkEagerLaunch(b *testing.B) {
	d, s := gputest.OpenStream(b)
	k := gputest.Kernel(b, d, gputest.AddOneWGSL)
	x := gputest.Upload(b, s, gputest.Fill(64, 0))
	y, _ := s.Empty(256)
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
			y, _ := s.Empty(256)
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
	y, _ := s.Empty(256)
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
	yi, _ := inline.Empty(256)
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
