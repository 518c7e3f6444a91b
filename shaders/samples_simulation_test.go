package shaders_test

import (
	_ "embed"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// Simulation kernels: particles and boids, N-body gravity, MLS-MPM fluid,
// Coulomb forces, Jacobi iterations, spatial hashing, games of life.

// TestSimulationSamplesComputeLikeTheirReference: every kernel of simulationSampleCases
// compiles as written and computes what its Go reference does. A refusal
// names the construct the front-end or the compiler could not read; a
// difference is a mis-specialisation.
func TestSimulationSamplesComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	for _, tc := range simulationSampleCases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, d, s) })
	}
}

var simulationSampleCases = []sampleCase{
	{"webgpu-samples N-body: override without a default in a division, an abstract const in @workgroup_size and a workgroup array, u32(kWorkgroupSize), vec3(0.0), a struct constructor store; within 1e-5 for inverseSqrt", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWebgpuSamplesNBody
		k := mustKernel(t, d, src, "cs_main", map[string]float64{"kNumBodies": 128})
		const n = 128
		ps := random(7, 8*n, 1)
		for i := 0; i < n; i++ {
			ps[8*i+3] = 0.5 + ps[8*i+3]*0.25 // mass
			ps[8*i+7] = 0
		}
		out := empty(t, s, 8*n)
		launch(t, s, k, recorder.Groups(2, 1, 1), recorder.ParamsOf[float32](0.01, 0.2), upload(t, s, ps), out)
		want := make([]float32, 8*n)
		for i := 0; i < n; i++ {
			var f [3]float64
			p := ps[8*i : 8*i+4]
			for j := 0; j < n; j++ {
				q := ps[8*j : 8*j+4]
				dd := [3]float64{float64(q[0] - p[0]), float64(q[1] - p[1]), float64(q[2] - p[2])}
				dist := math.Max(dd[0]*dd[0]+dd[1]*dd[1]+dd[2]*dd[2], 0.2*0.2)
				inv := 1 / math.Sqrt(dist)
				for c := range f {
					f[c] += dd[c] * float64(q[3]) * inv * inv * inv
				}
			}
			for c := 0; c < 4; c++ {
				v := float64(ps[8*i+4+c])
				if c < 3 {
					v += f[c] * 0.01
				}
				want[8*i+4+c] = float32(v)
				want[8*i+c] = float32(float64(p[c]) + v*0.01)
			}
		}
		wantSame(t, "particles", want, read(t, s, out), near(1e-5))
	}},
	{"Bevy game of life: hash with naga's precedence (state ^ state >> 16u), num_workgroups, two entry points over textures", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBevyGameOfLife
		const w, h = 16, 8
		initK := mustKernel(t, d, src, "init", nil)
		seeded, err := s.NewTexture(recorder.TextureDesc{Width: w, Height: h, Format: "r32uint"})
		if err != nil {
			t.Fatal(err)
		}
		launch(t, s, initK, recorder.Groups(w/8, h/8, 1), seeded)
		board := make([]uint32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if float32(bevyHash(uint32(y)<<16|uint32(x)))/float32(4294967295.0) > float32(0.9) {
					board[y*w+x] = 1
				}
			}
		}
		wantSame(t, "seeded board", board, texelsU32(t, s, seeded))

		// update reads a sampled copy of a board rich enough to exercise every rule.
		for i := range board {
			board[i] = lcg(i) >> 30 & 1
		}
		asF := make([]float32, len(board))
		for i, v := range board {
			asF[i] = float32(v)
		}
		in, err := s.UploadTexture(recorder.TextureDesc{Width: w, Height: h, Format: "r32float"}, asBytesF(asF))
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.NewTexture(recorder.TextureDesc{Width: w, Height: h, Format: "r32uint"})
		if err != nil {
			t.Fatal(err)
		}
		launch(t, s, mustKernel(t, d, src, "update", nil), recorder.Groups(w/8, h/8, 1), in, out)
		want := make([]uint32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				n := uint32(0)
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if dx != 0 || dy != 0 {
							n += board[(y+dy+h)%h*w+(x+dx+w)%w]
						}
					}
				}
				if n == 3 || n == 2 && board[y*w+x] == 1 {
					want[y*w+x] = 1
				}
			}
		}
		wantSame(t, "next generation", want, texelsU32(t, s, out))
	}},
	{"three.js-style particles in @group(1) only: vec3 + f32 packing, @size padding, @align(16) colour, struct constructor reset", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslThreeJsStyleParticlesInGroup
		k := mustKernel(t, d, src, "main", nil)
		const n = 70 // 48 bytes each; dyadic values keep every step exact
		data := make([]float32, 12*n)
		for i := 0; i < n; i++ {
			copy(data[12*i:], []float32{float32(i % 5), -float32(i % 3), 0.5, float32(i%4) * 0.25,
				0.5, float32(i%7) - 3, -0.25, 99, 0.125, 0.25, 0.5, 0.75})
		}
		want := append([]float32(nil), data...)
		const dt = 0.25
		for i := 0; i < n; i++ {
			p := want[12*i : 12*i+12]
			p[5] -= 9.5 * dt
			for c := 0; c < 3; c++ {
				p[c] += p[4+c] * dt
			}
			p[3] -= dt
			if p[3] <= 0 {
				copy(p, []float32{0, 0, 0, 1, 0, 1, 0, 0})
			}
			p[11] = p[3]
		}
		b := upload(t, s, data)
		launch(t, s, k, recorder.Groups(2, 1, 1), b, recorder.ParamsOf[float32](dt))
		// _pad is written back as the struct copy holds it: 99, or 0 after a reset.
		wantSame(t, "particles", want, read(t, s, b))
	}},
	{"wgpu boids: struct arrays, loop with continue and continuing, distance, normalize; tolerance for the square roots", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWgpuBoids
		k := mustKernel(t, d, src, "main", nil)
		const n = 96
		par := []float32{0.04, 0.1, 0.025, 0.025, 0.02, 0.05, 0.005}
		ps := make([]float32, 4*n)
		for i := 0; i < n; i++ {
			// a 12×8 lattice 0.06 apart, jittered: neighbours sit well inside or outside each rule's radius.
			ps[4*i] = -0.99 + 0.06*float32(i%12) + float32(lcg(i)>>24)/25600
			ps[4*i+1] = -0.3 + 0.06*float32(i/12) + float32(lcg(i+n)>>24)/25600
			ps[4*i+2] = float32(int(lcg(i+2*n)>>24)-128) / 1280
			ps[4*i+3] = float32(int(lcg(i+3*n)>>24)-128) / 1280
		}
		want := make([]float32, 4*n)
		dist := func(ax, ay, bx, by float32) float32 {
			return float32(math.Hypot(float64(ax-bx), float64(ay-by)))
		}
		for i := 0; i < n; i++ {
			px, py, vx, vy := ps[4*i], ps[4*i+1], ps[4*i+2], ps[4*i+3]
			var cmx, cmy, cvx, cvy, colx, coly float32
			cm, cv := 0, 0
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				qx, qy := ps[4*j], ps[4*j+1]
				dd := dist(qx, qy, px, py)
				if dd < par[1] {
					cmx, cmy, cm = cmx+qx, cmy+qy, cm+1
				}
				if dd < par[2] {
					colx, coly = colx-(qx-px), coly-(qy-py)
				}
				if dd < par[3] {
					cvx, cvy, cv = cvx+ps[4*j+2], cvy+ps[4*j+3], cv+1
				}
			}
			if cm > 0 {
				cmx, cmy = cmx*(1/float32(cm))-px, cmy*(1/float32(cm))-py
			}
			if cv > 0 {
				cvx, cvy = cvx*(1/float32(cv)), cvy*(1/float32(cv))
			}
			vx = vx + cmx*par[4] + colx*par[5] + cvx*par[6]
			vy = vy + cmy*par[4] + coly*par[5] + cvy*par[6]
			l := float32(math.Hypot(float64(vx), float64(vy)))
			c := min(max(l, 0), 0.1)
			vx, vy = vx/l*c, vy/l*c
			px, py = px+vx*par[0], py+vy*par[0]
			if px < -1 {
				px = 1
			}
			if px > 1 {
				px = -1
			}
			if py < -1 {
				py = 1
			}
			if py > 1 {
				py = -1
			}
			copy(want[4*i:], []float32{px, py, vx, vy})
		}
		dst := empty(t, s, 4*n)
		launch(t, s, k, recorder.Groups(2, 1, 1), recorder.ParamsOf(par...), upload(t, s, ps), dst)
		// distance, length and normalize take square roots, which Vulkan and
		// GL allow to be a few ulp off; everything else is f32 arithmetic.
		wantSame(t, "particles", want, read(t, s, dst), near(1e-6))
	}},
	{"game of life with select, abstract literals and let shadowing", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslGameOfLifeSelect
		k := mustKernel(t, d, src, "life", nil)
		const w = 16
		grid := seq(w*w, func(i int) uint32 { return lcg(i) >> 31 })
		want := make([]uint32, w*w)
		for y := 0; y < w; y++ {
			for x := 0; x < w; x++ {
				n := uint32(0)
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if dx != 0 || dy != 0 {
							n += grid[((y+dy+w)%w)*w+(x+dx+w)%w]
						}
					}
				}
				if n == 3 || grid[y*w+x] == 1 && n == 2 {
					want[y*w+x] = 1
				}
			}
		}
		out := empty(t, s, w*w)
		launch(t, s, k, recorder.Groups(2, 2, 1), upU32(t, s, grid), out)
		wantSame(t, "next generation", want, readU32(t, s, out))
	}},
	{"boids-like particles: struct with a runtime-sized array last, uniform dt", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBoidsLikeParticles
		k := mustKernel(t, d, src, "step", nil)
		const n = 50
		data := make([]float32, 4+4*n) // count (and padding to 8), then 50 × {pos, vel}
		data[0] = math.Float32frombits(n)
		for i := 0; i < n; i++ {
			copy(data[2+4*i:], []float32{float32(i%10) - 5, float32(i%7) - 3, float32(i%3) - 1, 1 - float32(i%5)*0.5})
		}
		want := slices.Clone(data)
		for i := 0; i < n; i++ {
			p := want[2+4*i : 2+4*i+4]
			for c := 0; c < 2; c++ {
				p[c] += p[2+c] * 0.5
				if math.Abs(float64(p[c])) > 4 {
					p[2+c] = -p[2+c]
				}
				p[c] = max(-4, min(4, p[c]))
			}
		}
		b := upload(t, s, data[:2+4*n])
		launch(t, s, k, recorder.Groups(1, 1, 1), recorder.ParamsOf[float32](0.5, 4), b)
		wantSame(t, "particles", want[:2+4*n], read(t, s, b))
	}},
	{"N-body step: inverseSqrt with a softening override, tolerance for the transcendental", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslNBodyStep
		k := mustKernel(t, d, src, "main", nil)
		const n = 40
		bs := make([]float32, 8*n)
		for i := 0; i < n; i++ {
			copy(bs[8*i:], []float32{float32(i % 5), float32(i % 7), float32(i % 3), 1 + float32(i%2)})
		}
		want := make([]float32, 4*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				var r [3]float64
				d2 := 0.0
				for c := 0; c < 3; c++ {
					r[c] = float64(bs[8*j+c] - bs[8*i+c])
					d2 += r[c] * r[c]
				}
				inv := 1 / math.Sqrt(d2+float64(float32(0.01)))
				for c := 0; c < 3; c++ {
					want[4*i+c] += float32(float64(bs[8*j+3]) * r[c] * inv * inv * inv)
				}
			}
		}
		out := empty(t, s, 4*n)
		launch(t, s, k, recorder.Groups(2, 1, 1), upload(t, s, bs), out)
		// inverseSqrt: WGSL allows 2 ULP; relative 1e-4 covers the sum.
		wantSame(t, "accelerations", want, read(t, s, out), near(1e-3))
	}},
}

