package wgpu

import (
	"math"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/cogentcore/webgpu/wgpu"
)

// TestNativeHandleLayout pins the cogentcore v0.23.0 struct layouts that
// native.go reads and builds through unsafe. If a cogentcore upgrade changes
// them, this fails before anything dereferences a wrong field.
func TestNativeHandleLayout(t *testing.T) {
	ptr := unsafe.Sizeof(uintptr(0))
	one := map[string]uintptr{
		"Instance":  unsafe.Sizeof(wgpu.Instance{}),
		"Adapter":   unsafe.Sizeof(wgpu.Adapter{}),
		"Device":    unsafe.Sizeof(wgpu.Device{}),
		"QuerySet":  unsafe.Sizeof(wgpu.QuerySet{}),
		"BindGroup": unsafe.Sizeof(wgpu.BindGroup{}),
		"Pipeline":  unsafe.Sizeof(wgpu.ComputePipeline{}),
	}
	for name, size := range one {
		if size != ptr {
			t.Errorf("wgpu.%s is %d bytes; native.go assumes one pointer (%d)", name, size, ptr)
		}
	}
	two := map[string]uintptr{
		"Buffer":  unsafe.Sizeof(wgpu.Buffer{}),
		"Queue":   unsafe.Sizeof(wgpu.Queue{}),
		"Texture": unsafe.Sizeof(wgpu.Texture{}),
	}
	for name, size := range two {
		if size != 2*ptr {
			t.Errorf("wgpu.%s is %d bytes; native.go assumes {device, ref} (%d)", name, size, 2*ptr)
		}
	}
}

// TestDeviceIsOpenedWithTheAdapterLimits: requesting a device without limits
// gets the WebGPU defaults; Open asks for the adapter's own (bind groups
// capped at four), and the device reports them back.
func TestDeviceIsOpenedWithTheAdapterLimits(t *testing.T) {
	d, err := Open(Options{})
	if err != nil {
		t.Skipf("no adapter: %v", err)
	}
	defer d.Close()
	want := adapterLimits(d.adapter)
	// "No limit" (all ones) is requested as 2^62 bytes (sizes) or one less
	// (counts), or it would read as undefined and fall back to the WebGPU
	// default.
	for _, v := range []*uint64{&want.MaxBufferSize, &want.MaxStorageBufferBindingSize, &want.MaxUniformBufferBindingSize} {
		if *v == math.MaxUint64 {
			*v = 1 << 62
		}
	}
	for _, v := range []*uint32{&want.MaxComputeWorkgroupsPerDimension, &want.MaxComputeInvocationsPerWorkgroup, &want.MaxBindingsPerBindGroup, &want.MaxStorageBuffersPerShaderStage, &want.MaxUniformBuffersPerShaderStage} {
		if *v == math.MaxUint32 {
			*v--
		}
	}
	// Bind groups are capped at four: a dispatch carries four (hazard 20).
	want.MaxBindGroups = min(want.MaxBindGroups, 4)
	if got := deviceLimits(d.dev); got != want {
		t.Fatalf("device limits differ from the adapter's (-adapter +device):\n%s", cmp.Diff(want, got))
	}
}
