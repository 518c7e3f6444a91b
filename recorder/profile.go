package recorder

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/lifecycle"
)

// profileQueries bounds how many compute passes one profile can time with
// GPU timestamps (two queries each). Passes beyond it run untimed and the
// result says Truncated.
const profileQueries = 2048

// profileStartRounds bounds how often StartProfile waits on the wall clock
// for work other goroutines enqueue while it waits.
const profileStartRounds = 3

// ProfileMethod says how a Profile was measured.
type ProfileMethod uint8

const (
	// ProfileTimestamps: GPU timestamps written at the beginning and end of
	// every compute pass in the window, summed: GPU execution time, without
	// the gaps where the GPU waited for the host.
	ProfileTimestamps ProfileMethod = iota + 1
	// ProfileWallClock: the adapter has no timestamp queries; host time from
	// an idle GPU at StartProfile to an idle GPU at EndProfile.
	ProfileWallClock
)

func (m ProfileMethod) String() string {
	switch m {
	case ProfileTimestamps:
		return "gpu-timestamps"
	case ProfileWallClock:
		return "wall-clock"
	}
	return "unknown"
}

// ProfileToken is what StartProfile returns and EndProfile takes.
type ProfileToken struct {
	s  *Stream
	id uint64
}

// Profile is the GPU time of the work enqueued between StartProfile and
// EndProfile.
type Profile struct {
	GPU       time.Duration // the measured time (see Method)
	Method    ProfileMethod // how it was measured
	Passes    int           // compute passes timed (timestamps only)
	Truncated bool          // more passes ran than could be timed; GPU undercounts
}

type profile struct {
	id     uint64
	start  time.Time
	set    driver.QuerySet // nil for wall-clock profiles
	passes uint32
	over   bool
}

var profileIDs atomic.Uint64

// nextPass returns the timestamp writes for the next compute pass, or nil.
func (p *profile) nextPass() *driver.Timestamps {
	if p == nil || p.set == nil {
		return nil
	}
	if 2*(p.passes+1) > p.set.Count() {
		p.over = true
		return nil
	}
	ts := &driver.Timestamps{Set: p.set, Begin: 2 * p.passes, End: 2*p.passes + 1}
	p.passes++
	return ts
}

func (p *profile) release() {
	if p != nil && p.set != nil {
		p.set.Release()
	}
}

// StartProfile starts measuring the GPU time of the work enqueued on the
// stream from now until EndProfile. It uses GPU timestamps where the adapter
// has them and wall time around syncs otherwise (Profile.Method says which).
// One profile runs at a time per stream: a second is refused with
// ErrInvalidArgument (and lifecycle.ErrProfileRunning). Refused on the spot
// while recording (lifecycle.ErrGraphState), which also makes EndCapture
// fail.
func (s *Stream) StartProfile() (ProfileToken, error) {
	const op = lifecycle.Profile
	if err := s.check(op); err != nil {
		return ProfileToken{}, err
	}
	// One transaction: the table's profiling column refuses a second
	// profile. The profile covers only work enqueued after it starts, so
	// the earlier work is submitted first (and on the wall clock
	// finished), with the lock given up for both waits (Tx.Flush,
	// Tx.Wait): a call beside it, a SyncContext with a deadline above all,
	// does not queue behind the GPU.
	var tok ProfileToken
	err := s.eng.Do(op, func(tx *engine.Tx) error {
		for round := 1; ; round++ {
			if err := tx.Flush(context.Background()); err != nil {
				return s.readmitError(op, err)
			}
			if !s.info.Timestamps {
				if last, any := s.eng.Last(); any {
					if err := tx.Wait(context.Background(), engine.GPU(last)); err != nil {
						return &Error{Op: op.String(), Err: err}
					}
				}
			}
			// Asked again after the waits, as a call arriving now would be:
			// a capture begun meanwhile refuses it (and fails that capture),
			// and so does a profile started meanwhile (the profiling
			// column), since only one may run.
			if err := s.readmitTx(tx); err != nil {
				return err
			}
			if v, err := s.verdictLocked(op); err != nil || v != lifecycle.Execute {
				return err
			}
			// Other goroutines may have enqueued work while the lock was
			// given up, a replay leaving its compute pass open among it.
			// A dispatch of the profile must open a pass of its own (that
			// pass carries the timestamps), so what came before it goes on
			// its way. With timestamps that hand-off is all; on the wall
			// clock the work is waited for again, a bounded number of times
			// so a busy stream cannot starve the start (what is left is
			// then measured with the profile, as concurrent work is).
			if s.eng.Enc().Empty() && !s.eng.Enc().PassOpen() {
				break
			}
			if s.info.Timestamps || round == profileStartRounds {
				if err := tx.HandOff(); err != nil {
					return &Error{Op: op.String(), Err: err}
				}
				break
			}
		}
		p := &profile{id: profileIDs.Add(1)}
		if s.info.Timestamps {
			if _, err := s.drv.TimestampPeriod(); err != nil {
				return &Error{Op: op.String(), Err: err}
			}
			set, err := s.drv.NewQueries(profileQueries)
			if err != nil {
				return &Error{Op: op.String(), Err: err}
			}
			p.set = set
		}
		p.start = time.Now()
		if err := s.life.StartProfile(p); err != nil { // admitted above: cannot fail
			p.release()
			return &Error{Op: op.String(), Err: err}
		}
		tok = ProfileToken{s: s, id: p.id}
		return nil
	})
	if err != nil {
		return ProfileToken{}, err
	}
	return tok, nil
}

