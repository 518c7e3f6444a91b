package shaders

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// The kernels of a decode loop: one token through a transformer reads
// every weight once, so each kernel below is written to run at the memory
// bandwidth (vec4 loads, enough workgroups to fill a large GPU) and to
// fold the small steps around it (norms, bias, GELU, residual adds, the
// KV-cache append) into itself, so a token is few dispatches. None uses
// subgroup operations or `override`, so the compiler wgpu-native bundles
// (naga v22) accepts each as written.

var (
	//go:embed matvec.wgsl
	matVecBodyWGSL string
	//go:embed matvec_f32.wgsl
	matVecF32WGSL string
	//go:embed matvec_f16.wgsl
	matVecF16WGSL string
	//go:embed matvec_noattn.wgsl
	matVecNoAttnWGSL string
	//go:embed matvec_attn.wgsl
	matVecAttnWGSL string
	//go:embed layer_norm.wgsl
	layerNormWGSL string
	//go:embed attn_split.wgsl
	attnSplitWGSL string
	//go:embed attn_combine.wgsl
	attnCombineWGSL string
	//go:embed argmax_partial.wgsl
	argmaxPartialWGSL string
	//go:embed argmax_final.wgsl
	argmaxFinalWGSL string
)

// MatVec computes y[o+r] = epilogue(W[r]·prologue(x)) for the rows of a
// row-major (output-major: row r holds output r's cols weights) float32
// matrix W, the product every decode projection is. 256 invocations per
// workgroup, 2^k of them per row (MatVecOp.Groups picks k from the shape:
// enough invocations per row for several vec4 loads each, and enough rows
// per workgroup, at most 64, to leave over a thousand workgroups where
// the rows allow, which fills a 132-SM H200), their partial sums meeting
// in one tree in workgroup memory. The flags (MatVecFlags) add a layer or
// RMS norm of x before the product — each workgroup reduces x itself, so
// the norm costs no dispatch — and a bias, GELU and residual add after it.
//
// Bindings:
//
//	0  x      storage, read        cols f32
//	1  w      storage, read        rows*cols f32 (MatVecF16: rows*cols/2 u32, two halves each)
//	2  bias   storage, read        rows f32 (read with MatVecBias)
//	3  gamma  storage, read        cols f32 (read with a norm)
//	4  beta   storage, read        cols f32 (read with MatVecLayerNorm)
//	5  y      storage, read_write  OutOffset+rows f32
//	6  params uniform              MatVecOp.Params (32 bytes)
//
// cols must be a multiple of 8, and at most MatVecMaxNormCols with a norm.
// Dispatch MatVecOp.Dispatch. Sums run in a
// fixed order, so a launch is deterministic; they differ from a
// sequential loop's in the last bits.
var MatVec = newMatVec("matvec", matVecF32WGSL+matVecNoAttnWGSL, false)

// MatVecF16 is MatVec over float16 weights, two to a u32 (the even column
// in the low half: what F16Pack writes), unpacked with WGSL's core
// unpack2x16float — no shader-f16 feature, so it runs on every adapter —
// and accumulated in float32. It reads half MatVec's bytes.
var MatVecF16 = newMatVec("matvec_f16", matVecF16WGSL+matVecNoAttnWGSL, true)

// MatVecShader is the type of MatVec and MatVecF16.
type MatVecShader struct {
	Shader
	f16  bool   // weights are packed float16
	head string // the source before the constants: the weights' and the input's parts
}

func newMatVec(name, head string, f16 bool) MatVecShader {
	return MatVecShader{Shader{Name: name, Source: head + matVecSpec(nil) + matVecBodyWGSL, Entry: "matvec"}, f16, head}
}

// matVecSpec is the constants block of the source: op's shape, flags and
// invocations per row with SPEC 1, or SPEC 0 (read them from the params
// uniform) for a nil op.
func matVecSpec(op *MatVecOp) string {
	var spec, rows, cols, flags, shift uint32 = 0, 0, 8, 0, 2
	if op != nil {
		spec, rows, cols, flags, shift = 1, op.Rows, op.Cols, uint32(op.Flags), op.shift()
	}
	return fmt.Sprintf("const SPEC: u32 = %du;\nconst SPEC_ROWS: u32 = %du;\nconst SPEC_COLS: u32 = %du;\nconst SPEC_FLAGS: u32 = %du;\nconst SPEC_TSHIFT: u32 = %du;\n\n", spec, rows, cols, flags, shift)
}

