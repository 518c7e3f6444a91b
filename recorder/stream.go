package recorder

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/softgraph/softgraph/internal/envswitch"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/lockrank"
	"github.com/softgraph/softgraph/internal/paramcache"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// Stream is an ordered queue of GPU compute work on one Device: launches,
// copies, clears, writes, reads, syncs, profiles, and graph capture and
// replay. Every operation on a stream takes effect in the order it was
// called.
//
// A Stream is safe for use from several goroutines: every call takes the
// stream's lock for its bookkeeping and asks the lifecycle for its verdict
// under it, and asks again after any wait with the lock released (Sync,
// Read, a Write behind queued work, SetVar behind a full backlog), so a
// capture window opened meanwhile refuses it; a call with a deadline keeps
// it, waiting for the lock too with its context. BeginCapture, EndCapture,
// profiles and Close wait for the stream's own submissions holding the
// lock. Several Streams share one Device
// and work independently: GPU work of two streams is ordered by
// submission, and a Read observes the work enqueued before it on every
// stream of the device.
type Stream struct {
	dev    *wgpu.Device
	drv    driver.Device
	shared *deviceStreams
	limits driver.Limits
	info   driver.Info
	id     uint64
	log    zerolog.Logger
	cfg    config

	// fused holds the fused kernels the stream's graphs use, by source,
	// and fusedOf the same by kernel; fusionCompile is the time spent
	// compiling them (fusion.go). Guarded by mu.
	fused          map[string]*fusedKernel
	fusedOf        map[driver.Kernel]*fusedKernel
	fusionCompile  time.Duration
	fusionCompiles int

	checks checks // WithChecks (checks.go). Guarded by mu.

	// waitingUnlocked, set by tests only, runs each time a call has given
	// mu up to wait and will act again after (flushContext, SetVar's wait
	// for room, a ProfileReplay floor round's wait for the stream's earlier
	// work, Sync's wait for the GPU), before it waits, with the wait's
	// name ("flush", "room", "floor", "sync"): where a test opens a capture
	// window under a waiting call, deterministically.
	waitingUnlocked func(wait string)

	// closeStarted picks the one Close (or CloseContext) that tears the
	// stream down; closing is set by it before it takes mu, so calls are
	// refused from then on; done is closed when the teardown has finished
	// (closeErr then holds what it returned), so a second Close waits for
	// the first.
	closeStarted atomic.Bool
	closing      atomic.Bool
	closeErr     error       // set before done is closed
	closeErrSeen atomic.Bool // closeErr was returned to a caller (it is returned once)
	done         chan struct{}

	// owned holds the caller's Buffers, Textures and Samplers made on the
	// stream and not yet released: Close drops the caller's references
	// they hold, so a closed stream's memory goes back to the device unless
	// another stream's batch or graph still uses it. Its own mutex: Release
	// runs on any goroutine, under no stream lock.
	ownedMu lockrank.Mutex // lockrank.Handle
	owned   map[ownedResource]struct{}
	// liveTextures counts the textures made on the stream whose native
	// texture is not yet released (the caller's handle, a graph or a call
	// still references it): MemoryStats.Textures.
	liveTextures atomic.Int64

	mu lockrank.Mutex // lockrank.Stream: one stream's lock at a time
	// life is the capture rule and what it owns: the lifecycle state every
	// operation asks for its verdict, the recording that exists exactly
	// while the state is Capture, and the running profile.
	// The session's transitions move the engine's epoch (engine.go).
	life session
	errs []error // deferred errors, oldest first; drained by Sync, Read, EndProfile, EndCapture

	// eng owns the open batch and its encoder, the submitter, and every
	// queue write and submit of the stream (internal/engine); it runs
	// under mu.
	eng      *engine.Engine
	timer    *time.Timer
	timerGen uint64 // the batch the timer was armed for

	mem    *pool.Pool
	meta   *paramcache.Cache
	groups groupCache
	// groupsSeen is the device's groupsEpoch the cache was last checked
	// against (syncGroups).
	groupsSeen uint64
	graphs     map[*Graph]bool // live graphs made on this stream
	stage      []driver.Buffer // map-read staging buffers not in use

	// Ramps of short graphs (ramp.go): the run of replays counting against
	// a step, the worker that encodes steps, the graphs with a ramp, and
	// the short graphs replayed since the last sync point.
	def      deferral
	ramps    *engine.RampWorker
	rampList []*ramp
	touched  []*Graph
	// rampReplays counts replays that ran from a ramp (MemoryStats).
	rampReplays uint64

	// Scratch for the launch path, reused under mu so that a launch
	// allocates nothing: the launch being resolved, and the slices handed
	// to the driver (which the compiler cannot prove do not escape).
	scratch struct {
		launch  launch
		groups  [4]driver.BindGroup
		entries [maxInline]driver.Entry
		accs    [maxInline]*access
	}
}

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