// beginPass opens a compute pass on the stream's encoder when a profile
// needs timestamps on it; otherwise dispatches open their own.
func (s *Stream) beginProfiledPass() error {
	if ts := s.profiling().nextPass(); ts != nil {
		return s.eng.Enc().BeginPass(ts)
	}
	return nil
}

// EndProfile waits for the profiled work and returns its GPU time. Like
// Sync it returns the errors queued since the last sync point first (the
// profile is then ended without a result). Refused on the spot while
// recording (the profile keeps running), which also makes EndCapture fail.
func (s *Stream) EndProfile(tok ProfileToken) (Profile, error) {
	const op = lifecycle.EndProfile
	if err := s.check(op); err != nil {
		return Profile{}, err
	}
	// One transaction: the resolve of the timestamps is encoded under its
	// verdict; then its waits (the hand-off's submission, Tx.Drain, and the
	// profiled work) give the lock up. Nothing after them reaches the GPU,
	// so it is not admitted again.
	var out Profile
	var ended *profile
	defer func() {
		if ended != nil && ended.set != nil {
			ended.release()
		}
	}()
	err := s.eng.Do(op, func(tx *engine.Tx) error {
		if running := s.profiling(); tok.s != s || running == nil || running.id != tok.id {
			return argError(op, ErrInvalidArgument, "token %d is not the profile running on this stream", tok.id)
		}
		p, _, _ := s.life.EndProfile() // admitted above, and running
		ended = p
		if p.set == nil {
			if err := tx.Drain(context.Background()); err != nil {
				return &Error{Op: op.String(), Err: s.txError(err)}
			}
			if sub, any := s.eng.Last(); any {
				if err := tx.Wait(context.Background(), engine.GPU(sub)); err != nil {
					return &Error{Op: op.String(), Err: err}
				}
			}
			if err := s.takeErrors(); err != nil {
				return err
			}
			out = Profile{GPU: time.Since(p.start), Method: ProfileWallClock}
			return nil
		}
		res := Profile{Method: ProfileTimestamps, Passes: int(p.passes), Truncated: p.over}
		var raw []byte
		var r resolved
		var err error
		if p.passes > 0 {
			// The profiled work goes on its way first (not waited for), so
			// a resolve the device refuses (its encoder discarded) takes
			// none of it along.
			s.handOff()
			raw = make([]byte, 16*p.passes)
			r, err = s.encodeResolve(p.set, 2*p.passes)
		}
		// The batch goes to the submitter even when the resolve failed (the
		// resolve released what it made): the errors of the work before it
		// are this call's to return.
		if derr := tx.Drain(context.Background()); derr != nil {
			if r.res != nil { // handed off: the copy may still run
				r.res.Release()
				r.st.Release()
			}
			return &Error{Op: op.String(), Err: s.txError(derr)}
		}
		if err == nil && p.passes > 0 {
			err = s.readResolved(tx, []resolved{r}, [][]byte{raw})
		}
		if qerr := s.takeErrors(); qerr != nil {
			return qerr
		}
		if err != nil {
			return &Error{Op: op.String(), Err: err}
		}
		period, _ := s.drv.TimestampPeriod()
		var ticks uint64
		for i := uint32(0); i < p.passes; i++ {
			b := binary.LittleEndian.Uint64(raw[16*i:])
			e := binary.LittleEndian.Uint64(raw[16*i+8:])
			if e > b {
				ticks += e - b
			}
		}
		res.GPU = time.Duration(float64(ticks) * period)
		out = res
		return nil
	})
	if err != nil {
		return Profile{}, err
	}
	return out, nil
}

