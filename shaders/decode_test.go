package shaders_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// decodeTolerance bounds a decode kernel's error against its float64
// reference relative to the sum of the magnitudes it added up (the scale of
// an f32 accumulation's rounding): 1e-5 is about a hundred ulps, over any
// order of summation, fused multiply-adds and the exp, tanh and
// inverseSqrt of backends, while a wrong index or a dropped term is off by
// the size of a term.
const decodeTolerance = 1e-5

func normal(rng *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * scale)
	}
	return v
}

// wantNear fails unless |got − want| ≤ decodeTolerance·(scale + 1) per
// element.
func wantNear(t *testing.T, what string, got []float32, want, scale []float64) {
	t.Helper()
	bad := 0
	for i := range want {
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= decodeTolerance*(scale[i]+1)) {
			if bad++; bad <= 5 {
				t.Errorf("%s[%d] = %v, the float64 reference %v (|Δ| %.3g over the tolerance %.3g)", what, i, got[i], want[i], d, decodeTolerance*(scale[i]+1))
			}
		}
	}
}

// matVecInput is, in float64, the vector a MatVec with flags multiplies by
// its weights: x itself, or x's layer norm or RMS norm (gamma g, beta b).
func matVecInput(x, g, b []float32, flags shaders.MatVecFlags, eps float64) []float64 {
	switch {
	case flags&shaders.MatVecLayerNorm != 0:
		return refNorm(x, g, b, eps, false)
	case flags&shaders.MatVecRMSNorm != 0:
		return refNorm(x, g, nil, eps, true)
	}
	h := make([]float64, len(x))
	for i, v := range x {
		h[i] = float64(v)
	}
	return h
}

// refNorm is the float64 layer norm (rms: the RMS norm) of x.
func refNorm(x, g, b []float32, eps float64, rms bool) []float64 {
	n := float64(len(x))
	var mean, v float64
	if !rms {
		for _, e := range x {
			mean += float64(e)
		}
		mean /= n
	}
	for _, e := range x {
		v += (float64(e) - mean) * (float64(e) - mean)
	}
	inv := 1 / math.Sqrt(v/n+eps)
	y := make([]float64, len(x))
	for i, e := range x {
		y[i] = (float64(e) - mean) * inv * float64(g[i])
		if !rms {
			y[i] += float64(b[i])
		}
	}
	return y
}

func refGELU(v float64) float64 {
	u := math.Max(-15, math.Min(15, 0.7978845608*(v+0.044715*v*v*v)))
	return 0.5 * v * (1 + math.Tanh(u))
}

