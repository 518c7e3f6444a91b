package kernels

import (
	_ "embed"
	"errors"
	"reflect"
	"slices"
)

// ErrLayout says a kernel's WGSL and its Go description disagree: a
// variable or params field one names and the other lacks, a variable of the
// wrong kind, or text the reader does not accept.
var ErrLayout = errors.New("kernel WGSL and its Go layout disagree")

// Binding is where one of a kernel's module-scope variables binds, as its
// declaration says: @group(Group) @binding(Binding), and whether it is
// var<storage, read_write> (the dispatch writes what is bound there).
type Binding struct {
	Group, Binding uint32
	Writable       bool
}

// Kernel is one kernel with its layout L (a struct of Binding fields) and
// its params P (a struct of uint32 fields, the uniform's named fields).
// Values come from the accessors only, derived from the WGSL; the zero
// value is no kernel.
type Kernel[L, P any] struct {
	// Source is the WGSL module, as embedded.
	Source string
	// Entry is its compute entry point.
	Entry string
	// Layout says where each variable binds.
	Layout L
	// at[i] is the word of the uniform struct that P's field i fills;
	// words is the struct's size in words. Written once by load.
	at    []int
	words int
}

// Words is p as the kernel's uniform struct lays it out: one word per
// struct field, each of p's fields at its field's position, padding and
// fields p leaves out zero.
func (k Kernel[L, P]) Words(p P) []uint32 {
	w := make([]uint32, k.words)
	v := reflect.ValueOf(p)
	for i, at := range k.at {
		w[at] = uint32(v.Field(i).Uint())
	}
	return w
}

// Gate is the gate kernel (control.wgsl, softgraph_gate): one dispatch per
// If, or per While iteration, that reads the condition, writes the body's
// enable word and the workgroup counts (or zeros) of the body's gated
// dispatches.
func Gate() (Kernel[GateLayout, GateParams], error) { return gate.k, gate.err }

// GateLayout is where the gate kernel's variables bind.
type GateLayout struct {
	Cond    Binding `wgsl:"cond"`    // the condition words (read)
	Gate    Binding `wgsl:"gate"`    // the gate buffer: three counts per gated dispatch (written)
	Table   Binding `wgsl:"table"`   // the table the gate reads its dispatches from
	Params  Binding `wgsl:"g"`       // the uniform of GateParams
	Enables Binding `wgsl:"enables"` // the enable words (written)
}

// GateParams are the gate kernel's params.
type GateParams struct {
	CondWord   uint32 `wgsl:"cond_word"`   // the condition is cond[CondWord] != 0
	Parent     uint32 `wgsl:"parent"`      // the enclosing (or previous iteration's) enable word, or 0xffffffff
	EnableWord uint32 `wgsl:"enable_word"` // the enable word it writes
	First      uint32 `wgsl:"first"`       // its first entry in the table
	Count      uint32 `wgsl:"count"`       // how many gated dispatches it drives
}

// Forward is the forwarder (control_forward.wgsl, softgraph_forward):
// copies an indirect dispatch's own counts to its slot in the gate buffer
// when its body runs, zeros otherwise.
func Forward() (Kernel[ForwardLayout, ForwardParams], error) { return forward.k, forward.err }

// ForwardLayout is where the forwarder's variables bind.
type ForwardLayout struct {
	Counts  Binding `wgsl:"counts"`  // the indirect dispatch's buffer (read)
	Gate    Binding `wgsl:"gate"`    // the gate buffer (written)
	Params  Binding `wgsl:"f"`       // the uniform of ForwardParams
	Enables Binding `wgsl:"enables"` // the enable words (read)
}

// ForwardParams are the forwarder's params.
type ForwardParams struct {
	SrcWord    uint32 `wgsl:"src_word"`    // the counts' first word in counts
	EnableWord uint32 `wgsl:"enable_word"` // the enable word of the body holding the dispatch
	Slot       uint32 `wgsl:"slot"`        // the dispatch's counts in the gate buffer
}

// Copy is the copy inside an If or While body (control_copy.wgsl,
// softgraph_copy), dispatched indirectly from the gate buffer.
func Copy() (Kernel[CopyLayout, CopyParams], error) { return copyK.k, copyK.err }

