// Package shaders holds the WGSL compute kernels shipped with softgraph:
// element-wise arithmetic (AddOne, Scale, Axpy, Add, Mul), a word copy
// between buffer offsets that graphs can record (Copy), a sum reduction
// (Sum), a tiled matrix multiply (MatMul) and the row-wise layers of a
// transformer step (Softmax, RMSNorm, BiasReLU, BiasGELU).
//
// What it owns: the kernel sources (one embedded .wgsl file per kernel), the
// byte layout of each kernel's Params uniform with a typed builder for it, and
// the workgroup counts each kernel expects (ElementwiseGroups, RowGroups,
// MatMulGroups, SumGroups). What it never does: encode, launch or allocate.
// Shader.Compile hands a *wgpu.Kernel to the caller, who launches it on a
// recorder.Stream with buffers of their own.
//
// Every kernel reads its sizes from its Params uniform, never from
// arrayLength, so one compiled kernel serves slices of any length, including
// prefixes of larger (pooled) buffers. Invocations past the sizes read and
// write nothing.
//
// Bindings are all in @group(0), numbered from 0 in the order a launch passes
// its arguments; every buffer holds f32 (Copy moves any 32-bit words). Every Params uniform is 16 bytes of
// little-endian 4-byte words (unused words are zero padding).
//
//	k, err := shaders.AddOne.Compile(dev)
//	...
//	err = s.Launch(k, shaders.ElementwiseGroups(n), src, dst, shaders.AddOneParams(n))
package shaders