var streamIDs atomic.Uint64

// New returns a stream on dev. It fails with an error wrapping
// wgpu.ErrClosed or wgpu.ErrDeviceLost when dev is not usable.
func New(dev *wgpu.Device, opts ...Option) (*Stream, error) {
	const op = "New"
	if dev == nil {
		return nil, &Error{Op: op, Arg: "device is nil", Err: ErrInvalidArgument}
	}
	drv, err := driver.Of(dev)
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	return newOnDriver(dev, drv, opts...)
}

// newOnDriver is New on drv, the driver view of dev. Tests pass a nil dev
// and a fake driver (internal/driver/fake): nothing below reaches dev but
// Device and the foreign-object checks, which compare it.
func newOnDriver(dev *wgpu.Device, drv driver.Device, opts ...Option) (*Stream, error) {
	const op = "New"
	if err := drv.Err(); err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	cfg := config{log: drv.Logger(), firstChunk: 16, maxChunk: 256, metaLimit: 512, groupLimit: 1024,
		flushDelay: defaultFlushDelay, loadLimit: DefaultLoadLimit,
		// A software adapter's "GPU" is the host's own cores: encoding ahead
		// competes with it for them.
		preEncode: !drv.Info().Software,
		async:     true}
	if on, set := envswitch.Read("SOFTGRAPH_PREENCODE"); set {
		cfg.preEncode = on
	}
	// SOFTGRAPH_FINISH_AHEAD=1 finishes batches ahead (on any adapter whose
	// driver runs Finishes in parallel: the tests run that path on lavapipe).
	if on, set := envswitch.Read("SOFTGRAPH_FINISH_AHEAD"); set {
		cfg.finishAhead = on && drv.Info().ConcurrentFinish
	}
	for _, o := range opts {
		if o != nil { // a nil Option sets nothing
			o(&cfg)
		}
	}
	if drv.Info().GL {
		cfg.noPredicate = true // WithPredication says why
	}
	s := &Stream{
		mu:      lockrank.Mutex{Rank: lockrank.Stream},
		ownedMu: lockrank.Mutex{Rank: lockrank.Handle},
		dev:     dev,
		drv:     drv,
		shared:  streamsOf(drv),
		limits:  drv.Info().Limits,
		info:    drv.Info(),
		id:      streamIDs.Add(1),
		cfg:     cfg,
		done:    make(chan struct{}),
		graphs:  map[*Graph]bool{},
		owned:   map[ownedResource]struct{}{},
	}
	s.log = cfg.log.With().Str("component", "softgraph/recorder").Uint64("stream", s.id).Logger()
	eng, err := engine.New(engine.Config{
		Driver: drv, Lock: &s.mu, Closing: &s.closing, ID: s.id, Gate: (*streamGate)(s),
		Async: cfg.async, FinishAhead: cfg.finishAhead, FirstChunk: cfg.firstChunk, MaxChunk: cfg.maxChunk,
		Failed: func(lost int, err error) {
			s.errs = append(s.errs, &DeferredError{Op: "Flush", Lost: lost, Err: err})
		},
		ReleaseSlots: func(slots []paramcache.Slot) { s.meta.Release(slots) },
		WaitingUnlocked: func(wait string) {
			if s.waitingUnlocked != nil {
				s.waitingUnlocked(wait)
			}
		},
		Log: s.log,
	})
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	s.eng = eng
	s.life.moved = eng.Transition
	s.mem = pool.New(drv, s.limits.MaxBufferSize, s.logPool, s.shared.groupsGone)
	// Params are bound as uniforms, and on OpenGL some as read-only storage
	// (a uniform holding a two-row matrix; see wgpu's Kernel): slots meet
	// both offset alignments, and their buffers have both usages.
	s.meta = paramcache.New(drv, max(s.limits.MinUniformBufferOffsetAlignment, s.limits.MinStorageBufferOffsetAlignment), cfg.metaLimit)
	s.groups = groupCache{limit: cfg.groupLimit, m: map[groupKey]*bindGroup{}}
	if !s.shared.add(s) {
		eng.Close()
		return nil, &Error{Op: op, Arg: "device", Err: wgpu.ErrClosed}
	}
	return s, nil
}

