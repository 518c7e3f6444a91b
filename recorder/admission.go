package recorder

import (
	"context"
	"errors"
	"fmt"

	"github.com/softgraph/softgraph/lifecycle"
)

// Admission: every operation's first steps (the stream usable, its lock,
// the lifecycle's verdict) and what the verdict reads.

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

// verdictLocked is the lifecycle's verdict for op, decided under s.mu,
// which it keeps (the engine's Gate.Admit). A refusal inside the capture
// window is queued to fail EndCapture in this same hold, as the
// lifecycle's table says (failLocked); a deferred write's always is.
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

// recordingNow is capturing read under the stream's lock (Capture's own
// window, right after its BeginCapture).
func (s *Stream) recordingNow() *recording {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.capturing()
}

// profiling is the running profile, nil when none runs.
func (s *Stream) profiling() *profile {
	p, _ := s.life.Profile()
	return p
}