// ---------------------------------------------------------------------------
// bevy_hanabi's particle init pass: the PCG hash of reedbeta's "Hash
// Functions for GPU Rendering", a var<private> seed, bitcast to make a
// float in [1, 2), the 1. literal, a dead list recycled with atomicSub and
// an alive list grown with atomicAdd through a RenderIndirect struct of
// atomics, bind groups 0 to 3.

//go:embed testdata/wgsl/hanabi_init.wgsl
var hanabiInit string

func pcgHash(input uint32) uint32 {
	state := input*747796405 + 2891336453
	word := ((state >> ((state >> 28) + 4)) ^ state) * 277803737
	return (word >> 22) ^ word
}

func toFloat01(u uint32) float32 { return math.Float32frombits(u&0x007fffff|0x3f800000) - 1 }

// TestHanabiParticleInitComputesLikeItsReference: 40 spawns recycle the top 40 entries of
// a dead list of 100 into the alive list after its 10 live entries (as a
// set: the order is the invocations'), bump the counters exactly, leave
// other particles alone, and initialise each recycled particle from
// pcg_hash(index ^ seed): age and lifetime exactly, position and velocity
// on the sphere within 5e-4 (acos, and sin and cos of up to 2π).
func TestHanabiParticleInitComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, hanabiInit, "main", nil)
	const capacity, dead, alive, spawn, spawnerSeed = 128, 100, 10, 40, 0x1234567
	indices := make([]uint32, 3*capacity)
	for i := range indices {
		indices[i] = 0xAAAAAAAA
	}
	for i := 0; i < dead; i++ {
		indices[3*i+2] = uint32((i*37 + 11) % capacity)
	}
	particles := seqF(8*capacity, func(int) float32 { return -7 })
	spawner := make([]uint32, 16) // mat3x4 (48 bytes), spawn, seed, count_unused, effect_index
	spawner[13] = spawnerSeed
	ri := []uint32{6, 0, 0, 0, 0, alive, dead, spawn, 0}
	pb, ib, sb, rb := upload(t, s, particles), upU32(t, s, indices), upU32(t, s, spawner), upU32(t, s, ri)
	launch(t, s, k, recorder.Groups(1, 1, 1), pb, ib, sb, rb) // sim_params is declared, not used: not bound

	wantSame(t, "render indirect counters", []uint32{6, spawn, 0, 0, 0, alive + spawn, dead - spawn, spawn, 0}, readU32(t, s, rb))
	gotIdx := readU32(t, s, ib)
	var recycled, listed []uint32
	for i := dead - spawn; i < dead; i++ {
		recycled = append(recycled, indices[3*i+2])
	}
	for i := alive; i < alive+spawn; i++ {
		listed = append(listed, gotIdx[3*i])
	}
	slices.Sort(recycled)
	slices.Sort(listed)
	wantSame(t, "alive entries appended (as a set)", recycled, listed)
	for i := range gotIdx { // nothing else in the lists moved
		if i%3 == 0 && i/3 >= alive && i/3 < alive+spawn {
			continue
		}
		if gotIdx[i] != indices[i] {
			t.Errorf("indices[%d] = %#x, want %#x", i, gotIdx[i], indices[i])
		}
	}
	got := read(t, s, pb)
	want := append([]float32(nil), particles...)
	for _, idx := range recycled {
		seed := pcgHash(idx ^ spawnerSeed)
		seed = pcgHash(seed)
		theta := float64(toFloat01(pcgHash(seed))) * 6.283185307179586
		seed = pcgHash(seed)
		z := float64(toFloat01(pcgHash(seed))*2 - 1)
		sinphi := math.Sin(math.Acos(z))
		dir := [3]float64{sinphi * math.Cos(theta), sinphi * math.Sin(theta), z}
		p := want[8*idx:][:8]
		for c := 0; c < 3; c++ {
			p[c] = float32(2 * dir[c])
			p[4+c] = float32(1.5 * dir[c])
		}
		p[3], p[7] = 0, 5
	}
	// WGSL bounds sin and cos by 2^-11 absolute on [-π, π] (theta reaches
	// 2π; lavapipe was 6e-5 off there) and acos by atan2's and sqrt's.
	wantSame(t, "particles", want, got, near(5e-4))
	for _, idx := range recycled { // age and lifetime exactly
		wantSame(t, "age and lifetime", []float32{0, 5}, []float32{got[8*idx+3], got[8*idx+7]})
	}
}