// Device is the stream's device (nil for a nil stream).
func (s *Stream) Device() *wgpu.Device {
	if s == nil {
		return nil
	}
	return s.dev
}

// State is where the stream is in the capture lifecycle (NoCapture for a
// nil or closed stream).
func (s *Stream) State() lifecycle.State {
	if s == nil {
		return lifecycle.NoCapture
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.life.State()
}

// check is the first step of every operation: the stream and its device
// must be usable.
func (s *Stream) check(op lifecycle.Op) error {
	if s == nil {
		return argError(op, ErrInvalidArgument, "stream is nil")
	}
	if s.closing.Load() {
		return closedError(op)
	}
	if err := s.drv.Err(); err != nil {
		return &Error{Op: op.String(), Err: err}
	}
	return nil
}

func closedError(op lifecycle.Op) error {
	return &Error{Op: op.String(), Arg: "stream", Err: ErrClosed}
}

// lock takes the stream's mutex for op and re-checks, under it, that the
// stream was not closed meanwhile. On error the mutex is not held.
func (s *Stream) lock(op lifecycle.Op) error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		return closedError(op)
	}
	return nil
}

// admit is check, lock and the lifecycle's verdict in one: on Execute and
// Record it returns with the mutex held; on DeferError it queues the
// refusal and returns (DeferError, nil) with the mutex released; on Refuse
// it returns the refusal with the mutex released.
func (s *Stream) admit(op lifecycle.Op) (lifecycle.Verdict, error) {
	if err := s.check(op); err != nil {
		return lifecycle.Refuse, err
	}
	if err := s.lock(op); err != nil {
		return lifecycle.Refuse, err
	}
	return s.admitLocked(op)
}

// lockContextFor is lock for a call with a deadline: lockContext, then the
// closing re-check. On error the mutex is not held.
func (s *Stream) lockContextFor(ctx context.Context, op lifecycle.Op) error {
	if err := s.lockContext(ctx); err != nil {
		return &Error{Op: op.String(), Err: err}
	}
	if s.closing.Load() {
		s.mu.Unlock()
		return closedError(op)
	}
	return nil
}

// admitLocked is admit's verdict for a caller already holding s.mu; on
// DeferError and Refuse the mutex is released. A refusal inside the capture
// window is queued to fail EndCapture in this same hold, as the lifecycle's
// table says (failLocked); a deferred write always is.
func (s *Stream) admitLocked(op lifecycle.Op) (lifecycle.Verdict, error) {
	v, err := s.verdictLocked(op)
	if v == lifecycle.DeferError || v == lifecycle.Refuse {
		s.mu.Unlock()
	}
	return v, err
}

// verdictLocked is admitLocked keeping the mutex whatever the verdict (the
// engine's Gate.Admit).
func (s *Stream) verdictLocked(op lifecycle.Op) (lifecycle.Verdict, error) {
	v := s.life.Admit(op)
	switch v {
	case lifecycle.DeferError:
		s.queueRefusal(s.life.Refusal(op))
		return v, nil
	case lifecycle.Refuse:
		return v, s.failLocked(op, s.refusalLocked(op))
	}
	return v, nil
}