// For is the shader for op alone: its rows, cols, flags and invocations
// per row written into the source as constants, so that the kernel reads
// only the out offset and the norm's epsilon from the params uniform
// (launch it with op.Params, of this op), its addresses are known when it
// starts and its branches on the flags fold away. A decode loop, with a
// handful of shapes each launched every token, compiles each once (the
// transformer example does). The shared source (the Shader itself, which
// Launch runs) serves every shape from one compile: Mesa's OpenGL took
// seconds to compile some shapes of MatVecF16's.
// It refuses what Launch refuses of op (ErrShape).
//
// The two run the same operations in the same order, but they are two
// kernels, and a compiler may round them differently. With the flags and
// cols constant, NVIDIA's Vulkan and OpenGL compilers (by the flag sets
// that differed) fuse multiply-adds across what were the flag branches,
// and may turn the norm's division by cols into a multiplication: on an
// H100, 39 of 60 random ops on Vulkan and 24 of 60 on OpenGL differed from
// Launch in the last bits of some outputs, by at most 2.6e-6 of the
// largest output. Lavapipe and llvmpipe write the same bits. Each kernel
// is deterministic: a program that must repeat its bits uses one of the
// two for an op throughout (the transformer example's three paths share
// their kernels).
func (sh MatVecShader) For(op MatVecOp) (Shader, error) {
	if err := sh.check(op); err != nil {
		return Shader{}, err
	}
	return sh.forOp(op), nil
}

// forOp is For without the checks.
func (sh MatVecShader) forOp(op MatVecOp) Shader {
	return Shader{Name: sh.Name, Source: sh.head + matVecSpec(&op) + matVecBodyWGSL, Entry: sh.Entry}
}

// check refuses the ops MatVec does not take.
func (sh MatVecShader) check(op MatVecOp) error {
	switch {
	case op.Cols%8 != 0 || op.Cols == 0:
		return fmt.Errorf("shaders: %s: cols = %d: want a positive multiple of 8: %w", sh.Name, op.Cols, ErrShape)
	case op.Flags&MatVecLayerNorm != 0 && op.Flags&MatVecRMSNorm != 0:
		return fmt.Errorf("shaders: %s: flags %#x: a layer norm and an RMS norm at once: %w", sh.Name, op.Flags, ErrShape)
	case op.Flags&MatVecAttnInput != 0:
		return fmt.Errorf("shaders: %s: flags %#x: MatVecAttnInput is AttnProj's: %w", sh.Name, op.Flags, ErrShape)
	case !op.validThreadsPerRow():
		return fmt.Errorf("shaders: %s: ThreadsPerRow = %d: want 0 or a power of two from 4 to 256: %w", sh.Name, op.ThreadsPerRow, ErrShape)
	case op.Flags&(MatVecLayerNorm|MatVecRMSNorm) != 0 && op.Cols > MatVecMaxNormCols:
		return fmt.Errorf("shaders: %s: cols = %d with a norm: want at most %d: %w", sh.Name, op.Cols, MatVecMaxNormCols, ErrShape)
	}
	return nil
}

// MatVecFlags choose a MatVec's prologue and epilogues.
type MatVecFlags uint32

const (
	// MatVecBias adds bias[r].
	MatVecBias MatVecFlags = 1 << iota
	// MatVecGELU applies GPT-2's tanh GELU after the bias,
	// 0.5·v·(1 + tanh(√(2/π)(v + 0.044715v³))), the tanh argument clamped
	// to ±15 (tanh is ±1 in f32 there; some backends compute it from exp).
	MatVecGELU
	// MatVecResidual adds the result to y[o+r] instead of overwriting it
	// (x += W·h + b, the residual stream).
	MatVecResidual
	// MatVecLayerNorm normalises x first: (x − mean)/√(var + Eps)·gamma +
	// beta over its cols elements.
	MatVecLayerNorm
	// MatVecRMSNorm normalises x first: x/√(mean(x²) + Eps)·gamma.
	MatVecRMSNorm
	// MatVecAttnInput takes the input from attention's partials, merged
	// per head as AttnCombine merges them: the flag of AttnProj and
	// AttnProjF16, whose Launch sets it (MatVec's refuses it).
	MatVecAttnInput
)

