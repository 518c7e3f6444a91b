// Package workloads holds three compute workloads written the way public
// WebGPU samples write their WGSL, run unchanged through softgraph's public
// API: Conway's Game of Life (Life), a separable blur of an rgba8unorm image
// through a sampler and storage textures (Blur), and a bitonic sort of u32
// keys with an atomic swap counter (Sort). Each comes with a Go reference
// (LifeReference, BlurReference, SortReference and BitonicSwaps) that the
// GPU's result equals bit for bit, eagerly and replayed from a graph.
//
// They are the second workload family of examples/graphbench and the engine
// of examples/image, so their API is kept small and stable: a constructor
// taking a *recorder.Stream, methods that only enqueue work (Step, Steps,
// Run) and can therefore be captured with Stream.Capture and replayed, and
// methods that move data (Write, Read, Swaps). Every enqueuing method leaves
// the workload's state where a replay of it expects it, so a graph captured
// from one call can be replayed any number of times:
//
//	life, err := workloads.NewLife(s, 64, 64)
//	...
//	err = life.Write(cells)
//	g, err := s.Capture(func() error { return life.Steps(8) }) // 8 generations ran (the warmup)
//	err = g.Replay()                                           // 8 more
//	cells, err = life.Read()
//
// What the package owns: the WGSL (one embedded .wgsl file per kernel, next
// to the Go that launches it), the buffers and textures a workload allocates
// (released by its Release), and the byte layout of every params uniform.
// What it never does: release kernels (the device caches them for every
// holder; Device.Close frees them), own the stream, the device or the
// caller's textures, or keep graphs (a graph captured from a workload is
// the caller's and pins what it binds, so it stays valid after the
// workload's Release).
//
// Exactness. Life and Sort are integer kernels: any correct GPU matches the
// references exactly. Blur is made exact by design: it samples the nearest
// texel at texel centres (exactly textureLoad's value), turns it back into
// its integer code, weighs codes with binomial coefficients (integers whose
// sum is a power of two) so every sum is an integer below 2^24 and exact in
// f32 whatever the order or fusing of the additions, and rounds to the
// nearest code itself before storing k/255, which WebGPU's unorm8
// conversion (round to nearest of v·255) maps back to k on every backend.
// Turning the sample back into its code is what makes this portable: Mesa's
// llvmpipe (Vulkan and GL) samples code c as c·fl(1/255), one ulp off the
// correctly rounded c/255 for 126 of the 256 codes, so a reference summing
// c/255 in f32 would differ from it in the last bit
// (TestSampledUnorm8CodesRoundTripExactly checks both conversions).
//
// Costs. Life's Step is one dispatch and one copy; Steps(n) is n dispatches
// ping-ponging between two buffers, plus one copy when n is odd. Blur's Run
// is two dispatches. Sort's Run on n = 2^k keys is one reset dispatch and
// k(k+1)/2 sort dispatches, each followed by a copy of its output back to
// its input.
package workloads
