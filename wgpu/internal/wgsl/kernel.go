package wgsl

import (
	"fmt"
	"slices"
	"strconv"
)

// Kernel is one entry point of a WGSL module after specialisation: the source
// to hand to the bundled compiler and what softgraph needs to bind and
// dispatch it, all read from our own parse.
type Kernel struct {
	// Source is the module rewritten for the bundled compiler
	// (docs/wgsl.md lists exactly what changes); line numbers match the
	// input, and helper functions the rewrite needs (integer division and
	// remainder, builtins) follow the author's last line.
	Source string
	// Entry is the entry point's name in Source: the one asked for, unless
	// the bundled compiler reserves that word and the rewrite renamed it.
	Entry string
	// Stage is always StageCompute today: Specialize refuses other stages.
	Stage Stage
	// WorkgroupSize is @workgroup_size evaluated with the overrides' values;
	// a dimension left out is 1.
	WorkgroupSize [3]uint32
	// Resources are the module-scope resources the entry point uses through
	// its call graph, sorted by (Group, Binding); nil when there are none.
	Resources []Resource
	// Declared are the module's resources for a launch that passes an
	// argument for every binding the module declares (as Cogent Core's gosl
	// does): Resources plus every module-scope resource the entry point does
	// not use, one per (group, binding), sorted by (Group, Binding). Where
	// several unused variables share a (group, binding), the first in
	// source order stands for it; where a used one shares it, the used one.
	// An unused declaration that is not a valid resource is left out (the
	// bundled compiler reports it). It is Resources itself when the entry
	// point uses every declared resource.
	Declared []Resource
	// WorkgroupStorage is what WebGPU counts against
	// maxComputeWorkgroupStorageSize: the sum, over the var<workgroup> the
	// entry point uses, of roundUp(16, SizeOf(store type)) (WebGPU §
	// "createComputePipeline" validation), Source's temporaries included
	// (uniformload.go).
	WorkgroupStorage uint64
	// Overrides maps the name of every override of the module to the value
	// it got (bool as 0 or 1, f32 and f16 after rounding to the type); nil
	// when the module declares none.
	Overrides map[string]float64
	// Guarded: the entry point is a guarded variant Guard made (its body
	// begins with Guard's early return).
	Guarded bool
	// ContextDependent: a compiler may compute the entry point's floats
	// differently in another context (a fused module), so fusion leaves
	// it unfused. Some function of the module compares floating-point
	// values or calls a builtin whose result on a NaN operand SPIR-V and
	// GLSL leave undefined (min, max, clamp and those built on them): a
	// compiler may assume no NaN occurs or order min's operands as it
	// likes; or it calls fma, or divides floats (/, %, /=, %=), whose
	// rounding WGSL leaves to the implementation (fma rounds once or
	// twice, a division is within 2.5 ULP, computed by whichever sequence
	// the compiler picks); or it does either with an operand whose type the
	// lowering does not know; or it multiplies a float by a constant zero,
	// which a compiler assuming no NaN or infinity may fold to 0; or the
	// entry point applies a float operation to a constant only the driver
	// sees (hidden.go). The differential
	// tests saw a fused kernel differ in each way, on lavapipe, llvmpipe's
	// GL and NVIDIA's Vulkan and GL.
	ContextDependent bool
	// ContextReason says what made the kernel ContextDependent: the first
	// such construct and its line ("it divides floats (line 12)").
	ContextReason string
	// ChainsFloats: a function the entry point reaches feeds one float
	// operation's result to another (through an expression, a let, a var,
	// an argument or a return), which a compiler may contract (a multiply
	// and an add into an fma) or reassociate differently in another
	// context (chains.go); ChainReason says where. Fusion leaves such
	// kernels unfused on devices where that was not measured exact
	// (wgpu.Device.FusesChainedFloats).
	ChainsFloats bool
	ChainReason  string
}

// Stage is the pipeline stage an entry point is declared for.
type Stage uint8

const (
	StageCompute Stage = iota
	StageVertex
	StageFragment
)

func (s Stage) String() string {
	switch s {
	case StageCompute:
		return "compute"
	case StageVertex:
		return "vertex"
	case StageFragment:
		return "fragment"
	}
	return "Stage(" + strconv.Itoa(int(s)) + ")"
}

// ResourceKind is what a @group/@binding variable holds, in the terms of a
// WebGPU bind group layout entry.
type ResourceKind uint8

const (
	ResourceStorage           ResourceKind = iota // var<storage, read_write>
	ResourceReadOnlyStorage                       // var<storage> or var<storage, read>
	ResourceUniform                               // var<uniform>
	ResourceTexture                               // sampled, multisampled or depth texture
	ResourceStorageTexture                        // texture_storage_*<format, access>
	ResourceSampler                               // sampler
	ResourceComparisonSampler                     // sampler_comparison
)

