package shaders_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// diffSettings are the random differential tests' seed and op count:
// SOFTGRAPH_DECODE_SEED (default 1) and SOFTGRAPH_DECODE_OPS (default 6,
// 60 under SOFTGRAPH_LONG=1), so a device run can sweep many seeds. The
// default is small because each op compiles a kernel, which takes
// llvmpipe's OpenGL seconds (more under wine).
func diffSettings(t *testing.T) (seed uint64, ops int) {
	t.Helper()
	seed, ops = 1, 6
	if longSweep() {
		ops = 60
	}
	if v := os.Getenv("SOFTGRAPH_DECODE_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SOFTGRAPH_DECODE_SEED=%q: %v", v, err)
		}
		seed = n
	}
	if v := os.Getenv("SOFTGRAPH_DECODE_OPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SOFTGRAPH_DECODE_OPS=%q: want a positive count", v)
		}
		ops = n
	}
	return seed, ops
}

// randomMatVecOp draws a MatVec op MatVec takes: rows from 1 to 700 (often
// small, as a shard's tail is), cols a multiple of 8 up to 2048 (the norm's
// bound) or 4096 without a norm, any epilogue set, at most one norm, the
// shape's own layout or a forced ThreadsPerRow, and an out offset.
func randomMatVecOp(rng *rand.Rand) shaders.MatVecOp {
	op := shaders.MatVecOp{Eps: []float32{1e-5, 1e-6, 0.25}[rng.IntN(3)], OutOffset: uint32(rng.IntN(6))}
	if rng.IntN(3) == 0 {
		op.Rows = 1 + uint32(rng.IntN(16))
	} else {
		op.Rows = 1 + uint32(rng.IntN(700))
	}
	op.Flags = shaders.MatVecFlags(rng.IntN(8)) // bias, GELU, residual
	switch rng.IntN(3) {
	case 1:
		op.Flags |= shaders.MatVecLayerNorm
	case 2:
		op.Flags |= shaders.MatVecRMSNorm
	}
	maxUnits := 512
	if op.Flags&(shaders.MatVecLayerNorm|shaders.MatVecRMSNorm) != 0 {
		maxUnits = shaders.MatVecMaxNormCols / 8
	}
	op.Cols = 8 * (1 + uint32(rng.IntN(maxUnits)))
	if rng.IntN(3) == 0 {
		op.ThreadsPerRow = 4 << rng.IntN(7)
	}
	return op
}

// TestMatVecCompiledForTheOpMatchesTheSharedSource is the differential
// test of MatVecShader.For: random ops (shapes, epilogues, norms, layouts,
// f32 and f16 weights), each run by Launch (the shared source, the op read
// from the params uniform) and by the source compiled for the op, on the
// same buffers. The two run the same operations in the same order, and
// lavapipe and llvmpipe write the same bits; NVIDIA's compilers, once the
// flags and cols are constants, round some outputs differently in the last
// bits (For's doc says how, and how often). The test asserts the outputs
// agree within decodeTolerance of each row's magnitude, which a wrong
// index, flag or dropped term exceeds by orders, and logs how many differ
// in their bits.
func TestMatVecCompiledForTheOpMatchesTheSharedSource(t *testing.T) {
	d, s := openStream(t)
	seed, n := diffSettings(t)
	rng := rand.New(rand.NewPCG(seed, 0x6d76))
	for i := range n {
		sh := []shaders.MatVecShader{shaders.MatVec, shaders.MatVecF16}[rng.IntN(2)]
		op := randomMatVecOp(rng)
		rows, cols := int(op.Rows), int(op.Cols)
		x := normal(rng, cols, 1)
		x[0] += float32(rng.IntN(5)) // a mean away from zero, as a residual stream has
		w := normal(rng, rows*cols, 1/math.Sqrt(float64(cols)))
		bias, g, b := normal(rng, rows, 0.1), normal(rng, cols, 1), normal(rng, cols, 0.1)
		y0 := normal(rng, rows+int(op.OutOffset)+2, 1)
		t.Run(fmt.Sprintf("%d %s %dx%d flags %#x tpr %d", i, sh.Name, rows, cols, op.Flags, op.ThreadsPerRow), func(t *testing.T) {
			var wb *recorder.Buffer
			if sh == shaders.MatVecF16 {
				wb = gputest.UploadU32(t, s, shaders.F16Pack(w)...)
			} else {
				wb = gputest.Upload(t, s, w)
			}
			xb, biasb, gb, bb := gputest.Upload(t, s, x), gputest.Upload(t, s, bias), gputest.Upload(t, s, g), gputest.Upload(t, s, b)
			shared, forOp := gputest.Upload(t, s, y0), gputest.Upload(t, s, y0)
			if err := sh.Launch(s, xb, wb, biasb, gb, bb, shared, op); err != nil {
				t.Fatal(err)
			}
			k := compileFor(t, d, sh.For, op)
			if err := s.Launch(k, op.Dispatch(), xb, wb, biasb, gb, bb, forOp, op.Params()); err != nil {
				t.Fatal(err)
			}
			h := matVecInput(x, g, b, op.Flags, float64(op.Eps))
			wantSameWithin(t, gputest.Read(t, s, shared), gputest.Read(t, s, forOp), rowScales(w, sh == shaders.MatVecF16, h, bias, y0, op))
		})
	}
}