// MatVecMaxNormCols is the most cols MatVec takes with a norm prologue:
// the normalised x is kept in 8 KiB of workgroup memory, so each weight
// load pairs with one load from there instead of three (x, gamma, beta).
const MatVecMaxNormCols = 2048

// MatVecOp is one MatVec launch's shape and flags.
type MatVecOp struct {
	Rows, Cols uint32
	Flags      MatVecFlags
	Eps        float32 // the norm's epsilon
	OutOffset  uint32  // y index of row 0 (a shard of a larger output)
	// ThreadsPerRow, a power of two from 4 to 256, overrides the
	// invocations per row the shape would choose (0: choose), for tuning
	// on a new GPU (BenchmarkDecodeKernels -decode.sweep).
	ThreadsPerRow uint32
}

// matVecMaxGroups is the most workgroups MatVec doubles its invocations
// per row up to: about four per SM of a 132-SM H100 or H200. An H100's
// sweep of every ThreadsPerRow (docs/benchmarks/decode-h200/) was fastest
// at 192-384 workgroups for each GPT-2 projection, and slower at 768: the
// 3072×768 projection took 9.7 µs at 384 and 12.4 at 768, the 768×3072
// one 7.5 and 8.8.
const matVecMaxGroups = 512

// shift is log2 of the invocations per row: the smallest power of two
// that leaves each at most four 8-column units (at least 4 invocations),
// doubled while the doubled launch stays within matVecMaxGroups
// workgroups and each invocation keeps at least one unit.
func (op MatVecOp) shift() uint32 {
	if t := op.ThreadsPerRow; t >= 4 && t <= 256 && t&(t-1) == 0 {
		s := uint32(0)
		for 1<<s < t {
			s++
		}
		return s
	}
	k8 := max(op.Cols/8, 1)
	s := uint32(2)
	for s < 8 && (uint32(1)<<s)*4 < k8 {
		s++
	}
	for s < 8 && (uint32(2)<<s) <= k8 && ceilDiv(max(op.Rows, 1), 128>>s) <= matVecMaxGroups {
		s++
	}
	return s
}

// validThreadsPerRow reports whether ThreadsPerRow is 0 or a power of two
// from 4 to 256.
func (op MatVecOp) validThreadsPerRow() bool {
	t := op.ThreadsPerRow
	return t == 0 || (t >= 4 && t <= 256 && t&(t-1) == 0)
}

// RowsPerGroup is how many rows one workgroup computes.
func (op MatVecOp) RowsPerGroup() uint32 { return 256 >> op.shift() }

// Groups is the launch's workgroup counts (x, y, z): one workgroup per
// RowsPerGroup rows, folded into y past 65535.
func (op MatVecOp) Groups() [3]uint32 {
	return foldCounts(ceilDiv(op.Rows, op.RowsPerGroup()))
}

// Dispatch is Groups as a recorder.Dispatch.
func (op MatVecOp) Dispatch() recorder.Dispatch {
	g := op.Groups()
	return recorder.Groups(g[0], g[1], g[2])
}

// Params is the launch's uniform: rows, cols, flags, eps, out offset and
// the invocations-per-row shift, then two words of zero (32 bytes).
func (op MatVecOp) Params() recorder.Params {
	return recorder.ParamsOf(op.Rows, op.Cols, uint32(op.Flags), math.Float32bits(op.Eps), op.OutOffset, op.shift(), 0, 0)
}

// ErrShape is wrapped by the decode kernels' Launch when a size is one the
// kernel does not take (MatVec's cols not a multiple of 8, a head width
// not a multiple of 4, both norms at once).
var ErrShape = errors.New("unsupported shape")

