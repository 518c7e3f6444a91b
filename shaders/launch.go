package shaders

import (
	"fmt"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// Each shipped kernel has a type of its own, embedding Shader (Compile,
// Name, Source, Entry work as on any Shader), whose Launch compiles the
// kernel on the stream's device (a cache lookup after the first time),
// checks every buffer against the sizes the call says, and launches it
// with its params and dispatch. A buffer smaller than the elements the
// call covers is refused with an error wrapping wgpu.ErrInvalidArgument
// that names the kernel, the buffer and both sizes: the kernels guard their
// reads and writes by arrayLength, so an undersized buffer would otherwise
// be truncated silently (Add with n = 256 on a 16-byte output wrote 4
// results and returned no error). A larger buffer is fine. Inside a capture
// window Launch records like Stream.Launch.

// AddOneShader is the type of AddOne.
type AddOneShader struct{ Shader }

// CopyShader is the type of Copy.
type CopyShader struct{ Shader }

// ScaleShader is the type of Scale.
type ScaleShader struct{ Shader }

// AxpyShader is the type of Axpy.
type AxpyShader struct{ Shader }

// AddShader is the type of Add.
type AddShader struct{ Shader }

// MulShader is the type of Mul.
type MulShader struct{ Shader }

// SumShader is the type of Sum.
type SumShader struct{ Shader }

// MatMulShader is the type of MatMul.
type MatMulShader struct{ Shader }

// SoftmaxShader is the type of Softmax.
type SoftmaxShader struct{ Shader }

// RMSNormShader is the type of RMSNorm.
type RMSNormShader struct{ Shader }

// BiasReLUShader is the type of BiasReLU.
type BiasReLUShader struct{ Shader }

// BiasGELUShader is the type of BiasGELU.
type BiasGELUShader struct{ Shader }

// operand is one buffer of a launch and the 4-byte words it must hold.
type operand struct {
	name  string
	b     *recorder.Buffer
	words uint64
}

// launch checks the operands and launches sh on s.
func (sh Shader) launch(s *recorder.Stream, what string, d recorder.Dispatch, p recorder.Params, ops ...operand) error {
	return sh.launchArgs(s, what, d, []recorder.Arg{p}, ops...)
}

// launchArgs is launch with the arguments after the buffers given whole
// (a dims uniform and a Step, which may be a *Var).
func (sh Shader) launchArgs(s *recorder.Stream, what string, d recorder.Dispatch, tail []recorder.Arg, ops ...operand) error {
	args, err := sh.operands(s, what, ops)
	if err != nil {
		return err
	}
	return sh.launchWith(s, d, append(args, tail...))
}

// operands checks the stream and every operand, and returns the buffers as
// arguments, in order.
func (sh Shader) operands(s *recorder.Stream, what string, ops []operand) ([]recorder.Arg, error) {
	if s == nil {
		return nil, fmt.Errorf("shaders: %s: stream is nil: %w", sh.Name, wgpu.ErrInvalidArgument)
	}
	args := make([]recorder.Arg, 0, len(ops)+2)
	for _, o := range ops {
		if o.b == nil {
			return nil, fmt.Errorf("shaders: %s: %s is nil: %w", sh.Name, o.name, wgpu.ErrInvalidArgument)
		}
		if need := 4 * o.words; o.b.Size() < need {
			return nil, fmt.Errorf("shaders: %s: %s is %d bytes; %s needs %d (%d f32): %w", sh.Name, o.name, o.b.Size(), what, need, o.words, wgpu.ErrInvalidArgument)
		}
		args = append(args, o.b)
	}
	return args, nil
}

// launchWith compiles sh on s's device and launches it with args.
func (sh Shader) launchWith(s *recorder.Stream, d recorder.Dispatch, args []recorder.Arg) error {
	k, err := sh.Compile(s.Device())
	if err != nil {
		return err
	}
	return s.Launch(k, d, args...)
}

// Launch runs dst[i] = src[i] + 1 for i < n on s; src and dst must hold n
// f32 each.
func (sh AddOneShader) Launch(s *recorder.Stream, src, dst *recorder.Buffer, n uint32) error {
	w := uint64(n)
	return sh.launch(s, fmt.Sprintf("n = %d", n), ElementwiseGroups(n), AddOneParams(n), operand{"src", src, w}, operand{"dst", dst, w})
}

// Launch copies n words from src at word srcOffset to dst at word
// dstOffset on s; src must hold srcOffset+n words and dst dstOffset+n.
func (sh CopyShader) Launch(s *recorder.Stream, src, dst *recorder.Buffer, n, srcOffset, dstOffset uint32) error {
	what := fmt.Sprintf("n = %d at srcOffset %d, dstOffset %d", n, srcOffset, dstOffset)
	return sh.launch(s, what, ElementwiseGroups(n), CopyParams(n, srcOffset, dstOffset),
		operand{"src", src, uint64(srcOffset) + uint64(n)}, operand{"dst", dst, uint64(dstOffset) + uint64(n)})
}

// Launch runs y[i] = a*x[i] for i < n on s; x and y must hold n f32 each.
func (sh ScaleShader) Launch(s *recorder.Stream, x, y *recorder.Buffer, n uint32, a float32) error {
	w := uint64(n)
	return sh.launch(s, fmt.Sprintf("n = %d", n), ElementwiseGroups(n), ScaleParams(n, a), operand{"x", x, w}, operand{"y", y, w})
}

// Launch runs y[i] = a*x[i] + y[i] for i < n on s; x and y must hold n f32
// each.
func (sh AxpyShader) Launch(s *recorder.Stream, x, y *recorder.Buffer, n uint32, a float32) error {
	w := uint64(n)
	return sh.launch(s, fmt.Sprintf("n = %d", n), ElementwiseGroups(n), AxpyParams(n, a), operand{"x", x, w}, operand{"y", y, w})
}

// Launch runs out[i] = a[i] + b[i] for i < n on s; a, b and out must hold
// n f32 each.
func (sh AddShader) Launch(s *recorder.Stream, a, b, out *recorder.Buffer, n uint32) error {
	w := uint64(n)
	return sh.launch(s, fmt.Sprintf("n = %d", n), ElementwiseGroups(n), AddParams(n), operand{"a", a, w}, operand{"b", b, w}, operand{"out", out, w})
}

// Launch runs out[i] = a[i] * b[i] for i < n on s; a, b and out must hold
// n f32 each.
func (sh MulShader) Launch(s *recorder.Stream, a, b, out *recorder.Buffer, n uint32) error {
	w := uint64(n)
	return sh.launch(s, fmt.Sprintf("n = %d", n), ElementwiseGroups(n), MulParams(n), operand{"a", a, w}, operand{"b", b, w}, operand{"out", out, w})
}

// Launch runs one level of the sum reduction of in's first n f32 on s,
// writing SumGroups(n) partial sums to out, which must hold that many.
func (sh SumShader) Launch(s *recorder.Stream, in, out *recorder.Buffer, n uint32) error {
	return sh.launch(s, fmt.Sprintf("n = %d", n), ElementwiseGroups(n), SumParams(n),
		operand{"in", in, uint64(n)}, operand{"out", out, uint64(SumGroups(n))})
}

// Launch runs C = A·B on s for A m×k, B k×n and C m×n (row-major f32).
func (sh MatMulShader) Launch(s *recorder.Stream, a, b, c *recorder.Buffer, m, n, k uint32) error {
	what := fmt.Sprintf("m = %d, n = %d, k = %d", m, n, k)
	return sh.launch(s, what, MatMulGroups(m, n), MatMulParams(m, n, k),
		operand{"a", a, uint64(m) * uint64(k)}, operand{"b", b, uint64(k) * uint64(n)}, operand{"c", c, uint64(m) * uint64(n)})
}

// Launch runs the row-wise softmax of x (rows×cols f32) into y on s.
func (sh SoftmaxShader) Launch(s *recorder.Stream, x, y *recorder.Buffer, rows, cols uint32) error {
	w := uint64(rows) * uint64(cols)
	return sh.launch(s, fmt.Sprintf("rows = %d, cols = %d", rows, cols), RowGroups(rows), SoftmaxParams(rows, cols),
		operand{"x", x, w}, operand{"y", y, w})
}

// Launch runs RMSNorm of x (rows×cols f32) with weight w (cols f32) into y
// on s.
func (sh RMSNormShader) Launch(s *recorder.Stream, x, w, y *recorder.Buffer, rows, cols uint32, eps float32) error {
	n := uint64(rows) * uint64(cols)
	return sh.launch(s, fmt.Sprintf("rows = %d, cols = %d", rows, cols), RowGroups(rows), RMSNormParams(rows, cols, eps),
		operand{"x", x, n}, operand{"w", w, uint64(cols)}, operand{"y", y, n})
}

// Launch runs y = max(x + bias, 0) over rows×cols f32 on s (bias: cols f32).
func (sh BiasReLUShader) Launch(s *recorder.Stream, x, bias, y *recorder.Buffer, rows, cols uint32) error {
	n := uint64(rows) * uint64(cols)
	return sh.launch(s, fmt.Sprintf("rows = %d, cols = %d", rows, cols), ElementwiseGroups(uint32(min(n, 1<<32-1))), BiasReLUParams(rows, cols),
		operand{"x", x, n}, operand{"bias", bias, uint64(cols)}, operand{"y", y, n})
}

// Launch runs y = gelu(x + bias) over rows×cols f32 on s (bias: cols f32).
func (sh BiasGELUShader) Launch(s *recorder.Stream, x, bias, y *recorder.Buffer, rows, cols uint32) error {
	n := uint64(rows) * uint64(cols)
	return sh.launch(s, fmt.Sprintf("rows = %d, cols = %d", rows, cols), ElementwiseGroups(uint32(min(n, 1<<32-1))), BiasGELUParams(rows, cols),
		operand{"x", x, n}, operand{"bias", bias, uint64(cols)}, operand{"y", y, n})
}