// refusalLocked is the lifecycle's refusal of op as the recorder returns
// it: a *lifecycle.StateError as it is; a refusal by the profiling column
// (a profile runs) as an *Error naming the running profile, matching
// ErrInvalidArgument as well as lifecycle.ErrProfileRunning.
func (s *Stream) refusalLocked(op lifecycle.Op) error {
	err := s.life.Refusal(op)
	var pe *lifecycle.ProfileError
	if !errors.As(err, &pe) {
		return err
	}
	var id uint64
	if p := s.profiling(); p != nil {
		id = p.id
	}
	return &Error{Op: op.String(), Arg: fmt.Sprintf("profile %d is still running on this stream; end it first", id), Err: alsoError{ErrInvalidArgument, err}}
}

// alsoError reads as sentinel and matches it and also (errors.Is, As).
type alsoError struct{ sentinel, also error }

func (e alsoError) Error() string   { return e.sentinel.Error() }
func (e alsoError) Unwrap() []error { return []error{e.sentinel, e.also} }

// capturing is the recording in progress, nil unless the state is Capture.
func (s *Stream) capturing() *recording {
	r, _ := s.life.Recording()
	return r
}

// profiling is the running profile, nil when none runs.
func (s *Stream) profiling() *profile {
	p, _ := s.life.Profile()
	return p
}

// enqueuedBy is enqueued for op, a Launch, Copy or Clear whose command is
// in the open batch now, as the last step of the call: a full batch that
// finds the submitter behind waits for room with the lock given up, and
// that wait is a transaction's (Tx.HandOffFull), begun here under the
// call's own admission (only when the batch is full, so a launch that
// fills no batch allocates none). The caller holds s.mu and does nothing
// after it but return.
func (s *Stream) enqueuedBy(op lifecycle.Op) {
	full := s.eng.Full()
	if full {
		tx := s.eng.Begin(op, engine.Admission{Verdict: lifecycle.Execute})
		if handed, _ := tx.HandOffFull(); handed {
			return
		}
	}
	if s.timerGen != s.eng.Gen() {
		s.armTimer(full)
	}
}

// enqueued is called after work was added to the open batch: it submits
// the batch when it is full (unless the submitter is behind: handOffFull,
// which may wait holding the lock as w says), and otherwise arms the flush
// timer, so work never waits unsubmitted longer than the flush delay.
func (s *Stream) enqueued(w engine.RoomWait) {
	full := s.eng.Full()
	if full && s.handOffFull(w) {
		return
	}
	if s.timerGen != s.eng.Gen() {
		s.armTimer(full)
	}
}

// armTimer starts the flush delay for the open batch. A full batch the
// submitter was too far behind to take is retried after the delay even
// when the timer is off (WithFlushDelay(0)), so that it does not wait for
// the next call. The caller holds s.mu.
func (s *Stream) armTimer(full bool) {
	d := s.cfg.flushDelay
	if d <= 0 {
		if !full {
			return
		}
		d = defaultFlushDelay
	}
	s.timerGen = s.eng.Gen()
	if s.timer == nil {
		s.timer = time.AfterFunc(d, s.flushOnTimer)
	} else {
		s.timer.Reset(d)
	}
}

func (s *Stream) flushOnTimer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() || s.timerGen != s.eng.Gen() {
		return
	}
	full := s.eng.Full()
	if !s.handOffFull(roomNever) {
		s.armTimer(full) // the submitter is behind: try again after the delay
	}
}

// Flush submits what the stream has enqueued and not yet submitted. Streams
// flush themselves when a batch is full, after the flush delay, and at every
// sync point; Flush is for a caller that wants the GPU to start now. Device
// errors it meets are queued and returned by the next Sync or Read.
func (s *Stream) Flush() error {
	const op = lifecycle.Flush
	if err := s.check(op); err != nil {
		return err
	}
	// The wait for the submitter (which waits for the GPU when it is
	// gpuDepth submissions ahead) gives the lock up (Tx.Drain), so a call
	// beside it is not held behind the GPU. Nothing after it reaches the
	// GPU, so the Flush is not admitted again.
	return s.eng.Do(op, func(tx *engine.Tx) error {
		if err := tx.Drain(context.Background()); err != nil {
			return &Error{Op: op.String(), Err: s.txError(err)}
		}
		return nil
	})
}

// takeErrors returns and clears the deferred errors of the stream and the
// device's uncaptured errors.
func (s *Stream) takeErrors() error {
	errs := append(s.errs, s.drv.TakeErrors()...)
	s.errs = nil
	return joinErrors(errs)
}