// Launch runs op on s: y[op.OutOffset+r] for r < op.Rows from x and w. bias,
// gamma and beta are read only where op.Flags says (nil otherwise: x is
// bound in their place). Errors wrap ErrShape or wgpu.ErrInvalidArgument.
func (sh MatVecShader) Launch(s *recorder.Stream, x, w, bias, gamma, beta, y *recorder.Buffer, op MatVecOp) error {
	what := fmt.Sprintf("rows = %d, cols = %d", op.Rows, op.Cols)
	if err := sh.check(op); err != nil {
		return err
	}
	wWords := uint64(op.Rows) * uint64(op.Cols)
	if sh.f16 {
		wWords /= 2
	}
	ops := []operand{{"x", x, uint64(op.Cols)}, {"w", w, wWords}}
	opt := func(name string, b *recorder.Buffer, n uint64, used bool) {
		if !used {
			b, n = x, 0
		}
		ops = append(ops, operand{name, b, n})
	}
	opt("bias", bias, uint64(op.Rows), op.Flags&MatVecBias != 0)
	opt("gamma", gamma, uint64(op.Cols), op.Flags&(MatVecLayerNorm|MatVecRMSNorm) != 0)
	opt("beta", beta, uint64(op.Cols), op.Flags&MatVecLayerNorm != 0)
	ops = append(ops, operand{"y", y, uint64(op.OutOffset) + uint64(op.Rows)})
	return sh.launch(s, what, op.Dispatch(), op.Params(), ops...)
}

// AttnProj is attention's output projection with the combine pass fused
// in: y[o+r] = epilogue(W[r]·att) where att is AttnCombine's output, which
// each workgroup merges itself from AttnSplit's partials (the same
// operations in the same order as AttnCombine) into workgroup memory. It
// is MatVec with MatVecAttnInput; a decode step is then one dispatch
// fewer per layer. The width (Cols = heads·head dim) is at most
// MatVecMaxNormCols.
//
// Bindings: MatVec's 0-6 (x, gamma and beta unread: the launch binds the
// partials there), then
//
//	7  partials storage, read  AttnOp.AttnPartialWords f32
//	8  dims     uniform        AttnOp.Params
//	9  step     uniform        as AttnSplit's
var AttnProj = AttnProjShader{newMatVec("attn_proj", matVecF32WGSL+matVecAttnWGSL, false)}

// AttnProjF16 is AttnProj over float16 weights, as MatVecF16.
var AttnProjF16 = AttnProjShader{newMatVec("attn_proj_f16", matVecF16WGSL+matVecAttnWGSL, true)}

// AttnProjShader is the type of AttnProj and AttnProjF16: MatVec's, with
// attention's partials as the input.
type AttnProjShader struct{ MatVecShader }

// For is AttnProj's source for op alone (op as Op returns it), as
// MatVecShader.For; it refuses what Launch refuses of op's shape.
func (sh AttnProjShader) For(op MatVecOp) (Shader, error) {
	op = sh.Op(op)
	if err := sh.checkOp(op); err != nil {
		return Shader{}, err
	}
	return sh.forOp(op), nil
}

// checkOp refuses the ops AttnProj does not take, whatever the attention
// shape.
func (sh AttnProjShader) checkOp(op MatVecOp) error {
	switch {
	case op.Cols%8 != 0 || op.Cols == 0 || op.Cols > MatVecMaxNormCols:
		return fmt.Errorf("shaders: %s: cols = %d: want a positive multiple of 8 up to %d: %w", sh.Name, op.Cols, MatVecMaxNormCols, ErrShape)
	case !op.validThreadsPerRow():
		return fmt.Errorf("shaders: %s: ThreadsPerRow = %d: want 0 or a power of two from 4 to 256: %w", sh.Name, op.ThreadsPerRow, ErrShape)
	}
	return nil
}

// Op is op with MatVecAttnInput set: what AttnProj's params must carry.
func (AttnProjShader) Op(op MatVecOp) MatVecOp {
	op.Flags |= MatVecAttnInput
	op.Flags &^= MatVecLayerNorm | MatVecRMSNorm
	return op
}

