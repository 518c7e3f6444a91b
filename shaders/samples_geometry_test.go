package shaders_test

import (
	_ "embed"
	"errors"
	"math"
	"math/bits"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// Geometry and rendering kernels: Morton codes for a BVH, marching cubes
// and a metaball isosurface, ray-triangle intersection, icosphere
// subdivision, a compute rasterizer and Gaussian-splat preprocessing.

// ---------------------------------------------------------------------------
// A linear BVH builder's first passes (Karras 2012, as WebGPU path tracers
// port it): scene bounds by atomicMin/atomicMax over the bits of positive
// floats through a struct of atomics, then 30-bit Morton codes of the
// primitives' centroids, from an array of AABBs of two vec3 each.

//go:embed testdata/wgsl/lbvh_morton.wgsl
var lbvhMorton string

func expandBits(v uint32) uint32 {
	x := v & 0x3ff
	x = (x | x<<16) & 0x030000FF
	x = (x | x<<8) & 0x0300F00F
	x = (x | x<<4) & 0x030C30C3
	x = (x | x<<2) & 0x09249249
	return x
}

// TestLBVHMortonCodesComputeLikeTheirReference: the scene bounds are the exact extremes, and
// every Morton code equals the reference's (bounds spanning [0, 1], [0, 2]
// and [0, 4], corners on multiples of 1/512, so every step is exact).
func TestLBVHMortonCodesComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	kb := mustKernel(t, d, lbvhMorton, "compute_bounds", nil)
	km := mustKernel(t, d, lbvhMorton, "compute_morton", nil)
	const n = 150
	scale := [3]float32{1, 2, 4}
	boxes := make([]float32, 0, 8*n)
	lo, hi := [3]float32{9, 9, 9}, [3]float32{}
	var cents [][3]float32
	for i := 0; i < n; i++ {
		var a, b, c [3]float32
		for k := 0; k < 3; k++ {
			x := float32(lcg(3*i+k)>>23) / 512 * scale[k] // [0, scale)
			w := float32(lcg(7*i+k)>>27) / 512 * scale[k]
			a[k], b[k] = x, min(x+w, scale[k])
			if i == 0 {
				a[k] = 0
			}
			if i == 1 {
				b[k] = scale[k]
			}
			lo[k], hi[k] = min(lo[k], a[k]), max(hi[k], b[k])
			c[k] = (a[k] + b[k]) / 2
		}
		cents = append(cents, c)
		boxes = append(boxes, a[0], a[1], a[2], 0, b[0], b[1], b[2], 0)
	}
	bb := upU32(t, s, []uint32{0xffffffff, 0xffffffff, 0xffffffff, 0, 0, 0})
	codes, ids := empty(t, s, n), empty(t, s, n)
	ab := upload(t, s, boxes)
	launch(t, s, kb, recorder.Groups(3, 1, 1), ab, bb)
	launch(t, s, km, recorder.Groups(3, 1, 1), ab, bb, codes, ids)
	wantSame(t, "scene bounds", bitsOf([]float32{lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]}), readU32(t, s, bb))
	want := make([]uint32, n)
	for i, c := range cents {
		var q [3]uint32
		for k := 0; k < 3; k++ {
			q[k] = uint32(min(max((c[k]-lo[k])/(hi[k]-lo[k])*1024, 0), 1023))
		}
		want[i] = expandBits(q[0])<<2 | expandBits(q[1])<<1 | expandBits(q[2])
	}
	wantSame(t, "morton codes", want, readU32(t, s, codes))
	wantSame(t, "primitive ids", seq(n, func(i int) uint32 { return uint32(i) }), readU32(t, s, ids))
}

// ---------------------------------------------------------------------------
// Marching cubes' classification pass (Paul Bourke's "Polygonising a
// scalar field", as WebGPU ports write it): a texture_3d<f32> sampled at
// the eight corners through an abstract const array of vec3 offsets (with
// a trailing comma; made a var<private> array<vec3<i32>, 8>, whose abstract
// initializer naga v22 finds not to match the type, so the front end spells
// it array<vec3<i32>, 8>(...)), the 256-entry edge table as a module
// const indexed at run time, countOneBits into an atomic vertex count.

//go:embed testdata/wgsl/marching_cubes_classify.wgsl
var marchingCubesClassify string