// resolved is a query set's timestamps on their way to the host: commands
// on the stream's encoder resolve them into res and copy them into the
// staging buffer st.
type resolved struct {
	res, st driver.Buffer
	n       uint64 // bytes
}

// encodeResolve encodes the resolve of count timestamps of set and their
// copy into a staging buffer. The caller holds s.mu under its operation's
// verdict, and flushes the encoder before it reads them (readResolved). On
// an error the encoder is discarded: the caller's earlier resolves of the
// same flush go with it (dropResolved).
func (s *Stream) encodeResolve(set driver.QuerySet, count uint32) (resolved, error) {
	n := uint64(count) * 8
	res, err := s.drv.NewBuffer((n+255)&^255, driver.UsageQueryResolve|driver.UsageCopySrc, "softgraph profile resolve")
	if err != nil {
		return resolved{}, err
	}
	st, err := s.staging(n)
	if err != nil {
		res.Release()
		return resolved{}, err
	}
	if err = s.eng.Enc().ResolveQueries(set, 0, count, res, 0); err == nil {
		err = s.eng.Enc().CopyBuffer(res, 0, st, 0, n)
	}
	if err != nil {
		s.eng.Enc().Discard()
		s.stage = append(s.stage, st)
		res.Release()
		return resolved{}, err
	}
	return resolved{res: res, st: st, n: n}, nil
}

// dropResolved releases resolves whose commands were discarded before
// they were flushed: nothing wrote their staging buffers, which go back
// to the stream. The caller holds s.mu.
func (s *Stream) dropResolved(rs []resolved) {
	for _, r := range rs {
		r.res.Release()
		s.stage = append(s.stage, r.st)
	}
}

// readResolved waits, with the lock given up (tx.Wait), for rs's
// commands (flushed) and reads their timestamps into dst[k] (r.n bytes
// each); then, with the lock back, it releases the resolve buffers and
// gives the staging buffers back to the stream, or releases them when the
// read failed (a copy may still be in flight: releasing is safe, the work
// keeps them alive) or the stream is closing. Nothing after it reaches
// the GPU, so the caller is not admitted again.
func (s *Stream) readResolved(tx *engine.Tx, rs []resolved, dst [][]byte) error {
	read := make([]bool, len(rs))
	err := tx.Wait(context.Background(), engine.Call("resolve", func(ctx context.Context) error {
		for k, r := range rs {
			if err := s.drv.ReadBuffer(ctx, r.st, 0, dst[k]); err != nil {
				return err
			}
			read[k] = true
		}
		return nil
	}))
	for k, r := range rs {
		r.res.Release()
		if read[k] && !s.closing.Load() {
			s.stage = append(s.stage, r.st)
		} else {
			r.st.Release()
		}
	}
	return err
}

// DispatchTime is one dispatch of a profiled replay.
type DispatchTime struct {
	Index    int           // position in the graph
	Kernel   string        // the kernel's label (wgpu.WithLabel), or its entry point
	Dispatch string        // "groups 4×1×1" or "indirect @0"
	GPU      time.Duration // GPU time between the dispatch's pass timestamps
}