// Launch runs AttnProj on s: att from partials (AttnSplit's, for the
// shape at and the Step step), times w (op.Rows × op.Cols, op.Cols =
// at.Heads·at.HeadDim), with op's bias, GELU and residual epilogues.
func (sh AttnProjShader) Launch(s *recorder.Stream, partials, w, bias, y *recorder.Buffer, op MatVecOp, at AttnOp, step recorder.Arg) error {
	op = sh.Op(op)
	if err := sh.checkOp(op); err != nil {
		return err
	}
	switch {
	case op.Cols != at.Heads*at.HeadDim:
		return fmt.Errorf("shaders: %s: cols = %d, but %d heads of %d: %w", sh.Name, op.Cols, at.Heads, at.HeadDim, ErrShape)
	}
	if err := at.check(sh.Name); err != nil {
		return err
	}
	if err := checkStep(sh.Name, at, step); err != nil {
		return err
	}
	wWords := uint64(op.Rows) * uint64(op.Cols)
	if sh.f16 {
		wWords /= 2
	}
	pw := at.AttnPartialWords()
	bw := uint64(0)
	if op.Flags&MatVecBias != 0 {
		bw = uint64(op.Rows)
	} else {
		bias = partials
	}
	args, err := sh.operands(s, fmt.Sprintf("rows = %d, cols = %d", op.Rows, op.Cols), []operand{
		{"partials", partials, pw}, {"w", w, wWords}, {"bias", bias, bw},
		{"partials", partials, 0}, {"partials", partials, 0},
		{"y", y, uint64(op.OutOffset) + uint64(op.Rows)},
	})
	if err != nil {
		return err
	}
	return sh.launchWith(s, op.Dispatch(), append(args, op.Params(), partials, at.Params(), step))
}

// LayerNorm normalises each row of a rows×cols row-major f32 matrix, one
// 256-invocation workgroup per row reducing across the whole row (two
// passes: the mean, then the centred variance):
//
//	y[r][c] = (x[r][c] − mean_r)/√(var_r + eps)·gamma[c] + beta[c]
//
// LayerNormParams' flags add the residual first, in place (x += res, the
// residual stream, then the norm of the sum), or make it an RMS norm
// (x/√(mean_r(x²) + eps)·gamma, beta unread).
//
// Bindings:
//
//	0  x      storage, read_write  rows*cols f32 (written only with the residual)
//	1  res    storage, read        rows*cols f32 (read only with the residual)
//	2  gamma  storage, read        cols f32
//	3  beta   storage, read        cols f32 (unread for the RMS norm)
//	4  y      storage, read_write  rows*cols f32
//	5  params uniform              LayerNormParams
//
// Dispatch RowGroups(rows).
var LayerNorm = LayerNormShader{Shader{Name: "layer_norm", Source: layerNormWGSL, Entry: "layer_norm"}}

// LayerNormShader is the type of LayerNorm.
type LayerNormShader struct{ Shader }

// LayerNormParams is LayerNorm's uniform: bytes 0-3 rows, 4-7 cols, 8-11
// eps (f32), 12-15 flags (1: add res into x first; 2: RMS norm).
func LayerNormParams(rows, cols uint32, eps float32, residual, rms bool) recorder.Params {
	var f uint32
	if residual {
		f |= 1
	}
	if rms {
		f |= 2
	}
	return params([4]uint32{rows, cols, math.Float32bits(eps), f})
}

// Launch runs LayerNorm on s. res nil: no residual add; beta nil: the RMS
// norm. gamma must hold cols f32.
func (sh LayerNormShader) Launch(s *recorder.Stream, x, res, gamma, beta, y *recorder.Buffer, rows, cols uint32, eps float32) error {
	n := uint64(rows) * uint64(cols)
	ops := []operand{{"x", x, n}}
	if res != nil {
		ops = append(ops, operand{"res", res, n})
	} else {
		ops = append(ops, operand{"res", gamma, 0})
	}
	ops = append(ops, operand{"gamma", gamma, uint64(cols)})
	if beta != nil {
		ops = append(ops, operand{"beta", beta, uint64(cols)})
	} else {
		ops = append(ops, operand{"beta", gamma, 0})
	}
	ops = append(ops, operand{"y", y, n})
	return sh.launch(s, fmt.Sprintf("rows = %d, cols = %d", rows, cols), RowGroups(rows), LayerNormParams(rows, cols, eps, res != nil, beta == nil), ops...)
}