// ---------------------------------------------------------------------------
// A Jacobi step for Poisson's equation with a shared-memory tile and halo,
// as GPU stencil tutorials write it: const tile sizes in @workgroup_size
// and in a nested workgroup array, a cooperative strided load by
// local_invocation_index, zero (Dirichlet) boundaries from a helper.

//go:embed testdata/wgsl/jacobi_halo.wgsl
var jacobiHalo string

// TestJacobiSharedTileComputesLikeItsReference: six ping-pong steps on a 20×13 grid (tiles
// cut by its edges) equal the reference bit for bit: every value is a
// multiple of 4^-6 well inside f32's precision, so the sums are exact.
func TestJacobiSharedTileComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, jacobiHalo, "jacobi", nil)
	const w, h = 20, 13
	rhs := make([]float32, w*h)
	for i := range rhs {
		if lcg(i)>>28 == 3 {
			rhs[i] = float32(4 * (lcg(i+1) >> 29))
		}
	}
	rhs[0], rhs[w*h-1] = 16, 8
	a, b := upload(t, s, make([]float32, w*h)), empty(t, s, w*h)
	rb := upload(t, s, rhs)
	par := recorder.ParamsOf[uint32](w, h)
	cur := make([]float32, w*h)
	for step := 0; step < 6; step++ {
		launch(t, s, k, recorder.Groups(3, 2, 1), a, rb, b, par)
		a, b = b, a
		next := make([]float32, w*h)
		at := func(x, y int) float32 {
			if x < 0 || y < 0 || x >= w || y >= h {
				return 0
			}
			return cur[y*w+x]
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				next[y*w+x] = 0.25 * (at(x-1, y) + at(x+1, y) + at(x, y-1) + at(x, y+1) + rhs[y*w+x])
			}
		}
		cur = next
	}
	wantSame(t, "after six steps", bitsOf(cur), bitsOf(read(t, s, a)))
}

// ---------------------------------------------------------------------------
// Particle binning for neighbour search (SPH and collision demos): Teschner
// et al.'s spatial hash with wrapping i32 products and abs, a counting
// sort in three passes (count with atomicAdd, a workgroup scan that turns
// the counts into cursors with atomicStore, scatter into the slot
// atomicAdd returns).

