package shaders_test

import (
	_ "embed"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// Parallel primitives: sorts (bitonic, radix), scans, reductions,
// histograms, stream compaction, atomics (compare-exchange loops, atomic
// arrays in structs), barriers and workgroupUniformLoad, persistent work
// queues and a spin lock.

// TestParallelSamplesComputeLikeTheirReference: every kernel of parallelSampleCases
// compiles as written and computes what its Go reference does. A refusal
// names the construct the front-end or the compiler could not read; a
// difference is a mis-specialisation.
func TestParallelSamplesComputeLikeTheirReference(t *testing.T) {
	skipIfShort(t)
	d, s := openStream(t)
	for _, tc := range parallelSampleCases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, d, s) })
	}
}

var parallelSampleCases = []sampleCase{
	{"tinygrad: a scalar f32 uniform, nan()/is_nan helpers, attributes glued to var<storage,read_write>, workgroup temp, ridx0++, byte stores with atomicAnd/atomicOr into array<atomic<u32>>, select(..., (v != 7) != true)", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTinygrad
		k := mustKernel(t, d, src, "r_2_16", nil)
		vals := make([]int32, 32)
		for i := range vals {
			vals[i] = int32(lcg(i)>>26) - 20
		}
		vals[5], vals[20] = 7, 7
		d0 := empty(t, s, 32)
		bytes := upU32(t, s, seq(8, func(i int) uint32 { return 0xA5A5A5A5 }))
		launch(t, s, k, recorder.Groups(2, 1, 1), recorder.ParamsOf(float32(math.Inf(1))), d0, upI32(t, s, vals), bytes)
		want := make([]float32, 32)
		wantB := make([]uint32, 8)
		for g := 0; g < 2; g++ {
			var acc float32
			for i := 0; i < 16; i++ {
				acc += float32(vals[g*16+i])
			}
			for i := 0; i < 16; i++ {
				a := g*16 + i
				want[a] = acc
				if vals[a] == 7 {
					want[a] = float32(math.Inf(-1))
				}
				wantB[a>>2] |= uint32(vals[a]) & 0xFF << (uint32(a&3) * 8)
			}
		}
		wantSame(t, "data0", bitsOf(want), bitsOf(read(t, s, d0)))
		wantSame(t, "bytes", wantB, readU32(t, s, bytes))
	}},
	{"WebGPU Fundamentals histogram: luminance of texels, bins = arrayLength of array<atomic<u32>>", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWebgpuFundamentalsHistogram
		k := mustKernel(t, d, src, "cs", nil)
		const w, h, nb = 7, 5, 16
		px := make([]float32, 4*w*h)
		want := make([]uint32, nb)
		for i := 0; i < w*h; i++ {
			bin := int(lcg(i) >> 28) // grey at the centre of its bin: far from any edge
			g := (float32(bin) + 0.5) / nb
			copy(px[4*i:], []float32{g, g, g, 1})
			want[bin]++
		}
		tex, err := s.UploadTexture(recorder.TextureDesc{Width: w, Height: h, Format: "rgba32float"}, asBytesF(px))
		if err != nil {
			t.Fatal(err)
		}
		bins := upU32(t, s, make([]uint32, nb))
		launch(t, s, k, recorder.Groups(8, 8, 1), bins, tex)
		wantSame(t, "bins", want, readU32(t, s, bins))
	}},
	{"WebGPU Fundamentals chunked histogram: workgroup atomics, atomicStore/atomicLoad, array<array<u32, N>>, then a strided reduce over array<array<vec4u, 4>>", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWebgpuFundamentalsChunkedHistogram
		cs := mustKernel(t, d, src, "cs", nil)
		reduce := mustKernel(t, d, src, "reduce", nil)
		const w, h = 8, 8 // four chunks of 4×4
		px := make([]float32, 4*w*h)
		want := make([]uint32, 16)
		for i := 0; i < w*h; i++ {
			bin := int(lcg(i) >> 28)
			copy(px[4*i:], []float32{(float32(bin) + 0.5) / 16, 0, 0, 1})
			want[bin]++
		}
		tex, err := s.UploadTexture(recorder.TextureDesc{Width: w, Height: h, Format: "rgba32float"}, asBytesF(px))
		if err != nil {
			t.Fatal(err)
		}
		chunks := upU32(t, s, seq(4*16, func(int) uint32 { return 0xDEAD })) // cs overwrites every count
		launch(t, s, cs, recorder.Groups(2, 2, 1), chunks, tex)
		launch(t, s, reduce, recorder.Groups(2, 1, 1), chunks, recorder.ParamsOf[uint32](1))
		launch(t, s, reduce, recorder.Groups(1, 1, 1), chunks, recorder.ParamsOf[uint32](2))
		wantSame(t, "histogram in chunk 0", want, readU32(t, s, chunks)[:16])
	}},
	{"Blelloch exclusive scan in workgroup memory with workgroupUniformLoad of the total", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBlellochExclusiveScan
		k := mustKernel(t, d, src, "main", nil)
		in := seq(65, func(i int) uint32 { return lcg(i) >> 20 })
		want := make([]uint32, 65)
		for i := 1; i <= 64; i++ {
			want[i] = want[i-1] + in[i-1]
		}
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "scan and total", want, readU32(t, s, b))
	}},
	{"histogram: workgroup atomics sized by an override, then global atomicAdd", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslHistogram
		k := mustKernel(t, d, src, "main", map[string]float64{"7": 64, "BINS": 32})
		vals := seq(1000, func(i int) uint32 { return lcg(i) >> 7 })
		want := make([]uint32, 32)
		for _, v := range vals {
			want[v%32]++
		}
		h := upU32(t, s, make([]uint32, 32))
		launch(t, s, k, recorder.Groups(16, 1, 1), upU32(t, s, vals), h)
		wantSame(t, "histogram", want, readU32(t, s, h))
	}},
	{"tree reduction with an override workgroup size and shift-assign", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTreeReductionOverride
		k := mustKernel(t, d, src, "reduce", map[string]float64{"BLOCK": 64})
		in := seq(64*8, func(i int) uint32 { return lcg(i) >> 12 })
		want := make([]uint32, 8)
		for i, v := range in {
			want[i/64] += v
		}
		out := empty(t, s, 8)
		launch(t, s, k, recorder.Groups(8, 1, 1), upU32(t, s, in), out)
		wantSame(t, "block sums", want, readU32(t, s, out))
	}},
	{"inclusive prefix scan (Hillis-Steele) with double buffering in workgroup memory", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslInclusivePrefixScan
		k := mustKernel(t, d, src, "scan", nil)
		in := seq(256, func(i int) uint32 { return lcg(i) >> 20 })
		want := slices.Clone(in)
		for i := 1; i < len(want); i++ {
			want[i] += want[i-1]
		}
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "prefix sums", want, readU32(t, s, b))
	}},
	{"bitonic sort of one workgroup with a helper over workgroup memory", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWorkgroupBitonicSort
		k := mustKernel(t, d, src, "sort", nil)
		in := seq(128, func(i int) uint32 { return lcg(i*7) >> 8 })
		want := slices.Clone(in)
		slices.Sort(want)
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "sorted keys", want, readU32(t, s, b))
	}},
	{"radix sort digit pass: count, scan and scatter in one workgroup", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslRadixSortDigitPass
		k := mustKernel(t, d, src, "main", nil)
		in := seq(64, func(i int) uint32 { return lcg(i) })
		want := slices.Clone(in)
		sort.SliceStable(want, func(a, b int) bool { return (want[a]>>4)&15 < (want[b]>>4)&15 })
		out := empty(t, s, 64)
		launch(t, s, k, recorder.Groups(1, 1, 1), recorder.ParamsOf[uint32](4, 0, 0, 0), upU32(t, s, in), out)
		wantSame(t, "keys after the digit pass", want, readU32(t, s, out))
	}},
	{"atomicCompareExchangeWeak loop builds an atomic float max", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslAtomicFloatMax
		if d.Info().Backend == wgpu.BackendGL {
			// naga v22's GLSL writer has no spelling for the result struct
			// of atomicCompareExchangeWeak; the kernel must be refused with
			// that diagnostic, not abort the process.
			if _, err := d.Kernel(src, "main"); err == nil {
				t.Fatal("Kernel compiled atomicCompareExchangeWeak on OpenGL; this test expects naga v22's refusal — run the comparison")
			} else {
				t.Skipf("OpenGL: naga v22 cannot write atomicCompareExchangeWeak's result struct in GLSL (%.80s...)", err)
			}
		}
		k := mustKernel(t, d, src, "main", nil)
		xs := seqF(300, func(i int) float32 { return float32(lcg(i)>>8) / 1000 })
		best := upU32(t, s, []uint32{0})
		launch(t, s, k, recorder.Groups(5, 1, 1), upload(t, s, xs), best)
		wantSame(t, "max", []uint32{math.Float32bits(slices.Max(xs))}, readU32(t, s, best))
	}},
	{"atomicMax, atomicMin and atomicSub on i32 with negative abstract operands", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		// Each invocation's atomicLoad must see its own atomicOr; the
		// exchange stores one value every invocation agrees on (an exchange
		// of a loaded value would race with the other invocations' ors).
		src := wgslAtomicI32NegativeOperands
		k := mustKernel(t, d, src, "main", nil)
		xs := make([]int32, 64)
		for i := range xs {
			xs[i] = int32(lcg(i)) >> 4
		}
		st := upI32(t, s, []int32{math.MinInt32, math.MaxInt32, 0, 0, 0, 0})
		launch(t, s, k, recorder.Groups(2, 1, 1), upI32(t, s, xs), st)
		wantSame(t, "stats", []int32{slices.Max(xs), slices.Min(xs), -64, -1, 64, 0x55}, readI32(t, s, st))
	}},
	{"workgroupUniformLoad broadcasts a value chosen by one invocation", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWorkgroupUniformLoadBroadcast
		k := mustKernel(t, d, src, "main", nil)
		in := seq(96, func(i int) uint32 { return uint32(i) })
		want := seq(96, func(i int) uint32 { return uint32(i) + uint32(i/32*32)*2 })
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(3, 1, 1), b)
		wantSame(t, "data", want, readU32(t, s, b))
	}},
	{"stream compaction with a workgroup atomic counter and vec4<bool> any/all", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslStreamCompaction
		k := mustKernel(t, d, src, "main", nil)
		xs := make([]int32, 256)
		for i := range xs {
			xs[i] = int32(lcg(i)>>29) - 5
		}
		var want []uint32
		for i := 0; i < 64; i++ {
			v := xs[4*i : 4*i+4]
			if slices.Min(v) > -5 && slices.Contains(v, 0) {
				want = append(want, uint32(i))
			}
		}
		keep, cnt := empty(t, s, 64), empty(t, s, 1)
		launch(t, s, k, recorder.Groups(1, 1, 1), upI32(t, s, xs), keep, cnt)
		c := readU32(t, s, cnt)[0]
		got := slices.Sorted(slices.Values(readU32(t, s, keep)[:min(c, 64)]))
		wantSame(t, "kept indices", want, got, cmpopts.EquateEmpty())
	}},
	{"softmax of a row: workgroup max and sum reductions, exp within tolerance", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslSoftmaxOfARow
		k := mustKernel(t, d, src, "softmax", nil)
		in := seqF(64, func(i int) float32 { return float32(lcg(i)>>26) / 8 })
		m := slices.Max(in)
		var sum float64
		for _, x := range in {
			sum += math.Exp(float64(x - m))
		}
		want := seqF(64, func(i int) float32 { return float32(math.Exp(float64(in[i]-m)) / sum) })
		b := upload(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "softmax", want, read(t, s, b), near(1e-4))
	}},
}

