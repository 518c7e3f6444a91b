package wgsl

import (
	"errors"
	"strings"
	"testing"
)

// tiledMatmul is a producer as tiled matrix multiplies are written: row
// and column from the global id, workgroup tiles, barriers, a loop, and
// one guarded store at row * N + col.
const tiledMatmul = `
const M = 64u;
const N = 48u;
const K = 32u;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
var<workgroup> ta: array<f32, 256>;
var<workgroup> tb: array<f32, 256>;
@compute @workgroup_size(16, 16)
fn matmul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
	let row = gid.y;
	let col = gid.x;
	var acc = 0.0;
	for (var t = 0u; t < K; t = t + 16u) {
		ta[lid.y * 16u + lid.x] = a[min(row, M - 1u) * K + t + lid.x];
		tb[lid.y * 16u + lid.x] = b[(t + lid.y) * N + min(col, N - 1u)];
		workgroupBarrier();
		for (var k = 0u; k < 16u; k = k + 1u) {
			acc = acc + ta[lid.y * 16u + k] * tb[k * 16u + lid.x];
		}
		workgroupBarrier();
	}
	if (row < M && col < N) {
		c[row * N + col] = acc;
	}
}
`

func TestAnalyzeProducerAcceptsATiledMatmulStoringOncePerInvocation(t *testing.T) {
	pw, err := AnalyzeProducer(tiledMatmul, "matmul")
	if err != nil {
		t.Fatal(err)
	}
	if !pw.Producer || pw.Fold != (Fold{Kind: FoldConstant, K: 48}) || pw.Workgroup != [3]uint32{16, 16, 1} {
		t.Errorf("got %+v", pw)
	}
	if want := []bool{true, true, false}; !equalBools(pw.Gathered, want) {
		t.Errorf("Gathered = %v, want %v", pw.Gathered, want)
	}
	if _, err := AnalyzePointwise(tiledMatmul, "matmul"); !errors.Is(err, ErrNotPointwise) {
		t.Errorf("AnalyzePointwise: %v, want ErrNotPointwise", err)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAnalyzeProducerRefusesStoresItCannotPlaceOncePerInvocation(t *testing.T) {
	cases := map[string]struct{ from, to, want string }{
		"in a loop":      {"if (row < M && col < N) {\n\t\tc[row * N + col] = acc;\n\t}", "for (var j = 0u; j < 1u; j++) { c[row * N + col] = acc; }", "inside a loop"},
		"twice":          {"c[row * N + col] = acc;", "c[row * N + col] = acc; c[row * N + col] = acc + 1.0;", "stored 2 times"},
		"read back":      {"c[row * N + col] = acc;", "c[row * N + col] = acc + c[0];", "used other than"},
		"other index":    {"c[row * N + col] = acc;", "c[col * M + row] = acc;", "not one the analysis knows"},
		"runtime stride": {"c[row * N + col] = acc;", "c[row * arrayLength(&a) + col] = acc;", "not the invocation's"},
	}
	for name, c := range cases {
		src := strings.Replace(tiledMatmul, c.from, c.to, 1)
		if src == tiledMatmul {
			t.Fatalf("%s: replacement not found", name)
		}
		_, err := AnalyzeProducer(src, "matmul")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", name, err, c.want)
		}
	}
}

// TestFuseWritesAProducerWithAnEpilogueTheCompilerFrontEndAccepts: a
// matmul then a bias add of 8×8 workgroups over the same ids fuse into one
// module that specializes, with the producer's workgroup size.
func TestFuseWritesAProducerWithAnEpilogueTheCompilerFrontEndAccepts(t *testing.T) {
	bias := `
@group(0) @binding(0) var<storage, read> bias: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(8, 8)
fn add_bias(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.y * 48u + gid.x;
	if (gid.x >= 48u || gid.y >= 64u) { return; }
	y[i] = y[i] + bias[gid.x];
}
`
	head, err := AnalyzeProducer(tiledMatmul, "matmul")
	if err != nil {
		t.Fatal(err)
	}
	tail, err := AnalyzePointwise(bias, "add_bias")
	if err != nil {
		t.Fatal(err)
	}
	if !Joins(head, tail) {
		t.Fatalf("Joins(matmul, add_bias) = false: %+v %+v", head, tail)
	}
	src, err := Fuse([]FusePart{
		{Source: tiledMatmul, Entry: "matmul", Slots: []uint32{0, 1, 2}, ReadWrite: []bool{false, false, true}, Producer: true},
		{Source: bias, Entry: "add_bias", Slots: []uint32{3, 2}, ReadWrite: []bool{false, true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	k, err := Specialize(src, FusedEntry, Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if k.WorkgroupSize != [3]uint32{16, 16, 1} || k.WorkgroupStorage == 0 {
		t.Errorf("fused workgroup %v storage %d\n%s", k.WorkgroupSize, k.WorkgroupStorage, src)
	}
	if _, err := Fuse([]FusePart{
		{Source: bias, Entry: "add_bias", Slots: []uint32{3, 2}, ReadWrite: []bool{false, true}},
		{Source: tiledMatmul, Entry: "matmul", Slots: []uint32{0, 1, 2}, ReadWrite: []bool{false, false, true}, Producer: true},
	}); err == nil {
		t.Error("Fuse accepted a producer after part 0")
	}
}