// AttnChunk is how many cached positions one AttnSplit workgroup takes.
const AttnChunk = 32

// AttnSplit is decode attention's first pass, flash-decoding style: the
// KV cache split over the sequence into chunks of AttnChunk positions,
// one 256-invocation workgroup per (chunk, head) computing the chunk's
// scores q·kⱼ·scale, their max m and Σ exp(score − m) = l, and
// Σ exp(score − m)·vⱼ, into partials that AttnCombine merges. The causal
// mask is j < len (Step's second word, pos + 1): rows past it are never
// read. The token's own k and v come from qkv (the QKV projection's
// output: q, k, v of d each), and the workgroup whose chunk holds pos
// appends them to the caches at row pos, so the append is no dispatch of
// its own.
//
// Bindings:
//
//	0  qkv      storage, read        3*d f32
//	1  kc       storage, read_write  ctx*d f32, the key cache (row j: position j, heads side by side)
//	2  vc       storage, read_write  ctx*d f32, the value cache
//	3  partials storage, read_write  AttnPartialWords f32
//	4  dims     uniform              AttnOp.Params
//	5  step     uniform              Step: pos, len (= pos+1), 0, 0 (u32)
//
// Dispatch AttnOp.SplitGroups.
var AttnSplit = AttnSplitShader{Shader{Name: "attn_split", Source: attnSplitWGSL, Entry: "attn_split"}}

// AttnCombine is decode attention's second pass: per head, the chunks'
// partials merged exactly (rescaled to the largest m), out_h =
// Σ_c e^(m_c−M)·o_c / Σ_c e^(m_c−M)·l_c, in chunk order.
//
// Bindings:
//
//	0  partials storage, read        AttnPartialWords f32
//	1  out      storage, read_write  d f32, heads side by side
//	2  dims     uniform              AttnOp.Params
//	3  step     uniform              as AttnSplit's
//
// Dispatch AttnOp.CombineGroups.
var AttnCombine = AttnCombineShader{Shader{Name: "attn_combine", Source: attnCombineWGSL, Entry: "attn_combine"}}

// AttnSplitShader is the type of AttnSplit.
type AttnSplitShader struct{ Shader }

// AttnCombineShader is the type of AttnCombine.
type AttnCombineShader struct{ Shader }

// AttnOp is a decode attention's shape: heads of HeadDim (a multiple of
// 4), a cache of Ctx rows. Scale is the scores' factor (1/√HeadDim).
type AttnOp struct {
	Heads, HeadDim, Ctx uint32
	Scale               float32
}

func (op AttnOp) chunks() uint32 { return max(ceilDiv(op.Ctx, AttnChunk), 1) }

// Params is the dims uniform both passes read: d/4, HeadDim/4, Ctx and
// Scale.
func (op AttnOp) Params() recorder.Params {
	return recorder.ParamsOf(op.Heads*op.HeadDim/4, op.HeadDim/4, op.Ctx, math.Float32bits(op.Scale))
}

// SplitGroups is AttnSplit's grid: every chunk of the whole cache by
// every head (chunks past len write empty partials), so one launch, or
// one recorded graph, serves every position.
func (op AttnOp) SplitGroups() [3]uint32 { return [3]uint32{op.chunks(), max(op.Heads, 1), 1} }

// CombineGroups is AttnCombine's grid: one workgroup per head.
func (op AttnOp) CombineGroups() [3]uint32 { return [3]uint32{max(op.Heads, 1), 1, 1} }

// AttnPartialWords is how many f32 the partials buffer holds.
func (op AttnOp) AttnPartialWords() uint64 {
	return uint64(op.Heads) * uint64(op.chunks()) * (uint64(op.HeadDim) + 4)
}

func (op AttnOp) check(name string) error {
	if op.HeadDim%4 != 0 || op.HeadDim == 0 || op.Heads == 0 || op.Ctx == 0 {
		return fmt.Errorf("shaders: %s: heads = %d, head dim = %d, ctx = %d: want positive sizes, the head dim a multiple of 4: %w", name, op.Heads, op.HeadDim, op.Ctx, ErrShape)
	}
	return nil
}

