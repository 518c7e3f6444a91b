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
	// Profile starts a profile (Stream.StartProfile). Ending one is
	// EndProfile, profiling one replay ProfileReplay: they differ while a
	// profile runs.
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

	// Stream operations numbered after the transitions, so that every Op
	// above keeps its value.

	// EndProfile ends the running profile and waits for its work
	// (Stream.EndProfile).
	EndProfile
	// ProfileReplay replays a graph, measured, and waits for it
	// (Stream.ProfileReplay).
	ProfileReplay
)

var opNames = [...]string{
	Launch: "Launch", Write: "Write", Read: "Read", Sync: "Sync", Profile: "Profile",
	Replay: "Replay", Rebind: "Rebind", Copy: "Copy", Clear: "Clear", Alloc: "Alloc",
	Trim: "Trim", Flush: "Flush", Branch: "Branch", Load: "Load", Save: "Save", SetVar: "SetVar",
	GraphPrepare: "PrepareCapture", BeginCapture: "BeginCapture", EndCapture: "EndCapture",
	AbortCapture: "AbortCapture", EndProfile: "EndProfile", ProfileReplay: "ProfileReplay",
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
	return []Op{Launch, Write, Read, Sync, Profile, EndProfile, ProfileReplay, Replay, Rebind, Copy, Clear, Alloc, Trim, Flush, Branch, Load, Save, SetVar}
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

// row is the whole capture rule for one op, one field per column of the
// package doc's table.
type row struct {
	// in is the verdict in NoCapture, Prepare and Capture.
	in [3]rule
	// profiling, when set, replaces in[NoCapture] and in[Prepare] while a
	// profile runs on the stream (Session.Admit); in Capture the Capture
	// cell stands, whether or not a profile runs. Its refusal is a
	// *ProfileError.
	profiling rule
	// fails says whether a call of op refused inside the window — by this
	// table, or by the call's own checks (a bad argument) — makes
	// EndCapture fail with that refusal among its causes. The recorder
	// decides it in the lock hold that refuses the call (State.FailsCapture),
	// so a capture that ends or begins meanwhile cannot take or lose it.
	// When false, keeps says why the capture may seal without it.
	fails bool
	keeps string
}

// The reasons, shared by the cells that give them.
const (
	whyRecording = "it would wait for work that is recorded, not executed"
	whyProfiling = "a profile is already running on this stream; end it first"
)

// table is the whole capture rule for operations, indexed by Op. It is
// the package doc's table, as data: a rule changes here and in the test
// that restates it, nowhere else.
var table = [...]row{
	Launch:  {in: [3]rule{{Execute, ""}, {Execute, ""}, {Record, ""}}, fails: true},
	Write:   {in: [3]rule{{Execute, ""}, {Execute, ""}, {DeferError, "a write was issued while recording; graphs replay GPU work only, so the graph would replay without it (write before PrepareCapture or between replays)"}}, fails: true},
	Read:    {in: [3]rule{{Execute, ""}, {Execute, ""}, {Refuse, "a read is refused while recording; " + whyRecording}}, fails: true},
	Sync:    {in: [3]rule{{Execute, ""}, {Execute, ""}, {Refuse, "a sync is refused while recording; " + whyRecording}}, fails: true},
	Profile: {in: [3]rule{{Execute, ""}, {Execute, ""}, {Refuse, "profiling is refused while recording; nothing executes in the window"}}, profiling: rule{Refuse, whyProfiling}, fails: true},
	EndProfile: {in: [3]rule{{Execute, ""}, {Execute, ""}, {Refuse, "ending a profile is refused while recording; " + whyRecording + " (the profile keeps running)"}},
		fails: true},
	ProfileReplay: {in: [3]rule{{Execute, ""}, {Execute, ""}, {Refuse, "profiling is refused while recording; nothing executes in the window"}}, profiling: rule{Refuse, whyProfiling}, fails: true},
	Replay:        {in: [3]rule{{Execute, ""}, {Execute, ""}, {Record, ""}}, fails: true},
	Rebind:        {in: [3]rule{{Execute, ""}, {Execute, ""}, {Refuse, "a graph cannot be rebound while its stream is recording"}}, fails: true},
	Copy:          {in: [3]rule{{Execute, ""}, {Execute, ""}, {Record, ""}}, fails: true},
	Clear:         {in: [3]rule{{Execute, ""}, {Execute, ""}, {Record, ""}}, fails: true},
	Alloc: {in: [3]rule{{Execute, ""}, {Execute, ""}, {Execute, ""}},
		keeps: "an allocation executes inside the window and its failure is returned now; the graph records nothing of it, and a launch that then binds the missing resource is refused and fails the capture"},
	Trim: {in: [3]rule{{Execute, ""},
		{Refuse, "trimming is refused while a capture is prepared; it would give back the working set the warmup is priming"},
		{Refuse, "trimming is refused while recording; it would give back the working set the capture is using"}}, fails: true},
	Flush: {in: [3]rule{{Execute, ""}, {Execute, ""}, {Execute, ""}},
		keeps: "a flush executes inside the window and submits only eager work; the graph records nothing of it"},
	Branch: {in: [3]rule{{Execute, ""}, {Execute, ""}, {Record, ""}}, fails: true},
	Load: {in: [3]rule{{Execute, ""},
		{Refuse, "loading a graph is refused while a capture is prepared; it writes buffers, which the warmup would not repeat"},
		{Refuse, "loading a graph is refused while recording; it writes buffers, which a graph cannot record"}}, fails: true},
	Save:   {in: [3]rule{{Execute, ""}, {Execute, ""}, {Refuse, "saving buffer contents is refused while recording; it reads the GPU"}}, fails: true},
	SetVar: {in: [3]rule{{Execute, ""}, {Execute, ""}, {Refuse, "a Var is set between replays, not while recording; a graph reads the Var's value when it replays (set it before PrepareCapture or between replays)"}}, fails: true},
}

// Admit decides what op may do in state s: Execute, Record, DeferError or
// Refuse (see Refusal for the error). Every stream operation asks it once,
// before doing any work, so a refused call runs none of it. An Op that is
// not a stream operation (a transition, or out of range) is refused. It
// knows nothing of profiles: a stream asks Session.Admit, which does.
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

// FailsCapture reports whether a call of op refused in state s must make
// the capture's EndCapture fail: true only in Capture (the window), for
// every op whose table row says so, and for a GraphPrepare or
// BeginCapture refused there (a capture begun inside the window, as a
// nested Capture does: its step's calls would be missing from the graph).
// A stream asks it in the same lock hold in which it refuses the call (by
// Admit, or by the call's own checks), so the refusal and its effect on
// the capture are one decision. It is false for EndCapture and
// AbortCapture, the window's own ends, and for Alloc and Flush, which
// execute inside the window (KeepsCaptureReason says why).
func (s State) FailsCapture(op Op) bool {
	if s != Capture {
		return false
	}
	if op == GraphPrepare || op == BeginCapture {
		return true
	}
	return isStreamOp(op) && table[op].fails
}

// KeepsCaptureReason is why a refusal of op inside the window leaves the
// capture able to seal; empty when it fails the capture (or op is no
// stream operation).
func KeepsCaptureReason(op Op) string {
	if !isStreamOp(op) {
		return ""
	}
	return table[op].keeps
}

func isStreamOp(op Op) bool { return int(op) < len(table) && table[op].in[0].verdict != 0 }

func (s State) rule(op Op) (rule, bool) {
	if !isStreamOp(op) || s > Capture {
		return rule{}, false
	}
	return table[op].in[s], true
}

// profilingRule is op's cell while a profile runs in s: the profiling
// column outside Capture where the op has one, else the state's cell.
func (s State) profilingRule(op Op) (rule, bool) {
	r, ok := s.rule(op)
	if ok && s != Capture && table[op].profiling.verdict != 0 {
		return table[op].profiling, true
	}
	return r, ok
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
