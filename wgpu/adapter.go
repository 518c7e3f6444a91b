package wgpu

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/cogentcore/webgpu/wgpu"
)

// Backend selects the native graphics API behind a Device.
type Backend uint8

const (
	// BackendAuto prefers Vulkan, Metal or DX12 (whichever the platform has)
	// and falls back to OpenGL only when none of them offers an adapter.
	BackendAuto Backend = iota
	BackendVulkan
	BackendMetal
	BackendDX12
	BackendGL
)

func (b Backend) String() string {
	switch b {
	case BackendAuto:
		return "auto"
	case BackendVulkan:
		return "vulkan"
	case BackendMetal:
		return "metal"
	case BackendDX12:
		return "dx12"
	case BackendGL:
		return "gl"
	}
	return fmt.Sprintf("Backend(%d)", uint8(b))
}

// ParseBackend reads a backend name as SOFTGRAPH_BACKEND spells it:
// "", "auto", "vulkan", "metal", "dx12" or "gl" (also "opengl"), any case.
func ParseBackend(s string) (Backend, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return BackendAuto, nil
	case "vulkan", "vk":
		return BackendVulkan, nil
	case "metal":
		return BackendMetal, nil
	case "dx12", "d3d12":
		return BackendDX12, nil
	case "gl", "opengl", "gles":
		return BackendGL, nil
	}
	return BackendAuto, opError("ParseBackend", ErrInvalidArgument, "backend=%q (want auto, vulkan, metal, dx12 or gl)", s)
}

func backendOf(t wgpu.BackendType) Backend {
	switch t {
	case wgpu.BackendTypeVulkan:
		return BackendVulkan
	case wgpu.BackendTypeMetal:
		return BackendMetal
	case wgpu.BackendTypeD3D12:
		return BackendDX12
	case wgpu.BackendTypeOpenGL, wgpu.BackendTypeOpenGLES:
		return BackendGL
	}
	return BackendAuto
}

// AdapterType is the kind of device behind an adapter.
type AdapterType uint8

const (
	AdapterUnknown AdapterType = iota
	AdapterDiscrete
	AdapterIntegrated
	AdapterCPU // a software rasteriser such as Mesa's lavapipe or llvmpipe
)

func (t AdapterType) String() string {
	switch t {
	case AdapterDiscrete:
		return "discrete"
	case AdapterIntegrated:
		return "integrated"
	case AdapterCPU:
		return "cpu"
	}
	return "unknown"
}

func adapterTypeOf(t wgpu.AdapterType) AdapterType {
	switch t {
	case wgpu.AdapterTypeDiscreteGPU:
		return AdapterDiscrete
	case wgpu.AdapterTypeIntegratedGPU:
		return AdapterIntegrated
	case wgpu.AdapterTypeCPU:
		return AdapterCPU
	}
	return AdapterUnknown
}

// Limits are the device limits softgraph checks on the host before encoding,
// so a bad launch is refused alone instead of poisoning its command encoder.
// A Device is opened with its adapter's own limits, not the WebGPU defaults.
type Limits struct {
	MaxComputeWorkgroupsPerDimension  uint32
	MaxComputeInvocationsPerWorkgroup uint32
	MaxStorageBufferBindingSize       uint64
	MaxUniformBufferBindingSize       uint64
	MaxBufferSize                     uint64
	MaxBindingsPerBindGroup           uint32
	MaxStorageBuffersPerShaderStage   uint32
	MaxUniformBuffersPerShaderStage   uint32
	MinStorageBufferOffsetAlignment   uint32
	MinUniformBufferOffsetAlignment   uint32
}

// AdapterInfo describes an adapter: what Device.Info returns and what an
// AdapterError lists.
type AdapterInfo struct {
	Name       string      // the device name, or the driver description where the driver gives none
	Vendor     string      // vendor name or PCI id
	Driver     string      // driver description and version as the driver reports it
	Backend    Backend     // the native API
	Type       AdapterType // discrete, integrated, cpu, ...
	Limits     Limits      // the adapter's limits (the Device is opened with these)
	Timestamps bool        // whether GPU timestamp queries are available
}

// String is a one-line description fit for a benchmark header, e.g.
// "NVIDIA H200 [vulkan, discrete, timestamps]".
func (a AdapterInfo) String() string {
	var extra []string
	extra = append(extra, a.Backend.String(), a.Type.String())
	if a.Driver != "" && a.Driver != a.Name {
		extra = append(extra, "driver "+a.Driver)
	}
	if a.Timestamps {
		extra = append(extra, "timestamps")
	}
	return fmt.Sprintf("%s [%s]", a.Name, strings.Join(extra, ", "))
}

func infoOf(a *wgpu.Adapter) AdapterInfo {
	gi := a.GetInfo()
	name := strings.TrimSpace(gi.Name)
	if name == "" || strings.HasPrefix(name, "0x") {
		name = strings.TrimSpace(gi.DriverDescription)
	}
	if name == "" {
		name = "unnamed adapter"
	}
	return AdapterInfo{
		Name:       name,
		Vendor:     gi.VendorName,
		Driver:     strings.TrimSpace(gi.DriverDescription),
		Backend:    backendOf(gi.BackendType),
		Type:       adapterTypeOf(gi.AdapterType),
		Limits:     adapterLimits(a),
		Timestamps: a.HasFeature(wgpu.FeatureNameTimestampQuery),
	}
}

