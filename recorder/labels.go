package recorder

import "github.com/softgraph/softgraph/internal/driver"

// kernelName is how graphs name a kernel (Graph.String, WriteDOT,
// ReplayProfile): its wgpu.WithLabel label, else its entry point.
func kernelName(k driver.Kernel) string {
	if l := k.Label(); l != "" {
		return l
	}
	return k.Entry()
}