//go:embed testdata/wgsl/spatial_hash_binning.wgsl
var spatialHashBinning string

func teschnerHash(c [3]int32, table uint32) uint32 {
	h := c[0]*73856093 ^ c[1]*19349663 ^ c[2]*83492791
	if h < 0 {
		h = -h // MinInt32 stays MinInt32, as WGSL's abs
	}
	return uint32(h) % table
}

// TestSpatialHashBinningComputesLikeItsReference: 300 particles (negative coordinates too)
// land in the reference's cells; cell starts are the exclusive scan of
// the counts; each cell's slice of the sorted ids holds exactly its
// particles (in any order); the cursors end at the counts.
func TestSpatialHashBinningComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	kc := mustKernel(t, d, spatialHashBinning, "count", nil)
	kp := mustKernel(t, d, spatialHashBinning, "prefix", nil)
	ks := mustKernel(t, d, spatialHashBinning, "scatter", nil)
	const n, table, cellSize = 300, 61, 0.25
	parts := make([]float32, 0, 4*n)
	cells := make([]uint32, n)
	counts := make([]uint32, table)
	for i := 0; i < n; i++ {
		var c [3]int32
		for k := 0; k < 3; k++ {
			v := float32(int(lcg(3*i+k)>>22)-512) / 256 // [-2, 2) in steps of 1/256
			parts = append(parts, v)
			c[k] = int32(math.Floor(float64(v / cellSize)))
		}
		parts = append(parts, 0.01)
		cells[i] = teschnerHash(c, table)
		counts[cells[i]]++
	}
	starts := make([]uint32, table)
	for c := 1; c < table; c++ {
		starts[c] = starts[c-1] + counts[c-1]
	}
	par := paramsOf(t, struct {
		CellSize         float32
		TableSize, Count uint32
	}{cellSize, table, n})
	pb, cc, cs := upload(t, s, parts), upU32(t, s, make([]uint32, table)), empty(t, s, table)
	sorted, pc := empty(t, s, n), empty(t, s, n)
	launch(t, s, kc, recorder.Groups(5, 1, 1), pb, cc, pc, par)
	wantSame(t, "particle cells", cells, readU32(t, s, pc))
	wantSame(t, "cell counts", counts, readU32(t, s, cc))
	launch(t, s, kp, recorder.Groups(1, 1, 1), cc, cs, par)
	wantSame(t, "cell starts", starts, readU32(t, s, cs))
	launch(t, s, ks, recorder.Groups(5, 1, 1), cc, cs, sorted, pc, par)
	wantSame(t, "cursors end at the counts", counts, readU32(t, s, cc))
	got := readU32(t, s, sorted)
	for c := 0; c < table; c++ {
		var want []uint32
		for i := 0; i < n; i++ {
			if cells[i] == uint32(c) {
				want = append(want, uint32(i))
			}
		}
		slice := append([]uint32(nil), got[starts[c]:starts[c]+counts[c]]...)
		slices.Sort(slice)
		wantSame(t, "particles of a cell", want, slice, cmpopts.EquateEmpty())
	}
}

// ---------------------------------------------------------------------------
// matsuoka-601/WebGPU-Ocean, mls-mpm/: the particle-to-grid passes (p2g_1
// scatters mass and momentum, p2g_2 the stress term), the grid update with
// the mouse force, and grid-to-particle. Fixed-point atomics in structs
// that mix atomic and plain members, vec3f and mat3x3f members in storage
// structs, overrides without defaults (one shadowed by `let dt = dt;`),
// abstract integers inside mat3x3f(-pressure, 0, 0, ...), in
// `-volume * 4 * stress * dt`, in vec4f(2 * v, -0.0, 0) and in u32 and f32
// initializers, i32 division and remainder of converted floats.

//go:embed testdata/wgsl/mpm_p2g_1.wgsl
var mpmP2G1 string

//go:embed testdata/wgsl/mpm_p2g_2.wgsl
var mpmP2G2 string

// mpmParticle is a particle of the references.
type mpmParticle struct {
	pos, v v3
	C      m3
}

// mpmWeights is the quadratic B-spline weights of the shaders.
func mpmWeights(pos v3) (cell v3, w [3]v3) {
	for k := 0; k < 3; k++ {
		cell[k] = math.Floor(pos[k])
		d := pos[k] - (cell[k] + 0.5)
		w[0][k] = 0.5 * (0.5 - d) * (0.5 - d)
		w[1][k] = 0.75 - d*d
		w[2][k] = 0.5 * (0.5 + d) * (0.5 + d)
	}
	return cell, w
}

// mpmStencil calls f for the 27 cells around p with the weight, the
// cell's coordinates and the cell's offset from p.
func mpmStencil(p mpmParticle, f func(weight float64, cellX, dist v3)) {
	cell, w := mpmWeights(p.pos)
	for gx := 0; gx < 3; gx++ {
		for gy := 0; gy < 3; gy++ {
			for gz := 0; gz < 3; gz++ {
				cx := cell.add(v3{float64(gx) - 1, float64(gy) - 1, float64(gz) - 1})
				f(w[gx][0]*w[gy][1]*w[gz][2], cx, cx.add(v3{0.5, 0.5, 0.5}).sub(p.pos))
			}
		}
	}
}

// mpmParticles packs ps with the stride of a Particle of stride words.
func mpmParticles(ps []mpmParticle, stride int) layoutWords {
	var w layoutWords
	for i, p := range ps {
		o := 4 * stride * i
		w.f32(o, float32(p.pos[0]), float32(p.pos[1]), float32(p.pos[2]))
		w.f32(o+16, float32(p.v[0]), float32(p.v[1]), float32(p.v[2]))
		for c := 0; c < 3; c++ {
			w.f32(o+32+16*c, float32(p.C[c][0]), float32(p.C[c][1]), float32(p.C[c][2]))
		}
		w.at(o + 4*stride)
	}
	return w
}

