package wgsl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUniformsHoldingTwoRowMatricesAreStorageOnOpenGL: on OpenGL a uniform
// whose type holds a matCx2 (in a struct, an array, or alone) is declared
// var<storage, read> and marked StorageOnGL; other uniforms, and every
// uniform on other backends, stay as written.
func TestUniformsHoldingTwoRowMatricesAreStorageOnOpenGL(t *testing.T) {
	src := "struct A { m: mat3x2<f32>, s: f32 }\nstruct B { n: array<mat2x2f, 2> }\n" +
		"@group(0) @binding(0) var<uniform> a: A;\n" +
		"@group(0) @binding(1) var < /* space */ uniform > b: B;\n" +
		"@group(0) @binding(2) var<uniform> c: mat4x2<f32>;\n" +
		"@group(0) @binding(3) var<uniform> d: mat3x3<f32>;\n" +
		"@group(0) @binding(4) var<storage, read_write> o: array<f32>;\n" +
		"@compute @workgroup_size(1) fn main() { o[0] = a.m[0].x + b.n[1][1].y + c[3].x + d[2].z; }\n"
	for _, gl := range []bool{false, true} {
		k, err := Specialize(src, "main", Options{OpenGL: gl})
		if err != nil {
			t.Fatal(err)
		}
		var got []bool
		for _, r := range k.Resources {
			got = append(got, r.StorageOnGL)
		}
		want := []bool{gl, gl, gl, false, false}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("OpenGL %v: StorageOnGL per binding (-want +got):\n%s", gl, diff)
		}
		wantSrc := src
		if gl {
			wantSrc = strings.Replace(wantSrc, "var<uniform> a", "var<storage, read> a", 1)
			wantSrc = strings.Replace(wantSrc, "/* space */ uniform >", "/* space */ storage, read >", 1)
			wantSrc = strings.Replace(wantSrc, "var<uniform> c", "var<storage, read> c", 1)
		}
		if diff := cmp.Diff(wantSrc, k.Source); diff != "" {
			t.Errorf("OpenGL %v: rewritten source (-want +got):\n%s", gl, diff)
		}
	}
}

// TestReadOnlyStorageStaysReadOnlyOnOpenGL: on OpenGL a var<storage> and
// a var<storage, read>, and the storage pointer types, are left as
// written, and reflect as read-only storage: the encoders put the barrier
// hazard 23 of docs/design.md needs (a write after a read) where it is
// needed, instead of every read-only binding being declared read_write,
// which cost NVIDIA's GL a barrier per bound buffer per dispatch.
func TestReadOnlyStorageStaysReadOnlyOnOpenGL(t *testing.T) {
	src := `@group(0) @binding(0) var<storage> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read> c: array<f32>;
fn get(p: ptr<storage, array<f32>>, i: u32) -> f32 { return (*p)[i]; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let q: ptr<storage, f32, read> = &a[gid.x];
	let r: ptr<storage, array<f32>> = &c;
	b[gid.x] = *q + (*r)[0];
}
`
	for _, gl := range []bool{false, true} {
		k, err := Specialize(src, "main", Options{OpenGL: gl})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(src, k.Source); diff != "" {
			t.Errorf("OpenGL %v: the source changed (-want +got):\n%s", gl, diff)
		}
		type flags struct {
			Kind   ResourceKind
			Access Access
		}
		var got []flags
		for _, r := range k.Resources {
			got = append(got, flags{r.Kind, r.Access})
		}
		want := []flags{{ResourceReadOnlyStorage, AccessRead}, {ResourceStorage, AccessReadWrite}, {ResourceReadOnlyStorage, AccessRead}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("OpenGL %v: resources (-want +got):\n%s", gl, diff)
		}
	}
}