// TestMatVecMatchesTheReference: MatVec and MatVecF16 compute
// epilogue(W·prologue(x)) for every flag combination and for shapes that
// give one row per workgroup, many, and a partial last workgroup, writing
// rows [OutOffset, OutOffset+rows) of y and nothing else. F16's reference
// reads the weights rounded to float16 (F16Round), so the same tolerance
// holds: the storage is half, the arithmetic float32.
func TestMatVecMatchesTheReference(t *testing.T) {
	_, s := openStream(t)
	rng := rand.New(rand.NewPCG(1, 2))
	type shape struct{ rows, cols uint32 }
	shapes := []shape{{1, 8}, {37, 64}, {300, 256}, {13, 1024}, {5, 2048}}
	if longSweep() {
		shapes = append(shapes, shape{2304, 768}, shape{768, 3072}, shape{5000, 768})
	}
	flagSets := []shaders.MatVecFlags{
		0,
		shaders.MatVecBias,
		shaders.MatVecBias | shaders.MatVecGELU,
		shaders.MatVecBias | shaders.MatVecResidual,
		shaders.MatVecLayerNorm | shaders.MatVecBias | shaders.MatVecGELU,
		shaders.MatVecLayerNorm,
		shaders.MatVecRMSNorm | shaders.MatVecResidual,
	}
	for _, sh := range []shaders.MatVecShader{shaders.MatVec, shaders.MatVecF16} {
		for _, shp := range shapes {
			for fi, flags := range flagSets {
				// Every layout of a workgroup: the shape's choice, and for
				// one flag set the extremes ThreadsPerRow can force.
				tprs := []uint32{0}
				if fi == 4 {
					tprs = []uint32{0, 4, 256}
				}
				// Launch (the shared source, the shape read from the
				// params uniform), and for the fullest flag set at the
				// shape's layout the source compiled for the op
				// (MatVecShader.For; the differential tests in
				// decode_diff_test.go compare it with Launch over random
				// ops: each compile takes llvmpipe's GL seconds).
				forOp := []bool{false}
				if fi == 4 && !(flags&(shaders.MatVecLayerNorm|shaders.MatVecRMSNorm) != 0 && shp.cols > shaders.MatVecMaxNormCols) {
					forOp = append(forOp, true)
				}
				for _, tpr := range tprs {
					for _, compiledForOp := range forOp {
						if compiledForOp && tpr != 0 {
							continue // the shape's own layout only: some take Mesa's GL seconds to compile
						}
						name := fmt.Sprintf("%s %dx%d flags %#x tpr %d", sh.Name, shp.rows, shp.cols, flags, tpr)
						if compiledForOp {
							name += " compiled for the op"
						}
						t.Run(name, func(t *testing.T) {
							rows, cols := int(shp.rows), int(shp.cols)
							x := normal(rng, cols, 1)
							x[0] += 3 // a mean far from zero, as a residual stream has
							w := normal(rng, rows*cols, 1/math.Sqrt(float64(cols)))
							bias, g, b := normal(rng, rows, 0.1), normal(rng, cols, 1), normal(rng, cols, 0.1)
							const off = 3
							y0 := normal(rng, rows+off+2, 1)
							op := shaders.MatVecOp{Rows: shp.rows, Cols: shp.cols, Flags: flags, Eps: 1e-5, OutOffset: off, ThreadsPerRow: tpr}

							var wb *recorder.Buffer
							wRef := w
							if sh == shaders.MatVecF16 {
								wb = gputest.UploadU32(t, s, shaders.F16Pack(w)...)
								wRef = make([]float32, len(w))
								for i, v := range w {
									wRef[i] = shaders.F16Round(v)
								}
							} else {
								wb = gputest.Upload(t, s, w)
							}
							yb := gputest.Upload(t, s, y0)
							xb, biasb, gb, bb := gputest.Upload(t, s, x), gputest.Upload(t, s, bias), gputest.Upload(t, s, g), gputest.Upload(t, s, b)
							var err error
							if compiledForOp {
								var sf shaders.Shader
								if sf, err = sh.For(op); err != nil {
									t.Fatalf("For(%+v): %v", op, err)
								}
								var k *wgpu.Kernel
								if k, err = sf.Compile(s.Device()); err == nil {
									err = s.Launch(k, op.Dispatch(), xb, wb, biasb, gb, bb, yb, op.Params())
								}
							} else {
								err = sh.Launch(s, xb, wb, biasb, gb, bb, yb, op)
							}
							if flags&(shaders.MatVecLayerNorm|shaders.MatVecRMSNorm) != 0 && shp.cols > shaders.MatVecMaxNormCols {
								// Past the norm prologue's workgroup memory: refused.
								if !errors.Is(err, shaders.ErrShape) {
									t.Fatalf("a norm over %d cols (more than MatVecMaxNormCols) must be refused with ErrShape, got %v", shp.cols, err)
								}
								return
							}
							if err != nil {
								t.Fatal(err)
							}
							got := gputest.Read(t, s, yb)

							h := matVecInput(x, g, b, flags, float64(op.Eps))
							want := make([]float64, len(y0))
							scale := make([]float64, len(y0))
							for i, v := range y0 {
								want[i] = float64(v) // rows outside [off, off+rows) stay
							}
							for r := range rows {
								var acc, mag float64
								for k := range cols {
									p := float64(wRef[r*cols+k]) * h[k]
									acc += p
									mag += math.Abs(p)
								}
								if flags&shaders.MatVecBias != 0 {
									acc += float64(bias[r])
								}
								if flags&shaders.MatVecGELU != 0 {
									acc = refGELU(acc)
								}
								if flags&shaders.MatVecResidual != 0 {
									acc += float64(y0[off+r])
								}
								want[off+r], scale[off+r] = acc, mag
							}
							wantNear(t, "y", got, want, scale)
						})
					}
				}
			}
		}
	}
}