// ---------------------------------------------------------------------------
// wgpu examples/hello_synchronization.

//go:embed testdata/wgsl/wgpu_hello_synchronization.wgsl
var wgpuHelloSynchronization string

// TestHelloSynchronizationComputesLikeItsReference: with the barrier the first
// invocation sees all 16 increments of the workgroup counter; without it,
// at least its own and at most 16 (workgroup memory starts at zero in each
// dispatch).
func TestHelloSynchronizationComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	patient := mustKernel(t, d, wgpuHelloSynchronization, "patient_main", nil)
	hasty := mustKernel(t, d, wgpuHelloSynchronization, "hasty_main", nil)
	for round := 0; round < 3; round++ {
		out := upU32(t, s, []uint32{0xdead})
		launch(t, s, patient, recorder.Groups(1, 1, 1), out)
		wantSame(t, "patient count", []uint32{16}, readU32(t, s, out))
		launch(t, s, hasty, recorder.Groups(1, 1, 1), out)
		if got := readU32(t, s, out)[0]; got < 1 || got > 16 {
			t.Errorf("hasty count = %d, want 1..16", got)
		}
	}
}

// ---------------------------------------------------------------------------
// webgpu-samples bitonicSort: the NaiveBitonicCompute shader for a
// workgroup size of 8, stepped by the host through local and global flips
// and disperses, output copied back to input between steps.

//go:embed testdata/wgsl/webgpu_samples_bitonic.wgsl
var webgpuSamplesBitonic string

type bitonicUniforms struct {
	Width, Height     float32
	Algo, BlockHeight uint32
}