// TestMarchingCubesClassifyComputesLikeItsReference: over a 7×6×5 field of a sphere's
// distance (cells 6×5×4, the workgroups partly outside), each cell's
// corner mask and edge mask, and the total of crossed edges, equal the
// reference's (which derives each edge bit from its two corners, not from
// the table).
func TestMarchingCubesClassifyComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, marchingCubesClassify, "classify", nil)
	const w, h, dd = 7, 6, 5
	field := make([]float32, w*h*dd)
	for z := 0; z < dd; z++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				dx, dy, dz := float32(x)-3, float32(y)-2.5, float32(z)-2
				field[(z*h+y)*w+x] = dx*dx + dy*dy + dz*dz + float32(lcg(x+7*y+49*z)>>30)
			}
		}
	}
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Depth: dd, Format: "r32float"}, asBytesF(field))
	grid := [3]uint32{w - 1, h - 1, dd - 1}
	cells := int(grid[0] * grid[1] * grid[2])
	par := paramsOf(t, struct {
		Iso  float32
		Grid [3]uint32
	}{6.5, grid})
	out, count := empty(t, s, cells), upU32(t, s, []uint32{0})
	launch(t, s, k, recorder.Groups(2, 2, 1), tex, out, count, par)
	offs := [8][3]int{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}
	edges := [12][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}
	want := make([]uint32, cells)
	total := uint32(0)
	for z := 0; z < int(grid[2]); z++ {
		for y := 0; y < int(grid[1]); y++ {
			for x := 0; x < int(grid[0]); x++ {
				ci := uint32(0)
				for i, o := range offs {
					if field[((z+o[2])*h+y+o[1])*w+x+o[0]] < 6.5 {
						ci |= 1 << i
					}
				}
				em := uint32(0)
				for e, ab := range edges {
					if ci>>ab[0]&1 != ci>>ab[1]&1 {
						em |= 1 << e
					}
				}
				total += uint32(bits.OnesCount32(em))
				want[x+int(grid[0])*(y+int(grid[1])*z)] = ci | em<<8
			}
		}
	}
	wantSame(t, "cube and edge masks", want, readU32(t, s, out))
	wantSame(t, "vertex count", []uint32{total}, readU32(t, s, count))
}

// ---------------------------------------------------------------------------
// OmarShehata/webgpu-compute-rasterizer: triangles projected by a mat4x4
// in a uniform after two f32 (offset 16), a Vertex struct of three f32 (a
// 12-byte stride), atomicMin into an array<atomic<u32>> inside a struct,
// nested for loops with continue, tinyrenderer's barycentric() with an
// early return, an unused line-drawing helper, and a clear entry point.

//go:embed testdata/wgsl/compute_rasterizer.wgsl
var computeRasterizer string

