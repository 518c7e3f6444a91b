package wgpu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestNativeObjectsCountsAKernelUntilItsReleaseFreesIt: wgpu-native's own
// report (wgpuGenerateReport) shows a compiled kernel as one held shader
// module, pipeline layout and pipeline, and its Release gives all three
// back at once, registry ids included (a released pipeline that wgpu-core
// had not freed yet stayed allocated until the next submit or poll).
func TestNativeObjectsCountsAKernelUntilItsReleaseFreesIt(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	type kinds struct{ Modules, Layouts, Pipelines wgpu.NativeCount }
	of := func(r wgpu.NativeReport) kinds { return kinds{r.ShaderModules, r.PipelineLayouts, r.ComputePipelines} }
	before := of(wgpu.NativeObjects())
	k, err := d.Kernel(`@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1) fn main() { o[0] = 7u; }`, "main", wgpu.Private())
	if err != nil {
		t.Fatal(err)
	}
	made := of(wgpu.NativeObjects())
	if made.Pipelines.Held != before.Pipelines.Held+1 || made.Modules.Held != before.Modules.Held+1 {
		t.Fatalf("a compiled kernel is one held module and pipeline in wgpu-native's report: before %+v, after %+v", before, made)
	}
	k.Release()
	if diff := cmp.Diff(before, of(wgpu.NativeObjects())); diff != "" {
		t.Fatalf("a released kernel is freed at once, registry ids included (-before +after):\n%s", diff)
	}
}