// TestWebGPUSamplesBitonicSortComputesLikeItsReference: the host-driven schedule sorts 64
// keys (ties included) and the swap counter, bumped only by local steps,
// equals the reference's count of local swaps.
func TestWebGPUSamplesBitonicSortComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, webgpuSamplesBitonic, "computeMain", nil)
	const n, span = 64, 16 // elements; elements one workgroup holds
	keys := seq(n, func(i int) uint32 { return lcg(i*7+3) >> 26 })
	ref := append([]uint32(nil), keys...)
	localSwaps := uint32(0)
	in := upU32(t, s, keys)
	out := upU32(t, s, keys)
	counter := upU32(t, s, []uint32{0})
	step := func(flip bool, height uint32) {
		algo := uint32(3)
		if !flip {
			algo = 4
		}
		if height <= span {
			algo -= 2
		}
		if err := s.Copy(in, 0, out, 0, 4*n); err != nil {
			t.Fatal(err)
		}
		launch(t, s, k, recorder.Groups(n/span, 1, 1), in, out, paramsOf(t, bitonicUniforms{8, 8, algo, height}), counter)
		for id := uint32(0); id < n/2; id++ {
			off := (2 * id / height) * height
			half := height / 2
			a, b := id%half+off, id%half+half+off
			if flip {
				b = height - id%half - 1 + off
			}
			if ref[b] < ref[a] {
				ref[a], ref[b] = ref[b], ref[a]
				if algo <= 2 {
					localSwaps++
				}
			}
		}
	}
	for k := uint32(2); k <= n; k *= 2 {
		step(true, k)
		for j := k / 2; j >= 2; j /= 2 {
			step(false, j)
		}
	}
	sorted := append([]uint32(nil), keys...)
	for i := range sorted {
		for j := i + 1; j < len(sorted); j++ {
			if sorted[j] < sorted[i] {
				sorted[i], sorted[j] = sorted[j], sorted[i]
			}
		}
	}
	wantSame(t, "the reference schedule sorts", sorted, ref)
	wantSame(t, "sorted keys", ref, readU32(t, s, out))
	wantSame(t, "local swaps counted", []uint32{localSwaps}, readU32(t, s, counter))
}

// ---------------------------------------------------------------------------
// kishimisu/WebGPU-Radix-Sort's prefix sum: overrides without defaults in
// @workgroup_size and a workgroup array size, 2D workgroups flattened with
// local_invocation_index, select(items[i], 0, ...), d >>= 1.

//go:embed testdata/wgsl/kishimisu_prefix_sum.wgsl
var kishimisuPrefixSum string

// TestOverrideSizedPrefixSumComputesLikeItsReference: the two-level scan (scan each block of
// 128, scan the block sums in one workgroup, add them back) gives the
// exclusive prefix sum of 1000 keys, wrapping as u32 does; the workgroup
// size reported is the overrides'.
func TestOverrideSizedPrefixSumComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	consts := func(n int) map[string]float64 {
		return map[string]float64{"WORKGROUP_SIZE_X": 8, "WORKGROUP_SIZE_Y": 8, "THREADS_PER_WORKGROUP": 64,
			"ITEMS_PER_WORKGROUP": 128, "ELEMENT_COUNT": float64(n)}
	}
	const n = 1000
	const blocks = (n + 127) / 128
	scan := mustKernel(t, d, kishimisuPrefixSum, "reduce_downsweep", consts(n))
	if got := scan.WorkgroupSize(); got != [3]uint32{8, 8, 1} {
		t.Errorf("WorkgroupSize() = %v, want [8 8 1]", got)
	}
	scanSums := mustKernel(t, d, kishimisuPrefixSum, "reduce_downsweep", consts(blocks))
	add := mustKernel(t, d, kishimisuPrefixSum, "add_block_sums", consts(n))
	in := seq(n, func(i int) uint32 { return lcg(i) >> 4 })
	items := upU32(t, s, in)
	sums := empty(t, s, blocks)
	total := empty(t, s, 1)
	launch(t, s, scan, recorder.Groups(blocks, 1, 1), items, sums)
	launch(t, s, scanSums, recorder.Groups(1, 1, 1), sums, total)
	launch(t, s, add, recorder.Groups(blocks, 1, 1), items, sums)
	want := make([]uint32, n)
	acc := uint32(0)
	for i, v := range in {
		want[i] = acc
		acc += v
	}
	wantSame(t, "exclusive scan", want, readU32(t, s, items))
	wantSame(t, "grand total", []uint32{acc}, readU32(t, s, total))
}

// ---------------------------------------------------------------------------
// A persistent-threads work queue: each workgroup's first invocation takes
// the next item from a global atomic into a workgroup atomic, and the
// workgroup reads it with workgroupUniformLoad's atomic overload (WGSL §
// 17.11.4: workgroupUniformLoad(p: ptr<workgroup, atomic<T>, read_write>)
// -> T), so the loop exit and its barriers stay uniform. naga v22
// alone lacks that overload ("Incompatible operands:
// GreaterEqual(Atomic(...), _)"); the front end calls a helper that
// loads the atomic between barriers into a workgroup temporary and returns
// workgroupUniformLoad of it.

//go:embed testdata/wgsl/persistent_queue.wgsl
var persistentQueue string

// TestPersistentWorkQueueDrainsEveryItem: three workgroups
// drain a queue of 11 row sums; each sum is the reference's and the head
// ends past the queue by one per workgroup.
func TestPersistentWorkQueueDrainsEveryItem(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, persistentQueue, "persistent", nil)
	const rowsN, itemsN = 16, 11
	data := seq(rowsN*64, func(i int) uint32 { return lcg(i) >> 8 })
	items := seq(itemsN, func(i int) uint32 { return uint32(i*5+3) % rowsN })
	head := upU32(t, s, []uint32{0})
	sums := empty(t, s, itemsN)
	launch(t, s, k, recorder.Groups(3, 1, 1), head, upU32(t, s, items), upU32(t, s, data), sums)
	want := make([]uint32, itemsN)
	for i, r := range items {
		for j := 0; j < 64; j++ {
			want[i] += data[int(r)*64+j]
		}
	}
	wantSame(t, "row sums", want, readU32(t, s, sums))
	wantSame(t, "queue head", []uint32{itemsN + 3}, readU32(t, s, head))
}

// ---------------------------------------------------------------------------
// workgroupUniformLoad's atomic overload in every argument form the
// front-end rewrites: a whole workgroup atomic, an array element at a run
// time u32 index and at a constant one, a struct member of an array
// element at an i32 index; its result as a for loop's trip count, and
// re-read as a while loop's condition, with barriers inside both.

//go:embed testdata/wgsl/atomic_uniform_load_forms.wgsl
var atomicUniformLoadForms string

// TestAtomicUniformLoadFormsReadEveryCounter: two workgroups of 64 read every
// counter as the Go reference computes it once all 64 added (the sum of
// 0..63, 16 adds of 1 + workgroup per slot, 64 hits, -2016), run the for
// loop 1 + workgroup times and the while loop 5 times.
func TestAtomicUniformLoadFormsReadEveryCounter(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, atomicUniformLoadForms, "main", nil)
	const groups = 2
	out := empty(t, s, groups*64*6)
	launch(t, s, k, recorder.Groups(groups, 1, 1), upU32(t, s, []uint32{2, 1}), out)
	var want []uint32
	for wg := uint32(0); wg < groups; wg++ {
		rounds := 1 + wg // slot (2 + 1) % 4 holds 16 * (1 + wg)
		delta := int32(-2016)
		for li := uint32(0); li < 64; li++ {
			acc := rounds*li + rounds*(rounds-1)/2
			want = append(want, 2016, 16*(1+wg), 64, uint32(delta), acc, 5)
		}
	}
	wantSame(t, "per invocation: total, slot, hits, delta, for-loop sum, while-loop count", want, readU32(t, s, out))
}

