package wgpu

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/cogentcore/webgpu/wgpu"
)

// TestNativeHandleLayout: every cogentcore type whose native handle
// softgraph reads (handles.go) has it where the accessor looks, and a
// handle read back is the one written. If a cogentcore upgrade changes a
// layout, this fails (and Open refuses) before anything dereferences a
// wrong field.
func TestNativeHandleLayout(t *testing.T) {
	if handleLayoutErr != nil {
		t.Fatalf("the cogentcore layout softgraph reads changed: %v", handleLayoutErr)
	}
	ref := unsafe.Pointer(new(uint64)) // any non-nil pointer; nothing dereferences it
	if got := handle(wrapHandle[wgpu.Device](ref, handleOffsets.device), handleOffsets.device); got != ref {
		t.Errorf("a Device built from a handle reads back %p, want %p", got, ref)
	}
	if got := handle(wrapHandle[wgpu.Instance](ref, handleOffsets.instance), handleOffsets.instance); got != ref {
		t.Errorf("an Instance built from a handle reads back %p, want %p", got, ref)
	}
	if got := handle[wgpu.Buffer](nil, handleOffsets.buffer); got != nil {
		t.Errorf("the handle of a nil Buffer is %p, want nil", got)
	}
	// A type without the field is refused, not read.
	if _, err := handleField(reflect.TypeFor[struct{ x int }](), "WGPUBufferImpl"); !errors.Is(err, ErrInternal) {
		t.Errorf("handleField of a type without ref returned %v; want an error wrapping ErrInternal", err)
	}
	if _, err := handleField(reflect.TypeFor[wgpu.Buffer](), "WGPUTextureImpl"); !errors.Is(err, ErrInternal) {
		t.Errorf("handleField of a Buffer checked against a texture handle returned %v; want ErrInternal", err)
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
