package wgpu

import (
	"strings"
	"testing"

	"github.com/softgraph/softgraph/internal/driver"
)

// TestTextureBindingsNoTextureFitsAreRefused: unbindableTexture (Kernel's
// refusal on OpenGL) names every texture binding no recorder texture (2D
// or 3D, color, one level, one sample) can fill, and passes the ones it
// can; glStorageRefusal names
// the storage forms wgpu's OpenGL backend cannot run (rg32* formats, which
// GLSL ES lacks, read_write of formats other than r32*, which GLSL ES
// forbids, and 3D storage textures, bound unlayered).
func TestTextureBindingsNoTextureFitsAreRefused(t *testing.T) {
	tex := func(dim, sample string, ms bool) driver.Resource {
		return driver.Resource{Kind: driver.ResourceTexture, Dim: dim, SampleType: sample, Multisampled: ms}
	}
	for _, tc := range []struct {
		r    driver.Resource
		want string
	}{
		{tex("2d", "float", false), ""},
		{tex("3d", "uint", false), ""},
		{driver.Resource{Kind: driver.ResourceStorageTexture, Dim: "3d", Format: "r32float"}, ""},
		{driver.Resource{Kind: driver.ResourceStorage}, ""},
		{tex("2d_array", "float", false), "texture_2d_array binding"},
		{tex("cube", "float", false), "texture_cube binding"},
		{tex("1d", "sint", false), "texture_1d binding"},
		{tex("2d", "float", true), "multisampled"},
		{tex("2d", "depth", false), "depth texture binding"},
		{driver.Resource{Kind: driver.ResourceStorageTexture, Dim: "2d_array", Format: "r32float"}, "texture_2d_array binding"},
	} {
		got := unbindableTexture(tc.r)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("unbindableTexture(%+v) = %q; want %q", tc.r, got, tc.want)
		}
	}
	for _, tc := range []struct{ format, dim, access, want string }{
		{"r32float", "2d", "read_write", ""}, {"r32sint", "2d", "read_write", ""}, {"rgba32uint", "2d", "write", ""},
		{"rgba8snorm", "2d", "read", ""},
		{"rg32float", "2d", "write", "no image format for rg32float"}, {"rg32uint", "2d", "read", "no image format"}, {"rg32sint", "2d", "write", "no image format"},
		{"r32float", "3d", "write", "texture_storage_3d on the OpenGL backend"},
		{"rgba32sint", "2d", "read_write", "only r32float, r32uint and r32sint"},
	} {
		got := glStorageRefusal(tc.format, tc.dim, tc.access)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("glStorageRefusal(%s, %s) = %q; want %q", tc.format, tc.dim, got, tc.want)
		}
	}
}