// ReplayProfile is what ProfileReplay measured.
type ReplayProfile struct {
	Method ProfileMethod
	// Total is the sum of the dispatches' GPU times (timestamps), or the
	// replay's wall time between two idle points (wall clock).
	Total      time.Duration
	Dispatches []DispatchTime // per dispatch, in graph order; empty for ProfileWallClock
	// SubmitWait, measured only with WithFloor, is the best wall time, over
	// the rounds asked for, from submitting one pre-encoded command buffer
	// holding the whole graph to the GPU finishing it, at an idle point:
	// what no replay loop on this adapter can beat per replay.
	SubmitWait time.Duration
	// Span, measured with WithFloor where the adapter has timestamps and
	// is not OpenGL (0 elsewhere: llvmpipe's GL, under wine, wrote a
	// one-dispatch graph's two timestamps 90 ns apart, before the
	// dispatch ran), is the best GPU time, over the same rounds, from the
	// start of that command buffer's first command to the end of its
	// last: the graph's own GPU time, with the gaps between its dispatches
	// and without the submit and wake-up that SubmitWait adds or the pass
	// boundaries that Total's per-dispatch timing adds. A pipelined loop
	// of replays, GPU-bound, approaches it per replay.
	Span time.Duration
	// Branches says, per If or While body, which iterations ran in the
	// profiled replay (graphs with control flow only).
	Branches []BranchRun
}

// Floor is the replay's floor on this adapter: SubmitWait where it was
// measured, else the GPU time of its dispatches.
func (p ReplayProfile) Floor() time.Duration {
	if p.SubmitWait > 0 {
		return p.SubmitWait
	}
	return p.Total
}

// ProfileOption configures ProfileReplay.
type ProfileOption func(*profileOptions)

type profileOptions struct{ floorRounds int }

// WithFloor makes ProfileReplay also measure ReplayProfile.SubmitWait and
// ReplayProfile.Span over rounds extra executions of the graph (its work
// runs rounds more times: profile a graph whose effects you can repeat).
func WithFloor(rounds int) ProfileOption {
	return func(o *profileOptions) { o.floorRounds = max(rounds, 0) }
}

// dispatchesPerSet is how many dispatches one timestamp query set times.
const dispatchesPerSet = 2048

// ProfileReplay runs one replay of g (g's work executes, as with Replay)
// and returns its GPU time per dispatch, with kernel names, and in total.
// Per-dispatch timing gives each dispatch a compute pass of its own with
// timestamp writes at its beginning and end; a graph's dispatches already
// run one after another, so the figures are the graph's, plus pass
// boundaries. Where the adapter has no timestamp queries it falls back to
// the whole replay's wall time between two idle points, and says so in
// Method. WithFloor adds the submit-and-wait floor.
//
// g must belong to s. Refused with lifecycle.ErrGraphState while recording
// (which also makes EndCapture fail), and with ErrInvalidArgument (and
// lifecycle.ErrProfileRunning) while a StartProfile profile runs on s when
// it is called: such a refusal runs nothing. Once admitted it asks again
// after each wait (lifecycle.Session.Readmit): a profile started meanwhile
// refuses none of its steps, so the replay and every floor round run; a
// capture begun meanwhile refuses the step it meets with
// lifecycle.ErrGraphState (and fails that capture), after the steps before
// it ran. Errors queued since the last sync point are returned first.
func (s *Stream) ProfileReplay(g *Graph, opts ...ProfileOption) (ReplayProfile, error) {
	const op = lifecycle.ProfileReplay
	var o profileOptions
	for _, opt := range opts {
		if opt != nil { // a nil option sets nothing
			opt(&o)
		}
	}
	if g == nil {
		return ReplayProfile{}, argError(op, ErrInvalidArgument, "graph is nil")
	}
	if g.s != s {
		return ReplayProfile{}, s.refused(op, argError(op, ErrInvalidArgument, "the graph belongs to another stream; profile it there"))
	}
	if err := s.check(op); err != nil {
		return ReplayProfile{}, err
	}
	// One transaction: the table refuses it while recording and while a
	// profile runs (its profiling column); every wait in it gives the
	// lock up through the transaction (Tx.Wait, Tx.SubmitWait), and each
	// step after a wait that reaches the GPU is admitted again first.
	var out ReplayProfile
	err := s.eng.Do(op, func(tx *engine.Tx) error {
		if g.released {
			return s.failLocked(op, argError(op, ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches))
		}
		// The graph's program and pins are held for the whole
		// measurement, so a Release racing it frees nothing under it: once
		// admitted here, the profile runs to the end (Release leaves the
		// program to it).
		g.pins.ref()
		g.profiling++
		defer func() {
			g.pins.unref()
			g.profiling--
			g.releaseProgramIfUnused() // Release may have left it to this profile
		}()
		// The earlier work goes first, waited for with the lock given up
		// and admitted again after (Tx.Flush): a capture begun meanwhile
		// refuses the call before any of it ran.
		if err := tx.Flush(context.Background()); err != nil {
			return s.readmitError(op, s.txError(err))
		}
		if err := s.takeErrors(); err != nil {
			return err
		}
		var err error
		if s.info.Timestamps {
			out, err = s.profileReplayTimestamps(tx, g)
		} else {
			out, err = s.profileReplayWall(tx, g)
		}
		// Which bodies ran is read before the floor rounds replay the
		// graph again (they would leave the gate buffer as their last
		// round left it).
		if err == nil {
			out.Branches, err = s.branchRuns(tx, g)
		}
		if err == nil && o.floorRounds > 0 {
			out.SubmitWait, out.Span, err = s.measureFloor(tx, g, o.floorRounds)
		}
		return err
	})
	if err != nil {
		return ReplayProfile{}, err
	}
	return out, nil
}