// Sync waits until the GPU has finished everything enqueued on the stream,
// then returns the errors queued since the last sync point (deferred device
// errors, writes rejected while recording), oldest first, and clears them.
// It is refused on the spot while recording (lifecycle.ErrGraphState).
func (s *Stream) Sync() error { return s.SyncContext(context.Background()) }

// SyncContext is Sync bounded by ctx: if ctx ends first it returns an error
// wrapping ctx.Err() and the work stays enqueued. The wait polls the
// device without blocking inside wgpu-native, so it ends when the GPU is
// done, when ctx ends, or when the device is closed or lost — never early.
func (s *Stream) SyncContext(ctx context.Context) error {
	if ctx == nil {
		// Checked before the lock: ctx.Err() on nil panics, and a panic
		// under the stream's lock wedged every later call.
		return argError(lifecycle.Sync, ErrInvalidArgument, "context is nil")
	}
	if err := s.check(lifecycle.Sync); err != nil {
		return err
	}
	// One transaction: admitted once, it flushes (admitted again after
	// each wait for the submitter), then waits for the GPU. Nothing after
	// that wait reaches the GPU, so it is not admitted again: it only
	// takes the queued errors.
	var st driver.Buffer
	ran, synced := false, false
	err := s.eng.DoContext(ctx, lifecycle.Sync, func(tx *engine.Tx) error {
		ran = true
		if err := ctx.Err(); err != nil {
			return &Error{Op: "Sync", Err: err}
		}
		st = s.stageChecks() // WithChecks: the checks' state goes with the work (checks.go)
		if err := tx.Flush(ctx); err != nil {
			s.unstageChecks(st, false)
			return &Error{Op: "Sync", Err: s.txError(err)}
		}
		sub, _ := s.eng.Last()
		s.eng.ResetChunk()
		s.planRamps() // encoded while the GPU finishes
		if err := tx.Wait(ctx, engine.GPU(sub)); err != nil {
			s.unstageChecks(st, false)
			return &Error{Op: "Sync", Err: err}
		}
		err := s.takeErrors()
		if err != nil {
			s.unstageChecks(st, true)
		}
		synced = err == nil
		return err
	})
	if !ran && err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return &Error{Op: "Sync", Err: err} // gave up waiting for the lock
	}
	if !synced {
		return err
	}
	return s.takeStagedChecks(ctx, lifecycle.Sync, st) // WithChecks (checks.go)
}

// Close submits what is enqueued, waits for the stream's work to finish,
// releases its graphs, caches and encoder, and makes every later call return
// an error wrapping ErrClosed; Buffers of the stream answer ErrClosed too.
// Memory another stream's batch or graph still uses stays alive until they
// let go. The Device stays open (the caller owns it). Close is idempotent:
// a Close racing another returns once the first has finished. It returns
// the errors still queued, once: to the call that closed the stream, or,
// after a CloseContext that gave up waiting, to the next Close.
//
// It waits the same way on every backend: until the GPU has finished the
// stream's last submission. On OpenGL (Mesa's llvmpipe measured) the
// driver runs the work inside the submit, so Flush (or Close's own
// submit) takes the work's time and the wait after it finds it done; on
// Vulkan the submit returns at once and Close waits. On a device that is
// lost or closed nothing can finish, and Close does not wait. One
// exception is measured and not yet explained: on NVIDIA's OpenGL (the
// H200), Close behind a single dispatch of hours returned nil after 15.5 s
// with no device error, where Vulkan blocks
// (docs/benchmarks/memory/README.md; the test
// TestCloseBehindADispatchLongerThanTheGLDriverRunsOne reads what the
// dispatch wrote after it). Bound such waits with CloseContext.
func (s *Stream) Close() error {
	if s == nil {
		return nil
	}
	if !s.closeStarted.CompareAndSwap(false, true) {
		<-s.done
		return s.takeCloseErr()
	}
	_ = s.teardown()
	return s.takeCloseErr()
}

