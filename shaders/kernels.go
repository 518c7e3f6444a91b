package shaders

import (
	_ "embed"
	"math"

	"github.com/softgraph/softgraph/recorder"
)

var (
	//go:embed add_one.wgsl
	addOneWGSL string
	//go:embed copy.wgsl
	copyWGSL string
	//go:embed scale.wgsl
	scaleWGSL string
	//go:embed axpy.wgsl
	axpyWGSL string
	//go:embed add.wgsl
	addWGSL string
	//go:embed mul.wgsl
	mulWGSL string
	//go:embed sum.wgsl
	sumWGSL string
	//go:embed matmul.wgsl
	matMulWGSL string
	//go:embed softmax.wgsl
	softmaxWGSL string
	//go:embed rms_norm.wgsl
	rmsNormWGSL string
	//go:embed bias_relu.wgsl
	biasReLUWGSL string
	//go:embed bias_gelu.wgsl
	biasGELUWGSL string
)

// AddOne computes dst[i] = src[i] + 1 for i < n: the smallest kernel with an
// input, an output and params, used by examples and tests.
//
// Bindings:
//
//	0  src     storage, read        n f32
//	1  dst     storage, read_write  n f32
//	2  params  uniform              AddOneParams
//
// Dispatch ElementwiseGroups(n).
var AddOne = AddOneShader{Shader{Name: "add_one", Source: addOneWGSL, Entry: "add_one"}}

// AddOneParams is AddOne's uniform: bytes 0-3 n (u32), 4-15 zero.
func AddOneParams(n uint32) recorder.Params { return params([4]uint32{n, 0, 0, 0}) }

// Copy computes dst[dstOffset+i] = src[srcOffset+i] for i < n, copying
// 32-bit words bit for bit (any 4-byte element type). It is how a graph
// records a buffer-to-buffer copy: a row of an embedding table into a
// step's input, a slice of one buffer into another.
//
// Bindings:
//
//	0  src     storage, read        words (u32 view)
//	1  dst     storage, read_write  words (u32 view)
//	2  params  uniform              CopyParams
//
// Dispatch ElementwiseGroups(n). Offsets and n count words, not bytes; src
// and dst must be different buffers.
var Copy = CopyShader{Shader{Name: "copy", Source: copyWGSL, Entry: "copy"}}

// CopyParams is Copy's uniform: bytes 0-3 n, 4-7 srcOffset, 8-11 dstOffset
// (all u32, in words), 12-15 zero.
func CopyParams(n, srcOffset, dstOffset uint32) recorder.Params {
	return params([4]uint32{n, srcOffset, dstOffset, 0})
}

// Scale computes y[i] = a * x[i] for i < n.
//
// Bindings:
//
//	0  x       storage, read        n f32
//	1  y       storage, read_write  n f32
//	2  params  uniform              ScaleParams
//
// Dispatch ElementwiseGroups(n).
var Scale = ScaleShader{Shader{Name: "scale", Source: scaleWGSL, Entry: "scale"}}

// ScaleParams is Scale's uniform: bytes 0-3 n (u32), 4-7 a (f32), 8-15 zero.
func ScaleParams(n uint32, a float32) recorder.Params {
	return params([4]uint32{n, math.Float32bits(a), 0, 0})
}

// Axpy computes y[i] = a * x[i] + y[i] for i < n, updating y in place (BLAS
// saxpy).
//
// Bindings:
//
//	0  x       storage, read        n f32
//	1  y       storage, read_write  n f32, read and overwritten
//	2  params  uniform              AxpyParams
//
// Dispatch ElementwiseGroups(n). x and y must be different buffers: a launch
// refuses one buffer bound both read-only and read-write.
var Axpy = AxpyShader{Shader{Name: "axpy", Source: axpyWGSL, Entry: "axpy"}}

// AxpyParams is Axpy's uniform: bytes 0-3 n (u32), 4-7 a (f32), 8-15 zero.
func AxpyParams(n uint32, a float32) recorder.Params {
	return params([4]uint32{n, math.Float32bits(a), 0, 0})
}