// TestF16BitsRoundTripsEveryHalfAndRoundsToNearestEven: every finite
// binary16 value survives F16Bits(F16Round) unchanged, and a float32
// halfway between two halves rounds to the even one — the rounding the
// -f16 reference and the packed weights agree on.
func TestF16BitsRoundTripsEveryHalfAndRoundsToNearestEven(t *testing.T) {
	for h := range 1 << 16 {
		if h&0x7c00 == 0x7c00 {
			continue // Inf and NaN
		}
		f := halfToFloat(uint16(h))
		if got := shaders.F16Bits(f); got != uint16(h) {
			t.Fatalf("F16Bits(%v) = %#04x, want %#04x", f, got, h)
		}
	}
	cases := []struct {
		f    float32
		want uint16
	}{
		{1 + 1.0/2048, 0x3c00},         // halfway between 1 and 1+2⁻¹⁰: even (1)
		{1 + 3.0/2048, 0x3c02},         // halfway up from an odd mantissa: rounds up
		{65520, 0x7c00},                // past the largest half: Inf
		{float32(math.Pow(2, -25)), 0}, // half the smallest subnormal: even (0)
		{float32(math.Pow(2, -24)), 1}, // the smallest subnormal
		{-2, 0xc000},
	}
	for _, c := range cases {
		if got := shaders.F16Bits(c.f); got != c.want {
			t.Errorf("F16Bits(%v) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
}

// halfToFloat decodes binary16 independently of the package.
func halfToFloat(h uint16) float32 {
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	var v float64
	if e == 0 {
		v = m * math.Pow(2, -24)
	} else {
		v = (1 + m/1024) * math.Pow(2, float64(e-15))
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return float32(v)
}

// TestLayerNormMatchesTheReferenceWithTheResidualAdded: LayerNorm with a
// residual writes x + res back into x and normalises the sum; without one
// it leaves x alone; its RMS form ignores beta.
func TestLayerNormMatchesTheReferenceWithTheResidualAdded(t *testing.T) {
	_, s := openStream(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		rows, cols    int
		residual, rms bool
	}{{1, 768, true, false}, {3, 5, false, false}, {2, 1000, true, true}, {4, 64, false, true}} {
		t.Run(fmt.Sprintf("%dx%d residual %v rms %v", c.rows, c.cols, c.residual, c.rms), func(t *testing.T) {
			n := c.rows * c.cols
			x, res := normal(rng, n, 1), normal(rng, n, 1)
			for i := range x {
				x[i] += 2
			}
			g, b := normal(rng, c.cols, 1), normal(rng, c.cols, 0.1)
			xb, yb := gputest.Upload(t, s, x), gputest.Empty(t, s, 4*uint64(n))
			var rb, bb *recorder.Buffer
			if c.residual {
				rb = gputest.Upload(t, s, res)
			}
			if !c.rms {
				bb = gputest.Upload(t, s, b)
			}
			if err := shaders.LayerNorm.Launch(s, xb, rb, gputest.Upload(t, s, g), bb, yb, uint32(c.rows), uint32(c.cols), 1e-5); err != nil {
				t.Fatal(err)
			}
			sum := make([]float32, n)
			for i := range x {
				sum[i] = x[i]
				if c.residual {
					sum[i] = x[i] + res[i]
				}
			}
			if diff := cmp.Diff(sum, gputest.Read(t, s, xb)); diff != "" {
				t.Errorf("x after the launch (x + res with the residual, else x) (-want +got):\n%s", diff)
			}
			got := gputest.Read(t, s, yb)
			var want, scale []float64
			for r := range c.rows {
				row := sum[r*c.cols : (r+1)*c.cols]
				want = append(want, refNorm(row, g, b, 1e-5, c.rms)...)
				for range row {
					scale = append(scale, 10)
				}
			}
			wantNear(t, "y", got, want, scale)
		})
	}
}

// TestAttnSplitAndCombineMatchTheReferenceAndAppendTheToken: the two
// passes compute softmax(q·Kᵀ·scale)·V per head over positions 0..pos, at
// positions that end a chunk, start one and sit inside one, and append the
// token's k and v to the caches at row pos bit for bit. Cache rows past
// pos hold NaN: reading one (a broken causal mask) makes the output NaN.
func TestAttnSplitAndCombineMatchTheReferenceAndAppendTheToken(t *testing.T) {
	_, s := openStream(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ heads, hd, ctx, pos int }{
		{2, 8, 70, 0}, {3, 8, 70, 31}, {3, 8, 70, 32}, {2, 64, 70, 69}, {1, 80, 40, 20},
	} {
		t.Run(fmt.Sprintf("heads %d hd %d ctx %d pos %d", c.heads, c.hd, c.ctx, c.pos), func(t *testing.T) {
			d := c.heads * c.hd
			qkv := normal(rng, 3*d, 1)
			kc, vc := normal(rng, c.ctx*d, 1), normal(rng, c.ctx*d, 1)
			for i := c.pos * d; i < len(kc); i++ {
				kc[i], vc[i] = float32(math.NaN()), float32(math.NaN())
			}
			op := shaders.AttnOp{Heads: uint32(c.heads), HeadDim: uint32(c.hd), Ctx: uint32(c.ctx), Scale: float32(1 / math.Sqrt(float64(c.hd)))}
			kb, vb := gputest.Upload(t, s, kc), gputest.Upload(t, s, vc)
			part := gputest.Empty(t, s, 4*op.AttnPartialWords())
			out := gputest.Empty(t, s, 4*uint64(d))
			step := shaders.StepParams(uint32(c.pos))
			if err := shaders.AttnSplit.Launch(s, gputest.Upload(t, s, qkv), kb, vb, part, op, step); err != nil {
				t.Fatal(err)
			}
			if err := shaders.AttnCombine.Launch(s, part, out, op, step); err != nil {
				t.Fatal(err)
			}
			copy(kc[c.pos*d:], qkv[d:2*d])
			copy(vc[c.pos*d:], qkv[2*d:])
			gotK, gotV := gputest.Read(t, s, kb), gputest.Read(t, s, vb)
			if diff := cmp.Diff(kc[:(c.pos+1)*d], gotK[:(c.pos+1)*d]); diff != "" {
				t.Errorf("the key cache through row pos (the token's k appended at pos) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(vc[:(c.pos+1)*d], gotV[:(c.pos+1)*d]); diff != "" {
				t.Errorf("the value cache through row pos (-want +got):\n%s", diff)
			}
			want, scale := make([]float64, d), make([]float64, d)
			for h := range c.heads {
				o := h * c.hd
				sc := make([]float64, c.pos+1)
				m := math.Inf(-1)
				for j := range sc {
					for e := range c.hd {
						sc[j] += float64(qkv[o+e]) * float64(kc[j*d+o+e])
					}
					sc[j] /= math.Sqrt(float64(c.hd))
					m = math.Max(m, sc[j])
				}
				var sum float64
				for j := range sc {
					sc[j] = math.Exp(sc[j] - m)
					sum += sc[j]
				}
				for j := range sc {
					for e := range c.hd {
						want[o+e] += sc[j] / sum * float64(vc[j*d+o+e])
						scale[o+e] += sc[j] / sum * math.Abs(float64(vc[j*d+o+e]))
					}
				}
			}
			wantNear(t, "out", gputest.Read(t, s, out), want, scale)
		})
	}
}

// TestArgmaxTwoPassesFindTheFirstLargest: the two passes pick the largest
// value's index, the lowest on a tie (across workgroups too), and never a
// NaN, for one element, a partial workgroup, exactly one and several.
func TestArgmaxTwoPassesFindTheFirstLargest(t *testing.T) {
	_, s := openStream(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 1000, 1024, 5000, 50257} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			x := normal(rng, n, 1)
			x[rng.IntN(n)] = float32(math.NaN())
			want := 0
			if n > 1 {
				// The largest value twice, the second in a later workgroup.
				hi, lo := rng.IntN(n), rng.IntN(n)
				if hi > lo {
					hi, lo = lo, hi
				}
				x[hi], x[lo] = 9, 9
				if x[0] != x[0] {
					x[0] = 0
				}
				want = hi
			} else {
				x[0] = 1
			}
			part := gputest.Empty(t, s, 8*uint64(shaders.ArgmaxGroups(uint32(n))))
			out := gputest.UploadU32(t, s, 7, 7)
			if err := shaders.ArgmaxPartial.Launch(s, gputest.Upload(t, s, x), part, uint32(n)); err != nil {
				t.Fatal(err)
			}
			if err := shaders.ArgmaxFinal.Launch(s, part, out, uint32(n), 1); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]uint32{7, uint32(want)}, gputest.ReadU32(t, s, out)); diff != "" {
				t.Errorf("out: word 0 untouched, word 1 the first index of the largest (-want +got):\n%s", diff)
			}
		})
	}
	// Rows whose every value is the same very small one (a masked row of
	// -Inf, -MaxFloat32, -3.4e38: the kernels' empty value once) have an
	// argmax, the first; so does a row of NaN but one -Inf; NaN alone has
	// none. The first three gave 0xffffffff, which the next step's
	// embedding would read as a token.
	inf := float32(math.Inf(-1))
	nan := float32(math.NaN())
	for _, c := range []struct {
		name string
		x    []float32
		want uint32
	}{
		{"-Inf", gputest.Fill(2000, inf), 0},
		{"-MaxFloat32", gputest.Fill(2000, -math.MaxFloat32), 0},
		{"-3.4e38", gputest.Fill(2000, -3.4e38), 0},
		{"NaN but one -Inf", append(gputest.Fill(1500, nan), append([]float32{inf}, gputest.Fill(499, nan)...)...), 1500},
		{"-Inf but one -3.4e38 in the second workgroup", append(gputest.Fill(1030, inf), -3.4e38), 1030},
		{"NaN alone", gputest.Fill(2000, nan), 0xffffffff},
	} {
		n := uint32(len(c.x))
		part := gputest.Empty(t, s, 8*uint64(shaders.ArgmaxGroups(n)))
		out := gputest.UploadU32(t, s, 7)
		if err := shaders.ArgmaxPartial.Launch(s, gputest.Upload(t, s, c.x), part, n); err != nil {
			t.Fatal(err)
		}
		if err := shaders.ArgmaxFinal.Launch(s, part, out, n, 0); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, c.name, []uint32{c.want}, gputest.ReadU32(t, s, out))
	}
}

