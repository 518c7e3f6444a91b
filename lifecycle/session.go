package lifecycle

import "errors"

// ErrProfileRunning is returned by Session.StartProfile while a profile
// runs: one profile at a time per stream.
var ErrProfileRunning = errors.New("lifecycle: a profile is already running on this stream")

// Session is a stream's whole lifecycle in one value: the capture State,
// the recording that exists exactly while that state is Capture, and the
// profile that may be running. It is cubecl's StreamCapture rendered in Go:
// the invariant "a recording exists if and only if the stream is
// recording" is a property of the type, not a rule every caller keeps —
// Begin is the only way to store a recording and End, Cancel and Abort
// the only ways to take it out, each moving the state in the same step.
//
// R is the caller's recording type, P its profile type; Session never
// looks inside either. Like State it is not safe for concurrent use: the
// stream that owns it guards it with its own lock.
type Session[R, P any] struct {
	state State
	rec   R
	prof  P
	// profiling says a profile runs (P may be a pointer whose nil is a
	// valid value to its owner, so presence is kept apart).
	profiling bool
}

// State is the capture state.
func (s *Session[R, P]) State() State { return s.state }

// ProfileError is an operation refused because a profile runs on the
// stream (the table's profiling column): one profile at a time, and a
// replay is profiled only while no profile runs. It wraps
// ErrProfileRunning.
type ProfileError struct {
	// Op is the refused operation, as Op.String spells it.
	Op string
	// Reason says why, for people.
	Reason string
}

func (e *ProfileError) Error() string { return "lifecycle: " + e.Op + ": " + e.Reason }

// Unwrap returns ErrProfileRunning.
func (e *ProfileError) Unwrap() error { return ErrProfileRunning }

// Admit is the verdict for op in the session's state, with the table's
// profiling column applied while a profile runs (outside Capture).
func (s *Session[R, P]) Admit(op Op) Verdict {
	r, ok := s.rule(op)
	if !ok {
		return Refuse
	}
	return r.verdict
}

// Refusal goes with Admit: nil when it executes or records op; a
// *ProfileError when the profiling column refuses op; otherwise
// State.Refusal.
func (s *Session[R, P]) Refusal(op Op) error {
	r, ok := s.rule(op)
	if ok && s.profiling && s.state != Capture && r.verdict == Refuse && table[op].profiling.verdict == Refuse {
		return &ProfileError{Op: op.String(), Reason: r.reason}
	}
	if ok && (r.verdict == Execute || r.verdict == Record) {
		return nil
	}
	return s.state.Refusal(op)
}

// Readmit is the verdict for an operation that Admit let begin and that
// asks again after giving the stream's lock up to wait (a ProfileReplay
// before each round it submits): the state's cell, without the profiling
// column, and its refusal is State.Refusal. A capture begun meanwhile
// refuses it as Admit would; a profile started meanwhile does not. The
// profiling column decides what may begin while a profile runs, and this
// operation began before that profile did: refusing it half-way would
// return an error for work that already ran.
func (s *Session[R, P]) Readmit(op Op) Verdict { return s.state.Admit(op) }

// FailsCapture is State.FailsCapture for the session's state.
func (s *Session[R, P]) FailsCapture(op Op) bool { return s.state.FailsCapture(op) }

func (s *Session[R, P]) rule(op Op) (rule, bool) {
	if s.profiling {
		return s.state.profilingRule(op)
	}
	return s.state.rule(op)
}

// Prepare is State.Prepare.
func (s *Session[R, P]) Prepare() error { return s.state.Prepare() }

// Begin moves Prepare → Capture and stores rec as the recording, in one
// step; refused (changing nothing) as State.Begin is.
func (s *Session[R, P]) Begin(rec R) error {
	if err := s.state.Begin(); err != nil {
		return err
	}
	s.rec = rec
	return nil
}

// Recording is the recording in progress; ok is false unless the state is
// Capture.
func (s *Session[R, P]) Recording() (rec R, ok bool) {
	if s.state != Capture {
		return rec, false
	}
	return s.rec, true
}

// End moves Capture → NoCapture and hands back the recording; refused
// (changing nothing) as State.End is.
func (s *Session[R, P]) End() (R, error) {
	if err := s.state.End(); err != nil {
		var zero R
		return zero, err
	}
	return s.take(), nil
}

// Cancel moves Prepare or Capture → NoCapture and hands back the recording
// if there was one (ok false from Prepare); refused as State.Cancel is.
func (s *Session[R, P]) Cancel() (rec R, ok bool, err error) {
	recording := s.state == Capture
	if err := s.state.Cancel(); err != nil {
		return rec, false, err
	}
	if recording {
		return s.take(), true, nil
	}
	return rec, false, nil
}

// Abort returns to NoCapture from anywhere (State.Abort), handing back the
// recording if there was one.
func (s *Session[R, P]) Abort() (rec R, ok bool) {
	recording := s.state == Capture
	s.state.Abort()
	if recording {
		return s.take(), true
	}
	return rec, false
}

func (s *Session[R, P]) take() R {
	r := s.rec
	var zero R
	s.rec = zero
	return r
}

// StartProfile stores p as the running profile, as Admit(Profile) allows:
// profiles run in every state but Capture (nothing executes in the window:
// Profile is refused there, a *StateError) and one at a time (a second is
// refused with a *ProfileError wrapping ErrProfileRunning).
func (s *Session[R, P]) StartProfile(p P) error {
	if err := s.Refusal(Profile); err != nil {
		return err
	}
	s.prof, s.profiling = p, true
	return nil
}

// Profile is the running profile; ok is false when none runs.
func (s *Session[R, P]) Profile() (p P, ok bool) { return s.prof, s.profiling }

// EndProfile takes the running profile out, as Admit(EndProfile) allows.
// It is refused while recording (the profile keeps running) and reports ok
// false when none runs.
func (s *Session[R, P]) EndProfile() (p P, ok bool, err error) {
	if err := s.Refusal(EndProfile); err != nil {
		return p, false, err
	}
	return s.dropProfile()
}

// DropProfile takes the running profile out whatever the state (Close).
func (s *Session[R, P]) DropProfile() (p P, ok bool) {
	p, ok, _ = s.dropProfile()
	return p, ok
}

func (s *Session[R, P]) dropProfile() (p P, ok bool, err error) {
	if !s.profiling {
		return p, false, nil
	}
	p = s.prof
	var zero P
	s.prof, s.profiling = zero, false
	return p, true, nil
}
