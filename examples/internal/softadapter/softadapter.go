// Package softadapter says, for the examples that time replay against
// eager launches, what a software adapter does to their numbers.
package softadapter

import "github.com/softgraph/softgraph/wgpu"

// Note returns the lines a benchmark prints after its adapter when the
// adapter is a software one (type CPU: Mesa's lavapipe and llvmpipe, WARP,
// SwiftShader), and "" on any other. There the GPU is the CPU: the kernels
// run on the same cores as the launch path, so the host work replay saves
// is a small part of a step, taken back by the GPU work it competes with,
// and replay cannot beat eager as it does on a hardware GPU.
func Note(info wgpu.AdapterInfo) string {
	if info.Type != wgpu.AdapterCPU {
		return ""
	}
	// Two lines, so that a report fits in 120 columns; the second is
	// indented under the first one's text.
	return "note:     a software adapter: the CPU is the GPU here, so the GPU work competes with the launch path\n" +
		"          for the same cores, and replay cannot beat eager as it does on a hardware GPU"
}
