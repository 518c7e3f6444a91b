package recorder

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"time"

	"github.com/softgraph/softgraph/wgpu"
)

// profileQueries bounds how many compute passes one profile can time with
// GPU timestamps (two queries each). Passes beyond it run untimed and the
// result says Truncated.
const profileQueries = 2048

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
	set    *wgpu.QuerySet // nil for wall-clock profiles
	passes uint32
	over   bool
}

var profileIDs atomic.Uint64

// nextPass returns the timestamp writes for the next compute pass, or nil.
func (p *profile) nextPass() *wgpu.Timestamps {
	if p == nil || p.set == nil {
		return nil
	}
	if 2*(p.passes+1) > p.set.Count() {
		p.over = true
		return nil
	}
	ts := &wgpu.Timestamps{Set: p.set, Begin: 2 * p.passes, End: 2*p.passes + 1}
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
// One profile runs at a time per stream. Refused on the spot while recording
// (lifecycle.ErrGraphState).
func (s *Stream) StartProfile() (ProfileToken, error) {
	if err := s.check("StartProfile"); err != nil {
		return ProfileToken{}, err
	}
	if err := s.lock("StartProfile"); err != nil {
		return ProfileToken{}, err
	}
	defer s.mu.Unlock()
	if s.state.IsRecording() {
		return ProfileToken{}, s.state.Refuse("profile", "profiling is refused while recording; nothing executes in the window")
	}
	if s.prof != nil {
		return ProfileToken{}, argError("StartProfile", ErrInvalidArgument, "profile %d is still running on this stream; end it first", s.prof.id)
	}
	// The profile covers only work enqueued after it starts.
	s.flushLocked()
	p := &profile{id: profileIDs.Add(1)}
	if s.dev.Info().Timestamps {
		if _, err := s.dev.TimestampPeriod(); err != nil {
			return ProfileToken{}, &Error{Op: "StartProfile", Err: err}
		}
		set, err := s.dev.NewTimestampQueries(profileQueries)
		if err != nil {
			return ProfileToken{}, &Error{Op: "StartProfile", Err: err}
		}
		p.set = set
	} else if s.submitted {
		if err := s.dev.Wait(context.Background(), s.lastSub); err != nil {
			return ProfileToken{}, &Error{Op: "StartProfile", Err: err}
		}
	}
	p.start = time.Now()
	s.prof = p
	return ProfileToken{s: s, id: p.id}, nil
}

// EndProfile waits for the profiled work and returns its GPU time. Like
// Sync it returns the errors queued since the last sync point first (the
// profile is then ended without a result). Refused on the spot while
// recording; the profile keeps running.
func (s *Stream) EndProfile(tok ProfileToken) (Profile, error) {
	if err := s.check("EndProfile"); err != nil {
		return Profile{}, err
	}
	if err := s.lock("EndProfile"); err != nil {
		return Profile{}, err
	}
	if tok.s != s || s.prof == nil || s.prof.id != tok.id {
		s.mu.Unlock()
		return Profile{}, argError("EndProfile", ErrInvalidArgument, "token %d is not the profile running on this stream", tok.id)
	}
	if s.state.IsRecording() {
		s.mu.Unlock()
		return Profile{}, s.state.Refuse("profile", "ending a profile is refused while recording")
	}
	p := s.prof
	s.prof = nil
	s.flushLocked()
	if p.set == nil {
		sub, any := s.lastSub, s.submitted
		s.mu.Unlock()
		if any {
			if err := s.dev.Wait(context.Background(), sub); err != nil {
				return Profile{}, &Error{Op: "EndProfile", Err: err}
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.takeErrors(); err != nil {
			return Profile{}, err
		}
		return Profile{GPU: time.Since(p.start), Method: ProfileWallClock}, nil
	}
	defer p.release()
	out := Profile{Method: ProfileTimestamps, Passes: int(p.passes), Truncated: p.over}
	if p.passes == 0 {
		defer s.mu.Unlock()
		return out, s.takeErrors()
	}
	n := uint64(2 * p.passes * 8)
	res, err := s.dev.NewBuffer((n+255)&^255, wgpu.UsageQueryResolve|wgpu.UsageCopySrc, "softgraph profile resolve")
	if err != nil {
		s.mu.Unlock()
		return Profile{}, &Error{Op: "EndProfile", Err: err}
	}
	defer res.Release()
	st, err := s.staging(n)
	if err == nil {
		if err = s.enc.ResolveQueries(p.set, 0, 2*p.passes, res, 0); err == nil {
			err = s.enc.Copy(res, 0, st, 0, n)
		}
		if err != nil {
			s.enc.Discard()
		} else {
			s.flushLocked()
		}
	}
	sub := s.lastSub
	s.mu.Unlock()
	raw := make([]byte, n)
	if err == nil {
		err = s.dev.ReadMapped(context.Background(), st, 0, raw, sub)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st != nil {
		if s.closed.Load() {
			st.Release()
		} else {
			s.stage = append(s.stage, st)
		}
	}
	if qerr := s.takeErrors(); qerr != nil {
		return Profile{}, qerr
	}
	if err != nil {
		return Profile{}, &Error{Op: "EndProfile", Err: err}
	}
	period, _ := s.dev.TimestampPeriod()
	var ticks uint64
	for i := uint32(0); i < p.passes; i++ {
		b := binary.LittleEndian.Uint64(raw[16*i:])
		e := binary.LittleEndian.Uint64(raw[16*i+8:])
		if e > b {
			ticks += e - b
		}
	}
	out.GPU = time.Duration(float64(ticks) * period)
	return out, nil
}

// DispatchTime is one dispatch of a profiled replay.
type DispatchTime struct {
	Index    int           // position in the graph
	Kernel   string        // entry point
	Dispatch string        // "groups 4×1×1" or "indirect @0"
	GPU      time.Duration // GPU time between the dispatch's pass timestamps
}

// ReplayProfile is what ProfileReplay measured.
type ReplayProfile struct {
	Method     ProfileMethod
	Total      time.Duration  // sum of the dispatches (timestamps) or the replay's wall time
	Dispatches []DispatchTime // per dispatch, in graph order; empty for ProfileWallClock
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
// Method.
//
// g must belong to s. Refused with lifecycle.ErrGraphState while recording,
// and with ErrInvalidArgument while a StartProfile profile runs on s.
// Errors queued since the last sync point are returned first.
func (s *Stream) ProfileReplay(g *Graph) (ReplayProfile, error) {
	if err := s.check("ProfileReplay"); err != nil {
		return ReplayProfile{}, err
	}
	if g == nil {
		return ReplayProfile{}, argError("ProfileReplay", ErrInvalidArgument, "graph is nil")
	}
	if g.s != s {
		return ReplayProfile{}, argError("ProfileReplay", ErrInvalidArgument, "the graph belongs to another stream; profile it there")
	}
	if err := s.lock("ProfileReplay"); err != nil {
		return ReplayProfile{}, err
	}
	if g.released {
		s.mu.Unlock()
		return ReplayProfile{}, argError("ProfileReplay", ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches)
	}
	if s.state.IsRecording() {
		s.mu.Unlock()
		return ReplayProfile{}, s.state.Refuse("profile", "profiling a replay is refused while recording")
	}
	if s.prof != nil {
		s.mu.Unlock()
		return ReplayProfile{}, argError("ProfileReplay", ErrInvalidArgument, "profile %d is running on this stream; end it first", s.prof.id)
	}
	s.flushLocked()
	if err := s.takeErrors(); err != nil {
		s.mu.Unlock()
		return ReplayProfile{}, err
	}
	if !s.dev.Info().Timestamps {
		return s.profileReplayWall(g) // unlocks
	}
	defer s.mu.Unlock()
	period, err := s.dev.TimestampPeriod()
	if err != nil {
		return ReplayProfile{}, &Error{Op: "ProfileReplay", Err: err}
	}
	n := g.tasks.Len()
	var sets []*wgpu.QuerySet
	defer func() {
		for _, q := range sets {
			q.Release()
		}
	}()
	for i := 0; i < n; i += dispatchesPerSet {
		q, err := s.dev.NewTimestampQueries(uint32(2 * min(dispatchesPerSet, n-i)))
		if err != nil {
			return ReplayProfile{}, &Error{Op: "ProfileReplay", Err: err}
		}
		sets = append(sets, q)
	}
	for i := range n {
		set, j := sets[i/dispatchesPerSet], uint32(i%dispatchesPerSet)
		if err := s.enc.BeginPass(&wgpu.Timestamps{Set: set, Begin: 2 * j, End: 2*j + 1}); err != nil {
			s.enc.Discard()
			return ReplayProfile{}, &Error{Op: "ProfileReplay", Err: err}
		}
		s.enc.EncodeTasks(g.tasks, i, i+1)
		if s.enc.Commands >= s.nextSubmit {
			s.flushLocked()
		}
	}
	s.flushLocked()
	raw := make([]byte, 16*n)
	for k, set := range sets {
		count := set.Count()
		size := uint64(count) * 8
		res, err := s.dev.NewBuffer((size+255)&^255, wgpu.UsageQueryResolve|wgpu.UsageCopySrc, "softgraph replay profile")
		if err != nil {
			return ReplayProfile{}, &Error{Op: "ProfileReplay", Err: err}
		}
		st, err := s.staging(size)
		if err == nil {
			if err = s.enc.ResolveQueries(set, 0, count, res, 0); err == nil {
				err = s.enc.Copy(res, 0, st, 0, size)
			}
			if err != nil {
				s.enc.Discard()
			} else {
				s.flushLocked()
				err = s.dev.ReadMapped(context.Background(), st, 0, raw[16*dispatchesPerSet*k:][:size], s.lastSub)
			}
			s.stage = append(s.stage, st)
		}
		res.Release()
		if err != nil {
			return ReplayProfile{}, &Error{Op: "ProfileReplay", Err: err}
		}
	}
	if err := s.takeErrors(); err != nil {
		return ReplayProfile{}, err
	}
	out := ReplayProfile{Method: ProfileTimestamps, Dispatches: make([]DispatchTime, n)}
	for i, nd := range g.nodes {
		b := binary.LittleEndian.Uint64(raw[16*i:])
		e := binary.LittleEndian.Uint64(raw[16*i+8:])
		var d time.Duration
		if e > b {
			d = time.Duration(float64(e-b) * period)
		}
		out.Dispatches[i] = DispatchTime{Index: i, Kernel: nd.k.Entry(), Dispatch: nd.d.label(), GPU: d}
		out.Total += d
	}
	return out, nil
}

// profileReplayWall times one replay between two idle points. It is
// called with s.mu held and releases it.
func (s *Stream) profileReplayWall(g *Graph) (ReplayProfile, error) {
	sub, any := s.lastSub, s.submitted
	s.mu.Unlock()
	if any {
		if err := s.dev.Wait(context.Background(), sub); err != nil {
			return ReplayProfile{}, &Error{Op: "ProfileReplay", Err: err}
		}
	}
	s.mu.Lock()
	start := time.Now()
	err := s.replayLocked(g.tasks)
	sub = s.lastSub
	s.mu.Unlock()
	if err != nil {
		return ReplayProfile{}, err
	}
	if err := s.dev.Wait(context.Background(), sub); err != nil {
		return ReplayProfile{}, &Error{Op: "ProfileReplay", Err: err}
	}
	total := time.Since(start)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.takeErrors(); err != nil {
		return ReplayProfile{}, err
	}
	return ReplayProfile{Method: ProfileWallClock, Total: total}, nil
}
