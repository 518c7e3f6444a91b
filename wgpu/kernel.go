package wgpu

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"
)

// BindingKind is what a @group(0) @binding(i) declaration of a kernel holds.
type BindingKind uint8

const (
	// BindStorage is var<storage, read_write>.
	BindStorage BindingKind = iota
	// BindReadOnlyStorage is var<storage, read> or var<storage>.
	BindReadOnlyStorage
	// BindUniform is var<uniform>.
	BindUniform
)

func (k BindingKind) String() string {
	switch k {
	case BindStorage:
		return "storage"
	case BindReadOnlyStorage:
		return "read-only storage"
	case BindUniform:
		return "uniform"
	}
	return fmt.Sprintf("BindingKind(%d)", uint8(k))
}

// Kernel is a compiled WGSL compute entry point: shader module, pipeline, and
// an explicit group-0 bind group layout derived from the source.
//
// The layout is explicit on purpose: a pipeline with an automatic layout
// keeps only the bindings its entry point uses, and a bind group carrying an
// entry for a declared-but-unused binding is then a validation error. With
// the layout taken from the declarations, argument i always meets binding i.
//
// Kernels are cached by their Device (Device.Kernel with the same source and
// entry returns the same *Kernel) and released by Device.Close.
type Kernel struct {
	dev      *Device
	entry    string
	bindings []BindingKind
	wgSize   [3]uint32

	module   *wgpu.ShaderModule    // owned
	layout   *wgpu.BindGroupLayout // owned
	pipeline *wgpu.ComputePipeline // owned
	playout  *wgpu.PipelineLayout  // owned
}

type kernelKey struct{ source, entry string }

// Entry is the kernel's entry point name.
func (k *Kernel) Entry() string { return k.entry }

// Device is the device the kernel was compiled on.
func (k *Kernel) Device() *Device { return k.dev }

// Bindings lists the kind of each @group(0) binding, index i for
// @binding(i). A launch passes exactly len(Bindings()) arguments.
func (k *Kernel) Bindings() []BindingKind { return slices.Clone(k.bindings) }

// NumBindings is len(Bindings()) without the copy.
func (k *Kernel) NumBindings() int { return len(k.bindings) }

// Binding is the kind of binding i; i must be in range.
func (k *Kernel) Binding(i int) BindingKind { return k.bindings[i] }

// WorkgroupSize is the entry point's @workgroup_size; a dimension given by an
// override or expression reads as 0.
func (k *Kernel) WorkgroupSize() [3]uint32 { return k.wgSize }

func (k *Kernel) release() {
	k.pipeline.Release()
	k.playout.Release()
	k.layout.Release()
	k.module.Release()
	k.dev.live.kernels.Add(-1)
}

// Kernel compiles the WGSL compute entry point entry of source, or returns
// the cached *Kernel for the same (source, entry).
//
// Invalid WGSL, a missing entry point, a binding outside @group(0), a
// non-buffer binding, or binding numbers with gaps fail with a *CompileError
// wrapping ErrCompile whose Diagnostic holds the compiler's message. It never
// panics and never aborts the process.
func (d *Device) Kernel(source, entry string) (*Kernel, error) {
	if err := d.enter("Kernel"); err != nil {
		return nil, err
	}
	defer d.leave()
	if entry == "" {
		return nil, opError("Kernel", ErrInvalidArgument, "entry=\"\"")
	}
	if strings.TrimSpace(source) == "" {
		return nil, opError("Kernel", ErrInvalidArgument, "source is empty")
	}
	key := kernelKey{source, entry}
	d.kernelsMu.Lock()
	defer d.kernelsMu.Unlock()
	if k, ok := d.kernels[key]; ok {
		return k, nil
	}
	k, err := d.compile(source, entry)
	if err != nil {
		return nil, err
	}
	d.kernels[key] = k
	d.live.kernels.Add(1)
	d.log.Debug().Str("entry", entry).Int("bindings", len(k.bindings)).Msg("kernel compiled")
	return k, nil
}

// compile builds the module first, so invalid WGSL reports the compiler's
// diagnostic rather than softgraph's reading of the declarations.
func (d *Device) compile(source, entry string) (_ *Kernel, err error) {
	k := &Kernel{dev: d, entry: entry}
	defer func() {
		if err == nil {
			return
		}
		if k.pipeline != nil {
			k.pipeline.Release()
		}
		if k.playout != nil {
			k.playout.Release()
		}
		if k.layout != nil {
			k.layout.Release()
		}
		if k.module != nil {
			k.module.Release()
		}
	}()
	var cerr error
	typ, msg := scopedError(d, func() {
		k.module, cerr = d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
			Label:          entry,
			WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: source},
		})
	})
	if err := compileFailure(entry, cerr, typ, msg); err != nil {
		return nil, err
	}
	decl, err := parseDecls(source, entry)
	if err != nil {
		return nil, err
	}
	k.bindings, k.wgSize = decl.bindings, decl.wgSize
	entries := make([]wgpu.BindGroupLayoutEntry, len(decl.bindings))
	for i, b := range decl.bindings {
		t := wgpu.BufferBindingTypeStorage
		switch b {
		case BindReadOnlyStorage:
			t = wgpu.BufferBindingTypeReadOnlyStorage
		case BindUniform:
			t = wgpu.BufferBindingTypeUniform
		}
		entries[i] = wgpu.BindGroupLayoutEntry{
			Binding:    uint32(i),
			Visibility: wgpu.ShaderStageCompute,
			Buffer:     wgpu.BufferBindingLayout{Type: t},
		}
	}
	typ, msg = scopedError(d, func() {
		k.layout, cerr = d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: entry, Entries: entries})
	})
	if err := compileFailure(entry, cerr, typ, msg); err != nil {
		return nil, err
	}
	typ, msg = scopedError(d, func() {
		k.playout, cerr = d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{
			Label:            entry,
			BindGroupLayouts: []*wgpu.BindGroupLayout{k.layout},
		})
	})
	if err := compileFailure(entry, cerr, typ, msg); err != nil {
		return nil, err
	}
	typ, msg = scopedError(d, func() {
		k.pipeline, cerr = d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
			Label:   entry,
			Layout:  k.playout,
			Compute: wgpu.ProgrammableStageDescriptor{Module: k.module, EntryPoint: entry},
		})
	})
	if err := compileFailure(entry, cerr, typ, msg); err != nil {
		return nil, err
	}
	return k, nil
}