// ---------------------------------------------------------------------------
// Bevy, crates/bevy_post_process/src/auto_exposure/auto_exposure.wgsl: a
// luminance histogram weighted by a metering mask, built in a workgroup
// array of atomics cleared by plain assignment (`histogram_shared[i] =
// 0u;`, which naga accepts for atomics), then its average. The two
// `#import`s are replaced by the declarations they bring that this module
// names: Globals as bevy_render::globals has it, and View reduced to a
// matrix and the ColorGrading member compute_average writes (Bevy's View
// has thirty-odd members).

//go:embed testdata/wgsl/bevy_auto_exposure.wgsl
var bevyAutoExposure string

// TestBevyAutoExposureHistogramComputesLikeItsReference: compute_histogram over a 20×12
// HDR image (two 16×16 workgroups) and an 8×8 metering mask adds, per
// pixel, the mask's weight (0, 4, 8 or 16) to the pixel's luminance bin;
// the pixels are drawn so that no luminance lies within 1e-3 of a bin
// edge, and none reaches bin 63 (the 192 invocations past bin 63 read
// histogram_shared and add to histogram out of bounds; naga's bounds
// checks keep those accesses in the arrays, so with bin 63 empty they add
// nothing). compute_average compiles (it
// reads a texture_1d, which no recorder texture fills: on OpenGL Kernel
// refuses it naming texture_1d).
func TestBevyAutoExposureHistogramComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, bevyAutoExposure, "compute_histogram", nil, "a workgroup atomic array cleared by assignment")
	if _, err := d.Kernel(bevyAutoExposure, "compute_average"); err != nil && !(isGL(d) && strings.Contains(err.Error(), "texture_1d")) {
		t.Errorf("Kernel(compute_average) refused valid WGSL (histogram[i] = 0u on a storage atomic): %v", err)
	}
	const w, h, minLog, logRange = 20, 12, -8.0, 12.0
	r := fixedRand(4)
	lumW := [3]float64{0.2125, 0.7154, 0.0721}
	color := make([]float32, 4*w*h)
	bins := make([]int, w*h)
	for p := 0; p < w*h; p++ {
		for {
			var lum float64
			for c := 0; c < 3; c++ {
				color[4*p+c] = float32(math.Exp2(-11 + 14.5*r.Float64()))
				lum += float64(color[4*p+c]) * lumW[c]
			}
			if lum < math.Exp2(minLog) {
				if lum < math.Exp2(minLog)*(1-1e-4) {
					bins[p] = 0
					break
				}
				continue
			}
			tt := math.Min(1, (math.Log2(lum)-minLog)/logRange)*62 + 1
			if f := tt - math.Floor(tt); f > 1e-3 && f < 1-1e-3 && tt < 63 {
				bins[p] = int(tt)
				break
			}
		}
		color[4*p+3] = 1
	}
	mask := make([]float32, 64)
	for i := range mask {
		mask[i] = []float32{0, 0.25, 0.5, 1}[r.IntN(4)]
	}
	want := make([]uint32, 64)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			mx := int(float32(x) / float32(w) * 8)
			my := int(float32(y) / float32(h) * 8)
			want[bins[y*w+x]] += uint32(mask[my*8+mx] * 16)
		}
	}
	ctex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "rgba32float"}, asBytesF(color))
	mtex := newTex(t, s, recorder.TextureDesc{Width: 8, Height: 8, Format: "r32float"}, asBytesF(mask))
	settings := recorder.ParamsOf[float32](minLog, 1/logRange, logRange, 0.1, 0.9, 3, 1, 1.5)
	hist := upU32(t, s, make([]uint32, 64))
	launch(t, s, k, recorder.Groups(2, 1, 1), settings, ctex, mtex, hist)
	wantSame(t, "histogram", want, readU32(t, s, hist))
}

// ---------------------------------------------------------------------------
// AsherJingkongChen/gausplat-renderer, radix_sort_scatter_key.wgsl: one
// scatter pass of an LSD radix sort. RADIX and RADIX_BIT_MASK are used in
// the bindings and @workgroup_size before their declarations, RADIX from
// RADIX_BIT_COUNT declared after it; `key >> arguments.radix_bit_offset &
// RADIX_BIT_MASK` relies on naga's precedence (WGSL's grammar wants
// parentheses; the author's wgpu compiles it as (key >> off) & mask).

//go:embed testdata/wgsl/gausplat_radix_scatter.wgsl
var gausplatRadixScatter string

// TestGausplatRadixScatterComputesLikeItsReference: four passes (bit offsets 0, 8, 16,
// 24) over 1000 keys, each after the host's exclusive scan of the
// pass's digit counts: every pass puts each digit's keys in that digit's
// range (their order within it is the atomics' order, so each range is
// compared as a sorted multiset), and the offsets end at the scan's next
// offsets.
func TestGausplatRadixScatterComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, gausplatRadixScatter, "main", nil, "constants used before their declaration, >> and & unparenthesised")
	if got := k.WorkgroupSize(); got != [3]uint32{256, 1, 1} {
		t.Errorf("workgroup size = %v, want [256 1 1]", got)
	}
	keys := seq(1000, func(i int) uint32 { return lcg(i) ^ lcg(i)>>13 })
	for _, off := range []uint32{0, 8, 16, 24} {
		var count [256]uint32
		for _, key := range keys {
			count[key>>off&255]++
		}
		offsets := make([]uint32, 256)
		for i := 1; i < 256; i++ {
			offsets[i] = offsets[i-1] + count[i-1]
		}
		ro := upU32(t, s, offsets)
		out := empty(t, s, len(keys))
		launch(t, s, k, recorder.Groups(4, 1, 1), upU32(t, s, []uint32{off}), upU32(t, s, keys), out, ro)
		got := readU32(t, s, out)
		wantEnd := make([]uint32, 256)
		for i := range wantEnd {
			wantEnd[i] = offsets[i] + count[i]
		}
		wantSame(t, "offsets after the pass", wantEnd, readU32(t, s, ro))
		for dgt := 0; dgt < 256; dgt++ {
			var want []uint32
			for _, key := range keys {
				if key>>off&255 == uint32(dgt) {
					want = append(want, key)
				}
			}
			seg := slices.Clone(got[offsets[dgt] : offsets[dgt]+count[dgt]])
			slices.Sort(want)
			slices.Sort(seg)
			if !slices.Equal(want, seg) {
				t.Errorf("pass %d digit %d: keys %v, want %v", off, dgt, seg, want)
			}
		}
		// The next pass sorts this pass's output, stably or not: only the
		// digit ranges are checked.
		keys = got
	}
}