func (k ResourceKind) String() string {
	switch k {
	case ResourceStorage:
		return "storage"
	case ResourceReadOnlyStorage:
		return "read-only storage"
	case ResourceUniform:
		return "uniform"
	case ResourceTexture:
		return "texture"
	case ResourceStorageTexture:
		return "storage texture"
	case ResourceSampler:
		return "sampler"
	case ResourceComparisonSampler:
		return "comparison sampler"
	}
	return "ResourceKind(" + strconv.Itoa(int(k)) + ")"
}

// TextureDim is a texture's view dimension. The zero value means the
// resource is not a texture.
type TextureDim uint8

const (
	Dim1D TextureDim = iota + 1
	Dim2D
	Dim2DArray
	Dim3D
	DimCube
	DimCubeArray
)

func (d TextureDim) String() string {
	switch d {
	case 0:
		return "none"
	case Dim1D:
		return "1d"
	case Dim2D:
		return "2d"
	case Dim2DArray:
		return "2d-array"
	case Dim3D:
		return "3d"
	case DimCube:
		return "cube"
	case DimCubeArray:
		return "cube-array"
	}
	return "TextureDim(" + strconv.Itoa(int(d)) + ")"
}

// SampleType is what a sampled texture returns. The zero value means the
// resource is not a sampled texture.
type SampleType uint8

const (
	SampleFloat SampleType = iota + 1 // texture_*<f32>
	SampleSint                        // texture_*<i32>
	SampleUint                        // texture_*<u32>
	SampleDepth                       // texture_depth_*
)

func (s SampleType) String() string {
	switch s {
	case 0:
		return "none"
	case SampleFloat:
		return "float"
	case SampleSint:
		return "sint"
	case SampleUint:
		return "uint"
	case SampleDepth:
		return "depth"
	}
	return "SampleType(" + strconv.Itoa(int(s)) + ")"
}

// Access is the access mode of a storage buffer or storage texture. The
// zero value means the resource has none (uniforms, sampled textures,
// samplers).
type Access uint8

const (
	AccessRead Access = iota + 1
	AccessWrite
	AccessReadWrite
)

func (a Access) String() string {
	switch a {
	case 0:
		return "none"
	case AccessRead:
		return "read"
	case AccessWrite:
		return "write"
	case AccessReadWrite:
		return "read_write"
	}
	return "Access(" + strconv.Itoa(int(a)) + ")"
}

// Resource is one module-scope variable with @group and @binding that an
// entry point uses. Fields that do not apply to its Kind are zero.
type Resource struct {
	Group, Binding uint32
	Name           string
	Kind           ResourceKind
	// Type is the store type as written, re-spelled with single spaces after
	// commas and none inside template brackets ("array<f32, 4>", "P",
	// "texture_2d<f32>"); aliases and struct names are kept, not expanded.
	Type string
	// MinSize is, for buffers, the WebGPU minimum binding size: SizeOf the
	// store type, a runtime-sized array counting one element.
	MinSize uint64
	// Dim, SampleType and Multisampled describe textures.
	Dim          TextureDim
	SampleType   SampleType
	Multisampled bool
	// Filtered is set on a sampled texture or a sampler that the entry point
	// (through its call graph, parameters included) passes to textureSample,
	// textureSampleBias, textureSampleGrad, textureSampleLevel or
	// textureGather: the texture needs a filterable format.
	Filtered bool
	// Format is a storage texture's texel format as written.
	Format string
	// Access is set on storage buffers and storage textures.
	Access Access
	// StorageOnGL is set on a uniform that Source declares var<storage,
	// read> (OpenGL only, for a type holding a two-row matrix, whose
	// std140 layout differs from WGSL's): bind it as a read-only storage
	// buffer.
	StorageOnGL bool
}

// Options are what Specialize needs besides the source and the entry point.
// The zero value specialises with every override at its default for a
// backend other than OpenGL.
type Options struct {
	// Constants are the overrides' values, keyed by the override's name or
	// its @id as decimal text; an override not given one takes its
	// initializer.
	Constants map[string]float64
	// OpenGL says the module goes to naga's GLSL writer (wgpu-native's
	// OpenGL backend). It turns on the rewrites that backend needs and the
	// refusals of what it cannot express (docs/wgsl.md, "The OpenGL
	// backend"): highp helpers for the bit-counting builtins
	// (builtins.go), atomicLoad as atomicOr, textureNumLevels as 1, a
	// var<uniform> holding a two-row matrix declared var<storage, read>
	// (gluniform.go), a var for a loop body's let read by its continuing
	// block (lower.go), padding members for @size and @align (padding.go),
	// and the refusal of atomicCompareExchangeWeak.
	OpenGL bool
}

// Specialize parses src, gives every override its value (from o.Constants,
// keyed by the override's name or its @id as decimal text, else from its
// initializer), reflects the @compute entry point entry and rewrites the
// module for the bundled compiler (integer divisions and remainders through
// helpers that give WGSL's result for every divisor) and, with o.OpenGL,
// for its GLSL writer.
//
// Failures are returned at once, and are: *Error for a problem in the source
// (syntax, an invalid type or attribute, @group/@binding not a non-negative
// integer, two used resources at one (group, binding), a workgroup_size that
// is not a positive integer, an integer division by zero or out of range in
// a constant expression, an integer `/=` or `%=` that needs a helper and
// whose left-hand side calls a function); *EntryError wrapping ErrNoEntry or ErrNotCompute;
// *OverrideError wrapping ErrUnknownOverride, ErrMissingOverride or
// ErrUnrepresentable. It never panics.
func Specialize(src, entry string, o Options) (*Kernel, error) {
	k, err := specialize(src, entry, o)
	if u, ok := err.(unsupported); ok {
		return nil, u.err
	}
	return k, err
}

