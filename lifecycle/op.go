package lifecycle

import "fmt"

// Op names a stream operation, for Admit and for every error softgraph
// returns: Op.String is the one vocabulary of operation names (the Go method
// names: "Launch", "GraphPrepare", ...), so a refusal reads the same whichever
// layer made it.
type Op uint8

const (
	// Launch runs a kernel (Stream.Launch).
	Launch Op = iota + 1
	// Write copies host data into a buffer or texture (Stream.Write, the
	// write half of Upload and UploadTexture).
	Write
	// Read copies a buffer or texture back to the host and waits for the GPU.
	Read
	// Sync waits for the GPU.
	Sync
	// Profile starts or ends a profile, or profiles a replay.
	Profile
	// Replay enqueues a sealed graph.
	Replay
	// Rebind makes a graph with one buffer bound in place of another.
	Rebind
	// Copy copies between buffers on the GPU (Stream.Copy).
	Copy
	// Clear zeroes a buffer range on the GPU (Stream.Clear).
	Clear
	// Alloc makes a buffer, texture or sampler (Empty, NewTexture, ...).
	Alloc
	// Trim gives free pool memory back to the device.
	Trim
	// Flush submits what the stream has encoded.
	Flush
	// Branch runs a body conditionally or in a bounded loop (If, While).
	Branch
	// Load builds a graph from a graph file (LoadGraph).
	Load
	// Save writes a graph with the current contents of its buffers.
	Save
	// SetVar changes a Var's value (Stream.SetVar, and the initial value
	// of Stream.NewVar): ordered like a Write, but refused on the spot
	// while recording, since a graph reads a Var's value at replay.
	SetVar

	// The transitions. They are moved by Prepare, Begin, End and Abort, not
	// admitted; they are Ops so that their refusals share the vocabulary.

	// GraphPrepare moves NoCapture → Prepare.
	GraphPrepare
	// BeginCapture moves Prepare → Capture.
	BeginCapture
	// EndCapture moves Capture → NoCapture.
	EndCapture
	// AbortCapture returns to NoCapture from Prepare or Capture.
	AbortCapture
)

var opNames = [...]string{
	Launch: "Launch", Write: "Write", Read: "Read", Sync: "Sync", Profile: "Profile",
	Replay: "Replay", Rebind: "Rebind", Copy: "Copy", Clear: "Clear", Alloc: "Alloc",
	Trim: "Trim", Flush: "Flush", Branch: "Branch", Load: "Load", Save: "Save", SetVar: "SetVar",
	GraphPrepare: "GraphPrepare", BeginCapture: "BeginCapture", EndCapture: "EndCapture",
	AbortCapture: "AbortCapture",
}

// String is the operation's name as every softgraph error spells it.
func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Ops lists every stream operation Admit decides (the transitions excluded),
// for tests and tables.
func Ops() []Op {
	return []Op{Launch, Write, Read, Sync, Profile, Replay, Rebind, Copy, Clear, Alloc, Trim, Flush, Branch, Load, Save, SetVar}
}

// Verdict is what the lifecycle allows an operation to do in a state.
type Verdict uint8

const (
	// Execute: the operation runs now, in stream order.
	Execute Verdict = iota + 1
	// Record: the operation is resolved and appended to the graph being
	// captured instead of running.
	Record
	// DeferError: the operation does nothing and returns nil, and the
	// refusal is queued so that EndCapture fails. Writes get this: a graph
	// missing an operation is worse than a late diagnostic.
	DeferError
	// Refuse: the operation fails on the spot with the *StateError that
	// State.Refusal returns, and changes nothing.
	Refuse
)