// TestComputeRasterizerComputesLikeItsReference: after clear, 40 small overlapping
// triangles (one off screen, the rest padded with degenerate ones to fill
// the workgroup) leave every pixel's channels at the minimum, over the
// triangles covering it, of 255 × its barycentric coordinates, within one
// step (the GPU rounds the divisions). Coverage is exact (vertices on
// pixel corners, so u is exact) except on a triangle's edge, where a
// barycentric coordinate is 0 only if the division is correctly rounded:
// WGSL allows 2.5 ULP, and on the H200 such pixels went either way, so
// they are not compared.
func TestComputeRasterizerComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	clear := mustKernel(t, d, computeRasterizer, "clear", nil)
	raster := mustKernel(t, d, computeRasterizer, "main", nil)
	const w, h = 32, 16 // powers of two: vertex coordinates × size are exact
	const tris = 40
	type v3 = [3]float64
	var verts []float32
	var screen [][3]v3
	for i := 0; i < tris; i++ {
		var tri [3]v3
		bx, by := int(lcg(2*i)>>27)%(w-8), int(lcg(2*i+1)>>27)%(h-8)
		for j := 0; j < 3; j++ {
			px := bx + int(lcg(6*i+2*j)>>29)
			py := by + int(lcg(6*i+2*j+1)>>29)
			if i == 5 && j == 1 {
				px = w + 3 // off screen: skipped
			}
			// The matrix below translates x by 1/8 of the screen.
			verts = append(verts, float32(px-w/8)/w, float32(py)/h, 0.5)
			tri[j] = v3{float64(px), float64(py), 1}
		}
		screen = append(screen, tri)
	}
	verts = append(verts, make([]float32, 3*3*(256-tris))...)
	mvp := [4][4]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0.125, 0, 0, 1}}
	par := paramsOf(t, struct {
		W, H float32
		MVP  [4][4]float32
	}{w, h, mvp})
	if len(par) != 80 {
		t.Fatalf("UBO packs to %d bytes, want 80", len(par))
	}
	color := empty(t, s, 3*w*h)
	vb := upload(t, s, verts)
	launch(t, s, clear, recorder.Groups(w*h/256, 1, 1), color) // binds only the colour buffer
	launch(t, s, raster, recorder.Groups(1, 1, 1), color, vb, par)
	want := make([]int, 3*w*h)
	for i := range want {
		want[i] = 255
	}
	edge := make([]bool, w*h)
	for _, tri := range screen {
		off := false
		for _, v := range tri {
			off = off || v[0] < 0 || v[0] > w || v[1] < 0 || v[1] > h
		}
		if off {
			continue
		}
		a, b, c := tri[0], tri[1], tri[2]
		x0, x1 := int(min(a[0], b[0], c[0])), int(max(a[0], b[0], c[0]))
		y0, y1 := int(min(a[1], b[1], c[1])), int(max(a[1], b[1], c[1]))
		for x := x0; x <= x1; x++ {
			for y := y0; y <= y1; y++ {
				// u = cross((c.x-a.x, b.x-a.x, a.x-px), (c.y-a.y, b.y-a.y, a.y-py))
				p := v3{c[0] - a[0], b[0] - a[0], a[0] - float64(x)}
				q := v3{c[1] - a[1], b[1] - a[1], a[1] - float64(y)}
				u := v3{p[1]*q[2] - p[2]*q[1], p[2]*q[0] - p[0]*q[2], p[0]*q[1] - p[1]*q[0]}
				if math.Abs(u[2]) < 1 {
					continue
				}
				bc := v3{1 - (u[0]+u[1])/u[2], u[1] / u[2], u[0] / u[2]}
				for _, c := range bc {
					if math.Abs(c) < 1e-5 {
						// On an edge: the GPU's division may land either
						// side of 0 and draw the pixel or not.
						edge[y*w+x] = true
					}
				}
				if bc[0] < 0 || bc[1] < 0 || bc[2] < 0 {
					continue
				}
				for ch := 0; ch < 3; ch++ {
					want[3*(y*w+x)+ch] = min(want[3*(y*w+x)+ch], int(255*bc[ch]))
				}
			}
		}
	}
	got := readU32(t, s, color)
	bad, drawn, edges := 0, 0, 0
	for i := range want {
		if edge[i/3] {
			edges++
			continue
		}
		if want[i] != 255 {
			drawn++
		}
		if !within(int(got[i]), want[i], 1) {
			bad++
			if bad < 10 {
				t.Errorf("pixel (%d, %d) channel %d = %d, want %d", i/3%w, i/3/w, i%3, got[i], want[i])
			}
		}
	}
	t.Logf("%d channels drawn and compared, %d on a triangle's edge not compared", drawn, edges)
	if drawn < 100 {
		t.Errorf("only %d channels drawn off triangle edges: the scene is too sparse to test anything", drawn)
	}
}

// ---------------------------------------------------------------------------
// Möller–Trumbore ray/triangle intersection, as WebGPU path tracers write
// it: structs of vec3 (a Ray of 32 bytes, a Triangle of 48), a
// ptr<function, Hit> parameter read through p.t (pointer composite access)
// and written whole with a struct constructor, a closest-hit loop bounded
// by arrayLength.

//go:embed testdata/wgsl/moller_trumbore.wgsl
var mollerTrumbore string