// CopyLayout is where the body copy's variables bind.
type CopyLayout struct {
	Src    Binding `wgsl:"src"`
	Dst    Binding `wgsl:"dst"`
	Params Binding `wgsl:"c"` // the uniform of CopyParams
}

// CopyParams are the body copy's params, in words.
type CopyParams struct {
	Src   uint32 `wgsl:"src"`   // first word of the source
	Dst   uint32 `wgsl:"dst"`   // first word of the destination
	Words uint32 `wgsl:"words"` // how many words
}

// Clear is the clear inside an If or While body (control_clear.wgsl,
// softgraph_clear), dispatched indirectly from the gate buffer.
func Clear() (Kernel[ClearLayout, ClearParams], error) { return clearK.k, clearK.err }

// ClearLayout is where the body clear's variables bind.
type ClearLayout struct {
	Dst    Binding `wgsl:"dst"`
	Params Binding `wgsl:"c"` // the uniform of ClearParams
}

// ClearParams are the body clear's params, in words. Its uniform is the
// copy's struct; the clear leaves src zero.
type ClearParams struct {
	_     uint32 `wgsl:"src"`
	Dst   uint32 `wgsl:"dst"`   // first word to clear
	Words uint32 `wgsl:"words"` // how many words
}

// CopyIndirect is CopyIndirect's kernel (copy_indirect.wgsl,
// softgraph_copy_indirect): copies a range read from its uniform when it
// runs.
func CopyIndirect() (Kernel[CopyIndirectLayout, CopyRange], error) {
	return copyIndirect.k, copyIndirect.err
}

// CopyIndirectLayout is where CopyIndirect's variables bind.
type CopyIndirectLayout struct {
	Src   Binding `wgsl:"src"`
	Dst   Binding `wgsl:"dst"`
	Range Binding `wgsl:"c"` // the uniform of CopyRange: the offsets Var
}

// CopyRange is the range CopyIndirect's uniform holds, in bytes.
type CopyRange struct {
	Src  uint32 `wgsl:"src"`
	Dst  uint32 `wgsl:"dst"`
	Size uint32 `wgsl:"size"`
}

// InBindingOrder returns src, dst and rng in the order of the bindings
// they go to in k's layout (by group, then binding number): the order a
// launch takes its arguments in.
func InBindingOrder[T any](k Kernel[CopyIndirectLayout, CopyRange], src, dst, rng T) []T {
	type arg struct {
		at Binding
		v  T
	}
	args := []arg{{k.Layout.Src, src}, {k.Layout.Dst, dst}, {k.Layout.Range, rng}}
	slices.SortFunc(args, func(a, b arg) int {
		if a.at.Group != b.at.Group {
			return int(a.at.Group) - int(b.at.Group)
		}
		return int(a.at.Binding) - int(b.at.Binding)
	})
	out := make([]T, len(args))
	for i, a := range args {
		out[i] = a.v
	}
	return out
}

// Check joins the errors of every kernel's derivation: nil when each
// kernel's WGSL and Go layout agree.
func Check() error {
	return errors.Join(gate.err, forward.err, copyK.err, clearK.err, copyIndirect.err)
}

var (
	//go:embed control.wgsl
	gateWGSL string
	//go:embed control_forward.wgsl
	forwardWGSL string
	//go:embed control_copy.wgsl
	copyWGSL string
	//go:embed control_clear.wgsl
	clearWGSL string
	//go:embed copy_indirect.wgsl
	copyIndirectWGSL string
)

// The kernels, derived at init and never written after.
var (
	gate         = load[GateLayout, GateParams]("control.wgsl", gateWGSL, "softgraph_gate")
	forward      = load[ForwardLayout, ForwardParams]("control_forward.wgsl", forwardWGSL, "softgraph_forward")
	copyK        = load[CopyLayout, CopyParams]("control_copy.wgsl", copyWGSL, "softgraph_copy")
	clearK       = load[ClearLayout, ClearParams]("control_clear.wgsl", clearWGSL, "softgraph_clear")
	copyIndirect = load[CopyIndirectLayout, CopyRange]("copy_indirect.wgsl", copyIndirectWGSL, "softgraph_copy_indirect")
)
