package recorder

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/envswitch"
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
// it, waiting for the lock too with its context. BeginCapture, profiles,
// Trim and Close wait for the stream's own submissions with the lock given
// up as well; only a replay waits for room between its chunks holding it
// (a replay is one operation in stream order). Several Streams share one Device
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
		// A submit that runs the work never under the lock: OpenGL's, and a
		// software adapter's (lavapipe runs it inside vkQueueSubmit).
		FlushSubmits: !drv.Info().GL && !drv.Info().Software,
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

// enqueuedBy is enqueued for tx, a Launch, Copy or Clear whose command is
// in the open batch now, as the last step of the call: a full batch that
// finds the submitter behind waits for room with the lock given up, in
// the call's own transaction (Tx.HandOffFull, which leaves it waited:
// nothing of it may reach the GPU after). The caller does nothing after
// it but return.
func (s *Stream) enqueuedBy(tx *engine.Tx) {
	full := s.eng.Full()
	if full {
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
// ctx bounds every wait of the call: for the stream's lock, for the
// submitter, for the GPU, and for the lock again after a wait, which
// another call (a long replay waiting for room) may hold meanwhile.
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
			tx.Locked(func() { s.unstageChecks(st, false) }) // ctx may have ended before the lock was back
			return s.wrapUnlessRefused(lifecycle.Sync, "", err)
		}
		sub, _ := s.eng.Last()
		s.eng.ResetChunk()
		s.planRamps() // encoded while the GPU finishes
		if err := tx.Wait(ctx, engine.GPU(sub)); err != nil {
			tx.Locked(func() { s.unstageChecks(st, false) })
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