// matches reports whether the adapter's name, driver or vendor contains
// want, case-insensitively.
func (a AdapterInfo) matches(want string) bool {
	if want == "" {
		return true
	}
	w := strings.ToLower(want)
	for _, s := range []string{a.Name, a.Driver, a.Vendor} {
		if strings.Contains(strings.ToLower(s), w) {
			return true
		}
	}
	return false
}

// Instances are process-wide, created at most once each and never released:
// an instance is only a registry of adapters, and every Device shares it.
// The primary instance holds Vulkan, Metal and DX12; the GL instance is made
// only when GL is asked for or nothing else exists, which keeps Mesa's EGL
// start-up (and its stderr noise) away from most programs.
var instances struct {
	primaryOnce, glOnce sync.Once
	primary, gl         *wgpu.Instance
}

func primaryInstance() *wgpu.Instance {
	instances.primaryOnce.Do(func() {
		instances.primary = createInstance(wgpu.InstanceBackendVulkan | wgpu.InstanceBackendMetal | wgpu.InstanceBackendDX12)
	})
	return instances.primary
}

func glInstance() *wgpu.Instance {
	instances.glOnce.Do(func() {
		instances.gl = createInstance(wgpu.InstanceBackendGL)
	})
	return instances.gl
}

type candidate struct {
	adapter *wgpu.Adapter
	info    AdapterInfo
}

func enumerate(inst *wgpu.Instance) []candidate {
	var out []candidate
	if inst == nil {
		return nil
	}
	for _, a := range inst.EnumerateAdapters(nil) {
		out = append(out, candidate{adapter: a, info: infoOf(a)})
	}
	return out
}

// Adapters lists the adapters Open can choose from for the given backend
// (BackendAuto lists the primary backends, then OpenGL only if they offer
// none). It is what examples/headless prints.
func Adapters(b Backend) []AdapterInfo {
	var out []AdapterInfo
	for _, c := range candidatesFor(b) {
		out = append(out, c.info)
		c.adapter.Release()
	}
	return out
}

func candidatesFor(b Backend) []candidate {
	switch b {
	case BackendGL:
		return enumerate(glInstance())
	case BackendAuto:
		if c := enumerate(primaryInstance()); len(c) > 0 {
			return c
		}
		return enumerate(glInstance())
	}
	var out []candidate
	for _, c := range enumerate(primaryInstance()) {
		if c.info.Backend == b {
			out = append(out, c)
		} else {
			c.adapter.Release()
		}
	}
	return out
}

// rank orders adapters for the zero Options: discrete first (the
// high-performance choice), then integrated, unknown, and software
// adapters last; with ForceFallback only software adapters qualify.
func rank(t AdapterType) int {
	switch t {
	case AdapterDiscrete:
		return 0
	case AdapterIntegrated:
		return 1
	case AdapterCPU:
		return 3
	}
	return 2
}

// resolveOptions applies the environment to the options left at their zero
// value: SOFTGRAPH_BACKEND, SOFTGRAPH_ADAPTER and SOFTGRAPH_FALLBACK=1.
// Explicit options win, so a test that opens GL on purpose stays on GL.
func resolveOptions(o Options) (Options, error) {
	if o.IgnoreEnv {
		return o, nil
	}
	if v, ok := os.LookupEnv("SOFTGRAPH_BACKEND"); ok && o.Backend == BackendAuto {
		b, err := ParseBackend(v)
		if err != nil {
			return o, &Error{Op: "Open", Arg: fmt.Sprintf("SOFTGRAPH_BACKEND=%q", v), Err: ErrInvalidArgument}
		}
		o.Backend = b
	}
	if v := os.Getenv("SOFTGRAPH_ADAPTER"); v != "" && o.Adapter == "" {
		o.Adapter = v
	}
	if v := os.Getenv("SOFTGRAPH_FALLBACK"); (v == "1" || strings.EqualFold(v, "true")) && !o.ForceFallback {
		o.ForceFallback = true
	}
	return o, nil
}

// chooseAdapter picks the adapter for o and releases the others.
func chooseAdapter(o Options) (candidate, error) {
	all := candidatesFor(o.Backend)
	var pick []candidate
	for _, c := range all {
		if !c.info.matches(o.Adapter) || (o.ForceFallback && c.info.Type != AdapterCPU) {
			continue
		}
		pick = append(pick, c)
	}
	slices.SortStableFunc(pick, func(a, b candidate) int { return rank(a.info.Type) - rank(b.info.Type) })
	if len(pick) == 0 {
		want := fmt.Sprintf("backend=%s", o.Backend)
		if o.Adapter != "" {
			want += fmt.Sprintf(" adapter=%q", o.Adapter)
		}
		if o.ForceFallback {
			want += " fallback=true"
		}
		found := make([]AdapterInfo, 0, len(all))
		for _, c := range all {
			found = append(found, c.info)
			c.adapter.Release()
		}
		if o.Backend != BackendAuto && o.Backend != BackendGL {
			// Say what the other backends have too: "no Metal here, but Vulkan".
			for _, info := range Adapters(BackendAuto) {
				if !slices.ContainsFunc(found, func(f AdapterInfo) bool { return f == info }) {
					found = append(found, info)
				}
			}
		}
		return candidate{}, &AdapterError{Want: want, Found: found}
	}
	for _, c := range all {
		if c.adapter != pick[0].adapter {
			c.adapter.Release()
		}
	}
	return pick[0], nil
}