func (v Verdict) String() string {
	switch v {
	case Execute:
		return "execute"
	case Record:
		return "record"
	case DeferError:
		return "defer-error"
	case Refuse:
		return "refuse"
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// rule is one cell of the table: what an op does in a state, and, for
// DeferError and Refuse, why (the StateError's reason).
type rule struct {
	verdict Verdict
	reason  string
}

// table is the whole capture rule for operations: rows are ops, columns the
// states NoCapture, Prepare, Capture. It is the package doc's table, as data.
var table = [...][3]rule{
	Launch:  {{Execute, ""}, {Execute, ""}, {Record, ""}},
	Write:   {{Execute, ""}, {Execute, ""}, {DeferError, "a write was issued while recording; graphs replay GPU work only, so the graph would replay without it (write before PrepareCapture or between replays)"}},
	Read:    {{Execute, ""}, {Execute, ""}, {Refuse, "a read is refused while recording; it would wait for work that is recorded, not executed"}},
	Sync:    {{Execute, ""}, {Execute, ""}, {Refuse, "a sync is refused while recording; it would wait for work that is recorded, not executed"}},
	Profile: {{Execute, ""}, {Execute, ""}, {Refuse, "profiling is refused while recording; nothing executes in the window"}},
	Replay:  {{Execute, ""}, {Execute, ""}, {Record, ""}},
	Rebind:  {{Execute, ""}, {Execute, ""}, {Refuse, "a graph cannot be rebound while its stream is recording"}},
	Copy:    {{Execute, ""}, {Execute, ""}, {Record, ""}},
	Clear:   {{Execute, ""}, {Execute, ""}, {Record, ""}},
	Alloc:   {{Execute, ""}, {Execute, ""}, {Execute, ""}},
	Trim: {{Execute, ""},
		{Refuse, "trimming is refused while a capture is prepared; it would give back the working set the warmup is priming"},
		{Refuse, "trimming is refused while recording; it would give back the working set the capture is using"}},
	Flush:  {{Execute, ""}, {Execute, ""}, {Execute, ""}},
	Branch: {{Execute, ""}, {Execute, ""}, {Record, ""}},
	Load: {{Execute, ""},
		{Refuse, "loading a graph is refused while a capture is prepared; it writes buffers, which the warmup would not repeat"},
		{Refuse, "loading a graph is refused while recording; it writes buffers, which a graph cannot record"}},
	Save:   {{Execute, ""}, {Execute, ""}, {Refuse, "saving buffer contents is refused while recording; it reads the GPU"}},
	SetVar: {{Execute, ""}, {Execute, ""}, {Refuse, "a Var is set between replays, not while recording; a graph reads the Var's value when it replays (set it before PrepareCapture or between replays)"}},
}

// Admit decides what op may do in state s: Execute, Record, DeferError or
// Refuse (see Refusal for the error). Every stream operation asks it once,
// before doing any work, so a refused call runs none of it. An Op that is
// not a stream operation (a transition, or out of range) is refused.
func (s State) Admit(op Op) Verdict {
	r, ok := s.rule(op)
	if !ok {
		return Refuse
	}
	return r.verdict
}

// Refusal is the *StateError (wrapping ErrGraphState) that goes with a
// DeferError or Refuse verdict of op in s; nil when Admit would execute or
// record op.
func (s State) Refusal(op Op) error {
	r, ok := s.rule(op)
	if !ok {
		return refuse(op, s, "not a stream operation")
	}
	if r.verdict == Execute || r.verdict == Record {
		return nil
	}
	return refuse(op, s, r.reason)
}

func (s State) rule(op Op) (rule, bool) {
	if int(op) >= len(table) || s > Capture {
		return rule{}, false
	}
	r := table[op][s]
	return r, r.verdict != 0
}

// PoolMode is how a stream's memory pool hands out and takes back memory.
type PoolMode uint8

const (
	// PoolNormal: size classes with free lists; a released page is reused
	// once the work that used it is submitted.
	PoolNormal PoolMode = iota
	// PoolPriming: exact-fit persistent pages, every one handed out held
	// until BeginCapture, so the pool ends up owning the warmup's whole
	// working set and the capture run finds it warm.
	PoolPriming
	// PoolPersistent: exact-fit persistent pages, reused as usual; the
	// recording pins what it binds.
	PoolPersistent
)

func (m PoolMode) String() string {
	switch m {
	case PoolNormal:
		return "normal"
	case PoolPriming:
		return "priming"
	case PoolPersistent:
		return "persistent"
	}
	return fmt.Sprintf("PoolMode(%d)", uint8(m))
}

// PoolMode is the pool mode for this lifecycle position: Prepare primes,
// Capture allocates persistently, NoCapture is normal. A stream reads it on
// every allocation rather than keeping flags of its own.
func (s State) PoolMode() PoolMode {
	switch s {
	case Prepare:
		return PoolPriming
	case Capture:
		return PoolPersistent
	}
	return PoolNormal
}