// ---------------------------------------------------------------------------
// AmesingFlank/LightSalon, histogram_compute.wgsl: per-channel and luma
// histograms in one storage struct of four atomic arrays sized by a u32
// const, one invocation per pixel.

//go:embed testdata/wgsl/light_salon_histogram.wgsl
var lightSalonHistogram string

// TestLightSalonHistogramComputesLikeItsReference: a 16×8 image whose channels go below 0
// and above 1 (clamped into the first and last bins) fills the four
// histograms as the reference does; channel values and lumas are drawn
// away from bin edges (1e-3 of a bin).
func TestLightSalonHistogramComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, lightSalonHistogram, "cs_main", nil, "a struct of atomic arrays sized by a const")
	const w, h = 16, 8
	r := fixedRand(5)
	away := func(v float64) bool { f := v*63 - math.Floor(v*63); return f > 1e-3 && f < 1-1e-3 }
	px := make([]float32, 4*w*h)
	want := make([]uint32, 4*64)
	for p := 0; p < w*h; p++ {
		for {
			var c [3]float64
			ok := true
			for i := range c {
				v := -0.2 + 1.4*r.Float64()
				px[4*p+i] = float32(v)
				c[i] = math.Min(1, math.Max(0, float64(float32(v))))
				ok = ok && (away(c[i]) || c[i] == 0 || c[i] == 1)
			}
			luma := c[0]*0.2126 + c[1]*0.7152 + c[2]*0.0722
			if !ok || !away(luma) {
				continue
			}
			for i := range c {
				want[64*i+int(c[i]*63)]++
			}
			want[192+int(luma*63)]++
			break
		}
		px[4*p+3] = 1
	}
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "rgba32float"}, asBytesF(px))
	out := upU32(t, s, make([]uint32, 4*64))
	launch(t, s, k, recorder.Groups(w, h, 1), tex, out)
	wantSame(t, "r, g, b and luma histograms", want, readU32(t, s, out))
}

// ---------------------------------------------------------------------------
// linebender/vello, vello_shaders/shader/draw_reduce.wgsl: each workgroup
// reduces its share of the draw-tag blocks to one DrawMonoid (a struct
// built by TagMonoid() zero constructors, combined by a helper returning
// a struct) with a Hillis-Steele loop bounded by firstTrailingBit(WG_SIZE)
// of a u32 const, u32(bool), and a u32 divided by a const. vello's
// `#import config`, `#import drawtag` and `#import util` are replaced by
// the declarations they hold that this shader uses: the Config struct
// (config.wgsl's module-scope `let` tile constants, unused here, left
// out), drawtag.wgsl (all of it) and util.wgsl's read_draw_tag_from_scene.

//go:embed testdata/wgsl/vello_draw_reduce.wgsl
var velloDrawReduce string

// TestVelloDrawReduceComputesLikeItsReference: 3000 draw objects of random draw tags at
// drawtag_base 5 (12 blocks of 256, one per workgroup) reduce to each
// workgroup's sum of the tags' monoids, and with cancelled set nothing is
// written; off OpenGL, 70000 objects (274 blocks: the 256 workgroups take
// one each and the first 18 a second) too.
func TestVelloDrawReduceComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, velloDrawReduce, "main", nil, "firstTrailingBit(WG_SIZE) loop bound, u32(bool), struct monoids")
	tags := []uint32{0, 0x44, 0x114, 0x29c, 0x254, 0x28c, 0x2d4, 0x9, 0x21}
	r := fixedRand(6)
	run := func(n, base, wgs int, cancelled uint32) {
		t.Helper()
		scene := make([]uint32, base+n+300)
		for i := range scene {
			scene[i] = tags[r.IntN(len(tags))]
		}
		cfg := make([]uint32, 22)
		cfg[5], cfg[11], cfg[15] = uint32(n), uint32(base), cancelled
		out := upU32(t, s, slices.Repeat([]uint32{7}, 4*wgs))
		launch(t, s, k, recorder.Groups(uint32(wgs), 1, 1), recorder.ParamsOf(cfg...), upU32(t, s, scene), out)
		blocks := (n + 255) / 256
		want := slices.Repeat([]uint32{7}, 4*wgs)
		for wg := 0; wg < wgs && cancelled == 0; wg++ {
			first := blocks/256*wg + min(wg, blocks%256)
			nb := blocks / 256
			if wg < blocks%256 {
				nb++
			}
			clear(want[4*wg : 4*wg+4])
			for ix := first * 256; ix < (first+nb)*256 && ix < n; ix++ {
				tag := scene[base+ix]
				if tag != 0 {
					want[4*wg]++
				}
				want[4*wg+1] += tag & 1
				want[4*wg+2] += tag >> 2 & 7
				want[4*wg+3] += tag >> 6 & 15
			}
		}
		wantSame(t, "reduced DrawMonoids", want, readU32(t, s, out))
	}
	run(3000, 5, 12, 0) // 12 blocks: one each
	run(3000, 5, 12, 1) // cancelled: nothing written
	if !isGL(d) {       // llvmpipe's OpenGL takes seconds over 256 workgroups
		run(70000, 5, 256, 0)
	}
}

// ---------------------------------------------------------------------------
// gfx-rs/wgpu, examples/hello-workgroups: two invocations per workgroup,
// each bumping one of two i32 arrays by an abstract 1 through +=.

//go:embed testdata/wgsl/wgpu_hello_workgroups.wgsl
var wgpuHelloWorkgroups string

// TestHelloWorkgroupsComputesLikeItsReference: the example's 100 workgroups over a =
// 0..99 and b = 0, -1, ...: each element is one greater, including
// negative ones and MaxInt32-1.
func TestHelloWorkgroupsComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, wgpuHelloWorkgroups, "main", nil, "i32 += abstract 1")
	a := make([]int32, 100)
	b := make([]int32, 100)
	for i := range a {
		a[i], b[i] = int32(i), -int32(i)
	}
	a[99] = math.MaxInt32 - 1
	ab, bb := upI32(t, s, a), upI32(t, s, b)
	launch(t, s, k, recorder.Groups(100, 1, 1), ab, bb)
	for i := range a {
		a[i]++
		b[i]++
	}
	wantSame(t, "a", a, readI32(t, s, ab))
	wantSame(t, "b", b, readI32(t, s, bb))
}

// ---------------------------------------------------------------------------
// kishimisu/WebGPU-Radix-Sort, src/shaders/radix_sort.js: the per-block
// 4-way split (its prefix sum is TestOverrideSizedPrefixSumComputesLikeItsReference):
// six overrides without defaults, a workgroup array sized 2 *
// (THREADS_PER_WORKGROUP + 1), a function array<u32, 4>(0, 0, 0, 0)
// indexed by a run-time digit, double-buffered offsets swapped by TPW -
// swapOffset, min(...) - 1 of overrides.