// mpmRandomParticles are n particles inside cells 2..5 of the grid, with
// positions and velocities on a 1/1024 lattice (exact in f32).
func mpmRandomParticles(seed uint64, n int) []mpmParticle {
	r := fixedRand(seed)
	q := func(lo, hi float64) float64 { return math.Round((lo+(hi-lo)*r.Float64())*1024) / 1024 }
	ps := make([]mpmParticle, n)
	for i := range ps {
		for k := 0; k < 3; k++ {
			ps[i].pos[k] = q(2.6, 5.4)
			ps[i].v[k] = q(-1, 1)
			for c := 0; c < 3; c++ {
				ps[i].C[c][k] = q(-0.5, 0.5)
			}
		}
	}
	return ps
}

// TestMLSMPMParticleToGridComputesLikeItsReference: p2g_1 then p2g_2 over 40 particles on
// an 8³ grid. p2g_1's mass and momentum sums equal the float64 reference's
// within one fixed-point unit per contribution (each contribution is
// truncated after f32 rounding); p2g_2's stress momentum, computed by the
// reference from the masses the GPU wrote, within two units per
// contribution plus 1e-5 of the contributions' magnitudes (pow).
func TestMLSMPMParticleToGridComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	const res, mult = 8, 1e5
	const stiff, rest, visc, dt = 3.0, 0.5, 0.1, 0.01
	k1 := sampleKernel(t, d, mpmP2G1, "p2g_1", map[string]float64{"grid_res": res, "fixed_point_multiplier": mult},
		"atomics in a struct, overrides without defaults")
	k2 := sampleKernel(t, d, mpmP2G2, "p2g_2", map[string]float64{"grid_res": res, "fixed_point_multiplier": mult,
		"stiffness": stiff, "rest_density": rest, "dynamic_viscosity": visc, "dt": dt},
		"mat3x3f(-pressure, 0, 0, ...) and -volume * 4 * stress * dt")
	ps := mpmRandomParticles(1, 40)
	pb := uploadWords(t, s, mpmParticles(ps, 28))
	cells := empty(t, s, 4*res*res*res)
	launch(t, s, k1, recorder.Groups(1, 1, 1), pb, cells)
	got1 := readI32(t, s, cells)

	want := make([]int64, 4*res*res*res)
	count := make([]int64, res*res*res)
	idx := func(c v3) int { return int(c[0])*res*res + int(c[1])*res + int(c[2]) }
	for _, p := range ps {
		mpmStencil(p, func(w float64, cx, dist v3) {
			vel := p.v.add(p.C.mulV(dist)).scale(w)
			c := idx(cx)
			want[4*c+3] += int64(w * mult)
			for k := 0; k < 3; k++ {
				want[4*c+k] += int64(vel[k] * mult)
			}
			count[c]++
		})
	}
	for c := range count {
		for k := 0; k < 4; k++ {
			if g, w := int64(got1[4*c+k]), want[4*c+k]; g-w > count[c] || w-g > count[c] {
				t.Errorf("p2g_1 cell %d field %d = %d, want %d ± %d", c, k, g, w, count[c])
			}
		}
	}

	launch(t, s, k2, recorder.Groups(1, 1, 1), pb, cells)
	got2 := readI32(t, s, cells)
	if slices.Equal(got1, got2) || slices.Max(got1) == 0 {
		t.Fatalf("p2g_1 or p2g_2 wrote nothing: %v → %v", got1[:16], got2[:16])
	}
	want2 := make([]float64, len(got1))
	mag := make([]float64, len(got1))
	for i, v := range got1 {
		want2[i] = float64(v)
	}
	for _, p := range ps {
		density := 0.0
		mpmStencil(p, func(w float64, cx, _ v3) { density += float64(float32(got1[4*idx(cx)+3])/mult) * w })
		volume := 1 / density
		pressure := math.Max(0, stiff*(math.Pow(density/rest, 5)-1))
		stress := m3{{-pressure, 0, 0}, {0, -pressure, 0}, {0, 0, -pressure}}.add(p.C.add(p.C.transpose()).scale(visc))
		term0 := stress.scale(-volume * 4 * dt)
		mpmStencil(p, func(w float64, cx, dist v3) {
			m := term0.scale(w).mulV(dist)
			c := idx(cx)
			for k := 0; k < 3; k++ {
				want2[4*c+k] += math.Trunc(m[k] * mult)
				mag[4*c+k] += math.Abs(m[k]*mult) + 2
			}
		})
	}
	for i := range want2 {
		if !closeTo(float64(got2[i]), want2[i], mag[i]*1e-5+float64(2*count[i/4]), 0) {
			t.Errorf("p2g_2 cell %d field %d = %d, want %.0f ± %.1f", i/4, i%4, got2[i], want2[i], mag[i]*1e-5+float64(2*count[i/4]))
		}
	}
}

//go:embed testdata/wgsl/mpm_update_grid.wgsl
var mpmUpdateGrid string

//go:embed testdata/wgsl/mpm_g2p.wgsl
var mpmG2P string