// TestAttnProjCompiledForTheOpMatchesTheSharedSource is the same for
// AttnProjShader.For: random attention shapes and positions, AttnSplit's
// partials merged and projected by Launch and by the source compiled for
// the op.
func TestAttnProjCompiledForTheOpMatchesTheSharedSource(t *testing.T) {
	d, s := openStream(t)
	seed, n := diffSettings(t)
	rng := rand.New(rand.NewPCG(seed, 0x6170))
	for i := range max(n/2, 1) {
		sh := []shaders.AttnProjShader{shaders.AttnProj, shaders.AttnProjF16}[rng.IntN(2)]
		heads := 1 + rng.IntN(12)
		hd := 8 * (1 + rng.IntN(min(16, shaders.MatVecMaxNormCols/8/heads)))
		ctx := 1 + rng.IntN(300)
		pos := rng.IntN(ctx)
		at := shaders.AttnOp{Heads: uint32(heads), HeadDim: uint32(hd), Ctx: uint32(ctx), Scale: 1 / float32(math.Sqrt(float64(hd)))}
		dm := heads * hd
		op := shaders.MatVecOp{Rows: 1 + uint32(rng.IntN(600)), Cols: uint32(dm), Flags: shaders.MatVecFlags(rng.IntN(8)), OutOffset: uint32(rng.IntN(4))}
		if rng.IntN(3) == 0 {
			op.ThreadsPerRow = 4 << rng.IntN(7)
		}
		t.Run(fmt.Sprintf("%d %s heads %d hd %d ctx %d pos %d rows %d flags %#x tpr %d", i, sh.Name, heads, hd, ctx, pos, op.Rows, op.Flags, op.ThreadsPerRow), func(t *testing.T) {
			step := shaders.StepParams(uint32(pos))
			part := gputest.Empty(t, s, 4*at.AttnPartialWords())
			if err := shaders.AttnSplit.Launch(s, gputest.Upload(t, s, normal(rng, 3*dm, 1)), gputest.Upload(t, s, normal(rng, ctx*dm, 1)),
				gputest.Upload(t, s, normal(rng, ctx*dm, 1)), part, at, step); err != nil {
				t.Fatal(err)
			}
			w := normal(rng, int(op.Rows)*dm, 0.2)
			wb := gputest.Upload(t, s, w)
			if sh == shaders.AttnProjF16 {
				wb = gputest.UploadU32(t, s, shaders.F16Pack(w)...)
			}
			bias := normal(rng, int(op.Rows), 0.1)
			biasb := gputest.Upload(t, s, bias)
			y0 := normal(rng, int(op.Rows+op.OutOffset)+1, 1)
			shared, forOp := gputest.Upload(t, s, y0), gputest.Upload(t, s, y0)
			if err := sh.Launch(s, part, wb, biasb, shared, op, at, step); err != nil {
				t.Fatal(err)
			}
			k := compileFor(t, d, sh.For, op)
			full := sh.Op(op)
			if err := s.Launch(k, full.Dispatch(), part, wb, biasb, part, part, forOp, full.Params(), part, at.Params(), step); err != nil {
				t.Fatal(err)
			}
			// The projection's input, for the rows' magnitudes: the
			// partials merged as AttnCombine merges them.
			att := gputest.Empty(t, s, 4*uint64(dm))
			if err := shaders.AttnCombine.Launch(s, part, att, at, step); err != nil {
				t.Fatal(err)
			}
			h := make([]float64, dm)
			for i, v := range gputest.Read(t, s, att) {
				h[i] = float64(v)
			}
			wantSameWithin(t, gputest.Read(t, s, shared), gputest.Read(t, s, forOp), rowScales(w, sh == shaders.AttnProjF16, h, bias, y0, op))
		})
	}
}

// compileFor compiles the source compiled(op) returns (a For).
func compileFor(t *testing.T, d *wgpu.Device, compiled func(shaders.MatVecOp) (shaders.Shader, error), op shaders.MatVecOp) *wgpu.Kernel {
	t.Helper()
	sf, err := compiled(op)
	if err != nil {
		t.Fatalf("For(%+v): %v", op, err)
	}
	return compile(t, d, sf)
}

// rowScales is, per element of y, the magnitude its tolerance scales
// with: Σ|w·h| over its row (w rounded to half where f16), plus |bias| and
// |y0| where the op adds them; 0 outside the op's rows.
func rowScales(w []float32, f16 bool, h []float64, bias, y0 []float32, op shaders.MatVecOp) []float64 {
	scale := make([]float64, len(y0))
	cols := len(h)
	for r := range int(op.Rows) {
		var m float64
		for k := range cols {
			wv := w[r*cols+k]
			if f16 {
				wv = shaders.F16Round(wv)
			}
			m += math.Abs(float64(wv) * h[k])
		}
		if op.Flags&shaders.MatVecBias != 0 {
			m += math.Abs(float64(bias[r]))
		}
		o := int(op.OutOffset) + r
		if op.Flags&shaders.MatVecResidual != 0 {
			m += math.Abs(float64(y0[o]))
		}
		scale[o] = m
	}
	return scale
}

// wantSameWithin fails unless forOp is within decodeTolerance·(scale+1) of
// shared per element (wantNear), and logs how many elements differ in
// their bits.
func wantSameWithin(t *testing.T, shared, forOp []float32, scale []float64) {
	t.Helper()
	want := make([]float64, len(shared))
	differ := 0
	for i, v := range shared {
		want[i] = float64(v)
		if math.Float32bits(v) != math.Float32bits(forOp[i]) {
			differ++
		}
	}
	wantNear(t, "y compiled for the op, against the shared source's", forOp, want, scale)
	if differ > 0 {
		t.Logf("%d of %d outputs differ in their bits", differ, len(shared))
	}
}
