package shaders_test

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/tests/gputest"
)

var benchSweep = flag.Bool("decode.sweep", false, "BenchmarkDecodeKernels: also run every projection at each MatVecOp.ThreadsPerRow from 4 to 256")

var benchBW = flag.Float64("decode.bw", 4800, "BenchmarkDecodeKernels: the memory bandwidth in GB/s its of-bw metric divides by (H200: 4800)")

// BenchmarkDecodeKernels measures each decode kernel at GPT-2 small's
// decode shapes (width 768, 12 heads, vocab 50257). Method: one graph of
// benchLaunches launches of the kernel, back to back (the projections
// cycling through enough copies of their weights that the graph reads
// over 128 MiB, more than an H200's 50 MB L2, so each launch reads its
// weights from memory as a decode step does), profiled
// with ProfileReplay b.N times; the metric is the median over the b.N
// replays of the mean GPU time per dispatch (timestamps), or of the
// replay's wall time per dispatch where the adapter has none (OpenGL).
// MB/op is what one dispatch must read, GB/s that over its time, of-bw its
// share of -decode.bw. The control row is copy: shaders.Copy of the LM
// head's 154 MB, the adapter's achievable bandwidth for a plain stream.
// Lavapipe runs it too, slowly; the sizes are the H200's.
func BenchmarkDecodeKernels(b *testing.B) {
	const benchLaunches = 20
	_, s := openStream(b)
	const d, heads, vocab = 768, 12, 50257
	rnd := func(n int) *recorder.Buffer {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.Sin(float64(i))) * 0.1
		}
		return gputest.Upload(b, s, v)
	}
	half := func(n int) *recorder.Buffer { return gputest.Empty(b, s, 2*uint64(n)) }
	x, x4, y := rnd(4*d), rnd(4*d), gputest.Empty(b, s, 4*vocab)
	g, be, bias := rnd(4*d), rnd(4*d), rnd(vocab)

	type kcase struct {
		name  string
		bytes float64           // read per dispatch
		run   func(i int) error // the i-th launch of the graph
	}
	var cases []kcase
	mv := func(name string, rows, cols int, flags shaders.MatVecFlags) {
		op := shaders.MatVecOp{Rows: uint32(rows), Cols: uint32(cols), Flags: flags, Eps: 1e-5}
		// Enough copies of the weights that the launches together read
		// more than an H200's 50 MB L2, so each reads its own from memory.
		copies := min(benchLaunches, (128<<20)/(4*rows*cols)+1)
		var w32, w16 []*recorder.Buffer
		for range copies {
			w32, w16 = append(w32, rnd(rows*cols)), append(w16, half(rows*cols))
		}
		tprs := []uint32{0}
		if *benchSweep {
			tprs = []uint32{0, 4, 8, 16, 32, 64, 128, 256}
		}
		for _, tpr := range tprs {
			op := op
			op.ThreadsPerRow = tpr
			suffix := ""
			if tpr != 0 {
				suffix = fmt.Sprintf(" tpr %d", tpr)
			}
			cases = append(cases,
				kcase{name + " f32" + suffix, 4 * float64(rows*cols), func(i int) error {
					return shaders.MatVec.Launch(s, x, w32[i%copies], bias, g, be, y, op)
				}},
				kcase{name + " f16" + suffix, 2 * float64(rows*cols), func(i int) error {
					return shaders.MatVecF16.Launch(s, x, w16[i%copies], bias, g, be, y, op)
				}},
			)
		}
	}
	mv("qkv 2304x768 ln+bias", 3*d, d, shaders.MatVecLayerNorm|shaders.MatVecBias)
	mv("attn_proj 768x768 bias+res", d, d, shaders.MatVecBias|shaders.MatVecResidual)
	mv("mlp_fc 3072x768 ln+bias+gelu", 4*d, d, shaders.MatVecLayerNorm|shaders.MatVecBias|shaders.MatVecGELU)
	mv("mlp_proj 768x3072 bias+res", d, 4*d, shaders.MatVecBias|shaders.MatVecResidual)
	mv("lm_head 50257x768 ln", vocab, d, shaders.MatVecLayerNorm)

	const ctx = 1024
	att := shaders.AttnOp{Heads: heads, HeadDim: d / heads, Ctx: ctx, Scale: 0.125}
	kc, vc, qkv := rnd(ctx*d), rnd(ctx*d), rnd(3*d)
	part, out := gputest.Empty(b, s, 4*att.AttnPartialWords()), gputest.Empty(b, s, 4*d)
	wo := rnd(d * d)
	for _, pos := range []uint32{63, 1023} {
		step := shaders.StepParams(pos)
		kv := float64(8 * d * (pos + 1))
		op := shaders.MatVecOp{Rows: d, Cols: d, Flags: shaders.MatVecBias | shaders.MatVecResidual}
		cases = append(cases,
			kcase{fmt.Sprintf("attn_proj 768x768 len %d", pos+1), 4 * d * d, func(int) error {
				return shaders.AttnProj.Launch(s, part, wo, bias, y, op, att, step)
			}},
			kcase{fmt.Sprintf("attn_split len %d", pos+1), kv, func(int) error { return shaders.AttnSplit.Launch(s, qkv, kc, vc, part, att, step) }},
			kcase{fmt.Sprintf("attn_combine len %d", pos+1), 0, func(int) error { return shaders.AttnCombine.Launch(s, part, out, att, step) }})
	}
	logits, amax, tok := rnd(vocab), gputest.Empty(b, s, 8*uint64(shaders.ArgmaxGroups(vocab))), gputest.Empty(b, s, 16)
	cases = append(cases,
		kcase{"argmax_partial 50257", 4 * vocab, func(int) error { return shaders.ArgmaxPartial.Launch(s, logits, amax, vocab) }},
		kcase{"argmax_final 50257", 0, func(int) error { return shaders.ArgmaxFinal.Launch(s, amax, tok, vocab, 0) }},
		kcase{"layer_norm 1x768 residual", 4 * 3 * d, func(int) error { return shaders.LayerNorm.Launch(s, x, x4, g, be, y, 1, d, 1e-5) }},
	)
	src, dst := rnd(vocab*d), gputest.Empty(b, s, 4*vocab*d)
	cases = append(cases, kcase{"copy 154MB (control)", 8 * vocab * d, func(int) error { return shaders.Copy.Launch(s, src, dst, vocab*d, 0, 0) }})
	b.Logf("adapter: %s", s.Device().Info())
	for _, c := range []struct {
		name       string
		rows, cols uint32
	}{{"qkv", 3 * d, d}, {"attn_proj", d, d}, {"mlp_fc", 4 * d, d}, {"mlp_proj", d, 4 * d}, {"lm_head", vocab, d}} {
		op := shaders.MatVecOp{Rows: c.rows, Cols: c.cols}
		g := op.Groups()
		b.Logf("%s: %d rows per workgroup, %d×%d workgroups (the shape's choice: the rows without tpr)", c.name, op.RowsPerGroup(), g[0], g[1])
	}

	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			gr, err := s.Capture(func() error {
				for i := range benchLaunches {
					if err := c.run(i); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			defer gr.Release()
			per := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				pr, err := s.ProfileReplay(gr)
				if err != nil {
					b.Fatal(err)
				}
				per = append(per, pr.Total/benchLaunches)
			}
			b.StopTimer()
			med := medianDuration(per)
			b.ReportMetric(float64(med.Nanoseconds())/1e3, "µs/dispatch")
			if c.bytes > 0 && med > 0 {
				gbs := c.bytes / med.Seconds() / 1e9
				b.ReportMetric(c.bytes/1e6, "MB/op")
				b.ReportMetric(gbs, "GB/s")
				b.ReportMetric(100*gbs / *benchBW, "%of-bw")
			}
		})
	}
}

