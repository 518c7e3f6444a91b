package recorder

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// Stream is an ordered queue of GPU compute work on one Device: launches,
// writes, reads, syncs, profiles, and graph capture and replay. Every
// operation on a stream takes effect in the order it was called.
//
// A Stream is safe for use from several goroutines (calls are serialised by
// its mutex). Several Streams share one Device and work independently; a
// Read observes the work enqueued before it on every stream of the device.
type Stream struct {
	dev *wgpu.Device
	id  uint64
	log zerolog.Logger
	cfg config

	closed atomic.Bool // set under mu by Close; read anywhere

	mu    sync.Mutex
	state lifecycle.State // the only thing deciding what an operation may do in the capture lifecycle
	errs  []error         // deferred errors, oldest first; drained by Sync, Read, EndProfile, EndCapture

	enc        *wgpu.Encoder // owned; one for the stream's life, reused batch after batch
	gen        uint64        // number of the open batch; bumped by every flush
	batch      batch         // what the open batch holds until it is submitted
	lastSub    wgpu.Submission
	submitted  bool // at least one submission was made
	nextSubmit int  // dispatch count at which the open batch is submitted

	mem    *pool
	meta   *metaCache
	groups groupCache
	rec    *recording      // non-nil only while recording
	graphs map[*Graph]bool // live graphs made on this stream
	prof   *profile        // the running profile, if any
	stage  []*wgpu.Buffer  // map-read staging buffers not in use
	unreg  func()          // removes the stream from the device's dependents
}

// batch is what the open (unsubmitted) command encoder holds on to.
type batch struct {
	launches int          // launches encoded, for the lost-launch count of a failed flush
	touched  []*page      // pages with a reference held until submission
	groups   []*bindGroup // bind groups with a reference held until submission
	slots    []metaSlot   // evicted params slots waiting for submission
}

type config struct {
	log        zerolog.Logger
	firstChunk int
	maxChunk   int
	metaLimit  int
	groupLimit int
	preEncode  bool
}

// Option configures New.
type Option func(*config)

// WithLogger sets the stream's logger (the device's logger by default).
// Debug level shows submissions, lifecycle transitions and pool growth.
func WithLogger(l zerolog.Logger) Option { return func(c *config) { c.log = l } }

// WithSubmitChunks sets the submission schedule: after an idle point (a
// sync or read) the first batch is submitted after first dispatches so the
// GPU starts at once; each later batch doubles, up to max. Encoding then
// overlaps the GPU's execution of the previous batch, and no command buffer
// grows without bound. Defaults: 16 and 128.
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

// WithPreEncode sets whether a graph's next replay is encoded ahead of time
// on a background goroutine while the current one runs, so that from the
// second replay on, Replay only submits. It costs one extra command buffer
// per replayed graph and host time on another core; turn it off where cores
// are scarce or graphs are replayed once. Default: on for hardware
// adapters, off for software ones (lavapipe, llvmpipe, WARP), whose GPU
// work runs on the same cores.
func WithPreEncode(on bool) Option { return func(c *config) { c.preEncode = on } }

var streamIDs atomic.Uint64

// New returns a stream on dev. It fails with an error wrapping
// wgpu.ErrClosed or wgpu.ErrDeviceLost when dev is not usable.
func New(dev *wgpu.Device, opts ...Option) (*Stream, error) {
	if dev == nil {
		return nil, argError("New", ErrInvalidArgument, "device is nil")
	}
	if err := dev.Err(); err != nil {
		return nil, &Error{Op: "New", Err: err}
	}
	cfg := config{log: dev.Logger(), firstChunk: 16, maxChunk: 128, metaLimit: 512, groupLimit: 1024,
		// A software adapter's "GPU" is the host's own cores: encoding ahead
		// gains nothing there, and on Mesa lavapipe (22.3) encoding a large
		// command buffer while its queue thread executes the previous one
		// crashed lavapipe's queue thread (SIGSEGV in libvulkan_lvp.so,
		// 2000-dispatch replays of 1M floats).
		preEncode: dev.Info().Type != wgpu.AdapterCPU}
	for _, o := range opts {
		o(&cfg)
	}
	enc, err := dev.NewEncoder()
	if err != nil {
		return nil, &Error{Op: "New", Err: err}
	}
	s := &Stream{
		dev:    dev,
		id:     streamIDs.Add(1),
		cfg:    cfg,
		enc:    enc,
		gen:    1,
		graphs: map[*Graph]bool{},
	}
	s.log = cfg.log.With().Str("component", "softgraph/recorder").Uint64("stream", s.id).Logger()
	s.nextSubmit = cfg.firstChunk
	s.mem = newPool(dev, s.logPool)
	s.meta = newMetaCache(dev, cfg.metaLimit)
	s.groups = groupCache{limit: cfg.groupLimit, m: map[groupKey]*bindGroup{}}
	s.unreg = dev.AddDependent(s)
	return s, nil
}

// Device is the stream's device.
func (s *Stream) Device() *wgpu.Device { return s.dev }

