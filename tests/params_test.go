package tests

import (
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// twoParamsWGSL: out = p.a + q.b, two uniforms in one launch.
const twoParamsWGSL = `
struct P { a: f32 }
struct Q { b: f32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@group(0) @binding(2) var<uniform> q: Q;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&out)) { out[id.x] = out[id.x] + p.a + q.b; }
}
`

// TestATinyParamsCacheNeverServesOneSlotToTwoParamsOfALaunch: with the
// params cache bounded to one entry, a launch with two different Params
// evicts the first while resolving the second; the first slot must not be
// reused for the second, or both bindings read the same value.
func TestATinyParamsCacheNeverServesOneSlotToTwoParamsOfALaunch(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithMetadataCache(1))
	k := gputest.Kernel(t, d, twoParamsWGSL)
	out := gputest.Upload(t, s, gputest.Fill(64, 0))
	want := float32(0)
	for i := 1; i <= 20; i++ {
		p, q := gputest.F32(float32(i)), gputest.F32(float32(1000*i))
		if err := s.Launch(k, recorder.Groups(1, 1, 1), out, p, q); err != nil {
			t.Fatal(err)
		}
		want += float32(i) + float32(1000*i)
		if i%7 == 0 {
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	gputest.WantEqual(t, "every launch reads both its params", gputest.Fill(64, want), gputest.Read(t, s, out))
}

// matWGSL reads a uniform holding matrices and scalars after them and
// writes every component, column by column, to out.
const matWGSL = `
struct P {
	a: mat2x2<f32>,
	x: f32,
	b: mat3x2<f32>,
	y: f32,
	c: mat2x3<f32>,
	z: f32,
}
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1)
fn main() {
	out[0] = p.a[0][0]; out[1] = p.a[0][1]; out[2] = p.a[1][0]; out[3] = p.a[1][1];
	out[4] = p.x;
	out[5] = p.b[0][0]; out[6] = p.b[0][1]; out[7] = p.b[1][0]; out[8] = p.b[1][1]; out[9] = p.b[2][0]; out[10] = p.b[2][1];
	out[11] = p.y;
	out[12] = p.c[0][0]; out[13] = p.c[0][1]; out[14] = p.c[0][2]; out[15] = p.c[1][0]; out[16] = p.c[1][1]; out[17] = p.c[1][2];
	out[18] = p.z;
}
`

// matWideWGSL is matWGSL without two-row matrices.
const matWideWGSL = `
struct P {
	c: mat2x3<f32>,
	z: f32,
	d: mat3x4<f32>,
}
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1)
fn main() {
	out[0] = p.c[0][0]; out[1] = p.c[0][1]; out[2] = p.c[0][2]; out[3] = p.c[1][0]; out[4] = p.c[1][1]; out[5] = p.c[1][2];
	out[6] = p.z;
	for (var i = 0u; i < 3u; i++) { for (var j = 0u; j < 4u; j++) { out[7u + 4u * i + j] = p.d[i][j]; } }
}
`

// TestParamsFromLaysOutMatricesAsWGSLDoes: ParamsFrom documents
// [C][R]float32 as matCxR<f32>. WGSL lays a matCx2's columns 8 bytes
// apart (a matrix is not an array: the uniform address space's 16-byte
// array stride does not apply), so a mat2x2 is 16 bytes, and the member
// after it starts at byte 16. ParamsFrom laid every matrix out as an
// array of columns, 16 bytes apart, and the kernel read the wrong values.
func TestParamsFromLaysOutMatricesAsWGSLDoes(t *testing.T) {
	p, err := recorder.ParamsFrom(struct {
		A [2][2]float32
		X float32
		B [3][2]float32
		Y float32
		C [2][3]float32
		Z float32
	}{
		A: [2][2]float32{{1, 2}, {3, 4}},
		X: 5,
		B: [3][2]float32{{6, 7}, {8, 9}, {10, 11}},
		Y: 12,
		C: [2][3]float32{{13, 14, 15}, {16, 17, 18}},
		Z: 19,
	})
	if err != nil {
		t.Fatal(err)
	}
	// WGSL: a@0 (align 8, 16 B), x@16, b@24 (align 8, 24 B), y@48,
	// c@64 (align 16, 32 B), z@96; size 112.
	want := make([]byte, 112)
	put := func(off int, v ...float32) {
		for i, f := range v {
			binary.LittleEndian.PutUint32(want[off+4*i:], math.Float32bits(f))
		}
	}
	put(0, 1, 2, 3, 4)
	put(16, 5)
	put(24, 6, 7, 8, 9, 10, 11)
	put(48, 12)
	put(64, 13, 14, 15)
	put(80, 16, 17, 18)
	put(96, 19)
	gputest.WantEqual(t, "ParamsFrom lays the struct out as WGSL does", want, []byte(p))
	// The array tag keeps the array reading: array<vec2<f32>, 2>, 16-byte stride.
	pa, err := recorder.ParamsFrom(struct {
		A [2][2]float32 `wgsl:"array"`
	}{A: [2][2]float32{{1, 2}, {3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	wantA := make([]byte, 32)
	for i, f := range []float32{1, 2, 0, 0, 3, 4} {
		binary.LittleEndian.PutUint32(wantA[4*i:], math.Float32bits(f))
	}
	gputest.WantEqual(t, "[2][2]float32 tagged array is array<vec2<f32>, 2>", wantA, []byte(pa))

	d, s := gputest.OpenStream(t)
	wide, err := recorder.ParamsFrom(struct {
		C [2][3]float32
		Z float32
		D [3][4]float32
	}{C: [2][3]float32{{1, 2, 3}, {4, 5, 6}}, Z: 7, D: [3][4]float32{{8, 9, 10, 11}, {12, 13, 14, 15}, {16, 17, 18, 19}}})
	if err != nil {
		t.Fatal(err)
	}
	out := gputest.Empty(t, s, 19*4)
	if err := s.Launch(gputest.Kernel(t, d, matWideWGSL), recorder.Groups(1, 1, 1), out, wide); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the kernel reads every matCx3 and matCx4 component ParamsFrom packed", gputest.Ramp(19, 1), gputest.Read(t, s, out))
	k := gputest.Kernel(t, d, matWGSL)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), out, p); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the kernel reads every matrix component and scalar ParamsFrom packed", gputest.Ramp(19, 1), gputest.Read(t, s, out))
}

// TestParamsFromRefusesWhatHasNoWGSLForm: odd Go types are refused with
// ErrInvalidArgument naming the field, never a panic.
func TestParamsFromRefusesWhatHasNoWGSLForm(t *testing.T) {
	type inner struct{ A float32 }
	type empty struct{}
	var nilPtr *struct{ A uint32 }
	var big = new(struct{ A [4][4]float32 })
	// A huge struct: 1 MiB, or 16 MiB with SOFTGRAPH_LONG=1 (ParamsFrom
	// walks every element; 16 MiB takes seconds under the race detector).
	var huge any = new(struct{ A [1 << 16][4]float32 })
	if longRun() {
		huge = new(struct{ A [1 << 20][4]float32 })
	}
	cases := []struct {
		name string
		v    any
		ok   bool
		msg  string
	}{
		{"nil", nil, false, "not a struct"},
		{"nil pointer", nilPtr, false, "nil pointer"},
		{"pointer to pointer", &big, true, ""},
		{"int", 3, false, "not a struct"},
		{"bool field", struct{ B bool }{}, false, "B"},
		{"int field", struct{ I int }{}, false, "I"},
		{"float64 field", struct{ F float64 }{}, false, "F"},
		{"pointer field", struct{ P *uint32 }{}, false, "P"},
		{"slice field", struct{ S []uint32 }{}, false, "S"},
		{"map field", struct{ M map[int]int }{}, false, "M"},
		{"interface field", struct{ I any }{}, false, "I"},
		{"func field", struct{ F func() }{}, false, "F"},
		{"chan field", struct{ C chan int }{}, false, "C"},
		{"zero-length array", struct{ A [0]uint32 }{}, false, "A"},
		{"empty struct", empty{}, false, "no fields"},
		{"nested empty struct", struct {
			E empty
			A uint32
		}{}, false, "E"},
		{"only blank fields", struct{ _ uint32 }{}, false, "no fields"},
		{"unexported fields", struct{ a, b uint32 }{1, 2}, true, ""},
		{"nested", struct {
			I inner
			J [2]inner
		}{}, true, ""},
		{"array of arrays of matrices", struct{ M [2][3][4]float32 }{}, true, ""},
		{"huge", huge, true, ""},
	}
	for _, c := range cases {
		var p recorder.Params
		var err error
		if msg := noPanic(func() { p, err = recorder.ParamsFrom(c.v) }); msg != "" {
			t.Errorf("%s: ParamsFrom panicked: %s", c.name, msg)
			continue
		}
		if c.ok {
			if err != nil || len(p) == 0 || len(p)%16 != 0 {
				t.Errorf("%s: ParamsFrom = %d bytes, %v; want a positive multiple of 16", c.name, len(p), err)
			}
			continue
		}
		if problem := gputest.CheckErr(err, []error{recorder.ErrInvalidArgument}, []string{c.msg}); problem != "" {
			t.Errorf("%s: %s", c.name, problem)
		}
	}
}

// paramsAt is the Params of indexWGSL.
func paramsAt(t testing.TB, i uint32, v float32) recorder.Params {
	t.Helper()
	p, err := recorder.ParamsFrom(struct {
		I uint32
		V float32
	}{i, v})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestARefusedLaunchNeverFreesParamsAnEarlierBatchStillUses: with a
// one-entry params cache and a batch per launch, launch A (x[2k] = 1) is
// handed to the submitter, which is still busy with long dispatches; then a
// launch is refused on the spot (ErrInvalidArgument: a float texture for a
// texture_2d<u32>, which NewBindGroup refuses after the launch's params
// were looked up, evicting A's params entry while A's batch is not yet
// submitted); then a Sync (which hands off the empty open batch and waits
// with the stream's lock released) runs beside launch B (x[2k+1] = 2).
// Every launch that returned nil must compute with its own params: x is
// 1, 2, 1, 2, ... The refused launch's eviction put A's params slot on the
// open batch's pending list, the empty open batch was retired at once by
// the Sync's hand-off, B got the slot, and B's queue write of its params
// overtook A's unsubmitted batch: A wrote x[2k+1] = 2 and x[2k] stayed 0.
// Fixed: an empty batch's holdings wait for the newest batch still in
// flight (handOff, recorder/submit.go).
func TestARefusedLaunchNeverFreesParamsAnEarlierBatchStillUses(t *testing.T) {
	skipIfShort(t)
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, recorder.WithMetadataCache(1), recorder.WithSubmitChunks(1, 1), recorder.WithFlushDelay(0))
	at := gputest.Kernel(t, d, indexWGSL)
	spin := gputest.Kernel(t, d, spinWGSL)
	sampled := gputest.Kernel(t, d, `
struct P { i: u32 }
@group(0) @binding(0) var tex: texture_2d<u32>;
@group(0) @binding(1) var<storage, read_write> x: array<u32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(1)
fn main() { x[0] = textureLoad(tex, vec2<i32>(0, 0), 0).x + p.i; }
`)
	long := gputest.Upload(t, s, gputest.Fill(spinElems, 0))
	groups := spinGroups(t, d, s, spin, long, time.Millisecond)
	tex, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"})
	if err != nil {
		t.Fatal(err)
	}
	u := gputest.UploadU32(t, s, 0)
	const rounds = 40
	x := gputest.Upload(t, s, make([]float32, 2*rounds))
	want := make([]float32, 2*rounds)
	for k := range rounds {
		for range 9 { // the submitter falls behind
			if err := s.Launch(spin, recorder.Groups(groups, 1, 1), long, gputest.U32(spinIters)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Launch(at, recorder.Groups(1, 1, 1), x, paramsAt(t, uint32(2*k), 1)); err != nil {
			t.Fatal(err)
		}
		want[2*k] = 1
		if err := s.Launch(sampled, recorder.Groups(1, 1, 1), tex, u, gputest.U32(5)); !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Fatalf("round %d: a float texture for a texture_2d<u32>: want ErrInvalidArgument, got %v", k, err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Sync(); err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(100 * time.Microsecond) // widens the window only
		if err := s.Launch(at, recorder.Groups(1, 1, 1), x, paramsAt(t, uint32(2*k+1), 2)); err != nil {
			t.Fatal(err)
		}
		want[2*k+1] = 2
		wg.Wait()
	}
	gputest.WantEqual(t, "every launch computed with its own params", want, gputest.Read(t, s, x))
}
