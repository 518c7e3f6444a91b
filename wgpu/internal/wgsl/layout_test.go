package wgsl

import (
	"testing"
)

// layoutModule holds the structure examples of the WGSL specification
// (§ "Structure Member Layout"), with the offsets, alignments and sizes the
// specification gives in comments.
const layoutModule = `
struct A {                                     //             align(8)  size(24)
    u: f32,                                    // offset(0)   align(4)  size(4)
    v: f32,                                    // offset(4)   align(4)  size(4)
    w: vec2<f32>,                              // offset(8)   align(8)  size(8)
    x: f32                                     // offset(16)  align(4)  size(4)
    // -- implicit struct size padding --      // offset(20)            size(4)
}

struct B {                                     //             align(16) size(160)
    a: vec2<f32>,                              // offset(0)   align(8)  size(8)
    // -- implicit member alignment padding -- // offset(8)             size(8)
    b: vec3<f32>,                              // offset(16)  align(16) size(12)
    c: f32,                                    // offset(28)  align(4)  size(4)
    d: f32,                                    // offset(32)  align(4)  size(4)
    // -- implicit member alignment padding -- // offset(36)            size(4)
    e: A,                                      // offset(40)  align(8)  size(24)
    f: vec3<f32>,                              // offset(64)  align(16) size(12)
    // -- implicit member alignment padding -- // offset(76)            size(4)
    g: array<A, 3>,    // element stride 24       offset(80)  align(8)  size(72)
    h: i32                                     // offset(152) align(4)  size(4)
    // -- implicit struct size padding --      // offset(156)           size(4)
}

struct SizedA {                                //             align(8)  size(32)
    u: f32,                                    // offset(0)   align(4)  size(4)
    v: f32,                                    // offset(4)   align(4)  size(4)
    w: vec2<f32>,                              // offset(8)   align(8)  size(8)
    @size(16) x: f32                           // offset(16)  align(4)  size(16)
}

struct AlignedB {                              //             align(16) size(208)
    a: vec2<f32>,                              // offset(0)   align(8)  size(8)
    // -- implicit member alignment padding -- // offset(8)             size(8)
    b: vec3<f32>,                              // offset(16)  align(16) size(12)
    c: f32,                                    // offset(28)  align(4)  size(4)
    d: f32,                                    // offset(32)  align(4)  size(4)
    // -- implicit member alignment padding -- // offset(36)            size(12)
    @align(16) e: SizedA,                      // offset(48)  align(16) size(32)
    f: vec3<f32>,                              // offset(80)  align(16) size(12)
    // -- implicit member alignment padding -- // offset(92)            size(4)
    g: array<SizedA, 3>,  // element stride 32    offset(96)  align(8)  size(96)
    h: i32                                     // offset(192) align(4)  size(4)
    // -- implicit struct size padding --      // offset(196)           size(12)
}

struct Runtime {
    n: u32,
    data: array<vec3<f32>>,                    // offset(16), one element counted
}

const N = 8;
`