// TestMollerTrumboreComputesLikeItsReference: 90 rays (some missing, some through several
// triangles at different depths, none within 1e-3 of an edge) find the
// reference's closest triangle exactly, and its t, u and v within 1e-5.
func TestMollerTrumboreComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, mollerTrumbore, "trace", nil)
	const nTri, nRay = 12, 90
	type vec = [3]float64
	tris := make([][3]vec, nTri)
	var triData []float32
	for i := range tris {
		cx, cy := float64(lcg(2*i)>>28), float64(lcg(2*i+1)>>28) // 0..15
		z := 1 + 0.5*float64(i)                                  // distinct depths
		tris[i] = [3]vec{{cx - 3, cy - 2, z}, {cx + 4, cy - 1, z + 0.25}, {cx, cy + 5, z - 0.25}}
		for _, v := range tris[i] {
			triData = append(triData, float32(v[0]), float32(v[1]), float32(v[2]), 0)
		}
	}
	sub := func(a, b vec) vec { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	dot := func(a, b vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	crs := func(a, b vec) vec { return vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]} }
	var rayData []float32
	var want []float32
	var wantIdx []int32
	pts := random(42, 3*1000, 1) // lcg's successive values fall on a lattice here
	for cand := 0; len(wantIdx) < nRay; cand++ {
		o := vec{math.Round(float64(pts[3*cand]+1)*20)/2 - 4, math.Round(float64(pts[3*cand+1]+1)*20)/2 - 4, -10}
		dir := vec{math.Round(float64(pts[3*cand+2])*4) / 64, 0.03125, 1}
		best, bu, bv, bi := 1e30, 0.0, 0.0, int32(-1)
		ambiguous := false
		for i, tr := range tris {
			e1, e2 := sub(tr[1], tr[0]), sub(tr[2], tr[0])
			p := crs(dir, e2)
			det := dot(e1, p)
			sv := sub(o, tr[0])
			u := dot(sv, p) / det
			q := crs(sv, e1)
			v := dot(dir, q) / det
			tt := dot(e2, q) / det
			for _, m := range []float64{u, v, 1 - u - v} {
				ambiguous = ambiguous || math.Abs(m) < 1e-3
			}
			if u < 0 || u > 1 || v < 0 || u+v > 1 || tt <= 1e-7 || tt >= best {
				continue
			}
			best, bu, bv, bi = tt, u, v, int32(i)
		}
		if ambiguous {
			continue
		}
		rayData = append(rayData, float32(o[0]), float32(o[1]), float32(o[2]), 0, float32(dir[0]), float32(dir[1]), float32(dir[2]), 0)
		want = append(want, float32(best), float32(bu), float32(bv))
		wantIdx = append(wantIdx, bi)
	}
	hits := empty(t, s, 4*nRay)
	launch(t, s, k, recorder.Groups(2, 1, 1), upload(t, s, rayData), upload(t, s, triData), hits)
	raw := readU32(t, s, hits)
	var got []float32
	var gotIdx []int32
	missed := 0
	for i := 0; i < nRay; i++ {
		got = append(got, math.Float32frombits(raw[4*i]), math.Float32frombits(raw[4*i+1]), math.Float32frombits(raw[4*i+2]))
		gotIdx = append(gotIdx, int32(raw[4*i+3]))
		if wantIdx[i] < 0 {
			missed++
		}
	}
	if missed == 0 || missed == nRay {
		t.Errorf("%d of %d rays miss: the scene does not test both outcomes", missed, nRay)
	} else {
		t.Logf("%d of %d rays miss", missed, nRay)
	}
	wantSame(t, "closest triangle", wantIdx, gotIdx)
	wantSame(t, "t, u, v", want, got, near(1e-5))
}

// ---------------------------------------------------------------------------
// A geodesic-sphere generator's first subdivision (planet and icosphere
// demos): the golden ratio as a const of sqrt (naga v22 does
// not evaluate sqrt in a constant; the front end does), the
// icosahedron's vertices as an abstract const array of vec3 (a trailing
// comma; rewritten as in marching cubes), its faces as an
// array<vec3<u32>, 20>, both indexed at run time; mix and normalize onto a
// sphere whose radius is a bare f32 uniform, into an array<vec3<f32>>.

//go:embed testdata/wgsl/icosphere_subdivide.wgsl
var icosphereSubdivide string

// TestIcosphereSubdivideComputesLikeItsReference: the 120 vertices (each face's corners and
// edge midpoints) lie where the float64 reference puts them, within 1e-5
// of the radius (normalize's inverse square root).
func TestIcosphereSubdivideComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, icosphereSubdivide, "subdivide", nil)
	phi := (1 + math.Sqrt(5)) / 2
	verts := [12][3]float64{{-1, phi, 0}, {1, phi, 0}, {-1, -phi, 0}, {1, -phi, 0}, {0, -1, phi}, {0, 1, phi},
		{0, -1, -phi}, {0, 1, -phi}, {phi, 0, -1}, {phi, 0, 1}, {-phi, 0, -1}, {-phi, 0, 1}}
	faces := [20][3]int{{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4}, {11, 10, 2},
		{10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10},
		{8, 6, 7}, {9, 8, 1}}
	const radius = 2.5
	want := make([]float32, 0, 4*120)
	onSphere := func(p [3]float64) {
		n := math.Sqrt(p[0]*p[0] + p[1]*p[1] + p[2]*p[2])
		want = append(want, float32(p[0]/n*radius), float32(p[1]/n*radius), float32(p[2]/n*radius), -1)
	}
	mid := func(a, b [3]float64) [3]float64 {
		return [3]float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}
	}
	for _, f := range faces {
		a, b, c := verts[f[0]], verts[f[1]], verts[f[2]]
		for _, p := range [][3]float64{a, b, c, mid(a, b), mid(b, c), mid(c, a)} {
			onSphere(p)
		}
	}
	out := upload(t, s, seqF(4*120, func(int) float32 { return -1 }))
	launch(t, s, k, recorder.Groups(1, 1, 1), out, recorder.ParamsOf[float32](radius))
	wantSame(t, "subdivided vertices (the fourth lane is padding)", want, read(t, s, out), near(1e-5))
}