// TestMLSMPMGridUpdateAndGridToParticleComputeLikeTheirReference: updateGrid over an 8³
// grid of random fixed-point cells, the mouse at cell (4, 4, 6) through a
// depth texture, inverse projection and view, moving at (0.5, -0.25):
// every cell with mass gets its velocity divided by its mass, pushed by
// the mouse within radius 6 and zeroed at the walls, within two
// fixed-point units. Then g2p over 40 particles on those cells: position,
// velocity and affine matrix C within 1e-4 (relative, and absolute near 0).
func TestMLSMPMGridUpdateAndGridToParticleComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	const n, mult, dt = 8, 1e5, 0.125
	consts := map[string]float64{"fixed_point_multiplier": mult, "dt": dt}
	ku := sampleKernel(t, d, mpmUpdateGrid, "updateGrid", consts,
		"`let dt = dt;`, vec4f(2 * v, -0.0, 0), a u32 var initialised by an abstract literal, i32 / and %")
	kg := sampleKernel(t, d, mpmG2P, "g2p", consts, "mat3x3f of vec3f columns, clamp(x, 1., y), vec3f(0)")

	r := fixedRand(2)
	in := make([]int32, 4*n*n*n)
	for c := 0; c < n*n*n; c++ {
		if r.IntN(4) > 0 {
			in[4*c+3] = int32(1e4 + r.IntN(3e5))
		}
		for k := 0; k < 3; k++ {
			in[4*c+k] = int32(r.IntN(4e5) - 2e5)
		}
	}
	cells := upI32(t, s, in)
	box := paramsOf(t, struct{ X, Y, Z, W float32 }{n, n, n, 0})
	var ru layoutWords
	ru.f32(0, 0.25, 0.25, 1)
	for c := 0; c < 4; c++ { // inv_projection_matrix: identity, translated by (4, 4, 4)
		ru.f32(16+16*c, 0, 0, 0, 0)
		ru.f32(16+16*c+4*c, 1)
	}
	ru.f32(16+48, 4, 4, 4, 1)
	ru.f32(80+32+8, -1) // projection_matrix[2].z
	ru.f32(80+48+8, 2)  // projection_matrix[3].z
	for c := 0; c < 4; c++ {
		ru.f32(208+16*c+4*c, 1) // inv_view_matrix: identity
	}
	ru.at(272)
	depth := make([]float32, 16)
	for i := range depth {
		depth[i] = 1e6
	}
	depth[2*4+2] = -2 // at iuv = (2, 2); the shader takes its abs
	dtex := newTex(t, s, recorder.TextureDesc{Width: 4, Height: 4, Format: "r32float"}, asBytesF(depth))
	mouse := paramsOf(t, struct{ SX, SY, CX, CY, VX, VY float32 }{4, 4, 0.5, 0.5, 0.5, -0.25})
	launch(t, s, ku, recorder.Groups(n*n*n/64, 1, 1), cells, box, box, recorder.Params(ru.bytes()), dtex, mouse)
	got := readI32(t, s, cells)

	// The mouse: ndc = (0, 0, 1 + 2/2, 1), eye = ndc + (4, 4, 4), world = eye.
	mouseCell := v3{4, 4, 6}
	force := v3{1, -0.5, 0}
	want := slices.Clone(in)
	for c := 0; c < n*n*n; c++ {
		if in[4*c+3] <= 0 {
			continue
		}
		x, y, z := c/n/n, (c/n)%n, c%n
		diff := mouseCell.sub(v3{float64(x), float64(y), float64(z)})
		d2 := diff.dot(diff)
		m := float64(float32(in[4*c+3]) / mult)
		for k := 0; k < 3; k++ {
			v := float64(float32(in[4*c+k])/mult) / m
			if d2 < 36 {
				v += (36 - d2) / 36 * 5 * force[k]
			}
			want[4*c+k] = int32(v * mult)
		}
		for k, p := range []int{x, y, z} {
			if p < 2 || p > 5 {
				want[4*c+k] = 0
			}
		}
	}
	for i := range want {
		if !closeTo(float64(got[i]), float64(want[i]), 2, 1e-6) {
			t.Errorf("updateGrid cell %d field %d = %d, want %d", i/4, i%4, got[i], want[i])
		}
	}

	ps := mpmRandomParticles(3, 40)
	pb := uploadWords(t, s, mpmParticles(ps, 20))
	launch(t, s, kg, recorder.Groups(1, 1, 1), pb, cells, box, box, recorder.ParamsOf[uint32](uint32(len(ps)), 0, 0, 0))
	gp := readWords(t, s, pb)
	for i, p := range ps {
		var B m3
		var v v3
		mpmStencil(p, func(w float64, cx, dist v3) {
			c := int(cx[0])*n*n + int(cx[1])*n + int(cx[2])
			wv := v3{float64(float32(got[4*c]) / mult), float64(float32(got[4*c+1]) / mult), float64(float32(got[4*c+2]) / mult)}.scale(w)
			B = B.add(m3{wv.scale(dist[0]), wv.scale(dist[1]), wv.scale(dist[2])})
			v = v.add(wv)
		})
		C := B.scale(4)
		pos := p.pos.add(v.scale(dt))
		for k := range pos {
			pos[k] = min(max(pos[k], 1), n-2)
		}
		dist := v3{n / 2, n / 2, n / 2}.sub(pos)
		l := math.Sqrt(dist.dot(dist))
		dir := dist.scale(1 / l)
		if dist.dot(dist) < 400 {
			v = v.add(dir.scale(-(20 - l) * 3))
		}
		v = v.add(dir.scale(0.1))
		xn := pos.add(v.scale(dt * 3))
		for k := range xn {
			if xn[k] < 3 {
				v[k] += 3 - xn[k]
			}
			if xn[k] > n-4 {
				v[k] += n - 4 - xn[k]
			}
		}
		o := 20 * i
		check := func(what string, got float32, want float64) {
			if !closeTo(float64(got), want, 1e-4, 1e-4) {
				t.Errorf("g2p particle %d %s = %v, want %v", i, what, got, want)
			}
		}
		for k := 0; k < 3; k++ {
			check("position", gp.f(o+k), pos[k])
			check("v", gp.f(o+4+k), v[k])
			for c := 0; c < 3; c++ {
				check("C", gp.f(o+8+4*c+k), C[c][k])
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Canleskis/particular, src/algorithms/wgpu_data/compute.wgsl: direct
// N-body accelerations, a PointMass of vec3 and f32 (16 bytes), an output
// array<vec3<f32>> (16-byte stride), j++ over arrayLength, a 256-wide
// workgroup over fewer particles (reads past the end clamped, writes
// dropped).

//go:embed testdata/wgsl/particular_gravity.wgsl
var particularGravity string

// TestParticularGravityComputesLikeItsReference: 40 particles, 12 of them massive; each
// acceleration within 1e-5 of the sum of its terms' magnitudes of float64.
func TestParticularGravityComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, particularGravity, "main", nil, "a vec3 and f32 struct, an array<vec3<f32>> output")
	const n, nm = 40, 12
	pos := lattice(91, 3*n, 4, 64)
	mass := lattice(92, n, 1, 16)
	pack := func(cnt int) layoutWords {
		var w layoutWords
		for i := 0; i < cnt; i++ {
			w.f32(16*i, pos[3*i], pos[3*i+1], pos[3*i+2], float32(math.Abs(float64(mass[i])))+0.25)
		}
		return w
	}
	acc := empty(t, s, 4*n)
	launch(t, s, k, recorder.Groups(1, 1, 1), uploadWords(t, s, pack(n)), uploadWords(t, s, pack(nm)), acc)
	got := read(t, s, acc)
	for i := 0; i < n; i++ {
		var a v3
		mag := 0.0
		p1 := v3{float64(pos[3*i]), float64(pos[3*i+1]), float64(pos[3*i+2])}
		for j := 0; j < nm; j++ {
			p2 := v3{float64(pos[3*j]), float64(pos[3*j+1]), float64(pos[3*j+2])}
			dir := p2.sub(p1)
			norm := dir.dot(dir)
			if norm == 0 {
				continue
			}
			m := math.Abs(float64(mass[j])) + 0.25
			a = a.add(dir.scale(m / (norm * math.Sqrt(norm))))
			mag += m / norm
		}
		for c := 0; c < 3; c++ {
			if !closeTo(float64(got[4*i+c]), a[c], 1e-5*mag, 0) {
				t.Errorf("particle %d axis %d: %g, want %g", i, c, got[4*i+c], a[c])
			}
		}
	}
}

// ---------------------------------------------------------------------------
// charlieroberts/seagulls, demos/16_boids/compute.glsl (WGSL despite the
// name): 2048 boids over an 8×8 workgroup indexed through a vec3u cell,
// a bare vec2f uniform, var boid:Particle copied and stored whole, .005
// and 5. literals, continue in a for loop, *= -1. on a member.

//go:embed testdata/wgsl/seagulls_boids.wgsl
var seagullsBoids string

// TestSeagullsBoidsComputeLikeTheirReference: one step of 2048 boids in place, on a lattice
// 1/32 by 1/16 apart (keepaway never fires). Invocations read neighbours
// that others may already have stored (the demo's own race), which moves
// the averages of the other boids by far less than 2e-3; each boid's new
// position and velocity is within 2e-3 of the float64 step from the old
// state.
func TestSeagullsBoidsComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, seagullsBoids, "cs", nil, "a bare vec2f uniform, continue in a for loop, a struct var stored whole")
	const n = 2048
	r := fixedRand(101)
	st := make([]float32, 4*n)
	for i := 0; i < n; i++ {
		st[4*i] = float32(i%64)/32 - 1 + 1.0/64
		st[4*i+1] = float32(i/64)/16 - 1 + 1.0/64
		st[4*i+2] = float32(math.Round((2*r.Float64()-1)*256) / 1024)
		st[4*i+3] = float32(math.Round((2*r.Float64()-1)*256) / 1024)
	}
	buf := upload(t, s, st)
	res := [2]float64{640, 480}
	var par layoutWords
	par.f32(0, float32(res[0]), float32(res[1]))
	launch(t, s, k, recorder.Groups(1, 1, n/64), uploadWords(t, s, par), buf)
	got := read(t, s, buf)
	var sp, sv [2]float64
	for i := 0; i < n; i++ {
		for c := 0; c < 2; c++ {
			sp[c] += float64(st[4*i+c])
			sv[c] += float64(st[4*i+2+c])
		}
	}
	bad := 0
	for i := 0; i < n; i++ {
		var pos, vel [2]float64
		for c := 0; c < 2; c++ {
			pos[c], vel[c] = float64(st[4*i+c]), float64(st[4*i+2+c])
			center := (sp[c] - pos[c]) / (n - 1)
			avg := (sv[c] - vel[c]) / (n - 1)
			vel[c] += (center-pos[c])*0.05 + avg*0.01
		}
		if l := math.Hypot(vel[0], vel[1]); l > 5 {
			vel[0], vel[1] = vel[0]/l*5, vel[1]/l*5
		}
		for c := 0; c < 2; c++ {
			pos[c] += 2 / res[c] * vel[c]
		}
		if math.Abs(pos[1]) >= 1 {
			vel[1] = -vel[1]
		}
		if math.Abs(pos[0]) > 1 {
			vel[0] = -vel[0]
		}
		want := []float64{pos[0], pos[1], vel[0], vel[1]}
		for c := 0; c < 4; c++ {
			if !closeTo(float64(got[4*i+c]), want[c], 2e-3, 0) {
				bad++
				if bad < 10 {
					t.Errorf("boid %d field %d: %g, want %g", i, c, got[4*i+c], want[c])
				}
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Two Games of Life. qlurkin/qlurkin.github.io, docs/gameoflife/
// compute.wgsl (Google's "Your first WebGPU app" codelab): a vec2f uniform
// grid, vec2(x, y) inferring vec2<u32>, cell.x-1 wrapping below zero, a
// switch over a u32 with abstract case values, cellStateOut[i] = 1; its
// ${WORKGROUP_SIZE} is filled in with 8 as the page's template does.
// webgpu/webgpu-samples, sample/gameOfLife/compute.wgsl: @binding before
// @group, a vec2<u32> in read-only storage, override blockSize = 8 (an
// abstract-int override) sizing the workgroup, select over u32(bool).

//go:embed testdata/wgsl/qlurkin_life.wgsl
var qlurkinLife string

//go:embed testdata/wgsl/webgpu_samples_life.wgsl
var webgpuSamplesLife string

// lifeStep is one generation on a size×size torus (size a power of two, so
// the shaders' u32 wrap of x - 1 at 0 lands on size - 1).
func lifeStep(cur []uint32, size int) []uint32 {
	next := make([]uint32, len(cur))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			n := uint32(0)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dx != 0 || dy != 0 {
						n += cur[(y+dy+size)%size*size+(x+dx+size)%size]
					}
				}
			}
			alive := cur[y*size+x] == 1
			if n == 3 || alive && n == 2 {
				next[y*size+x] = 1
			}
		}
	}
	return next
}

