package wgpu

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/lockrank"
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
	MaxComputeWorkgroupStorageSize    uint32 // bytes of var<workgroup> one entry point may use
	MaxComputeWorkgroupSizeX          uint32
	MaxComputeWorkgroupSizeY          uint32
	MaxComputeWorkgroupSizeZ          uint32
	MaxBindGroups                     uint32
	MaxTextureDimension2D             uint32
	MaxTextureDimension3D             uint32
	MaxSampledTexturesPerShaderStage  uint32
	MaxSamplersPerShaderStage         uint32
	MaxStorageTexturesPerShaderStage  uint32
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
		Limits:     capLimits(adapterLimits(a), allocationCap(gi)),
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
	// mu guards primary and gl for readers that must not make an instance
	// (NativeObjects); the Once functions write them under it.
	mu lockrank.Mutex // lockrank.Native (set by init)
	// glProblem is why the GL instance was not made (glProblem's answer),
	// "" when it was or GL was never asked for. Written once inside glOnce.
	glProblem string
}

func init() { instances.mu.Rank = lockrank.Native }

func primaryInstance() *wgpu.Instance {
	instances.primaryOnce.Do(func() {
		ensureRuntimeDir()
		inst := createInstance(wgpu.InstanceBackendVulkan | wgpu.InstanceBackendMetal | wgpu.InstanceBackendDX12)
		instances.mu.Lock()
		instances.primary = inst
		instances.mu.Unlock()
	})
	return instances.primary
}

// glInstance makes the GL instance the first time it is asked for, unless
// glProblem says wgpu-hal's EGL start-up would abort the process (or find
// nothing) here: then there is no GL instance, GL offers no adapter, and
// glUnavailable says why.
func glInstance() *wgpu.Instance {
	instances.glOnce.Do(func() {
		ensureRuntimeDir()
		if p := glProblem(); p != "" {
			instances.glProblem = p
			return
		}
		inst := createInstance(wgpu.InstanceBackendGL)
		instances.mu.Lock()
		instances.gl = inst
		instances.mu.Unlock()
	})
	return instances.gl
}

// glProblems is, once the GL instance was asked for, why it offers no
// adapter ("gl: ..." for AdapterError.Unavailable), or nothing.
func glProblems() []string {
	if instances.glProblem == "" {
		return nil
	}
	return []string{"gl: " + instances.glProblem}
}

// primaryProblems says, for each backend of want that the primary instance
// was asked for and that offered none of c, why (Vulkan: the loader is
// missing or found no driver).
func primaryProblems(c []candidate, want ...Backend) []string {
	var out []string
	for _, b := range want {
		if slices.ContainsFunc(c, func(c candidate) bool { return c.info.Backend == b }) {
			continue
		}
		if b == BackendVulkan {
			out = append(out, "vulkan: "+vulkanProblem(os.Getenv))
		} else {
			out = append(out, b.String()+": no adapter")
		}
	}
	return out
}

type candidate struct {
	adapter *wgpu.Adapter
	info    AdapterInfo
}

// release releases the candidate's adapter handle, holding the GL context
// lock for an OpenGL adapter (see onGLContext).
func (c candidate) release() { onGLContext(c.info.Backend, c.adapter.Release) }

// enumerate lists inst's adapters; b is BackendGL for the GL instance,
// whose enumeration makes the process's GL context current (onGLContext).
func enumerate(inst *wgpu.Instance, b Backend) []candidate {
	var out []candidate
	if inst == nil {
		return nil
	}
	onGLContext(b, func() {
		for _, a := range inst.EnumerateAdapters(nil) {
			out = append(out, candidate{adapter: a, info: infoOf(a)})
		}
	})
	return out
}

// Adapters lists the adapters Open can choose from for the given backend,
// best first, in the order Open tries them (see rank). BackendAuto lists
// the primary backends (Vulkan, Metal, DX12) and adds OpenGL only when they
// offer no hardware adapter, which keeps Mesa's EGL start-up away from most
// programs. It is what examples/headless prints.
func Adapters(b Backend) []AdapterInfo {
	var out []AdapterInfo
	c, _ := candidatesFor(b)
	for _, c := range rankCandidates(c) {
		out = append(out, c.info)
		c.release()
	}
	return out
}

