// Package shaders holds the WGSL compute kernels shipped with softgraph:
// element-wise arithmetic ([AddOne], [Scale], [Axpy], [Add], [Mul]), a word
// copy between buffer offsets that graphs can record ([Copy]), a sum
// reduction ([Sum]), a tiled matrix multiply ([MatMul]) and the row-wise
// layers of a transformer step ([Softmax], [RMSNorm], [BiasReLU],
// [BiasGELU]), and the kernels of a decode loop at the memory bandwidth: a
// matrix-vector product with norm prologues and bias, GELU and residual
// epilogues over float32 or packed float16 weights ([MatVec],
// [MatVecF16]), a layer norm with the residual add fused ([LayerNorm]),
// flash-decoding attention over a KV cache ([AttnSplit], [AttnCombine],
// or [AttnProj], the output projection with the combine fused in)
// and a two-pass argmax ([ArgmaxPartial], [ArgmaxFinal]).
//
// # What it owns
//
// The kernel sources (one embedded .wgsl file per kernel), the byte layout
// of each kernel's Params uniform with a typed builder for it ([AddOneParams],
// [MatMulParams], ...), and the workgroup counts each kernel expects
// ([ElementwiseGroups], [RowGroups], [MatMulGroups], [SumGroups]). Its tests
// also hold a corpus of real-world and public WGSL shaders, run on the
// adapter, that exercise the WGSL front end of package wgpu.
//
// # What it never does
//
// It never encodes, launches or allocates. [Shader.Compile] hands a
// [*wgpu.Kernel] to the caller, who launches it on a [recorder.Stream] with
// buffers of their own.
//
// # Costs
//
// [Shader.Compile] costs what [wgpu.Device.Kernel] costs: a compile the first
// time on a device, a cache lookup after that. The Params builders allocate
// one 16-byte slice.
//
// # Layout
//
// Every kernel reads its sizes from its Params uniform (16 bytes; MatVec's
// is 32, and the attention kernels read a second, per-token Step uniform
// that a graph may bind as a *recorder.Var), never from
// arrayLength, so one compiled kernel serves slices of any length, including
// prefixes of larger (pooled) buffers. Invocations past the sizes read and
// write nothing. [MatVecShader.For] is the exception a decode loop wants:
// MatVec's source for one op, its shape written in as constants (launched
// with that op's Params all the same); the same operations in the same
// order, though a compiler may round them differently (its doc says where).
//
// Bindings are all in @group(0), numbered from 0 in the order a launch
// passes its arguments; every buffer holds f32 ([Copy] moves any 32-bit
// words; [MatVecF16]'s weights are packed halves, the argmax passes write
// u32). Every Params uniform is 16 bytes (MatVec's 32) of little-endian 4-byte words
// (unused words are zero padding).
//
//	k, err := shaders.AddOne.Compile(dev)
//	...
//	err = s.Launch(k, shaders.ElementwiseGroups(n), src, dst, shaders.AddOneParams(n))
package shaders
