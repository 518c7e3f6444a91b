package wgsl_test

import (
	"fmt"

	"github.com/softgraph/softgraph/wgpu/internal/wgsl"
)

// A kernel whose workgroup size is an override: Specialize gives the
// override its value, reflects what the entry point binds, and rewrites the
// module for the bundled compiler.
func ExampleSpecialize() {
	const src = `override block: u32 = 64;
@group(0) @binding(0) var<storage> in: array<f32>;
@group(0) @binding(1,) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(block)
fn double(@builtin(global_invocation_id) id: vec3u) {
	out[id.x] = 2.0 * in[id.x];
}
`
	k, err := wgsl.Specialize(src, "double", wgsl.Options{Constants: map[string]float64{"block": 128}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(k.WorkgroupSize)
	for _, r := range k.Resources {
		fmt.Printf("@group(%d) @binding(%d) %s: %s, %s, at least %d bytes\n", r.Group, r.Binding, r.Name, r.Type, r.Kind, r.MinSize)
	}
	fmt.Print(k.Source)
	// Output:
	// [128 1 1]
	// @group(0) @binding(0) in: array<f32>, read-only storage, at least 4 bytes
	// @group(0) @binding(1) out: array<f32>, storage, at least 4 bytes
	// const block: u32 = 128u;
	// @group(0) @binding(0) var<storage> in: array<f32>;
	// @group(0) @binding(1) var<storage, read_write> out: array<f32>;
	//
	// @compute @workgroup_size(block)
	// fn double(@builtin(global_invocation_id) id: vec3u) {
	// 	out[id.x] = 2.0 * in[id.x];
	// }
}

// Errors name what is wrong and where.
func ExampleSpecialize_errors() {
	src := "override n: u32;\n@compute @workgroup_size(n) fn main() {}\n"
	_, err := wgsl.Specialize(src, "mian", wgsl.Options{})
	fmt.Println(err)
	_, err = wgsl.Specialize(src, "main", wgsl.Options{})
	fmt.Println(err)
	_, err = wgsl.Specialize(src, "main", wgsl.Options{Constants: map[string]float64{"n": 0}})
	fmt.Println(err)
	// Output:
	// wgsl: no @compute entry point named "mian"; found [main]
	// wgsl: override n: no value in constants and no initializer
	// wgsl:2:26: workgroup_size must be a positive integer; n is 0
}
