package wgpu

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVulkanMemoryIsReadForEveryVulkanAdapter: vkmemory.c finds, for every
// Vulkan adapter wgpu-native enumerates, the physical device of the same
// vendor, device id and name, with a stated heap; without it Limits fall
// back to wgpu-native's maxBufferSize, which on NVIDIA says 2^62 bytes
// where one allocation holds about 4 GiB.
func TestVulkanMemoryIsReadForEveryVulkanAdapter(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		t.Skip("vkmemory.c reaches Vulkan through dlopen, which " + runtime.GOOS + " does not have")
	}
	cands, _ := candidatesFor(BackendVulkan)
	if len(cands) == 0 {
		t.Skip("no Vulkan adapter")
	}
	for _, c := range cands {
		gi := c.adapter.GetInfo()
		native := adapterLimits(c.adapter).MaxBufferSize
		c.adapter.Release()
		var found []vkMemory
		for _, m := range vkDevices() {
			if m.is(gi) {
				found = append(found, m)
			}
		}
		if len(found) == 0 {
			t.Errorf("Vulkan adapter %q (vendor %#x, device %#x) has no physical device in vkDevices %+v", gi.Name, gi.VendorId, gi.DeviceId, vkDevices())
			continue
		}
		m := found[0]
		if d := strings.TrimSpace(gi.DriverDescription); d != "" && d != strings.TrimSpace(m.name) && strings.TrimSpace(gi.Name) != strings.TrimSpace(m.name) {
			t.Logf("%s: matched by vendor and device id to Vulkan's %q", gi.Name, m.name)
		}
		t.Logf("%s: maxMemoryAllocationSize %d (%#x), largest device-local heap %d; wgpu-native's maxBufferSize %d, softgraph's %d",
			gi.Name, m.maxAllocation, m.maxAllocation, m.largestHeap, native, c.info.Limits.MaxBufferSize)
		if m.largestHeap == 0 || m.maxAllocation == 0 {
			t.Errorf("%s: a Vulkan device has a device-local heap and an allocation limit; read %+v", gi.Name, m)
		}
		want := min(m.maxAllocation, m.largestHeap) &^ (allocationGranule - 1)
		if got := allocationCap(gi); got != want {
			t.Errorf("%s: allocationCap = %d, want the smaller of maxMemoryAllocationSize and the largest heap, in 64 KiB: %d", gi.Name, got, want)
		}
	}
}

// TestCapLimitsLowersBufferSizesToOneAllocation: a cap lowers
// MaxBufferSize and the binding limits to it, never raises them, and no cap
// (0) changes nothing.
func TestCapLimitsLowersBufferSizesToOneAllocation(t *testing.T) {
	nvidia := Limits{MaxBufferSize: 1 << 62, MaxStorageBufferBindingSize: math.MaxUint32, MaxUniformBufferBindingSize: 1 << 16, MaxBindGroups: 4}
	for _, c := range []struct {
		name string
		in   Limits
		cap  uint64
		want Limits
	}{
		{"an H200's 4 GiB allocation", nvidia, 0xFFF00000,
			Limits{MaxBufferSize: 0xFFF00000, MaxStorageBufferBindingSize: 0xFFF00000, MaxUniformBufferBindingSize: 1 << 16, MaxBindGroups: 4}},
		{"a cap above the limits", Limits{MaxBufferSize: math.MaxInt32, MaxStorageBufferBindingSize: 1 << 27}, 1 << 34,
			Limits{MaxBufferSize: math.MaxInt32, MaxStorageBufferBindingSize: 1 << 27}},
		{"no cap", nvidia, 0, nvidia},
	} {
		if diff := cmp.Diff(c.want, capLimits(c.in, c.cap)); diff != "" {
			t.Errorf("%s: capLimits (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestAllocationFailuresAreOutOfMemoryWhateverTypeWgpuNativeGives:
// wgpu-core's "Not enough memory left" reaches softgraph as a validation
// error (wgpu-native v22 does not see the DeviceError::OutOfMemory a
// transparent wrapper hides); deviceError makes it an out-of-memory error,
// matching ErrOutOfMemory and not ErrValidation, and leaves every other
// error's type as it was.
func TestAllocationFailuresAreOutOfMemoryWhateverTypeWgpuNativeGives(t *testing.T) {
	const created = "Validation Error\n\nCaused by:\n    In wgpuDeviceCreateBuffer\n      note: label = `softgraph page`\n    Not enough memory left."
	for _, c := range []struct {
		typ  ErrorType
		msg  string
		want ErrorType
	}{
		{ErrorValidation, created, ErrorOutOfMemory},
		{ErrorValidation, "In wgpuDeviceCreateTextureView\n    Not enough memory left to create texture view", ErrorOutOfMemory},
		{ErrorOutOfMemory, "Not enough memory left.", ErrorOutOfMemory},
		{ErrorValidation, "Buffer size 8589934592 is greater than the maximum buffer size (2147483647)", ErrorValidation},
		{ErrorInternal, "Not enough memory left.", ErrorInternal},
	} {
		err := deviceError("NewBuffer", c.typ, c.msg)
		got := struct {
			Type       ErrorType
			OOM, Valid bool
		}{err.Type, errors.Is(err, ErrOutOfMemory), errors.Is(err, ErrValidation)}
		want := struct {
			Type       ErrorType
			OOM, Valid bool
		}{c.want, c.want == ErrorOutOfMemory, c.want == ErrorValidation}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("a %s error %q (-want +got):\n%s", c.typ, c.msg, diff)
		}
	}
}