func specialize(src, entry string, o Options) (*Kernel, error) {
	m, fn, err := parseEntry(src, entry)
	if err != nil {
		return nil, err
	}
	c := newChecker(m)
	c.opengl = o.OpenGL
	if err := c.bind(o.Constants); err != nil {
		return nil, err
	}
	k := &Kernel{Entry: entry, Stage: StageCompute, Guarded: m.guarded(fn)}
	if k.Overrides, err = c.overrideValues(); err != nil {
		return nil, err
	}
	if err := c.constAsserts(); err != nil {
		return nil, err
	}
	if k.WorkgroupSize, err = c.workgroupSize(fn); err != nil {
		return nil, err
	}
	if err := c.reflect(fn, k); err != nil {
		return nil, err
	}
	if k.Entry, err = c.renameReserved(entry); err != nil {
		return nil, err
	}
	if k.Source, err = c.rewrite(); err != nil {
		return nil, err
	}
	k.ContextDependent, k.ContextReason = c.contextDependent, c.contextWhy
	k.ChainsFloats, k.ChainReason = c.chainsFloats, c.chainWhy
	// The rewrite's workgroup temporaries count as the author's
	// var<workgroup> do: the compiler sees them.
	k.WorkgroupStorage += c.uniformLoadStorage(c.reached)
	return k, nil
}

// EntryPoints lists, in source order, the names of the module's entry points
// declared for stage. It fails only with an *Error for malformed source.
func EntryPoints(src string, stage Stage) ([]string, error) {
	m, err := parse(src)
	if err != nil {
		return nil, err
	}
	return m.entryPoints(stage), nil
}

func (m *module) entryPoints(stage Stage) []string {
	var names []string
	for _, f := range m.fns {
		if s, ok := f.stage(); ok && s == stage {
			names = append(names, f.name)
		}
	}
	return names
}

// reflectedEntry is an entry point parsed, its constants bound and its
// resources reflected, for the rewrites that add a bind group of their own
// after the entry point's (Check, Guard).
type reflectedEntry struct {
	m     *module
	fn    *fnDecl
	c     *checker
	group uint32 // one past the last group the entry point binds
}

// reflectEntry parses src and reflects entry for a rewrite of its body. An
// entry point without a body to rewrite is an error wrapping refuse that
// says what could not be done (verb: "check", "guard").
func reflectEntry(src, entry string, constants map[string]float64, refuse error, verb string) (*reflectedEntry, error) {
	m, fn, err := parseEntry(src, entry)
	if err != nil {
		return nil, err
	}
	if fn.body == nil || fn.body.open <= fn.paren || fn.body.open >= len(src) || src[fn.body.open] != '{' || src[fn.paren] != '(' {
		return nil, fmt.Errorf("%w: entry point %s has no body to %s", refuse, entry, verb)
	}
	c := newChecker(m)
	if err := c.bind(constants); err != nil {
		return nil, err
	}
	k := &Kernel{Entry: entry}
	if err := c.reflect(fn, k); err != nil {
		return nil, err
	}
	r := &reflectedEntry{m: m, fn: fn, c: c}
	for _, res := range k.Resources {
		r.group = max(r.group, res.Group+1)
	}
	return r, nil
}

// parseEntry parses src and finds its compute entry point entry.
func parseEntry(src, entry string) (*module, *fnDecl, error) {
	m, err := parse(src)
	if err != nil {
		return nil, nil, err
	}
	fn, err := m.entry(entry)
	if err != nil {
		return nil, nil, err
	}
	return m, fn, nil
}

// entry finds the compute entry point name.
func (m *module) entry(name string) (*fnDecl, error) {
	f, ok := m.names[name].(*fnDecl)
	if !ok {
		return nil, &EntryError{Entry: name, Found: m.entryPoints(StageCompute), Err: ErrNoEntry}
	}
	s, ok := f.stage()
	if !ok {
		return nil, &EntryError{Entry: name, Found: m.entryPoints(StageCompute), Err: ErrNoEntry}
	}
	if s != StageCompute {
		return nil, &EntryError{Entry: name, Stage: s, Found: m.entryPoints(StageCompute), Err: ErrNotCompute}
	}
	return f, nil
}

// overrideNames lists the module's overrides for messages: "name" or
// "name (@id 7)", in source order.
func (c *checker) overrideNames() []string {
	var out []string
	for _, o := range c.m.overrides {
		if id, ok := c.ids[o]; ok {
			out = append(out, fmt.Sprintf("%s (@id %d)", o.name, id))
		} else {
			out = append(out, o.name)
		}
	}
	return slices.Clip(out)
}