func groups(g [3]uint32) recorder.Dispatch { return recorder.Groups(g[0], g[1], g[2]) }

// StepParams is the Step uniform's value for the token at pos: pos, pos+1,
// 0, 0. A graph that replays per token binds a Var holding it instead.
func StepParams(pos uint32) recorder.Params { return params([4]uint32{pos, pos + 1, 0, 0}) }

// Launch runs AttnSplit on s; step is the Step uniform (Params, whose pos
// must lie below op.Ctx, or a *Var a graph reads when it replays, kept in
// range by the caller).
func (sh AttnSplitShader) Launch(s *recorder.Stream, qkv, kc, vc, partials *recorder.Buffer, op AttnOp, step recorder.Arg) error {
	if err := op.check(sh.Name); err != nil {
		return err
	}
	d := uint64(op.Heads) * uint64(op.HeadDim)
	return sh.launchStep(s, op, step, groups(op.SplitGroups()),
		operand{"qkv", qkv, 3 * d}, operand{"kc", kc, uint64(op.Ctx) * d}, operand{"vc", vc, uint64(op.Ctx) * d}, operand{"partials", partials, op.AttnPartialWords()})
}

// Launch runs AttnCombine on s; step as AttnSplit's.
func (sh AttnCombineShader) Launch(s *recorder.Stream, partials, out *recorder.Buffer, op AttnOp, step recorder.Arg) error {
	if err := op.check(sh.Name); err != nil {
		return err
	}
	return sh.launchStep(s, op, step, groups(op.CombineGroups()),
		operand{"partials", partials, op.AttnPartialWords()}, operand{"out", out, uint64(op.Heads) * uint64(op.HeadDim)})
}

// checkStep refuses a Step given as Params whose position lies outside
// the cache (pos >= ctx) or whose len is not pos+1: the kernels clamp len
// to ctx, so the token's key and value would be appended nowhere and its
// attention computed over a stale cache. A *Var's value is read at
// replay, where no host check can see it: keeping it in range is the
// caller's.
func checkStep(name string, op AttnOp, step recorder.Arg) error {
	if step == nil {
		return fmt.Errorf("shaders: %s: step is nil: %w", name, wgpu.ErrInvalidArgument)
	}
	p, ok := step.(recorder.Params)
	if !ok {
		return nil
	}
	if len(p) < 8 {
		return fmt.Errorf("shaders: %s: step is %d bytes; Step is pos, len (StepParams): %w", name, len(p), ErrShape)
	}
	pos, n := binary.LittleEndian.Uint32(p), binary.LittleEndian.Uint32(p[4:])
	if pos >= op.Ctx || n != pos+1 {
		return fmt.Errorf("shaders: %s: step pos = %d, len = %d with ctx = %d: want pos below ctx and len = pos+1 (StepParams): %w", name, pos, n, op.Ctx, ErrShape)
	}
	return nil
}

// launchStep is launch for the attention passes: dims, then the step.
func (sh Shader) launchStep(s *recorder.Stream, op AttnOp, step recorder.Arg, d recorder.Dispatch, ops ...operand) error {
	if err := checkStep(sh.Name, op, step); err != nil {
		return err
	}
	return sh.launchArgs(s, fmt.Sprintf("heads = %d, head dim = %d, ctx = %d", op.Heads, op.HeadDim, op.Ctx), d, []recorder.Arg{op.Params(), step}, ops...)
}

// ArgmaxSpan is how many elements one ArgmaxPartial workgroup takes.
const ArgmaxSpan = 1024

// ArgmaxPartial is the first pass of a parallel argmax over n f32: one
// 256-invocation workgroup per ArgmaxSpan elements writes its largest
// value's bits and index (the lowest on a tie; NaN never wins; -Inf and
// -3.4e38 win where nothing is larger) as two u32.
//
// Bindings:
//
//	0  x        storage, read        n f32
//	1  partials storage, read_write  2*ArgmaxGroups(n) u32
//	2  params   uniform              ArgmaxPartialParams
//
// Dispatch ArgmaxDispatch(n).
var ArgmaxPartial = ArgmaxPartialShader{Shader{Name: "argmax_partial", Source: argmaxPartialWGSL, Entry: "argmax_partial"}}