func compileFailure(entry string, err error, typ ErrorType, msg string) error {
	if err != nil {
		m := err.Error()
		if i := strings.Index(m, "(): "); i >= 0 {
			m = m[i+4:]
		}
		return &CompileError{Entry: entry, Diagnostic: m}
	}
	if typ != ErrorNone {
		return &CompileError{Entry: entry, Diagnostic: typ.String() + ": " + msg}
	}
	return nil
}

// decls is what softgraph reads from WGSL source itself: the group-0 buffer
// bindings and the entry point's workgroup size.
type decls struct {
	bindings []BindingKind
	wgSize   [3]uint32
}

var (
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	// attributes, then `var`, an optional <address space, access>, the name.
	varDecl = regexp.MustCompile(`((?:@\w+\s*(?:\([^)]*\))?\s*)+)var\s*(?:<([^>]*)>)?\s*(\w+)`)
	attrArg = regexp.MustCompile(`@(\w+)\s*(?:\(([^)]*)\))?`)
	// attributes, then `fn name(`.
	fnDecl = regexp.MustCompile(`((?:@\w+\s*(?:\([^)]*\))?\s*)+)fn\s+(\w+)\s*\(`)
)

// parseDecls reads the declarations the explicit layout is built from. It
// does not validate the WGSL (the compiler does, right after); it refuses
// only what softgraph cannot bind.
func parseDecls(source, entry string) (decls, error) {
	src := blockComment.ReplaceAllString(source, " ")
	src = lineComment.ReplaceAllString(src, "")
	var d decls
	kinds := map[int]BindingKind{}
	for _, m := range varDecl.FindAllStringSubmatch(src, -1) {
		attrs := attributes(m[1])
		g, hasG := attrs["group"]
		b, hasB := attrs["binding"]
		if !hasG && !hasB {
			continue
		}
		group, err1 := strconv.Atoi(g)
		binding, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil {
			return d, &CompileError{Entry: entry, Diagnostic: fmt.Sprintf("binding %q: @group and @binding must be integer literals", m[3])}
		}
		if group != 0 {
			return d, &CompileError{Entry: entry, Diagnostic: fmt.Sprintf("binding %q is in @group(%d); softgraph binds @group(0) only", m[3], group)}
		}
		space := strings.Split(strings.ReplaceAll(m[2], " ", ""), ",")
		var kind BindingKind
		switch {
		case space[0] == "uniform":
			kind = BindUniform
		case space[0] == "storage" && len(space) > 1 && space[1] == "read_write":
			kind = BindStorage
		case space[0] == "storage":
			kind = BindReadOnlyStorage
		default:
			return d, &CompileError{Entry: entry, Diagnostic: fmt.Sprintf("binding %q (@binding(%d)) is not a storage or uniform buffer; softgraph binds buffers only", m[3], binding)}
		}
		if _, dup := kinds[binding]; dup {
			return d, &CompileError{Entry: entry, Diagnostic: fmt.Sprintf("@binding(%d) is declared twice", binding)}
		}
		kinds[binding] = kind
	}
	for i := 0; i < len(kinds); i++ {
		k, ok := kinds[i]
		if !ok {
			return d, &CompileError{Entry: entry, Diagnostic: fmt.Sprintf("@group(0) bindings must be numbered 0..%d without gaps; @binding(%d) is missing", len(kinds)-1, i)}
		}
		d.bindings = append(d.bindings, k)
	}
	var computeEntries []string
	found := false
	for _, m := range fnDecl.FindAllStringSubmatch(src, -1) {
		attrs := attributes(m[1])
		if _, ok := attrs["compute"]; !ok {
			continue
		}
		computeEntries = append(computeEntries, m[2])
		if m[2] != entry {
			continue
		}
		found = true
		for i, v := range strings.SplitN(attrs["workgroup_size"], ",", 3) {
			n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), "u"), 0, 32)
			if err == nil {
				d.wgSize[i] = uint32(n)
			}
		}
		for i := range d.wgSize {
			if d.wgSize[i] == 0 && i >= len(strings.Split(attrs["workgroup_size"], ",")) {
				d.wgSize[i] = 1
			}
		}
	}
	if !found {
		return d, &CompileError{Entry: entry, Diagnostic: fmt.Sprintf("no @compute entry point named %q (found %v)", entry, computeEntries)}
	}
	return d, nil
}

func attributes(s string) map[string]string {
	out := map[string]string{}
	for _, a := range attrArg.FindAllStringSubmatch(s, -1) {
		out[a[1]] = strings.TrimSpace(a[2])
	}
	return out
}
