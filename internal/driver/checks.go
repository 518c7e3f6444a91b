package driver

// Checker is the extension a driver implements when it can compile a
// kernel's checked variant (recorder.WithChecks), found by type assertion
// like Guarder. A driver without it cannot run a stream with checks: its
// launches are refused.
type Checker interface {
	// Checked is k's checked variant: the same entry point, every index
	// into a storage or uniform binding checked against the binding's
	// length, the first violation recorded in a state buffer bound where
	// the layout says (the WGSL front end decides it; drivers pass it on
	// unchanged). sites are the checked accesses, in the order a
	// violation's site word counts them. When k indexes no binding, v is k
	// and sites is empty: nothing more is bound. It fails when k has no
	// such variant (its last group is the device's last).
	Checked(k Kernel) (v Kernel, l CheckLayout, sites []CheckSite, err error)
}

// CheckLayout is where a checked variant binds its checks: in bind group
// Group, the state (StateSize bytes of u32 words, read_write) at binding
// State and a uniform of AtSize bytes, whose first word the variant copies
// into the state with a violation, at At. The words of the state are
// CheckWord's.
type CheckLayout struct {
	Group, State, At  uint32
	StateSize, AtSize uint64
}

// The words of a checked variant's state, by index: the number of
// violations since the state was zeroed, then, of the first one, the at
// word of its dispatch, its site, index, length, and the invocation's
// global id.
const (
	CheckCount = iota
	CheckLaunch
	CheckSiteWord
	CheckIndex
	CheckLength
	CheckX
	CheckY
	CheckZ
	CheckWords
)

// CheckSite is one checked access of a checked variant: the binding it
// indexes (its variable's name, group and binding) and where the access is
// in the kernel's source (function, 1-based line and column).
type CheckSite struct {
	Name           string
	Group, Binding uint32
	Function       string
	Line, Col      int
	Indexed, Of    string
}
