package shaders

import (
	"encoding/binary"
	"fmt"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// Shader is a WGSL compute entry point shipped with softgraph.
type Shader struct {
	Name   string // e.g. "add_one"; also the name of its .wgsl file
	Source string // WGSL
	Entry  string // entry point
}

// Compile compiles the shader on d. The device caches kernels by source and
// entry, so compiling the same Shader again is a map lookup returning the
// same *wgpu.Kernel. Errors wrap the device's (wgpu.ErrCompile and so on).
func (sh Shader) Compile(d *wgpu.Device) (*wgpu.Kernel, error) {
	if d == nil {
		return nil, fmt.Errorf("shaders: compile %s: nil device: %w", sh.Name, wgpu.ErrInvalidArgument)
	}
	k, err := d.Kernel(sh.Source, sh.Entry)
	if err != nil {
		return nil, fmt.Errorf("shaders: compile %s: %w", sh.Name, err)
	}
	return k, nil
}

// String is the shader's name.
func (sh Shader) String() string { return sh.Name }

// params encodes the four 4-byte words of a Params uniform, little-endian.
// Every kernel's Params struct is exactly these 16 bytes (one uniform
// granule), so what a builder writes is what the WGSL reads, padding included.
func params(w [4]uint32) recorder.Params {
	b := make([]byte, 16)
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}
