package graphfile

// Magic opens every graph file; the CR LF catches a file mangled by a
// text-mode transfer, as PNG's does.
var Magic = [8]byte{'S', 'G', 'R', 'A', 'P', 'H', '\r', '\n'}

// Version is the version of the format Encode writes for a new graph, and
// the newest Decode reads (it reads every version from 1).
const Version = 3

// FlagContents is the header flag of a file that carries buffer and
// texture contents.
const FlagContents = 1

// headerSize is the magic, the version and the flags; trailerSize the
// checksum.
const (
	headerSize  = 16
	trailerSize = 4
)

// Role is what a buffer of a graph file is for.
type Role uint8

const (
	RoleData     Role = 0 // a buffer of the workload
	RoleScratch  Role = 1 // the gate buffer of If and While: rewritten by every replay
	RoleConstant Role = 2 // the gates' table: its contents are part of the graph, always present
	RoleEnable   Role = 3 // (version 2) the enable words of If and While: rewritten by every replay
	RoleVar      Role = 4 // (version 3) a recorder.Var: Size is the value's size
)

// validIn reports whether a version-v file may hold a buffer of role r.
func (r Role) validIn(v uint32) bool {
	switch r {
	case RoleData, RoleScratch, RoleConstant:
		return true
	case RoleEnable:
		return v >= 2
	case RoleVar:
		return v >= 3
	}
	return false
}

// NodeKind is what a command of a graph file does.
type NodeKind uint8

const (
	NodeDispatch NodeKind = 0
	NodeCopy     NodeKind = 1
	NodeClear    NodeKind = 2
)

// ArgKind is the section an argument of a dispatch indexes.
type ArgKind uint8

const (
	ArgBuffer  ArgKind = 0
	ArgParams  ArgKind = 1
	ArgTexture ArgKind = 2
	ArgSampler ArgKind = 3
)

// RegionKind is the kind of a control-flow region.
type RegionKind uint8

const (
	RegionIf    RegionKind = 1
	RegionWhile RegionKind = 2
)

// SamplerFlags describe a sampler.
type SamplerFlags uint8

const (
	SamplerLinear  SamplerFlags = 1 // linear filtering
	SamplerRepeat  SamplerFlags = 2 // repeat addressing
	SamplerCompare SamplerFlags = 4 // a comparison sampler
)

// File is one graph file, section by section, in file order. Every index
// in it (a node's kernel, an argument's buffer, a region's condition)
// points into the section it names; Decode checks that, and Encode
// refuses a File where it does not hold.
type File struct {
	Version  uint32 // 1..Version
	Contents bool   // the header's FlagContents: buffers and textures carry their contents
	Kernels  []Kernel
	Buffers  []Buffer
	Textures []Texture
	Samplers []SamplerFlags
	Params   [][]byte // each a Params value, before padding
	Nodes    []Node   // in replay order
	Regions  []Region // Regions[i] is region i+1 (region 0 is the top level)
}

// Kernel is a compute kernel as WGSL.
type Kernel struct {
	Source, Entry string
	// Constants are the value every override took, by name, in file order
	// (sorted by name in the files softgraph writes).
	Constants []Constant
	Label     string // version 3; empty before
}

// Constant is the value of one WGSL override.
type Constant struct {
	Name  string
	Value float64
}

// Buffer is a buffer a graph uses.
type Buffer struct {
	Size  uint64 // a positive multiple of 4
	Role  Role
	Label string
	Data  []byte // nil without contents; else exactly Size bytes
}

// Texture is a texture a graph uses.
type Texture struct {
	Width, Height, Depth uint32
	Dim                  uint8  // 1: 2D, 2: 3D
	Format               string // the WGSL texel format name
	Data                 []byte // tightly packed rows; nil without contents
}

// Node is one command. Kernel, Indirect, Buffer, Offset, X, Y, Z and Args
// are a dispatch's; Src, SrcOffset, Dst, DstOffset and Size a copy's; Dst,
// DstOffset and Size a clear's. Encode writes only the kind's fields.
type Node struct {
	Kind   NodeKind
	Region uint32 // 0: top level; else the region it belongs to

	Kernel   uint32
	Indirect bool
	Buffer   uint32 // the indirect counts' buffer
	Offset   uint64 // and their offset
	X, Y, Z  uint32 // workgroups of a direct dispatch
	Args     []Arg

	Src, Dst             uint32
	SrcOffset, DstOffset uint64
	Size                 uint64
}

// Arg is one argument of a dispatch: an index into its kind's section.
type Arg struct {
	Kind  ArgKind
	Index uint32
}

// Region is one If or While.
type Region struct {
	Kind          RegionKind
	Parent        uint32 // the enclosing region, lower than this one's number
	MaxIterations uint32
	Cond          uint32 // the condition's buffer
	CondOffset    uint64 // the condition word's offset in it
	Gates         []uint32
}

// Limits bound what Decode accepts beyond the file's own structure. A zero
// field sets no bound.
type Limits struct {
	// MaxFileSize is the most bytes Decode reads.
	MaxFileSize int64
	// MaxBufferSize is the largest buffer a file may declare: the loading
	// device's maxBufferSize.
	MaxBufferSize uint64
	// MaxWhileIterations is the largest MaxIterations of a region.
	MaxWhileIterations uint32
}