// State is where the stream is in the capture lifecycle (NoCapture for a
// nil or closed stream).
func (s *Stream) State() lifecycle.State {
	if s == nil {
		return lifecycle.NoCapture
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

func (s *Stream) isClosed() bool { return s.closed.Load() }

// check is the first step of every operation: the stream and its device
// must be usable.
func (s *Stream) check(op string) error {
	if s == nil {
		return argError(op, ErrInvalidArgument, "stream is nil")
	}
	if s.closed.Load() {
		return closedError(op)
	}
	if err := s.dev.Err(); err != nil {
		return &Error{Op: op, Err: err}
	}
	return nil
}

func closedError(op string) error { return &Error{Op: op, Arg: "stream", Err: ErrClosed} }

// lock takes the stream's mutex for op and re-checks, under it, that the
// stream was not closed meanwhile (Close may have run between check and
// lock). On error the mutex is not held.
func (s *Stream) lock(op string) error {
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return closedError(op)
	}
	return nil
}

// token identifies the open batch in pages' touch fields: stream id and
// batch number, unique for the process.
func (s *Stream) token() uint64 { return s.id<<40 | s.gen }

// touch makes the open batch hold a reference on pg until submission.
func (s *Stream) touch(pg *page) {
	t := s.token()
	if pg.touch.Load() == t {
		return
	}
	pg.touch.Store(t)
	pg.ref()
	s.batch.touched = append(s.batch.touched, pg)
}

// Flush submits what the stream has encoded and not yet submitted. Streams
// flush themselves when a batch is full and at every sync point; Flush is
// for a Read on another stream of the device (wgpu.Dependent). Device errors
// it meets are queued on this stream, not returned.
func (s *Stream) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil
	}
	s.flushLocked()
	return nil
}

// flushLocked submits the open batch and retires it. A device error is
// queued as a *DeferredError naming the launches lost with the batch.
func (s *Stream) flushLocked() {
	if s.enc.Empty() {
		return
	}
	launches := s.batch.launches
	cb, err := s.enc.Finish()
	if err == nil {
		var sub wgpu.Submission
		sub, err = s.dev.Submit(cb)
		if err == nil {
			s.lastSub, s.submitted = sub, true
			if s.log.GetLevel() <= zerolog.DebugLevel {
				s.log.Debug().Int("launches", launches).Uint64("submission", uint64(sub)).Msg("submit")
			}
		}
	}
	if err != nil {
		s.errs = append(s.errs, &DeferredError{Op: "flush", Lost: launches, Err: err})
		s.log.Error().Err(err).Int("lost", launches).Msg("batch failed")
	}
	s.retire()
	if s.nextSubmit < s.cfg.maxChunk {
		s.nextSubmit = min(2*s.nextSubmit, s.cfg.maxChunk)
	}
}

// retire drops the open batch's holds: it has been submitted (or
// discarded), so the queue's order now protects what it used.
func (s *Stream) retire() {
	b := &s.batch
	for i, g := range b.groups {
		g.unref()
		b.groups[i] = nil
	}
	for i, pg := range b.touched {
		pg.unref()
		b.touched[i] = nil
	}
	if len(b.slots) > 0 {
		s.meta.release(b.slots)
	}
	b.groups, b.touched, b.slots = b.groups[:0], b.touched[:0], b.slots[:0]
	b.launches = 0
	s.gen++
}

// takeErrors returns and clears the deferred errors of the stream and the
// device's uncaptured errors.
func (s *Stream) takeErrors() error {
	errs := append(s.errs, s.dev.TakeErrors()...)
	s.errs = nil
	return joinErrors(errs)
}

// Sync waits until the GPU has finished everything enqueued on the stream,
// then returns the errors queued since the last sync point (deferred device
// errors, writes rejected while recording), oldest first, and clears them.
// It is refused on the spot while recording (lifecycle.ErrGraphState).
func (s *Stream) Sync() error { return s.SyncContext(context.Background()) }

// SyncContext is Sync bounded by ctx: if ctx ends first it returns an error
// wrapping ctx.Err() and the work stays enqueued (a hung GPU cannot hold the
// caller past its deadline).
func (s *Stream) SyncContext(ctx context.Context) error {
	if err := s.check("Sync"); err != nil {
		return err
	}
	if err := s.lock("Sync"); err != nil {
		return err
	}
	if s.state.IsRecording() {
		s.mu.Unlock()
		return s.state.Refuse("sync", "a sync is refused while recording; it would wait for work that was recorded, not executed")
	}
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return &Error{Op: "Sync", Err: err}
	}
	s.flushLocked()
	sub, any := s.lastSub, s.submitted
	s.nextSubmit = s.cfg.firstChunk
	s.mu.Unlock()
	if any {
		if err := s.dev.Wait(ctx, sub); err != nil {
			return &Error{Op: "Sync", Err: err}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.takeErrors()
}

// Close waits for the stream's work to finish, releases its graphs, pools
// and caches, and makes every later call return an error wrapping
// ErrClosed. Buffers of the stream answer ErrClosed too. The Device stays
// open (the caller owns it). Close is idempotent; it returns the errors
// still queued.
func (s *Stream) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil
	}
	s.closed.Store(true)
	s.unreg()
	s.flushLocked()
	s.state.Abort()
	if s.rec != nil {
		s.rec.discard(s)
		s.rec = nil
	}
	sub, any := s.lastSub, s.submitted
	s.mu.Unlock()
	if any && s.dev.Err() == nil {
		_ = s.dev.Wait(context.Background(), sub)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for g := range s.graphs {
		g.releaseLocked()
	}
	s.groups.clear()
	s.retire()
	s.prof.release()
	s.prof = nil
	for _, b := range s.stage {
		b.Release()
	}
	s.stage = nil
	s.meta.close()
	s.mem.close()
	s.enc.Release()
	s.log.Debug().Msg("stream closed")
	return s.takeErrors()
}
