package wgpu_test

import (
	"fmt"

	"github.com/softgraph/softgraph/wgpu"
)

// Open with the zero Options picks the best adapter on Vulkan, Metal or
// DX12, falling back to OpenGL; SOFTGRAPH_BACKEND, SOFTGRAPH_ADAPTER and
// SOFTGRAPH_FALLBACK=1 steer it without a code change. Info describes what
// was picked; printed, it is one line such as
// "NVIDIA H200 (vulkan, discrete, driver 565.57.01, timestamps)".
func ExampleOpen() {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		// An *AdapterError, listing the adapters that were found instead.
		fmt.Println(err)
		return
	}
	defer dev.Close()

	info := dev.Info()
	switch info.Backend {
	case wgpu.BackendVulkan, wgpu.BackendMetal, wgpu.BackendDX12, wgpu.BackendGL:
		fmt.Println("opened:", info.Name != "")
	default:
		fmt.Println("opened on an unexpected backend:", info)
	}
	// Output: opened: true
}

// ParseBackend reads a backend name as SOFTGRAPH_BACKEND or a -backend flag
// spells it.
func ExampleParseBackend() {
	for _, name := range []string{"Vulkan", "opengl", "", "cuda"} {
		b, err := wgpu.ParseBackend(name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%q → %s\n", name, b)
	}
	// Output:
	// "Vulkan" → vulkan
	// "opengl" → gl
	// "" → auto
	// wgpu: ParseBackend: backend="cuda" (want auto, vulkan, metal, dx12 or gl): invalid argument
}