// TestDecodeLaunchesRefuseBadShapesAndUndersizedBuffers: each decode
// kernel's Launch refuses a shape it does not take with ErrShape (a
// step's position past the cache too: its key and value were appended
// nowhere) and an
// undersized buffer with wgpu.ErrInvalidArgument, naming the kernel and
// the argument, before anything runs; the stream works afterwards.
func TestDecodeLaunchesRefuseBadShapesAndUndersizedBuffers(t *testing.T) {
	_, s := openStream(t)
	big := func() *recorder.Buffer { return gputest.Empty(t, s, 1<<16) }
	small := gputest.Empty(t, s, 16)
	mv := shaders.MatVecOp{Rows: 8, Cols: 16, Flags: shaders.MatVecBias}
	att := shaders.AttnOp{Heads: 2, HeadDim: 8, Ctx: 40, Scale: 1}
	step := shaders.StepParams(3)
	cases := []struct {
		name, msg string
		is        error
		err       error
	}{
		{"matvec", "cols = 12", shaders.ErrShape, shaders.MatVec.Launch(s, big(), big(), big(), nil, nil, big(), shaders.MatVecOp{Rows: 4, Cols: 12})},
		{"matvec", "flags", shaders.ErrShape, shaders.MatVec.Launch(s, big(), big(), nil, big(), big(), big(), shaders.MatVecOp{Rows: 4, Cols: 16, Flags: shaders.MatVecLayerNorm | shaders.MatVecRMSNorm})},
		{"matvec", "bias is 16 bytes", wgpu.ErrInvalidArgument, shaders.MatVec.Launch(s, big(), big(), small, nil, nil, big(), mv)},
		{"matvec", "ThreadsPerRow = 48", shaders.ErrShape, shaders.MatVec.Launch(s, big(), big(), nil, nil, nil, big(), shaders.MatVecOp{Rows: 4, Cols: 16, ThreadsPerRow: 48})},
		{"matvec", "cols = 2056 with a norm", shaders.ErrShape, shaders.MatVec.Launch(s, big(), big(), nil, big(), nil, big(), shaders.MatVecOp{Rows: 4, Cols: 2056, Flags: shaders.MatVecRMSNorm})},
		{"matvec_f16", "w is 16 bytes", wgpu.ErrInvalidArgument, shaders.MatVecF16.Launch(s, big(), small, big(), nil, nil, big(), mv)},
		{"attn_split", "head dim = 6", shaders.ErrShape, shaders.AttnSplit.Launch(s, big(), big(), big(), big(), shaders.AttnOp{Heads: 2, HeadDim: 6, Ctx: 8}, step)},
		{"attn_split", "kc is 16 bytes", wgpu.ErrInvalidArgument, shaders.AttnSplit.Launch(s, big(), small, big(), big(), att, step)},
		{"attn_combine", "step is nil", wgpu.ErrInvalidArgument, shaders.AttnCombine.Launch(s, big(), big(), att, nil)},
		{"attn_split", "step pos = 40, len = 41 with ctx = 40", shaders.ErrShape, shaders.AttnSplit.Launch(s, big(), big(), big(), big(), att, shaders.StepParams(40))},
		{"attn_combine", "step pos = 3, len = 9", shaders.ErrShape, shaders.AttnCombine.Launch(s, big(), big(), att, recorder.ParamsOf[uint32](3, 9, 0, 0))},
		{"argmax_partial", "partials is 16 bytes", wgpu.ErrInvalidArgument, shaders.ArgmaxPartial.Launch(s, big(), small, 5000)},
		{"layer_norm", "y is 16 bytes", wgpu.ErrInvalidArgument, shaders.LayerNorm.Launch(s, big(), nil, big(), big(), small, 2, 8, 1e-5)},
		{"matvec", "cols = 12", shaders.ErrShape, forErr(shaders.MatVec.For(shaders.MatVecOp{Rows: 4, Cols: 12}))},
		{"matvec_f16", "ThreadsPerRow = 48", shaders.ErrShape, forErr(shaders.MatVecF16.For(shaders.MatVecOp{Rows: 4, Cols: 16, ThreadsPerRow: 48}))},
		{"matvec", "MatVecAttnInput is AttnProj's", shaders.ErrShape, forErr(shaders.MatVec.For(shaders.MatVecOp{Rows: 4, Cols: 16, Flags: shaders.MatVecAttnInput}))},
		{"attn_proj", "cols = 2056", shaders.ErrShape, forErr(shaders.AttnProj.For(shaders.MatVecOp{Rows: 4, Cols: 2056}))},
		{"attn_proj", "ThreadsPerRow = 3", shaders.ErrShape, shaders.AttnProj.Launch(s, big(), big(), nil, big(), shaders.MatVecOp{Rows: 4, Cols: 16, ThreadsPerRow: 3}, att, step)},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.is) {
			t.Errorf("%s (%s): err %v, want one wrapping %v", c.name, c.msg, c.err, c.is)
			continue
		}
		gputest.WantErr(t, "a bad "+c.msg, c.err, []error{c.is}, c.name, c.msg)
	}
	if err := shaders.MatVec.Launch(s, big(), big(), big(), nil, nil, big(), mv); err != nil {
		t.Fatalf("a good launch after the refused ones: %v", err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
}

// forErr is the error of a MatVecShader.For or AttnProjShader.For.
func forErr(_ shaders.Shader, err error) error { return err }

// TestAttnProjIsTheCombineFusedIntoTheProjection: AttnProj over
// AttnSplit's partials computes W·att + b + y (att what AttnCombine
// writes), for float32 and float16 weights, at a length of one chunk and of
// several, and refuses a width that is not the heads' and MatVec's flag
// given to MatVec.
func TestAttnProjIsTheCombineFusedIntoTheProjection(t *testing.T) {
	_, s := openStream(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct{ heads, hd, ctx, pos, rows int }{{2, 16, 40, 5, 24}, {3, 32, 100, 90, 200}} {
		for _, sh := range []shaders.AttnProjShader{shaders.AttnProj, shaders.AttnProjF16} {
			t.Run(fmt.Sprintf("%s heads %d hd %d pos %d", sh.Name, c.heads, c.hd, c.pos), func(t *testing.T) {
				d := c.heads * c.hd
				at := shaders.AttnOp{Heads: uint32(c.heads), HeadDim: uint32(c.hd), Ctx: uint32(c.ctx), Scale: 0.2}
				step := shaders.StepParams(uint32(c.pos))
				part := gputest.Empty(t, s, 4*at.AttnPartialWords())
				if err := shaders.AttnSplit.Launch(s, gputest.Upload(t, s, normal(rng, 3*d, 1)), gputest.Upload(t, s, normal(rng, c.ctx*d, 1)),
					gputest.Upload(t, s, normal(rng, c.ctx*d, 1)), part, at, step); err != nil {
					t.Fatal(err)
				}
				att := gputest.Empty(t, s, 4*uint64(d))
				if err := shaders.AttnCombine.Launch(s, part, att, at, step); err != nil {
					t.Fatal(err)
				}
				a := gputest.Read(t, s, att)
				w, bias, y0 := normal(rng, c.rows*d, 0.2), normal(rng, c.rows, 0.1), normal(rng, c.rows, 1)
				wb := gputest.Upload(t, s, w)
				if sh == shaders.AttnProjF16 {
					wb = gputest.UploadU32(t, s, shaders.F16Pack(w)...)
					for i := range w {
						w[i] = shaders.F16Round(w[i])
					}
				}
				yb := gputest.Upload(t, s, y0)
				op := shaders.MatVecOp{Rows: uint32(c.rows), Cols: uint32(d), Flags: shaders.MatVecBias | shaders.MatVecResidual}
				if err := sh.Launch(s, part, wb, gputest.Upload(t, s, bias), yb, op, at, step); err != nil {
					t.Fatal(err)
				}
				want, scale := make([]float64, c.rows), make([]float64, c.rows)
				for r := range c.rows {
					want[r] = float64(y0[r]) + float64(bias[r])
					for k := range d {
						want[r] += float64(w[r*d+k]) * float64(a[k])
						scale[r] += math.Abs(float64(w[r*d+k]) * float64(a[k]))
					}
				}
				wantNear(t, "y", gputest.Read(t, s, yb), want, scale)
			})
		}
	}
	big := gputest.Empty(t, s, 1<<16)
	at := shaders.AttnOp{Heads: 2, HeadDim: 16, Ctx: 40, Scale: 1}
	gputest.WantErr(t, "a width other than the heads'", shaders.AttnProj.Launch(s, big, big, nil, big, shaders.MatVecOp{Rows: 4, Cols: 64}, at, shaders.StepParams(1)),
		[]error{shaders.ErrShape}, "attn_proj", "cols = 64, but 2 heads of 16")
	gputest.WantErr(t, "MatVecAttnInput on MatVec", shaders.MatVec.Launch(s, big, big, nil, nil, nil, big, shaders.MatVecOp{Rows: 4, Cols: 32, Flags: shaders.MatVecAttnInput}),
		[]error{shaders.ErrShape}, "matvec", "MatVecAttnInput is AttnProj's")
}