//go:embed testdata/wgsl/kishimisu_radix_sort.wgsl
var kishimisuRadixSort string

// TestRadixSplitComputesLikeItsReference: 180 keys in three blocks of 8×8; each
// key's local prefix is the number of earlier keys of its block with the
// same digit (bits 2–3), and each block sum the digit's count among the
// block's keys, bit for bit.
func TestRadixSplitComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	const wx, wy, groups, n, bit = 8, 8, 3, 180, 2
	const tpw = wx * wy
	k := sampleKernel(t, d, kishimisuRadixSort, "radix_sort", map[string]float64{
		"WORKGROUP_COUNT": groups, "THREADS_PER_WORKGROUP": tpw, "WORKGROUP_SIZE_X": wx,
		"WORKGROUP_SIZE_Y": wy, "CURRENT_BIT": bit, "ELEMENT_COUNT": n,
	}, "overrides without defaults in a workgroup array size and @workgroup_size")
	keys := seq(groups*tpw, func(i int) uint32 {
		if i >= n {
			return 0
		}
		return lcg(i) >> 7
	})
	local, blocks := empty(t, s, len(keys)), empty(t, s, 4*groups)
	launch(t, s, k, recorder.Groups(groups, 1, 1), upU32(t, s, keys), local, blocks)
	wantLocal := make([]uint32, len(keys))
	wantBlocks := make([]uint32, 4*groups)
	for g := 0; g < groups; g++ {
		var cnt [4]uint32
		last := min(tpw, n-g*tpw) - 1
		for tid := 0; tid < tpw; tid++ {
			dgt := keys[g*tpw+tid] >> bit & 3
			wantLocal[g*tpw+tid] = cnt[dgt]
			cnt[dgt]++
			if tid == last {
				for b := 0; b < 4; b++ {
					wantBlocks[b*groups+g] = cnt[b]
				}
			}
		}
	}
	wantSame(t, "local prefix sums", wantLocal, readU32(t, s, local))
	wantSame(t, "block sums", wantBlocks, readU32(t, s, blocks))
}

// ---------------------------------------------------------------------------
// google-research/google-research, brush_splat/crates/brush-prefix-sum/
// src/shaders/: prefix_sum_helpers.wgsl (a Hillis–Steele scan of 512 in a
// helper that ends writing a storage array, arrayLength of a read_write
// array) composed with prefix_sum_scan.wgsl and with
// prefix_sum_add_scanned_sums.wgsl the way naga_oil composes their
// "#import prefix_sum_helpers as helpers": the helper module's text first,
// the "helpers::" qualifiers dropped.

//go:embed testdata/wgsl/brush_prefix_sum_helpers.wgsl
var brushPrefixSumHelpers string

//go:embed testdata/wgsl/brush_prefix_sum_scan.wgsl
var brushPrefixSumScan string

//go:embed testdata/wgsl/brush_add_scanned_sums.wgsl
var brushAddScannedSums string

// composeModule joins a naga_oil module and its "helpers" import.
func composeModule(helpers, main string) string {
	main = strings.Replace(main, "#import prefix_sum_helpers as helpers\n", "", 1)
	return helpers + "\n" + strings.ReplaceAll(main, "helpers::", "")
}

// TestBrushPrefixSumComputesLikeItsReference: 700 values scanned inclusively per block of
// 512, then the exclusive scan of the block totals added per block (the
// host step brush runs with prefix_sum_scan_sums in between is done here
// in Go): the whole inclusive scan, bit for bit.
func TestBrushPrefixSumComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	scan := sampleKernel(t, d, composeModule(brushPrefixSumHelpers, brushPrefixSumScan), "main", nil,
		"a const u32 workgroup size of 512, arrayLength of a read_write array in a helper")
	add := sampleKernel(t, d, composeModule(brushPrefixSumHelpers, brushAddScannedSums), "main", nil, "")
	const n = 700
	in := seq(n, func(i int) uint32 { return lcg(i) >> 24 })
	out := empty(t, s, n)
	launch(t, s, scan, recorder.Groups(2, 1, 1), upU32(t, s, in), out)
	got := readU32(t, s, out)
	want := make([]uint32, n)
	var run uint32
	for i, v := range in {
		if i%512 == 0 {
			run = 0
		}
		run += v
		want[i] = run
	}
	wantSame(t, "block scans", want, got)
	// The totals of the blocks before each block, then the add pass.
	offs := []uint32{0, got[511]}
	whole := upU32(t, s, got)
	launch(t, s, add, recorder.Groups(2, 1, 1), upU32(t, s, offs), whole)
	run = 0
	for i, v := range in {
		run += v
		want[i] = run
	}
	wantSame(t, "whole scan", want, readU32(t, s, whole))
}

// ---------------------------------------------------------------------------
// playcanvas/engine, examples/src/examples/compute/
// histogram.compute-shader.wgsl: one invocation per texel of a sampled
// texture_2d<f32> read by textureLoad with a vec2u, saturate of a dot, the
// bin count from arrayLength of an atomic array, u32(numBins - 1) of an f32.

//go:embed testdata/wgsl/playcanvas_histogram.wgsl
var playcanvasHistogram string

// TestPlayCanvasHistogramComputesLikeItsReference: a 16×12 rgba8unorm image of greys
// (luminance k/255, never within 0.003 of a bin edge) into 16 bins, bit
// for bit.
func TestPlayCanvasHistogramComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, playcanvasHistogram, "main", nil, "textureLoad of a texture_2d with vec2u, u32(f32 - 1)")
	const w, h, nb = 16, 12, 16
	raw := make([]byte, 4*w*h)
	want := make([]uint32, nb)
	for i := 0; i < w*h; i++ {
		g := byte(lcg(i) >> 24)
		copy(raw[4*i:], []byte{g, g, g, 255})
		want[min(int(g)*nb/255, nb-1)]++
	}
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "rgba8unorm"}, raw)
	bins := empty(t, s, nb)
	launch(t, s, k, recorder.Groups(w, h, 1), tex, bins)
	wantSame(t, "bins", want, readU32(t, s, bins))
}

// ---------------------------------------------------------------------------
// cvlab-epfl/gaussian-splatting-web, src/bitonic.ts: the bitonic step of
// its depth sort, one invocation per element over a 3D grid of 1×1×1
// workgroups, a struct Data { values: array<f32> } wrapping the runtime
// array, @binding before @group, (i & k) == 0 with an abstract 0; the
// page's ${blockSize} filled in with 4 as bitonicSortShader(4) does.

//go:embed testdata/wgsl/gsplat_bitonic.wgsl
var gsplatBitonic string

