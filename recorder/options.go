package recorder

import (
	"time"

	"github.com/rs/zerolog"
)

// A stream's options: what New accepts, and the defaults they change.

type config struct {
	log         zerolog.Logger
	firstChunk  int
	maxChunk    int
	metaLimit   int
	groupLimit  int
	preEncode   bool
	flushDelay  time.Duration
	async       bool
	noPredicate bool
	loadLimit   uint64
	fusion      bool // WithFusion (fusion.go)
	// strictBindings: WithStrictBindings; a launch passes arguments for the
	// bindings its entry point uses only (launch.go, resolve).
	strictBindings bool
	// finishAhead: full batches are finished on the stream's finishers as
	// soon as they are handed off (internal/engine, finishAhead). Off unless
	// SOFTGRAPH_FINISH_AHEAD=1 asks for it on a driver whose Finishes run in
	// parallel: side by side with it off it made eager launches of tiny
	// kernels 4-10% slower on one H200 machine and 4-7% faster on another
	// (docs/benchmarks/README.md, "Finishing ahead"), so it is not a
	// default until it can tell which machine it is on.
	finishAhead bool
	checks      bool // WithChecks (checks.go)
}

// Option configures New.
type Option func(*config)

// WithLogger sets the stream's logger (the device's logger by default).
// Debug level shows submissions, lifecycle transitions and pool growth.
func WithLogger(l zerolog.Logger) Option { return func(c *config) { c.log = l } }

// WithSubmitChunks sets the submission schedule: after an idle point (a
// sync or read) the first batch is submitted after first dispatches so the
// GPU starts at once; each later batch is half as large again, up to max.
// Encoding then overlaps the GPU's execution of the previous batch, and no
// command buffer grows without bound. Defaults: 16 and 256. A batch costs
// the host about 50 µs besides its dispatches (the H200: wgpu-core's pass
// end, finish and submit), so batches should be large; but a batch reaches
// the GPU only once it is full and finished, so one twice the size of the
// last leaves the GPU idle while it is filled. Growing by half (16, 24, 36,
// 54, ...) came closer to the GPU's floor than doubling (design.md,
// "Streams, batches and ordering").
func WithSubmitChunks(first, max int) Option {
	return func(c *config) {
		if first > 0 {
			c.firstChunk = first
		}
		if max > 0 {
			c.maxChunk = max
		}
		if c.maxChunk < c.firstChunk {
			c.maxChunk = c.firstChunk
		}
	}
}

// WithMetadataCache bounds the params cache in normal mode (default 512
// entries). In capture mode it is unbounded.
func WithMetadataCache(entries int) Option {
	return func(c *config) {
		if entries > 0 {
			c.metaLimit = entries
		}
	}
}

// WithPreEncode sets whether replays are encoded ahead of time on
// background goroutines. A replayed graph of at least 64 dispatches has its
// next replay encoded while the current one runs, so that Replay only joins
// a finished command buffer to the batch (one extra command buffer per such
// graph). A shorter graph gets a ramp at each sync point: the first
// replays of its next run (as many as the last run made, up to 248
// dispatches' worth) encoded into a few command buffers while the GPU
// finishes, so the next run reaches the GPU without waiting for a Finish
// (Graph.Replay says how order is kept). Both cost host time on another
// core. Default: on for hardware adapters, off for software ones (lavapipe,
// llvmpipe, WARP), whose "GPU" work runs on the same cores; the
// environment variable SOFTGRAPH_PREENCODE=1 or 0 overrides the default
// (this option overrides both).
func WithPreEncode(on bool) Option { return func(c *config) { c.preEncode = on } }

// WithBackgroundSubmit sets whether full batches are finished and
// submitted on a goroutine of the stream's own, so the caller goes on
// encoding the next batch while wgpu-native processes the previous one
// (ending its pass and finishing it is most of a dispatch's host cost).
// Default: on.
func WithBackgroundSubmit(on bool) Option { return func(c *config) { c.async = on } }

// defaultFlushDelay is WithFlushDelay's default.
const defaultFlushDelay = time.Millisecond

// WithFlushDelay bounds how long enqueued work may wait unsubmitted: the
// open batch is submitted at the latest this long after its first command,
// even if no Sync, Read, Flush or full chunk comes (later when the stream's
// submitter is still busy with earlier batches: the batch goes as soon as
// it is free). Default 1ms; zero turns the timer off (work then waits for
// those).
func WithFlushDelay(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.flushDelay = d
		}
	}
}

// WithPredication sets how the dispatches inside an If or While body of a
// graph are skipped. On (the default), a dispatch of at most 256
// workgroups runs through its kernel's guarded variant: the same kernel
// with a first statement that returns unless the gate enabled the body,
// dispatched directly. Off, or for larger dispatches and kernels without a
// variant (one using bind group 3, the last a device offers), the gate
// writes the dispatch's workgroup counts, or zeros, and the dispatch is
// dispatched indirectly from them. Predicated dispatches cost nothing
// extra when they run; indirect ones wait for their counts, which on
// discrete GPUs costs a fraction of a microsecond per dispatch, run or
// skipped. A skipped predicated dispatch still launches its workgroups,
// hence the bound. Results are identical either way.
//
// On OpenGL body dispatches are always gated indirectly, whatever this
// option says: on the H200's GL driver an indirect body dispatch next to a
// predicated one in the same loop was skipped on an iteration it should
// have run (wgpu's GL backend emits, after a storage write, only the
// barrier bits of the buffer's next use: design.md, hazard 23). The
// indirect path is the one validated there.
func WithPredication(on bool) Option { return func(c *config) { c.noPredicate = !on } }

// WithStrictBindings sets whether a launch must pass exactly the
// arguments its kernel's entry point binds (wgpu.Kernel.Bindings). Off (the
// default), a launch may instead pass one argument for every binding the
// kernel's module declares (wgpu.Kernel.DeclaredBindings), as code
// generated by Cogent Core's gosl does for every kernel of a module whose
// shared header declares every variable: the arguments for bindings the
// entry point does not use are checked like the others (kind, device,
// release, size) and then not bound, because the kernel's pipeline layout
// holds only the bindings the entry point uses. On, such an argument list
// is refused with ErrInvalidArgument, for a program that wants a launch
// passing unused arguments to be a mistake.
func WithStrictBindings(on bool) Option { return func(c *config) { c.strictBindings = on } }

// DefaultLoadLimit is WithLoadLimit's default: 1 GiB.
const DefaultLoadLimit = 1 << 30

// WithLoadLimit bounds the device memory LoadGraph may allocate for the
// buffers and textures a graph file declares without carrying their
// contents (they start zeroed). A graph file is data from anywhere, and
// what it declares, not its length, decides that memory: a file of 300
// bytes can declare 32 GiB. On a software adapter or one that shares the
// host's memory, committing it would get the process killed by the
// system instead of an error returned. Contents a file carries are not
// counted: reading the file cost their memory already. A file over the
// limit is refused before anything is made, with a *GraphFileError naming
// the total and this option. Default DefaultLoadLimit; zero leaves the
// limit as it was.
func WithLoadLimit(bytes uint64) Option {
	return func(c *config) {
		if bytes > 0 {
			c.loadLimit = bytes
		}
	}
}