// TestLayoutFollowsTheSpecification checks SizeOf and AlignOf against the
// WGSL specification's tables (§ "Alignment and Size") and its worked
// examples; MinSize and WorkgroupStorage are built on these numbers, so an
// error here is a wrong binding size on the device.
func TestLayoutFollowsTheSpecification(t *testing.T) {
	for _, tc := range []struct {
		typ         string
		size, align uint64
	}{
		{"i32", 4, 4}, {"u32", 4, 4}, {"f32", 4, 4}, {"f16", 2, 2}, {"bool", 4, 4},
		{"atomic<i32>", 4, 4}, {"atomic<u32>", 4, 4},
		{"vec2<f32>", 8, 8}, {"vec3<f32>", 12, 16}, {"vec4<f32>", 16, 16},
		{"vec2<f16>", 4, 4}, {"vec3<f16>", 6, 8}, {"vec4<f16>", 8, 8},
		{"vec2i", 8, 8}, {"vec3u", 12, 16}, {"vec4f", 16, 16}, {"vec3h", 6, 8},
		{"mat2x2<f32>", 16, 8}, {"mat3x2<f32>", 24, 8}, {"mat4x2<f32>", 32, 8},
		{"mat2x3<f32>", 32, 16}, {"mat3x3<f32>", 48, 16}, {"mat4x3<f32>", 64, 16},
		{"mat2x4<f32>", 32, 16}, {"mat3x4<f32>", 48, 16}, {"mat4x4<f32>", 64, 16},
		{"mat2x2<f16>", 8, 4}, {"mat3x2<f16>", 12, 4}, {"mat4x2<f16>", 16, 4},
		{"mat2x3<f16>", 16, 8}, {"mat3x3<f16>", 24, 8}, {"mat4x3<f16>", 32, 8},
		{"mat2x4<f16>", 16, 8}, {"mat3x4<f16>", 24, 8}, {"mat4x4<f16>", 32, 8},
		{"mat4x4f", 64, 16}, {"mat3x3h", 24, 8},
		// The specification's array examples: small_stride and bigger_stride.
		{"array<f32, 8>", 32, 4}, {"array<vec3<f32>, 8>", 128, 16},
		{"array<f32, N * 2>", 64, 4},
		{"array<f32>", 4, 4}, {"array<vec3<f32>>", 16, 16},
		{"array<array<vec2h, 3>, 2>", 24, 4},
		{"A", 24, 8}, {"B", 160, 16}, {"SizedA", 32, 8}, {"AlignedB", 208, 16},
		{"array<A, 3>", 72, 8}, {"Runtime", 32, 16},
	} {
		m, err := parse(layoutModule + "alias T_ = " + tc.typ + ";\n")
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		c := newChecker(m)
		ty, err := c.resolveType(m.names["T_"].(*aliasDecl).typ, false)
		if err != nil {
			t.Errorf("%s: %v", tc.typ, err)
			continue
		}
		if ty.size != tc.size || ty.align != tc.align {
			t.Errorf("SizeOf(%s) = %d, AlignOf = %d; the specification says %d and %d", tc.typ, ty.size, ty.align, tc.size, tc.align)
		}
	}
}

// TestLayoutsTheSpecificationForbidsAreRefused: layouts the specification forbids are refused where
// the fault is, not laid out some other way.
func TestLayoutsTheSpecificationForbidsAreRefused(t *testing.T) {
	for _, tc := range []struct{ src, err string }{
		{"struct S { @size(2) a: u32 }", "wgsl:1:12: @size(2) on member a is less than SizeOf(u32) = 4"},
		{"struct S { @align(3) a: u32 }", "wgsl:1:12: @align(3) on member a must be a positive power of two"},
		{"struct S { a: array<u32>, b: u32 }", "wgsl:1:12: member a of struct S is runtime-sized, so it must be the last member"},
		{"struct S { a: S }", "wgsl:1:8: struct S contains itself"},
		{"struct S { a: sampler }", "wgsl:1:15: member a of struct S has type sampler, which cannot be stored in a struct"},
		{"alias T = array<f32, 0>;", "wgsl:1:22: array element count must be a positive integer; 0 is 0"},
		{"alias T = array<array<f32>, 2>;", "wgsl:1:17: array element type array<f32> does not have a fixed size"},
		{"alias T = array<array<array<array<f32, 65536>, 65536>, 65536>, 65536>;", "wgsl:1:11: array<array<array<array<f32, 65536>, 65536>, 65536>, 65536> is too large"},
		{"alias T = vec5<f32>;", "wgsl:1:11: unknown type vec5"},
		{"alias T = vec3<vec3f>;", "wgsl:1:16: vec3f is not a valid component type for vec3"},
		{"alias T = mat2x2<i32>;", "wgsl:1:18: i32 is not a valid component type for mat2x2"},
		{"alias T = vec3;", "wgsl:1:11: vec3 needs template arguments, as in vec3<f32>"},
		{"alias T = f32<u32>;", "wgsl:1:11: f32 takes no template arguments"},
		{"alias T = U; alias U = T;", "wgsl:1:7: alias T refers to itself"},
	} {
		m, err := parse(tc.src + "\nalias T_ = " + aliasTarget(tc.src) + ";\n")
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		_, err = newChecker(m).resolveType(m.names["T_"].(*aliasDecl).typ, false)
		if err == nil || err.Error() != tc.err {
			t.Errorf("laying out %q: got error %v, want %s", tc.src, err, tc.err)
		}
	}
}

// aliasTarget is the type a layout error case resolves: its struct S, or
// its alias T.
func aliasTarget(src string) string {
	if len(src) > 6 && src[:6] == "struct" {
		return "S"
	}
	return "T"
}