// takeCloseErr hands the teardown's errors to the first caller that asks
// after it has finished, and nil to every later one.
func (s *Stream) takeCloseErr() error {
	if s.closeErrSeen.CompareAndSwap(false, true) {
		return s.closeErr
	}
	return nil
}

// CloseContext is Close that stops waiting when ctx ends. The stream is
// closed to new work at once, whatever ctx does: every later call fails
// with ErrClosed. If ctx ends before the stream's GPU work has finished,
// CloseContext returns an error wrapping ctx.Err() and the teardown goes on
// in the background, releasing everything once that work is done; a later
// Close waits for it and returns its errors.
func (s *Stream) CloseContext(ctx context.Context) error {
	if s == nil {
		return nil
	}
	if ctx == nil {
		return &Error{Op: "Close", Arg: "context is nil", Err: ErrInvalidArgument}
	}
	if s.closeStarted.CompareAndSwap(false, true) {
		s.closing.Store(true)
		go func() { _ = s.teardown() }()
	}
	select {
	case <-s.done:
		return s.takeCloseErr()
	case <-ctx.Done():
		return &Error{Op: "Close", Arg: "stream", Err: ctx.Err()}
	}
}

// teardown is the one Close's work; it closes s.done when finished.
func (s *Stream) teardown() (err error) {
	s.closing.Store(true) // refuse new calls before waiting for the lock
	defer func() {
		s.closeErr = err
		close(s.done)
	}()
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	if rec, ok := s.life.Abort(); ok {
		// The window's refusals were never returned by an EndCapture:
		// Close returns them with what else is queued.
		s.errs = append(s.errs, rec.refusals...)
		rec.discard(s)
	}
	// The stream's work is submitted and then finished with the lock
	// given up for both waits (Tx.Drain, Tx.Wait), so another stream's
	// Read, which takes this stream's lock to flush it, is not held behind
	// the GPU. No new call is admitted meanwhile (closing is set), but one
	// admitted before may still enqueue or hand a batch off while the lock
	// is given up: the waits are repeated until a round finds nothing new,
	// so nothing released below is used by unfinished work. Each round is
	// a transaction of its own (one that waited is never admitted again
	// once closing), whose operation is only a label.
	for {
		tx := s.eng.Begin(lifecycle.Flush, engine.Admission{Verdict: lifecycle.Execute})
		_ = tx.Drain(context.Background()) // a closed or lost device ends the wait
		gen := s.eng.Gen()
		if sub, any := s.eng.Last(); any {
			// A closed or lost device ends the wait; nothing is left to wait for.
			_ = tx.Wait(context.Background(), engine.GPU(sub))
		}
		if s.eng.Gen() == gen && s.eng.Enc().Empty() && !s.eng.HasCounted() {
			break
		}
	}
	s.eng.Flush() // nothing is left to hand off: it waits for nothing
	for g := range s.graphs {
		g.releaseLocked()
	}
	if s.ramps != nil {
		s.ramps.Close()
		s.ramps = nil
	}
	s.groups.clear()
	if p, ok := s.life.DropProfile(); ok {
		p.release()
	}
	for _, b := range s.stage {
		b.Release()
	}
	s.stage = nil
	s.meta.Close()
	s.dropOwned()
	s.mem.Close()
	s.eng.Close() // the submitter, drained above, and the encoders
	s.shared.remove(s)
	s.log.Debug().Msg("stream closed")
	err = s.takeErrors()
	s.mu.Unlock()
	// The other streams' caches may bind what this stream just released.
	s.shared.sweepGroups(s, false)
	if errors.Is(err, wgpu.ErrClosed) {
		return nil
	}
	return err
}

// deviceStreams is the recorder's per-device context: the streams open on
// one device, so that a Read can submit the work every other stream has
// enqueued before it. The device keeps it (driver.Local) without
// knowing what it is: package wgpu knows no streams.
type deviceStreams struct {
	mu      lockrank.Mutex // lockrank.Streams
	streams map[*Stream]struct{}
	// groupsEpoch counts the releases of native resources (a texture, a
	// sampler, pool pages) that a bind group cached by any stream of the
	// device may hold: a stream whose cache saw an older epoch empties it
	// before its next lookup (Stream.syncGroups), and Trim, Close and
	// Texture/Sampler Release sweep the other streams at once, so that no
	// stream's cache keeps another stream's released memory alive.
	groupsEpoch atomic.Uint64
}

