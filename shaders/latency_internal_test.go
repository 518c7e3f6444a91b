package shaders

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// BenchmarkDecodeDispatchLatency measures where a short decode kernel's
// time goes: chains of latencyChain dependent dispatches in one graph,
// replayed and synced, wall time per dispatch (median of b.N replays):
// add_one on 64 floats (the dependent-dispatch floor), then MatVec at
// small and GPT-2 shapes, compiled from the shared source (the shape read
// from the params uniform) and for the op (MatVecShader.For: the shape
// written into the source).
func BenchmarkDecodeDispatchLatency(b *testing.B) {
	const latencyChain = 200
	d := gputest.Open(b, wgpu.Options{})
	s, err := recorder.New(d)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Close(); _ = d.Close() }()
	rnd := func(n int) *recorder.Buffer {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.Sin(float64(i)))
		}
		return gputest.Upload(b, s, v)
	}
	type kcase struct {
		name string
		run  func() error
	}
	a64, b64 := rnd(64), rnd(64)
	cases := []kcase{{"add_one 64", func() error { return AddOne.Launch(s, a64, b64, 64) }}}
	for _, sh := range []struct {
		rows, cols uint32
		flags      MatVecFlags
	}{
		{64, 64, 0},
		{64, 64, MatVecLayerNorm},
		{768, 768, MatVecBias | MatVecResidual},
		{2304, 768, MatVecLayerNorm | MatVecBias},
	} {
		op := MatVecOp{Rows: sh.rows, Cols: sh.cols, Flags: sh.flags, Eps: 1e-5}
		x, w, bias, g, be := rnd(int(sh.cols)), rnd(int(sh.rows*sh.cols)), rnd(int(sh.rows)), rnd(int(sh.cols)), rnd(int(sh.cols))
		y := rnd(int(sh.rows))
		sf, err := MatVec.For(op)
		if err != nil {
			b.Fatal(err)
		}
		forOp, err := sf.Compile(d)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("matvec %dx%d flags %d", sh.rows, sh.cols, sh.flags)
		cases = append(cases,
			kcase{name + " shared", func() error { return MatVec.Launch(s, x, w, bias, g, be, y, op) }},
			kcase{name + " for the op", func() error {
				return s.Launch(forOp, op.Dispatch(), x, w, bias, g, be, y, op.Params())
			}})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			gr, err := s.Capture(func() error {
				for range latencyChain {
					if err := c.run(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			defer gr.Release()
			for range 3 { // warm up
				if err := gr.Replay(); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Sync(); err != nil {
				b.Fatal(err)
			}
			per := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				if err := gr.Replay(); err != nil {
					b.Fatal(err)
				}
				if err := s.Sync(); err != nil {
					b.Fatal(err)
				}
				per = append(per, time.Since(t0)/latencyChain)
			}
			b.StopTimer()
			slices.Sort(per)
			b.ReportMetric(float64(per[len(per)/2].Nanoseconds())/1e3, "µs/dispatch")
		})
	}
}