// BenchmarkDecodeDispatchLatency measures where a short decode kernel's
// time goes: chains of latencyChain dependent dispatches in one graph,
// replayed and synced, wall time per dispatch (median of b.N replays):
// add_one on 64 floats (the dependent-dispatch floor), then shaders.MatVec at
// small and GPT-2 shapes, compiled from the shared source (the shape read
// from the params uniform) and for the op (MatVecShader.For: the shape
// written into the source).
func BenchmarkDecodeDispatchLatency(b *testing.B) {
	const latencyChain = 200
	d, s := openStream(b)
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
	cases := []kcase{{"add_one 64", func() error { return shaders.AddOne.Launch(s, a64, b64, 64) }}}
	for _, sh := range []struct {
		rows, cols uint32
		flags      shaders.MatVecFlags
	}{
		{64, 64, 0},
		{64, 64, shaders.MatVecLayerNorm},
		{768, 768, shaders.MatVecBias | shaders.MatVecResidual},
		{2304, 768, shaders.MatVecLayerNorm | shaders.MatVecBias},
	} {
		op := shaders.MatVecOp{Rows: sh.rows, Cols: sh.cols, Flags: sh.flags, Eps: 1e-5}
		x, w, bias, g, be := rnd(int(sh.cols)), rnd(int(sh.rows*sh.cols)), rnd(int(sh.rows)), rnd(int(sh.cols)), rnd(int(sh.cols))
		y := rnd(int(sh.rows))
		sf, err := shaders.MatVec.For(op)
		if err != nil {
			b.Fatal(err)
		}
		forOp, err := sf.Compile(d)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("matvec %dx%d flags %d", sh.rows, sh.cols, sh.flags)
		cases = append(cases,
			kcase{name + " shared", func() error { return shaders.MatVec.Launch(s, x, w, bias, g, be, y, op) }},
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
			b.ReportMetric(float64(medianDuration(per).Nanoseconds())/1e3, "µs/dispatch")
		})
	}
}

func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