// profileReplayTimestamps encodes every dispatch of g in a timestamped pass
// of its own, in ProfileReplay's transaction, before its first wait.
func (s *Stream) profileReplayTimestamps(tx *engine.Tx, g *Graph) (ReplayProfile, error) {
	const op = lifecycle.ProfileReplay
	fail := func(err error) (ReplayProfile, error) {
		return ReplayProfile{}, &Error{Op: op.String(), Err: err}
	}
	period, err := s.drv.TimestampPeriod()
	if err != nil {
		return fail(err)
	}
	n := g.prog.Len()
	var sets []driver.QuerySet
	defer func() {
		for _, q := range sets {
			q.Release()
		}
	}()
	for i := 0; i < n; i += dispatchesPerSet {
		q, err := s.drv.NewQueries(uint32(2 * min(dispatchesPerSet, n-i)))
		if err != nil {
			return fail(err)
		}
		sets = append(sets, q)
	}
	for i := range n {
		set, j := sets[i/dispatchesPerSet], uint32(i%dispatchesPerSet)
		ts := &driver.Timestamps{Set: set, Begin: 2 * j, End: 2*j + 1}
		if err := s.eng.Enc().BeginPass(ts); err != nil {
			s.eng.Enc().Discard()
			return fail(err)
		}
		if dispatchOf(&g.nodes[i]) == nil {
			// A copy or clear runs outside a pass, but its query slots must
			// be written: resolving a query never written waits for it on
			// Vulkan, forever (the H200 hung profiling a copy-only graph).
			// An empty timestamped pass writes both, about 0 apart.
			if err := s.eng.Enc().EndPass(); err != nil {
				s.eng.Enc().Discard()
				return fail(err)
			}
		}
		if err := s.eng.Enc().Encode(g.prog, i, i+1); err != nil {
			s.eng.Enc().Discard()
			return fail(err)
		}
		s.eng.AddDispatches(1)
		if s.eng.Enc().Dispatches() >= s.eng.Chunk() {
			// Between chunks the replay keeps the lock, as Replay does: a
			// wait here is only for room at the submitter.
			s.handOffFull(roomLocked)
		}
	}
	// The replay goes on its way before the resolves, so a resolve the
	// device refuses (its encoder discarded) takes none of it along.
	s.handOff()
	// Every set's resolve is encoded under this call's verdict, before the
	// lock is released: nothing reaches the stream's encoder after a wait
	// (a capture begun meanwhile would have it run in its window).
	raw, queued, err := s.readSets(tx, sets, 16*dispatchesPerSet, 16*n)
	if queued != nil {
		return ReplayProfile{}, queued
	}
	if err != nil {
		return fail(err)
	}
	out := ReplayProfile{Method: ProfileTimestamps}
	for i := range g.nodes {
		nd := dispatchOf(&g.nodes[i])
		if nd == nil {
			continue
		}
		b := binary.LittleEndian.Uint64(raw[16*i:])
		e := binary.LittleEndian.Uint64(raw[16*i+8:])
		var d time.Duration
		if e > b {
			d = time.Duration(float64(e-b) * period)
		}
		out.Dispatches = append(out.Dispatches, DispatchTime{Index: i, Kernel: kernelName(nd.k), Dispatch: nd.d.label(), GPU: d})
		out.Total += d
	}
	return out, nil
}