// ---------------------------------------------------------------------------
// A WebGPU Gaussian-splatting preprocess pass (CIS 565's WebGPU splatting
// project, preprocess.wgsl as one student fork ships it): f16-packed
// gaussians read with unpack2x16float, spherical-harmonics colour with
// const f32 arrays, mat3x3f built from 9 scalars mixing f32 and abstract
// integers (mat3x3f(a, 0.0, 0.0, 0.0, b, 0, ...)), 1.f literals, an
// array<f32, 6> returned by a helper, transposes and matrix products,
// select(1.0 / det, 0.0, ...), pack2x16float outputs, atomics in structs
// and two overrides without defaults in the workgroup size and an
// expression.

//go:embed testdata/wgsl/splat_preprocess.wgsl
var splatPreprocess string

// splatShC are the shader's spherical-harmonics constants.
var splatShC = struct {
	c0, c1 float64
	c2     [5]float64
	c3     [7]float64
}{0.28209479177387814, 0.4886025119029199,
	[5]float64{1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396},
	[7]float64{-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658, 1.445305721320277, -0.5900435899266435}}

// TestGaussianSplatPreprocessComputesLikeItsReference: 50 gaussians in front of a camera 5
// units back (view a translation, proj a perspective matrix with w = z):
// each writes one splat, found back by its depth bits in sort_depths; its
// colour (third-order SH of random f16 coefficients), conic, opacity
// sigmoid, radius / viewport and NDC position equal the float64
// reference's within f16 precision (the radius, a ceil, within one step);
// keys_size counts 50, dispatch_x is 1 (only s_idx 0 is a multiple of
// 64), sort_indices is the identity.
func TestGaussianSplatPreprocessComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, splatPreprocess, "preprocess", map[string]float64{"workgroupSize": 64, "sortKeyPerThread": 1},
		"mat3x3f(f32, 0.0, 0.0, 0.0, f32, 0, ...), 1.f, overrides without defaults")
	const n = 50
	r := fixedRand(7)
	h := func(x float64) uint16 { return f32ToF16(float32(x), true) }
	hf := func(u uint16) float64 { return float64(f16ToF32(u)) }
	pk := func(a, b uint16) uint32 { return uint32(a) | uint32(b)<<16 }
	var gs, cd layoutWords
	type gauss struct {
		pos, scale v3
		rot        [4]float64
		opacity    float64
		sh         [48]float64
	}
	g := make([]gauss, n)
	for i := range g {
		var ph [4]uint16
		ph[0], ph[1], ph[2], ph[3] = h(2*r.Float64()-1), h(2*r.Float64()-1), h(-1+2*float64(i)/n), h(4*r.Float64()-2)
		g[i].pos = v3{hf(ph[0]), hf(ph[1]), hf(ph[2])}
		g[i].opacity = hf(ph[3])
		var q [4]float64
		l := 0.0
		for c := range q {
			q[c] = 2*r.Float64() - 1
			l += q[c] * q[c]
		}
		var qh [4]uint16
		for c := range q {
			qh[c] = h(q[c] / math.Sqrt(l))
			g[i].rot[c] = hf(qh[c])
		}
		var sc [3]uint16
		for c := range sc {
			sc[c] = h(-3 + 2*r.Float64())
			g[i].scale[c] = hf(sc[c])
		}
		gs.u32(24*i, pk(ph[0], ph[1]), pk(ph[2], ph[3]), pk(qh[0], qh[1]), pk(qh[2], qh[3]), pk(sc[0], sc[1]), pk(sc[2], 0))
		for j := 0; j < 24; j++ {
			a, b := h(r.Float64()-0.5), h(r.Float64()-0.5)
			g[i].sh[2*j], g[i].sh[2*j+1] = hf(a), hf(b)
			cd.u32(4*(24*i+j), pk(a, b))
		}
	}
	var cam layoutWords
	view := m4{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 5, 1}}
	viewInv := m4{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, -5, 1}}
	proj := m4{{1.2, 0, 0, 0}, {0, 1.6, 0, 0}, {0, 0, 1.01, 1}, {0, 0, -0.101, 0}}
	for i, m := range []m4{view, viewInv, proj, {}} {
		for c := 0; c < 4; c++ {
			cam.f32(64*i+16*c, float32(m[c][0]), float32(m[c][1]), float32(m[c][2]), float32(m[c][3]))
		}
	}
	viewport, focal := [2]float64{800, 600}, [2]float64{500, 450}
	cam.f32(256, float32(viewport[0]), float32(viewport[1]), float32(focal[0]), float32(focal[1]))
	splats := empty(t, s, 6*n)
	infos, depths, indices, disp := upU32(t, s, make([]uint32, 5)), empty(t, s, n), empty(t, s, n), upU32(t, s, make([]uint32, 3))
	launch(t, s, k, recorder.Groups(1, 1, 1), recorder.Params(cam.bytes()), uploadWords(t, s, gs), splats,
		recorder.ParamsOf[float32](1, 3, 0, 0), uploadWords(t, s, cd), infos, depths, indices, disp)
	if got := readU32(t, s, infos)[0]; got != n {
		t.Errorf("keys_size = %d, want %d", got, n)
	}
	if got := readU32(t, s, disp)[0]; got != 1 {
		t.Errorf("dispatch_x = %d, want 1", got)
	}
	wantSame(t, "sort_indices", seq(n, func(i int) uint32 { return uint32(i) }), readU32(t, s, indices))
	gotSplats, gotDepths := readU32(t, s, splats), readU32(t, s, depths)
	slot := map[uint32]int{}
	for i, b := range gotDepths {
		slot[b] = i
	}
	half := func(w uint32, hi bool) float64 {
		if hi {
			return hf(uint16(w >> 16))
		}
		return hf(uint16(w))
	}
	for i, gi := range g {
		vp := view.mulV([4]float64{gi.pos[0], gi.pos[1], gi.pos[2], 1})
		si, ok := slot[math.Float32bits(float32(vp[2]))]
		if !ok {
			t.Errorf("gaussian %d: no splat with depth %v", i, float32(vp[2]))
			continue
		}
		// Compute3DCovariance
		rr, x, y, z := gi.rot[0], gi.rot[1], gi.rot[2], gi.rot[3]
		R := m3{{1 - 2*(y*y+z*z), 2 * (x*y - rr*z), 2 * (x*z + rr*y)},
			{2 * (x*y + rr*z), 1 - 2*(x*x+z*z), 2 * (y*z - rr*x)},
			{2 * (x*z - rr*y), 2 * (y*z + rr*x), 1 - 2*(x*x+y*y)}}
		S := m3{{math.Exp(gi.scale[0]), 0, 0}, {0, math.Exp(gi.scale[1]), 0}, {0, 0, math.Exp(gi.scale[2])}}
		M := S.mul(R)
		sig := M.transpose().mul(M)
		// Compute2DCovariance
		tv := vp
		limx, limy := 0.65*viewport[0]/focal[0], 0.65*viewport[1]/focal[1]
		tv[0] = math.Min(limx, math.Max(-limx, tv[0]/tv[2])) * tv[2]
		tv[1] = math.Min(limy, math.Max(-limy, tv[1]/tv[2])) * tv[2]
		J := m3{{focal[0] / tv[2], 0, -(focal[0] * tv[0]) / (tv[2] * tv[2])}, {0, focal[1] / tv[2], -(focal[1] * tv[1]) / (tv[2] * tv[2])}, {}}
		W := m3{{view[0][0], view[0][1], view[0][2]}, {view[1][0], view[1][1], view[1][2]}, {view[2][0], view[2][1], view[2][2]}}.transpose()
		T := W.mul(J)
		cm := T.transpose().mul(sig.transpose()).mul(T)
		cov := v3{cm[0][0] + 0.3, cm[0][1], cm[1][1] + 0.3}
		det := cov[0]*cov[2] - cov[1]*cov[1]
		conic := v3{cov[2] / det, -cov[1] / det, cov[0] / det}
		mid := 0.5 * (cov[0] + cov[2])
		disc := math.Max(0.1, mid*mid-det)
		radius := math.Ceil(3 * math.Sqrt(mid+disc))
		// colour
		dir := gi.pos.sub(v3{0, 0, -5})
		dir = dir.scale(1 / math.Sqrt(dir.dot(dir)))
		coef := func(c int) v3 { return v3{gi.sh[3*c], gi.sh[3*c+1], gi.sh[3*c+2]} }
		C := splatShC
		dx, dy, dz := dir[0], dir[1], dir[2]
		xx, yy, zz, xy, yz, xz := dx*dx, dy*dy, dz*dz, dx*dy, dy*dz, dx*dz
		col := coef(0).scale(C.c0)
		col = col.add(coef(1).scale(-C.c1 * dy)).add(coef(2).scale(C.c1 * dz)).add(coef(3).scale(-C.c1 * dx))
		col = col.add(coef(4).scale(C.c2[0] * xy)).add(coef(5).scale(C.c2[1] * yz)).add(coef(6).scale(C.c2[2] * (2*zz - xx - yy))).
			add(coef(7).scale(C.c2[3] * xz)).add(coef(8).scale(C.c2[4] * (xx - yy)))
		col = col.add(coef(9).scale(C.c3[0] * dy * (3*xx - yy))).add(coef(10).scale(C.c3[1] * xy * dz)).add(coef(11).scale(C.c3[2] * dy * (4*zz - xx - yy))).
			add(coef(12).scale(C.c3[3] * dz * (2*zz - 3*xx - 3*yy))).add(coef(13).scale(C.c3[4] * dx * (4*zz - xx - yy))).
			add(coef(14).scale(C.c3[5] * dz * (xx - yy))).add(coef(15).scale(C.c3[6] * dx * (xx - 3*yy)))
		for c := range col {
			col[c] = math.Max(0, col[c]+0.5)
		}
		pp := proj.mulV(vp)
		w := gotSplats[6*si:]
		check := func(what string, got, want, abs float64) {
			if !closeTo(got, want, abs, 2e-3) {
				t.Errorf("gaussian %d (splat %d) %s = %v, want %v", i, si, what, got, want)
			}
		}
		check("color.r", half(w[0], false), col[0], 1e-3)
		check("color.g", half(w[0], true), col[1], 1e-3)
		check("color.b", half(w[1], false), col[2], 1e-3)
		check("color.a", half(w[1], true), 1, 0)
		check("radius/viewport.x", half(w[2], false), radius/viewport[0], 1.01/viewport[0])
		check("radius/viewport.y", half(w[2], true), radius/viewport[1], 1.01/viewport[1])
		check("ndc.x", half(w[3], false), pp[0]/pp[3], 1e-3)
		check("ndc.y", half(w[3], true), pp[1]/pp[3], 1e-3)
		check("conic.x", half(w[4], false), conic[0], 1e-4)
		check("conic.y", half(w[4], true), conic[1], 1e-4)
		check("conic.z", half(w[5], false), conic[2], 1e-4)
		check("opacity", half(w[5], true), 1/(1+math.Exp(-gi.opacity)), 1e-3)
	}
}