// ArgmaxFinal is the second pass: one workgroup reduces the partials and
// writes the index of the largest (the lowest on a tie) to
// out[outOffset], as a u32: the greedy token, where the next step's
// embedding reads it. Only an input of NaNs alone has none: 0xffffffff.
//
// Bindings:
//
//	0  partials storage, read        2*groups u32
//	1  out      storage, read_write  outOffset+1 u32
//	2  params   uniform              ArgmaxFinalParams
//
// Dispatch Groups(1, 1, 1).
var ArgmaxFinal = ArgmaxFinalShader{Shader{Name: "argmax_final", Source: argmaxFinalWGSL, Entry: "argmax_final"}}

// ArgmaxPartialShader is the type of ArgmaxPartial.
type ArgmaxPartialShader struct{ Shader }

// ArgmaxFinalShader is the type of ArgmaxFinal.
type ArgmaxFinalShader struct{ Shader }

// ArgmaxGroups is how many partials ArgmaxPartial writes for n elements
// (at least one).
func ArgmaxGroups(n uint32) uint32 { return max(ceilDiv(n, ArgmaxSpan), 1) }

// ArgmaxDispatch is ArgmaxPartial's grid for n elements, folded into y
// past 65535 workgroups.
func ArgmaxDispatch(n uint32) [3]uint32 {
	return foldCounts(ArgmaxGroups(n))
}

// ArgmaxPartialParams is ArgmaxPartial's uniform: bytes 0-3 n, 4-15 zero.
func ArgmaxPartialParams(n uint32) recorder.Params { return params([4]uint32{n, 0, 0, 0}) }

// ArgmaxFinalParams is ArgmaxFinal's uniform: bytes 0-3 groups, 4-7
// outOffset, 8-15 zero.
func ArgmaxFinalParams(groups, outOffset uint32) recorder.Params {
	return params([4]uint32{groups, outOffset, 0, 0})
}

// Launch runs the first pass over x's first n f32 on s.
func (sh ArgmaxPartialShader) Launch(s *recorder.Stream, x, partials *recorder.Buffer, n uint32) error {
	return sh.launch(s, fmt.Sprintf("n = %d", n), groups(ArgmaxDispatch(n)), ArgmaxPartialParams(n),
		operand{"x", x, uint64(n)}, operand{"partials", partials, 2 * uint64(ArgmaxGroups(n))})
}

// Launch runs the second pass over the partials of n elements on s.
func (sh ArgmaxFinalShader) Launch(s *recorder.Stream, partials, out *recorder.Buffer, n, outOffset uint32) error {
	g := ArgmaxGroups(n)
	return sh.launch(s, fmt.Sprintf("n = %d", n), recorder.Groups(1, 1, 1), ArgmaxFinalParams(g, outOffset),
		operand{"partials", partials, 2 * uint64(g)}, operand{"out", out, uint64(outOffset) + 1})
}

// F16Pack packs v (of even length) as float16, two to a uint32 with the
// even element in the low half, as MatVecF16 reads them: round to nearest
// even, overflow to ±Inf, small values to subnormals or zero.
func F16Pack(v []float32) []uint32 {
	out := make([]uint32, (len(v)+1)/2)
	for i, f := range v {
		out[i/2] |= uint32(F16Bits(f)) << (16 * (i % 2))
	}
	return out
}

// F16Round is f rounded to float16 and back: the value MatVecF16 reads
// for a weight F16Pack packed.
func F16Round(f float32) float32 { return f16ToF32(F16Bits(f)) }

// F16Bits is f as IEEE 754 binary16, rounded to nearest even.
func F16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case b&0x7fffffff >= 0x7f800000: // Inf or NaN
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - exp)
		h := man >> shift
		rem := man & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent, up to Inf: still correct
	}
	return sign | uint16(h)
}

func f16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		f := float32(man) / (1 << 24)
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}