// profileReplayWall times one replay between two idle points, in
// ProfileReplay's transaction.
func (s *Stream) profileReplayWall(tx *engine.Tx, g *Graph) (ReplayProfile, error) {
	const op = lifecycle.ProfileReplay
	if sub, any := s.eng.Last(); any {
		if err := tx.Wait(context.Background(), engine.GPU(sub)); err != nil {
			return ReplayProfile{}, &Error{Op: op.String(), Err: err}
		}
	}
	// Asked again after the wait: a capture begun meanwhile refuses the
	// replay, a profile started meanwhile does not (this call was admitted
	// before it, and nothing of it has run yet either way).
	if err := s.readmitTx(tx); err != nil {
		return ReplayProfile{}, err
	}
	// The graph may have been released meanwhile; its program and pins are
	// still held by ProfileReplay, so the replay runs what was captured.
	start := time.Now()
	err := s.encodeProgram(g.prog, g.pins)
	if derr := tx.Drain(context.Background()); derr != nil && err == nil {
		err = &Error{Op: op.String(), Err: s.txError(derr)}
	}
	sub, _ := s.eng.Last()
	if err != nil {
		return ReplayProfile{}, err
	}
	if err := tx.Wait(context.Background(), engine.GPU(sub)); err != nil {
		return ReplayProfile{}, &Error{Op: op.String(), Err: err}
	}
	total := time.Since(start)
	if err := s.takeErrors(); err != nil {
		return ReplayProfile{}, err
	}
	return ReplayProfile{Method: ProfileWallClock, Total: total}, nil
}

// spanRoundsPerSet is how many floor rounds one query set times: four
// timestamps a round, an empty timestamped pass before the graph and one
// after it, so a set holds as many as dispatchesPerSet's.
const spanRoundsPerSet = dispatchesPerSet / 2

// measureFloor submits rounds pre-encoded command buffers of g's whole
// program, one at a time at an idle point, and returns the fastest
// submit-to-finished time and, where the adapter has timestamps, the
// shortest GPU span of a round (ReplayProfile.Span). It runs in
// ProfileReplay's transaction.
func (s *Stream) measureFloor(tx *engine.Tx, g *Graph, rounds int) (best, span time.Duration, err error) {
	const op = lifecycle.ProfileReplay
	enc, err := s.drv.NewEncoder()
	if err != nil {
		return 0, 0, &Error{Op: op.String(), Err: err}
	}
	defer enc.Release()
	var sets []driver.QuerySet
	defer func() {
		for _, q := range sets {
			q.Release()
		}
	}()
	if s.info.Timestamps && !s.info.GL {
		for r := 0; r < rounds; r += spanRoundsPerSet {
			q, err := s.drv.NewQueries(uint32(4 * min(spanRoundsPerSet, rounds-r)))
			if err != nil {
				return 0, 0, &Error{Op: op.String(), Err: err}
			}
			sets = append(sets, q)
		}
	}
	for r := range rounds {
		var ts *driver.Timestamps
		if sets != nil {
			ts = &driver.Timestamps{Set: sets[r/spanRoundsPerSet], Begin: uint32(4 * (r % spanRoundsPerSet))}
		}
		if err := encodeSpanned(enc, g.prog, ts); err != nil {
			enc.Discard()
			return 0, 0, &Error{Op: op.String(), Err: err}
		}
		cb, err := enc.Finish()
		if err != nil {
			return 0, 0, &Error{Op: op.String(), Err: err}
		}
		// Asked again before each round (the transaction waited before
		// it), and again after the wait for the stream's earlier work,
		// right before the round is submitted (as a batch is handed off in
		// the hold that admitted it, with no wait between; the submit
		// itself runs without the lock, Tx.SubmitWait, since on OpenGL it
		// can run the work): a capture begun meanwhile refuses it (nothing
		// may execute in the window), but a profile started meanwhile does
		// not. The replay and the rounds before this one have run: refused
		// here by the profiling column, the call returned
		// ErrInvalidArgument, which says nothing ran, for a graph whose
		// work had run.
		if err := s.readmitTx(tx); err != nil {
			cb.Release()
			return 0, 0, err
		}
		if err := tx.Flush(context.Background()); err != nil {
			cb.Release()
			return 0, 0, s.readmitError(op, s.txError(err))
		}
		if prev, any := s.eng.Last(); any {
			err = tx.Wait(context.Background(), engine.Call("floor", func(ctx context.Context) error {
				return s.drv.Wait(ctx, prev)
			}))
			if err != nil {
				cb.Release()
				return 0, 0, &Error{Op: op.String(), Err: err}
			}
		}
		if err := s.readmitTx(tx); err != nil {
			cb.Release()
			return 0, 0, err
		}
		d, err := tx.SubmitWait(context.Background(), cb)
		if err != nil {
			return 0, 0, &Error{Op: op.String(), Err: s.txError(err)}
		}
		if best == 0 || d < best {
			best = d
		}
	}
	if sets == nil {
		return best, 0, nil
	}
	span, err = s.readSpans(tx, sets, rounds)
	return best, span, err
}