// Unavailable says, for each backend of b that offers no adapter in this
// process, what is missing and what to install or set, as
// AdapterError.Unavailable names them ("gl: ...", "vulkan: ..."); it is
// empty when every backend of b offers one. It runs the checks Open runs
// before bringing a backend up (for OpenGL, that EGL can give and
// initialise a display: wgpu-hal's EGL start-up aborts the process where
// it cannot), so an application making its own instance — one that
// enables OpenGL, as cogentcore's CreateInstance(nil) does — can leave a
// broken backend out instead of aborting. BackendGL is checked whatever
// the primary backends offer.
func Unavailable(b Backend) []string {
	c, missing := candidatesFor(b)
	for _, c := range c {
		c.release()
	}
	return missing
}

// RankReason says why an adapter sits where it does in Adapters' order.
func RankReason(a AdapterInfo) string {
	switch r := rank(a); {
	case r < 10:
		return fmt.Sprintf("%s GPU on %s, this platform's primary backend", a.Type, a.Backend)
	case r < 20:
		return fmt.Sprintf("%s GPU on %s, a secondary backend here", a.Type, a.Backend)
	default:
		return fmt.Sprintf("software adapter on %s, used only when no GPU works", a.Backend)
	}
}

// candidatesFor enumerates the adapters of backend b (see Adapters) and
// says, for each backend asked that offered none, why (for
// AdapterError.Unavailable).
func candidatesFor(b Backend) ([]candidate, []string) {
	switch b {
	case BackendGL:
		return enumerate(glInstance(), BackendGL), glProblems()
	case BackendAuto:
		c := enumerate(primaryInstance(), BackendAuto)
		missing := primaryProblems(c, primaryBackends()...)
		if slices.ContainsFunc(c, func(c candidate) bool { return c.info.Type != AdapterCPU }) {
			return c, missing
		}
		return append(c, enumerate(glInstance(), BackendGL)...), append(missing, glProblems()...)
	}
	var out []candidate
	for _, c := range enumerate(primaryInstance(), BackendAuto) {
		if c.info.Backend == b {
			out = append(out, c)
		} else {
			c.release()
		}
	}
	return out, primaryProblems(out, b)
}

// primaryBackends are the backends native to the platform, best first.
func primaryBackends() []Backend {
	switch runtime.GOOS {
	case "darwin", "ios":
		return []Backend{BackendMetal}
	case "windows":
		// Vulkan before DX12 where both have the same GPU: wgpu compiles
		// compute kernels for Vulkan without an external shader compiler.
		return []Backend{BackendVulkan, BackendDX12}
	}
	return []Backend{BackendVulkan}
}

// rank orders adapters for Open: hardware on the platform's primary
// backend first (discrete, then integrated, then unknown), then hardware on
// the other backends, then software adapters, primary backends first. A
// lower number is better.
func rank(a AdapterInfo) int {
	typ := 0
	switch a.Type {
	case AdapterIntegrated:
		typ = 1
	case AdapterUnknown:
		typ = 2
	case AdapterCPU:
		typ = 3
	}
	primary := slices.Index(primaryBackends(), a.Backend)
	switch {
	case typ == 3 && primary >= 0:
		return 20 + primary
	case typ == 3:
		return 25
	case primary >= 0:
		return typ*2 + primary
	}
	return 10 + typ
}

func rankCandidates(c []candidate) []candidate {
	slices.SortStableFunc(c, func(a, b candidate) int { return rank(a.info) - rank(b.info) })
	return c
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

// wantString says what o asks for, for an AdapterError.
func wantString(o Options) string {
	want := fmt.Sprintf("backend=%s", o.Backend)
	if o.Adapter != "" {
		want += fmt.Sprintf(" adapter=%q", o.Adapter)
	}
	if o.ForceFallback {
		want += " fallback=true"
	}
	return want
}

// chooseAdapters returns the adapters that match o, best first (the caller
// owns them), and everything that was found, for error messages.
func chooseAdapters(o Options) ([]candidate, []AdapterInfo, error) {
	all, missing := candidatesFor(o.Backend)
	var pick []candidate
	found := make([]AdapterInfo, 0, len(all))
	for _, c := range all {
		found = append(found, c.info)
		if !c.info.matches(o.Adapter) || (o.ForceFallback && c.info.Type != AdapterCPU) {
			c.release()
			continue
		}
		pick = append(pick, c)
	}
	if len(pick) == 0 {
		if o.Backend != BackendAuto && o.Backend != BackendGL {
			// Say what the other backends have too: "no Metal here, but Vulkan".
			for _, info := range Adapters(BackendAuto) {
				if !slices.ContainsFunc(found, func(f AdapterInfo) bool { return f == info }) {
					found = append(found, info)
				}
			}
		}
		return nil, nil, &AdapterError{Want: wantString(o), Found: found, Unavailable: missing}
	}
	return rankCandidates(pick), found, nil
}