// ---------------------------------------------------------------------------
// Dawn's Tint benchmark metaball-isosurface.wgsl (toji's WebGPU metaballs):
// marching cubes over a volume — table lookups in a storage struct,
// var<private> arrays and a counter filled by helpers and indexed at run
// time, any() of a vec3<bool>, mix with a vec3 splat, a struct with an
// atomic among plain members (draw-indirect arguments) and a runtime
// array after vec3 members. The benchmark still declares its outputs
// var<storage, write>, an access mode WGSL dropped (storage is read or
// read_write): that text is refused; with `write` read as `read_write`,
// the kernel runs.

//go:embed testdata/wgsl/dawn_metaball_isosurface.wgsl
var dawnMetaballIsosurface string

// TestMetaballIsosurfaceComputesLikeItsReference: the benchmark as written is refused
// with a diagnostic naming the access mode. Read as read_write, over an
// 8³ volume of random values with threshold 0.5 and tables consistent
// with the shader's edge order (an edge is active when its corners lie on
// opposite sides; a random triangle list over active edges), every
// voxel's index list is its first vertex plus the table's corners (the
// first vertex recovered from it, as the atomic's order decides it), the
// vertex ranges tile [0, total) without overlap, and each vertex's
// position and normal equal the reference's within 1e-5.
func TestMetaballIsosurfaceComputesLikeItsReference(t *testing.T) {
	skipIfShort(t)
	d, s := openStream(t)
	_, err := d.Kernel(dawnMetaballIsosurface, "computeMain")
	var ce *wgpu.CompileError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "write") {
		t.Errorf("Kernel of var<storage, write> = %v; want a *CompileError naming the access mode", err)
	}
	src := strings.ReplaceAll(dawnMetaballIsosurface, "var<storage, write>", "var<storage, read_write>")
	k := sampleKernel(t, d, src, "computeMain", nil, "var<private> arrays indexed at run time, any(), an atomic among plain members")
	const n = 8
	r := fixedRand(8)
	vals := make([]float32, n*n*n)
	for i := range vals {
		vals[i] = float32(math.Round(r.Float64()*4096) / 4096)
	}
	// Corner k of the voxel and the corner pair of edge e, in the shader's order.
	corner := [8][3]int{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}
	edge := [12][2]int{{0, 1}, {1, 2}, {3, 2}, {0, 3}, {4, 5}, {5, 6}, {7, 6}, {4, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}
	var tables layoutWords
	tris := make([][]int, 256)
	for ci := 0; ci < 256; ci++ {
		var mask uint32
		var active []int
		for e, p := range edge {
			if (ci>>p[0])&1 != (ci>>p[1])&1 {
				mask |= 1 << e
				active = append(active, e)
			}
		}
		tables.u32(4*ci, mask)
		if len(active) > 0 {
			for m := r.IntN(6); m > 0; m-- {
				tris[ci] = append(tris[ci], active[r.IntN(len(active))])
			}
		}
		tables.i32(1024+64*ci, int32(len(tris[ci])))
		for j, e := range tris[ci] {
			tables.i32(1024+64*ci+4+4*j, int32(e))
		}
	}
	tables.at(1024 + 4*4096)
	var vol layoutWords
	vol.f32(0, -1, -1, -1)
	vol.f32(16, 1, 1, 1)
	vol.f32(32, 0.25, 0.25, 0.25)
	vol.u32(48, n, n, n)
	vol.f32(60, 0.5)
	vol.f32(64, vals...)
	val := func(x, y, z int) float64 {
		if x < 0 || y < 0 || z < 0 || x >= n || y >= n || z >= n { // u32 wrap-around of -1 is >= size too
			return 0
		}
		return float64(vals[x+y*n+z*n*n])
	}
	pos, nrm, idx := empty(t, s, 3*12*n*n*n), empty(t, s, 3*12*n*n*n), empty(t, s, 15*n*n*n)
	draw := upU32(t, s, make([]uint32, 9))
	launch(t, s, k, recorder.Groups(2, 2, 2), uploadWords(t, s, tables), uploadWords(t, s, vol), pos, nrm, idx, draw)
	gotPos, gotNrm, gotIdx := read(t, s, pos), read(t, s, nrm), readU32(t, s, idx)
	total := 0
	covered := map[int]int{}
	for z := 0; z < n; z++ {
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				ci := 0
				for c, o := range corner {
					if val(x+o[0], y+o[1], z+o[2]) < 0.5 {
						ci |= 1 << c
					}
				}
				var vp, vn []v3
				var slotOf [12]int
				for e, p := range edge {
					a, b := corner[p[0]], corner[p[1]]
					if (ci>>p[0])&1 == (ci>>p[1])&1 {
						continue
					}
					va, vb := val(x+a[0], y+a[1], z+a[2]), val(x+b[0], y+b[1], z+b[2])
					mu := (0.5 - va) / (vb - va)
					ax := 0
					for ax = 0; ax < 3 && a[ax] == b[ax]; ax++ {
					}
					lo := a // each interp starts at its first corner, the lower one on the axis
					p0 := v3{-1 + 0.25*float64(x+lo[0]), -1 + 0.25*float64(y+lo[1]), -1 + 0.25*float64(z+lo[2])}
					p0[ax] += 0.25 * mu
					nAt := func(q [3]int) v3 {
						X, Y, Z := x+q[0], y+q[1], z+q[2]
						return v3{val(X-1, Y, Z) - val(X+1, Y, Z), val(X, Y-1, Z) - val(X, Y+1, Z), val(X, Y, Z-1) - val(X, Y, Z+1)}
					}
					hi := lo
					hi[ax]++
					na, nb := nAt(lo), nAt(hi)
					slotOf[e] = len(vp)
					vp = append(vp, p0)
					vn = append(vn, na.add(nb.sub(na).scale(mu)))
				}
				off := (x + y*n + z*n*n) * 15
				var first int
				if len(tris[ci]) > 0 {
					first = int(gotIdx[off]) - slotOf[tris[ci][0]]
				} else {
					first = int(gotIdx[off])
				}
				for j := 0; j < 15; j++ {
					want := first
					if j < len(tris[ci]) {
						want += slotOf[tris[ci][j]]
					}
					if int(gotIdx[off+j]) != want {
						t.Errorf("voxel (%d, %d, %d) index %d = %d, want %d", x, y, z, j, gotIdx[off+j], want)
					}
				}
				for v := range vp {
					if prev, dup := covered[first+v]; dup {
						t.Errorf("vertex %d written by voxels %d and %d", first+v, prev, off/15)
					}
					covered[first+v] = off / 15
					for c := 0; c < 3; c++ {
						if g := gotPos[3*(first+v)+c]; !closeTo(float64(g), vp[v][c], 1e-5, 0) {
							t.Errorf("voxel (%d, %d, %d) vertex %d position[%d] = %v, want %v", x, y, z, v, c, g, vp[v][c])
						}
						if g := gotNrm[3*(first+v)+c]; !closeTo(float64(g), vn[v][c], 1e-5, 0) {
							t.Errorf("voxel (%d, %d, %d) vertex %d normal[%d] = %v, want %v", x, y, z, v, c, g, vn[v][c])
						}
					}
				}
				total += len(vp)
			}
		}
	}
	if got := readU32(t, s, draw)[1]; int(got) != total || len(covered) != total {
		t.Errorf("vertexCount = %d, %d vertices written; want %d", got, len(covered), total)
	}
}