// TestGamesOfLifeComputeLikeTheirReference: four generations of each on a 16×16 torus, bit
// for bit.
func TestGamesOfLifeComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	const size = 16
	start := seq(size*size, func(i int) uint32 { return lcg(i) >> 30 & 1 })
	t.Run("qlurkin", func(t *testing.T) {
		k := sampleKernel(t, d, strings.ReplaceAll(qlurkinLife, "${WORKGROUP_SIZE}", "8"), "computeMain", nil,
			"vec2(x, y) of u32, a switch with abstract case values")
		var grid layoutWords
		grid.f32(0, size, size)
		cur, want := start, start
		for g := 0; g < 4; g++ {
			out := empty(t, s, size*size)
			launch(t, s, k, recorder.Groups(2, 2, 1), uploadWords(t, s, grid), upU32(t, s, cur), out)
			cur, want = readU32(t, s, out), lifeStep(want, size)
			wantSame(t, "generation", want, cur)
		}
	})
	t.Run("webgpu-samples", func(t *testing.T) {
		k := sampleKernel(t, d, webgpuSamplesLife, "main", nil, "override blockSize = 8 in @workgroup_size")
		cur, want := start, start
		for g := 0; g < 4; g++ {
			out := empty(t, s, size*size)
			launch(t, s, k, recorder.Groups(2, 2, 1), upU32(t, s, []uint32{size, size}), upU32(t, s, cur), out)
			cur, want = readU32(t, s, out), lifeStep(want, size)
			wantSame(t, "generation", want, cur)
		}
	})
}