// groupsGone marks every stream's cached bind groups stale: a native
// resource one of them may hold was released. Lock-free, so it may run
// under any lock (a pool's, a stream's).
func (d *deviceStreams) groupsGone() { d.groupsEpoch.Add(1) }

// sweepGroups empties the stale bind group caches of every stream of the
// device but skip, taking each stream's lock in turn and never two at once
// (the caller holds none). With wait false a stream whose lock is busy is
// left to empty its cache at its next launch.
func (d *deviceStreams) sweepGroups(skip *Stream, wait bool) {
	d.mu.Lock()
	list := make([]*Stream, 0, len(d.streams))
	for s := range d.streams {
		if s != skip {
			list = append(list, s)
		}
	}
	d.mu.Unlock()
	for _, s := range list {
		if wait {
			s.mu.Lock()
		} else if !s.mu.TryLock() {
			continue
		}
		if !s.closing.Load() {
			s.syncGroups()
		}
		s.mu.Unlock()
	}
}

// syncGroups empties the stream's bind group cache if a resource it may
// hold was released since it last looked. The caller holds s.mu.
func (s *Stream) syncGroups() {
	if e := s.shared.groupsEpoch.Load(); e != s.groupsSeen {
		s.groups.clear()
		s.groupsSeen = e
	}
}

// streamsKey is the device-local slot of a device's streams.
var streamsKey = driver.Key[deviceStreams]{New: func() *deviceStreams {
	return &deviceStreams{mu: lockrank.Mutex{Rank: lockrank.Streams}, streams: map[*Stream]struct{}{}}
}}

func streamsOf(drv driver.Device) *deviceStreams { return driver.Local(drv, &streamsKey) }

func (d *deviceStreams) add(s *Stream) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.drv.Err() != nil {
		return false
	}
	d.streams[s] = struct{}{}
	return true
}

func (d *deviceStreams) remove(s *Stream) {
	d.mu.Lock()
	delete(d.streams, s)
	d.mu.Unlock()
}

// flushOthers hands off the open batch of every stream but self and waits
// until each of those batches is submitted, so that a read of self's sees
// everything enqueued on the device before it. It holds no stream's lock
// while it waits (two streams reading at once cannot deadlock, and a
// stream busy with long GPU work cannot hold the caller), takes each other
// stream's lock only for its hand-off, and gives up when ctx ends: a
// deadline holds however long another stream's submitter or lock is busy
// (behind that stream's own GPU work, say).
func (d *deviceStreams) flushOthers(ctx context.Context, self *Stream) error {
	d.mu.Lock()
	others := make([]*Stream, 0, len(d.streams))
	for s := range d.streams {
		if s != self {
			others = append(others, s)
		}
	}
	d.mu.Unlock()
	for _, s := range others {
		if err := s.lockContext(ctx); err != nil {
			return err
		}
		if s.closing.Load() {
			s.mu.Unlock()
			continue
		}
		pending := s.eng.HandOffPending()
		s.mu.Unlock()
		if err := pending.Await(ctx); err != nil {
			return err
		}
	}
	return nil
}

// lockContext takes s.mu, giving up when ctx ends (Engine.LockContext).
func (s *Stream) lockContext(ctx context.Context) error { return s.eng.LockContext(ctx) }

// ownedResource is a caller's handle on stream memory: Close releases it.
type ownedResource interface{ Release() }

func (s *Stream) own(r ownedResource) {
	s.ownedMu.Lock()
	s.owned[r] = struct{}{}
	s.ownedMu.Unlock()
}

func (s *Stream) disown(r ownedResource) {
	s.ownedMu.Lock()
	delete(s.owned, r)
	s.ownedMu.Unlock()
}

// dropOwned releases every caller handle still open on the stream (Close).
func (s *Stream) dropOwned() {
	s.ownedMu.Lock()
	list := make([]ownedResource, 0, len(s.owned))
	for r := range s.owned {
		list = append(list, r)
	}
	s.ownedMu.Unlock()
	for _, r := range list {
		r.Release()
	}
}