// TestGsplatBitonicSortComputesLikeItsReference: 64 values sorted by the host's k, j loop
// over a 4×4×4 dispatch; the result is the sorted input, bit for bit.
func TestGsplatBitonicSortComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, strings.ReplaceAll(gsplatBitonic, "${blockSize}", "4"), "main", nil,
		"a struct wrapping a runtime array, (i & k) == 0")
	const n = 64
	vals := lattice(121, n, 100, 4)
	buf := upload(t, s, vals)
	for kk := uint32(2); kk <= n; kk <<= 1 {
		for j := kk >> 1; j > 0; j >>= 1 {
			launch(t, s, k, recorder.Groups(4, 4, 4), buf, paramsOf(t, struct{ J, K uint32 }{j, kk}))
		}
	}
	want := append([]float32(nil), vals...)
	for i := 1; i < n; i++ {
		for j := i; j > 0 && want[j-1] > want[j]; j-- {
			want[j-1], want[j] = want[j], want[j-1]
		}
	}
	wantSame(t, "sorted", want, read(t, s, buf))
}

// runPointsDefault runs src as TestPointsDefaultComputeComputesLikeItsReference describes (with
// vec2(0) spelled vec2f(0) it passes, which checks the test itself).
func runPointsDefault(t *testing.T, src string) {
	d, s := openStream(t)
	k := sampleKernel(t, d, src, "main", nil, "vec2(0) as textureSampleLevel's f32 coordinates, a ptr-typed let")
	const n = 8
	feed := make([]byte, 4*n*n)
	for i := range feed {
		feed[i] = byte(lcg(i) >> 24)
	}
	smp, err := s.NewSampler(recorder.SamplerDesc{})
	if err != nil {
		t.Fatal(err)
	}
	ftex := newTex(t, s, recorder.TextureDesc{Width: n, Height: n, Format: "rgba8unorm"}, feed)
	out := newTex(t, s, recorder.TextureDesc{Width: n, Height: n, Format: "rgba8unorm"}, nil)
	pts := empty(t, s, 6*10*3)
	launch(t, s, k, recorder.Groups(1, 1, 1), pts, smp, ftex, out, empty(t, s, 1), empty(t, s, 8),
		paramsOf(t, struct{ A, B, C, D, E, F, G, H float32 }{}), empty(t, s, 8))
	want := make([]byte, 4*n*n)
	copy(want, feed[:4])
	wantSame(t, "output", want, readTex(t, s, out))
}

// ---------------------------------------------------------------------------
// MatiasHiltunen/simple-knn-wgpu, src/shaders/sort.wgsl: a one-bit split
// by atomic counters in two entry points that redeclare bindings 0–4 under
// other names, a struct with pre-2022 ";" member separators, and in the
// second entry point an array<atomic<u32>, 2> in read-only storage.

//go:embed testdata/wgsl/simple_knn_sort.wgsl
var simpleKNNSort string

// simpleKNNSortCommas is simpleKNNSort with its member separators written
// as today's WGSL spells them (our edit).
func simpleKNNSortCommas() string {
	return strings.Replace(strings.Replace(simpleKNNSort, "num: u32;", "num: u32,", 1), "bit: u32;", "bit: u32,", 1)
}

// simpleKNNSortValid is simpleKNNSortCommas with r_counts read_write (our
// second edit): WGSL allows atomics only in read_write storage, and a
// module is valid or not as a whole, so with r_counts read-only even
// radix_count is not valid WGSL (OpenGL refuses it; see the last subtest).
func simpleKNNSortValid() string {
	return strings.Replace(simpleKNNSortCommas(), "var<storage, read> r_counts", "var<storage, read_write> r_counts", 1)
}

// TestSimpleKNNRadixSortComputesLikeItsReference: as written, both entry points are refused
// with a compile error at the first ";" (line 8), the device still
// usable; with commas and a read_write r_counts, radix_count then radix_reorder over 300 keys split
// them by bit 3: the keys come back permuted, every key with the bit clear
// before every key with it set, each index following its key.
func TestSimpleKNNRadixSortComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	t.Run("as written", func(t *testing.T) {
		for _, e := range []string{"radix_count", "radix_reorder"} {
			_, err := d.Kernel(simpleKNNSort, e)
			if !errors.Is(err, wgpu.ErrCompile) || !strings.Contains(err.Error(), "8:13") {
				t.Errorf("Kernel(%q) = %v, want a compile error at 8:13 (the ; member separator)", e, err)
			}
		}
	})
	t.Run("with commas and r_counts read_write", func(t *testing.T) {
		count := sampleKernel(t, d, simpleKNNSortValid(), "radix_count", nil, "two entry points redeclaring the same bindings")
		reorder := sampleKernel(t, d, simpleKNNSortValid(), "radix_reorder", nil, "")
		const n, bit = 300, 3
		keys := seq(n, func(i int) uint32 { return lcg(i) >> 8 })
		idx := seq(n, func(i int) uint32 { return uint32(i) })
		kb, ib, prefix, counts := upU32(t, s, keys), upU32(t, s, idx), empty(t, s, n), empty(t, s, 2)
		par := paramsOf(t, struct{ Num, Bit uint32 }{n, bit})
		launch(t, s, count, recorder.Groups(2, 1, 1), kb, prefix, counts, par) // in_indices is unused there, so unbound
		ok, oi := empty(t, s, n), empty(t, s, n)
		launch(t, s, reorder, recorder.Groups(2, 1, 1), kb, ib, prefix, counts, ok, oi, par)
		gotK, gotI := readU32(t, s, ok), readU32(t, s, oi)
		zeros := 0
		for _, k := range keys {
			if k>>bit&1 == 0 {
				zeros++
			}
		}
		wantSame(t, "counts", []uint32{uint32(zeros), uint32(n - zeros)}, readU32(t, s, counts))
		seen := make([]bool, n)
		for i := 0; i < n; i++ {
			j := gotI[i]
			if j >= n || seen[j] || keys[j] != gotK[i] || (gotK[i]>>bit&1 == 1) != (i >= zeros) {
				t.Fatalf("slot %d: key %#x index %d (zeros %d)", i, gotK[i], j, zeros)
			}
			seen[j] = true
		}
	})
	// FAILS (on Vulkan): WGSL allows atomic types only in workgroup
	// variables and read_write storage buffers (§ Atomic Types), and Tint
	// refuses r_counts; on Vulkan Kernel accepts the module and runs it, so
	// a shader that works here fails in browsers. On OpenGL it is refused,
	// but by naga's validator with "Global variable [1] is used incorrectly
	// as GlobalUse(WRITE)" (the atomicLoad counted as a write), and for
	// every entry point of the module. Minimal reproduction:
	//
	//	@group(0) @binding(0) var<storage, read> c: array<atomic<u32>, 2>;
	//	@group(0) @binding(1) var<storage, read_write> o: u32;
	//	@compute @workgroup_size(1) fn main() { o = atomicLoad(&c[0]); }
	t.Run("atomic in read-only storage refused", func(t *testing.T) {
		_, err := d.Kernel(simpleKNNSortCommas(), "radix_reorder")
		if !errors.Is(err, wgpu.ErrCompile) {
			t.Errorf("Kernel(radix_reorder) = %v, want a compile error naming r_counts", err)
		}
	})
}