// Add computes out[i] = a[i] + b[i] for i < n.
//
// Bindings:
//
//	0  a       storage, read        n f32
//	1  b       storage, read        n f32
//	2  out     storage, read_write  n f32
//	3  params  uniform              AddParams
//
// Dispatch ElementwiseGroups(n).
var Add = AddShader{Shader{Name: "add", Source: addWGSL, Entry: "add"}}

// AddParams is Add's uniform: bytes 0-3 n (u32), 4-15 zero.
func AddParams(n uint32) recorder.Params { return params([4]uint32{n, 0, 0, 0}) }

// Mul computes out[i] = a[i] * b[i] for i < n (the element-wise product).
//
// Bindings:
//
//	0  a       storage, read        n f32
//	1  b       storage, read        n f32
//	2  out     storage, read_write  n f32
//	3  params  uniform              MulParams
//
// Dispatch ElementwiseGroups(n).
var Mul = MulShader{Shader{Name: "mul", Source: mulWGSL, Entry: "mul"}}

// MulParams is Mul's uniform: bytes 0-3 n (u32), 4-15 zero.
func MulParams(n uint32) recorder.Params { return params([4]uint32{n, 0, 0, 0}) }

// Sum is one level of a sum reduction: workgroup w writes
//
//	out[w] = in[w*256] + ... + in[min(n, (w+1)*256) - 1]
//
// reducing its 256 elements as a tree in workgroup memory (workgroup size
// 256). For n = 0 it writes out[0] = 0.
//
// Bindings:
//
//	0  in      storage, read        n f32
//	1  out     storage, read_write  SumGroups(n) f32, the partial sums
//	2  params  uniform              SumParams
//
// Dispatch ElementwiseGroups(n). One launch leaves SumGroups(n) partial sums;
// launching Sum again on them, with n = SumGroups(n) and into another buffer,
// until one is left finishes the reduction (100000 elements: 391 partial
// sums, then 2, then the total). The tree adds in a different order than a
// sequential loop, so f32 results differ from one in the last bits.
var Sum = SumShader{Shader{Name: "sum", Source: sumWGSL, Entry: "sum"}}

// SumParams is Sum's uniform: bytes 0-3 n (u32), 4-15 zero.
func SumParams(n uint32) recorder.Params { return params([4]uint32{n, 0, 0, 0}) }

// MatMul computes C = A · B for row-major f32 matrices A (m×k), B (k×n) and
// C (m×n). Each 16×16 workgroup computes one 16×16 tile of C, one element
// per invocation, staging 16×16 tiles of A and B in workgroup memory so each
// element of A and B is read from storage once per tile instead of once per
// product. Loads past the edges read as zero and invocations past the edges
// write nothing, so any m, n, k work: m = 1 (a decode step's single row) and
// sizes that are not multiples of 16 included. k = 0 writes zeros.
//
// Bindings:
//
//	0  a       storage, read        m*k f32, A row-major
//	1  b       storage, read        k*n f32, B row-major
//	2  c       storage, read_write  m*n f32, C row-major
//	3  params  uniform              MatMulParams
//
// Dispatch MatMulGroups(m, n).
var MatMul = MatMulShader{Shader{Name: "matmul", Source: matMulWGSL, Entry: "matmul"}}

// MatMulParams is MatMul's uniform: bytes 0-3 m, 4-7 n, 8-11 k (u32 each),
// 12-15 zero.
func MatMulParams(m, n, k uint32) recorder.Params { return params([4]uint32{m, n, k, 0}) }