// ---------------------------------------------------------------------------
// Absulit/points, simplewebgpu/shaders/default.compute.js: the library's
// default compute pass, eight bindings of every kind (a sampler, a sampled
// texture, a storage texture, storage structs of nested structs with an
// array<f32,2> member, a uniform), var <storage, read_write> with a space,
// a let of explicit type ptr<storage, f32, read_write>, vec2(0) (an
// abstract-int vector) as the f32 coordinates of textureSampleLevel,
// textureStore at vec2<u32>(0,0).

//go:embed testdata/wgsl/points_default_compute.wgsl
var pointsDefaultCompute string

// TestPointsDefaultComputeComputesLikeItsReference: texel (0, 0) of the output is the
// feedback texture sampled at uv (0, 0) with a nearest, clamping sampler
// (its texel (0, 0)), exactly; the rest of the output stays zero.
//
// FAILS: Kernel refuses it. WGSL converts the abstract-int vector vec2(0)
// (or vec2(0, 0)) to the vec2<f32> a sampling builtin's coordinates need;
// naga v22 concretizes it to vec2<i32> first and rejects the call
// ("Image coordinate type of [28] does not match dimension D2"), and the
// front-end does not rewrite it. Minimal reproduction:
//
//	@group(0) @binding(0) var t: texture_2d<f32>;
//	@group(0) @binding(1) var s: sampler;
//	@group(0) @binding(2) var<storage, read_write> o: vec4f;
//	@compute @workgroup_size(1) fn main() { o = textureSampleLevel(t, s, vec2(0), 0.0); }
//
// So do vec2(0, 0), vec2(1, 0), a const uv = vec2(0, 1) passed as uv,
// textureSampleLevel(t3d, s, vec3(0), 0.0), textureSampleLevel(t2darray,
// s, vec2(0), 0, 0.0) and textureGather(0, t, s, vec2(0)); vec2(0.0),
// vec2(0.5, 0), vec2f(0) and vec2(1, 0) * 0.5 are accepted, as are
// abstract-int vectors as textureLoad and textureStore coordinates and as
// the offset argument. Only all-integer abstract vectors in the
// coordinates of a sampling builtin are missed.
func TestPointsDefaultComputeComputesLikeItsReference(t *testing.T) {
	runPointsDefault(t, pointsDefaultCompute)
}

// ---------------------------------------------------------------------------
// EvanCMcPheron/Gravity-rs, shaders/incriment_bodys.wgsl: "@group (0)"
// with a space before the parenthesis, vec4f arrays, a 1×1×1 workgroup.

//go:embed testdata/wgsl/gravity_rs_increment.wgsl
var gravityRsIncrement string

// TestGravityIncrementComputesLikeItsReference: 10 bodies moved by 0.005 × velocity, one
// f32 rounding each (fused or not: the product is exact), bit for bit.
func TestGravityIncrementComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, gravityRsIncrement, "cs_entry", nil, "@group (0) with a space")
	const n = 10
	pos, vel := lattice(131, 4*n, 8, 64), lattice(132, 4*n, 8, 8)
	pb := upload(t, s, pos)
	launch(t, s, k, recorder.Groups(n, 1, 1), pb, upload(t, s, vel)) // masses is unused, so unbound
	want := make([]float32, 4*n)
	for i := range want {
		want[i] = float32(float64(pos[i]) + float64(vel[i])*float64(float32(0.005)))
	}
	wantSame(t, "positions", want, read(t, s, pb), relTol(0, 1.2e-7))
}

// ---------------------------------------------------------------------------
// fsabolic/diplomski_rad, diplomski_rad/3d/randomPiramide/shaderi/
// forceComputeShaders.js: a Coulomb-style pull toward the origin over
// six separate coordinate arrays, a bare f32 uniform, var k : f32 = 0 and
// var charge : f32 = -1 (abstract integers initialising f32 vars),
// 1/pow(d,2), dt/1, fn on the attribute line.

//go:embed testdata/wgsl/fsabolic_forces.wgsl
var fsabolicForces string

// TestCoulombForcesComputeLikeTheirReference: 256 particles; with k = 0 the force term is
// zero (the particles are off the origin, so 1/d² is finite), velocities
// stay and each coordinate moves by time × velocity: bit for bit on a
// lattice where the product is exact.
func TestCoulombForcesComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, fsabolicForces, "popuniKoordinateCestica", nil, "var k : f32 = 0, 1/pow(d,2)")
	const n = 256
	var bufs [6]*recorder.Buffer
	var vals [6][]float32
	for c := range bufs {
		vals[c] = lattice(uint64(140+c), n, 4, 16)
		if c < 3 {
			for i := range vals[c] {
				vals[c][i] += 5 // off the origin
			}
		}
		bufs[c] = upload(t, s, vals[c])
	}
	launch(t, s, k, recorder.Groups(1, 1, 1), paramsOf(t, struct{ Time float32 }{0.25}),
		bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5])
	for c := 0; c < 3; c++ {
		want := make([]float32, n)
		for i := range want {
			want[i] = vals[c][i] + 0.25*vals[c+3][i]
		}
		wantSame(t, "coordinates", want, read(t, s, bufs[c]))
		wantSame(t, "velocities", vals[c+3], read(t, s, bufs[c+3]))
	}
}