// ---------------------------------------------------------------------------
// suguruwataru/wgsl-loop, src/loop.wgsl: a workgroup spin lock taken with
// atomicOr and released with atomicAnd around a plain mark++ on a storage
// u32, "if ... { continue; }" at the top of a loop, an unused builtin
// parameter. The repository's second entry point, while_atomic, spins in
// a while loop whose exit the lock holder must wait at: on a GPU that
// runs the two invocations in lockstep (lavapipe does) it livelocks, which
// is what the repository demonstrates; neither runs here (the test says why).

//go:embed testdata/wgsl/wgsl_loop_lock.wgsl
var wgslLoopLock string

// TestSpinLockEntryPointsCompile: both entry points compile. They are not
// run: WGSL promises no forward progress between invocations, so a spin
// lock may never be released, which is what the repository shows. On the
// H200 loop_atomic ran for minutes on Vulkan and left mark unchanged on
// OpenGL; lavapipe happened to finish it.
func TestSpinLockEntryPointsCompile(t *testing.T) {
	d, _ := openStream(t)
	sampleKernel(t, d, wgslLoopLock, "loop_atomic", nil, "if atomicOr(...) == 1u { continue; } in a loop, mark++ on storage")
	sampleKernel(t, d, wgslLoopLock, "while_atomic", nil, "while atomicOr(...) == 1u { }")
}

// ---------------------------------------------------------------------------
// google/dawn, test/tint/reader/atomics/var/atomicStore/array/
// arrays.spvasm.expected.wgsl: Tint's SPIR-V reader output for a 3×2×1
// workgroup array of atomics: array sizes written 1u 2u 3u, a loop whose
// body opens with if (!((idx < 6u))) { break; } and a continuing block,
// indices 2i 1i 0i, parenthesised &(wg[...]), @workgroup_size(1u, 1u,
// 1u). It has no output; the harness entry point after it (ours) runs its
// body and stores the six atomics.

//go:embed testdata/wgsl/dawn_reader_atomic_arrays.wgsl
var dawnReaderAtomicArrays string

//go:embed testdata/wgsl/dawn_reader_harness.wgsl
var dawnReaderHarness string

// TestTintReaderAtomicArraysComputeLikeTheirReference: the compute_main entry point
// compiles and runs; the harness sees five zeros and the last atomic 1.
func TestTintReaderAtomicArraysComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	src := dawnReaderAtomicArrays + dawnReaderHarness
	k0 := sampleKernel(t, d, src, "compute_main", nil, "Tint's reader style: 1u array sizes, if (!((idx < 6u))) { break; } with continuing")
	launch(t, s, k0, recorder.Groups(1, 1, 1))
	k := sampleKernel(t, d, src, "p5_harness", nil, "")
	out := empty(t, s, 6)
	launch(t, s, k, recorder.Groups(1, 1, 1), out)
	wantSame(t, "atomics", []uint32{0, 0, 0, 0, 0, 1}, readU32(t, s, out))
}

// ---------------------------------------------------------------------------
// google/dawn, test/tint/builtins/atomics/from_gen/var/
// atomicCompareExchangeWeak/workgroup_u32.spvasm.expected.wgsl: Tint's
// SPIR-V reader output for a workgroup compare-exchange: a user struct
// mirroring the builtin result (old_value, exchanged: bool), .old_value
// taken straight off the call, a var<private> copy of the builtin,
// @workgroup_size(1i, 1i, 1i), compute_main_1 and compute_main_inner. It
// has no output; the harness entry point after it (ours) runs it, then
// exchanges 0 for 5 itself and stores what it sees.

//go:embed testdata/wgsl/dawn_reader_compare_exchange.wgsl
var dawnReaderCompareExchange string

//go:embed testdata/wgsl/dawn_compare_exchange_harness.wgsl
var dawnCompareExchangeHarness string

// TestTintReaderCompareExchangeComputesLikeItsReference: compute_main compiles and runs;
// after it the atomic is still 0 (1 was expected, so no exchange), and the
// harness's exchange of 0 for 5 returns 0 and leaves 5 (or, a weak
// exchange failing spuriously, reports false and leaves 0). On OpenGL see
// TestTintReaderCompareExchangeIsRefusedOnGL.
func TestTintReaderCompareExchangeComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	if isGL(d) {
		t.Skip("OpenGL: see TestTintReaderCompareExchangeIsRefusedOnGL")
	}
	src := dawnReaderCompareExchange + dawnCompareExchangeHarness
	k0 := sampleKernel(t, d, src, "compute_main", nil, ".old_value of an atomicCompareExchangeWeak call, a struct mirroring its result")
	launch(t, s, k0, recorder.Groups(1, 1, 1))
	k := sampleKernel(t, d, src, "p5_harness", nil, "")
	out := empty(t, s, 4)
	launch(t, s, k, recorder.Groups(1, 1, 1), out)
	got := readU32(t, s, out)
	if got[2] == 0 {
		wantSame(t, "a spurious failure", []uint32{0, 0, 0, 0}, got)
	} else {
		wantSame(t, "exchanged", []uint32{0, 0, 1, 5}, got)
	}
}

// TestTintReaderCompareExchangeIsRefusedOnGL: on OpenGL the same module
// should run as on Vulkan (GLSL ES has atomicCompSwap) or be refused by
// Kernel with a *CompileError naming atomicCompareExchangeWeak.
//
// FAILS: naga v22's GLSL backend cannot write the builtin's result type
// (__atomic_compare_exchange_result<u32>), so creating the pipeline fails
// with "Internal error: Unable to write type Struct { members:
// [StructMember { name: Some("old_value"), ... }, StructMember { name:
// Some("exchanged"), ... }], span: 8 }", which names neither the builtin
// nor the line. Minimal reproduction (OpenGL only; Vulkan runs it):
//
//	@group(0) @binding(0) var<storage, read_write> a: atomic<u32>;
//	@group(0) @binding(1) var<storage, read_write> o: u32;
//	@compute @workgroup_size(1) fn main() { o = atomicCompareExchangeWeak(&a, 0u, 1u).old_value; }
//
// There is no other compare-exchange in WGSL to rewrite it into, so the
// front-end can at least refuse it on OpenGL with a clear diagnostic.
func TestTintReaderCompareExchangeIsRefusedOnGL(t *testing.T) {
	d, s := openStream(t)
	if !isGL(d) {
		t.Skip("OpenGL only")
	}
	src := dawnReaderCompareExchange + dawnCompareExchangeHarness
	_, err := d.Kernel(src, "p5_harness")
	wantRefused(t, err, "atomicCompareExchangeWeak")
	// A module whose other entry point calls it still compiles the
	// entry points that do not.
	k := sampleKernel(t, d, src+"\n@compute @workgroup_size(1) fn p5_other() { }\n", "p5_other", nil, "atomicCompareExchangeWeak only in another entry point")
	launch(t, s, k, recorder.Groups(1, 1, 1))
}