// encodeSpanned encodes p's whole program; with ts, between two empty
// passes timestamped at ts.Begin, +1 (before it) and +2, +3 (after it),
// so that the first and the last of the four bound its GPU time: an empty
// pass writes both of its timestamps, and the last one's end is written
// once every command before it has finished.
func encodeSpanned(enc driver.Encoder, p driver.Program, ts *driver.Timestamps) error {
	pass := func(first uint32) error {
		if err := enc.BeginPass(&driver.Timestamps{Set: ts.Set, Begin: first, End: first + 1}); err != nil {
			return err
		}
		return enc.EndPass()
	}
	if ts != nil {
		if err := pass(ts.Begin); err != nil {
			return err
		}
	}
	if err := enc.Encode(p, 0, p.Len()); err != nil {
		return err
	}
	if ts != nil {
		return pass(ts.Begin + 2)
	}
	return nil
}

// readSets encodes the resolve of every set's timestamps on the stream's
// encoder (under the caller's verdict: nothing reaches the encoder after a
// wait), hands the batch off and waits for it (Tx.Drain), and reads them
// back: raw holds set k's at k·setBytes, total bytes in all. queued is an
// error queued on the stream meanwhile, which the caller returns first;
// err is the resolve's or the read's own.
func (s *Stream) readSets(tx *engine.Tx, sets []driver.QuerySet, setBytes, total int) (raw []byte, queued, err error) {
	rs := make([]resolved, 0, len(sets))
	for _, set := range sets {
		r, err := s.encodeResolve(set, set.Count())
		if err != nil {
			s.dropResolved(rs)
			return nil, nil, err
		}
		rs = append(rs, r)
	}
	if err := tx.Drain(context.Background()); err != nil {
		for _, r := range rs { // handed off: the copies may still run
			r.res.Release()
			r.st.Release()
		}
		return nil, nil, s.txError(err)
	}
	raw = make([]byte, total)
	dst := make([][]byte, len(rs))
	for k, r := range rs {
		off := setBytes * k
		dst[k] = raw[off : off+int(r.n)]
	}
	rerr := s.readResolved(tx, rs, dst)
	if err := s.takeErrors(); err != nil {
		return nil, err, nil
	}
	return raw, nil, rerr
}

// readSpans resolves the floor rounds' timestamps (measureFloor) on the
// stream's encoder, admitted again first (the rounds waited: a capture
// begun meanwhile refuses the resolve, after the rounds ran), reads them
// and returns the shortest round's span.
func (s *Stream) readSpans(tx *engine.Tx, sets []driver.QuerySet, rounds int) (time.Duration, error) {
	const op = lifecycle.ProfileReplay
	fail := func(err error) (time.Duration, error) {
		return 0, &Error{Op: op.String(), Err: err}
	}
	period, err := s.drv.TimestampPeriod()
	if err != nil {
		return fail(err)
	}
	if err := s.readmitTx(tx); err != nil {
		return 0, err
	}
	raw, queued, err := s.readSets(tx, sets, 32*spanRoundsPerSet, 32*rounds)
	if queued != nil {
		return 0, queued
	}
	if err != nil {
		return fail(err)
	}
	var best time.Duration
	for r := range rounds {
		b := binary.LittleEndian.Uint64(raw[32*r:])
		e := binary.LittleEndian.Uint64(raw[32*r+24:])
		if e <= b {
			continue
		}
		if d := time.Duration(float64(e-b) * period); best == 0 || d < best {
			best = d
		}
	}
	return best, nil
}