// Softmax computes a row-wise softmax of a rows×cols row-major f32 matrix:
//
//	y[r][c] = exp(x[r][c] - max_j x[r][j]) / sum_j exp(x[r][j] - max_j x[r][j])
//
// Subtracting the row max first keeps exp from overflowing (the result is
// the same in exact arithmetic). One 256-invocation workgroup per row: each
// invocation strides over the row and the workgroup reduces the max, then
// the sum, in workgroup memory.
//
// Bindings:
//
//	0  x       storage, read        rows*cols f32
//	1  y       storage, read_write  rows*cols f32
//	2  params  uniform              SoftmaxParams
//
// Dispatch RowGroups(rows).
var Softmax = SoftmaxShader{Shader{Name: "softmax", Source: softmaxWGSL, Entry: "softmax"}}

// SoftmaxParams is Softmax's uniform: bytes 0-3 rows, 4-7 cols (u32 each),
// 8-15 zero.
func SoftmaxParams(rows, cols uint32) recorder.Params {
	return params([4]uint32{rows, cols, 0, 0})
}

// RMSNorm normalises each row of a rows×cols row-major f32 matrix by its
// root mean square and scales it by a per-column weight (as in LLaMA-style
// transformers):
//
//	y[r][c] = x[r][c] / sqrt(mean_j(x[r][j]^2) + eps) * w[c]
//
// One 256-invocation workgroup per row reduces the sum of squares in
// workgroup memory.
//
// Bindings:
//
//	0  x       storage, read        rows*cols f32
//	1  w       storage, read        cols f32, the weight
//	2  y       storage, read_write  rows*cols f32
//	3  params  uniform              RMSNormParams
//
// Dispatch RowGroups(rows).
var RMSNorm = RMSNormShader{Shader{Name: "rms_norm", Source: rmsNormWGSL, Entry: "rms_norm"}}

// RMSNormParams is RMSNorm's uniform: bytes 0-3 rows, 4-7 cols (u32 each),
// 8-11 eps (f32), 12-15 zero.
func RMSNormParams(rows, cols uint32, eps float32) recorder.Params {
	return params([4]uint32{rows, cols, math.Float32bits(eps), 0})
}

// BiasReLU is a fused bias add and ReLU over a rows×cols row-major f32
// matrix: y[r][c] = max(x[r][c] + bias[c], 0). Fusing saves a launch and a
// round trip of the intermediate through memory.
//
// Bindings:
//
//	0  x       storage, read        rows*cols f32
//	1  bias    storage, read        cols f32
//	2  y       storage, read_write  rows*cols f32
//	3  params  uniform              BiasReLUParams
//
// Dispatch ElementwiseGroups(rows*cols).
var BiasReLU = BiasReLUShader{Shader{Name: "bias_relu", Source: biasReLUWGSL, Entry: "bias_relu"}}

// BiasReLUParams is BiasReLU's uniform: bytes 0-3 rows, 4-7 cols (u32 each),
// 8-15 zero.
func BiasReLUParams(rows, cols uint32) recorder.Params {
	return params([4]uint32{rows, cols, 0, 0})
}

// BiasGELU is a fused bias add and GELU over a rows×cols row-major f32
// matrix: y[r][c] = gelu(x[r][c] + bias[c]), with GELU's tanh approximation
// (as in GPT-2 and BERT):
//
//	gelu(v) = 0.5 * v * (1 + tanh(sqrt(2/π) * (v + 0.044715 * v³)))
//
// It differs from the exact v * Φ(v) by less than 5e-4. The tanh argument is
// clamped to [-10, 10], where tanh is already ±1 in f32, because some drivers
// compute tanh through exp and return NaN for large arguments.
//
// Bindings:
//
//	0  x       storage, read        rows*cols f32
//	1  bias    storage, read        cols f32
//	2  y       storage, read_write  rows*cols f32
//	3  params  uniform              BiasGELUParams
//
// Dispatch ElementwiseGroups(rows*cols).
var BiasGELU = BiasGELUShader{Shader{Name: "bias_gelu", Source: biasGELUWGSL, Entry: "bias_gelu"}}

// BiasGELUParams is BiasGELU's uniform: bytes 0-3 rows, 4-7 cols (u32 each),
// 8-15 zero.
func BiasGELUParams(rows, cols uint32) recorder.Params {
	return params([4]uint32{rows, cols, 0, 0})
}
