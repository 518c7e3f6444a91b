package main

import (
	"encoding/binary"
	"fmt"

	"github.com/softgraph/softgraph/recorder"
)

// path is one way of decoding a token. step enqueues the token at pos (its
// forward pass, the KV-cache append and the argmax that writes the next
// token on the GPU) and returns without waiting; token waits for it and
// reads the token it chose. reset starts a sequence: the prompt token goes
// into the token buffer (the KV cache is not cleared: the causal mask
// never reads rows past the position).
type path interface {
	name() string
	reset(prompt uint32) error
	step(pos int) error
	token() (uint32, error)
	logits() ([]float32, error)
}

// recorderState is what the two softgraph paths share: the stream and
// their own state.
type recorderState struct {
	s  *recorder.Stream
	st *state
}

func (p *recorderState) reset(prompt uint32) error {
	return recorder.WriteSlice(p.s, p.st.tok, 0, []uint32{prompt})
}

func (p *recorderState) token() (uint32, error) {
	v, err := recorder.ReadSlice[uint32](p.s, p.st.tok)
	if err != nil {
		return 0, fmt.Errorf("read token: %w", err)
	}
	return v[0], nil
}

func (p *recorderState) logits() ([]float32, error) {
	return recorder.ReadSlice[float32](p.s, p.st.logits)
}

// eagerPath launches the token's kernels one by one, as a softgraph user
// without graphs writes a decode loop: the launch list is built once, and
// per token the Step values go in by value (Params, uploaded once per
// distinct value by the stream's params cache).
type eagerPath struct {
	recorderState
	launches []launch
}

func newEagerPath(s *recorder.Stream, c config, ks *kernels, w *gpuWeights) (*eagerPath, error) {
	st, err := newState(s, c)
	if err != nil {
		return nil, err
	}
	return &eagerPath{recorderState{s, st}, forward(c, ks, w, st, stepParams(0))}, nil
}

func (p *eagerPath) name() string { return "eager" }

func (p *eagerPath) step(pos int) error {
	sp := stepParams(pos)
	for i := range p.launches {
		l := &p.launches[i]
		if l.step >= 0 {
			l.args[l.step] = sp
		}
		if err := p.s.Launch(l.k.k, recorder.Groups(l.groups[0], l.groups[1], l.groups[2]), l.args...); err != nil {
			return fmt.Errorf("%s: %w", l.k.name, err)
		}
	}
	return nil
}

// replayPath captures one token once and replays it for every token. The
// graph binds the Step uniform by reference, as a Var: the kernels read
// its current value when the graph runs, so the position and the attention
// length change between replays with no recapture, and the KV-cache append
// (in attn_split) lands at the current position. Per token the host does one
// SetVar of those 16 bytes and one Replay.
type replayPath struct {
	recorderState
	stepVar  *recorder.Var // the Step uniform the graph reads; released by release
	g        *recorder.Graph
	launches []launch        // as captured, for the profile
	params   recorder.Params // the next Step value, rewritten in place per token
}

func newReplayPath(s *recorder.Stream, c config, ks *kernels, w *gpuWeights) (*replayPath, error) {
	st, err := newState(s, c)
	if err != nil {
		return nil, err
	}
	p := &replayPath{recorderState: recorderState{s, st}, params: stepParams(0)}
	// The Var is made before the capture (SetVar and NewVar are refused
	// inside one).
	if p.stepVar, err = s.NewVar(p.params); err != nil {
		st.release()
		return nil, fmt.Errorf("the Step Var: %w", err)
	}
	p.stepVar.SetLabel("step") // how graph dumps and files name it
	p.launches = forward(c, ks, w, st, p.stepVar)
	// Capture runs the token once for real (the warmup) and then records
	// it; the warmup's writes are undone by the first reset.
	if p.g, err = s.Capture(func() error {
		for _, l := range p.launches {
			if err := s.Launch(l.k.k, recorder.Groups(l.groups[0], l.groups[1], l.groups[2]), l.args...); err != nil {
				return fmt.Errorf("%s: %w", l.k.name, err)
			}
		}
		return nil
	}); err != nil {
		p.stepVar.Release()
		st.release()
		return nil, fmt.Errorf("capture a token: %w", err)
	}
	return p, nil
}

// release drops the graph, the Var and the state.
func (p *replayPath) release() {
	p.g.Release()
	p.stepVar.Release()
	p.st.release()
}

func (p *replayPath) name() string { return "replay" }

func (p *replayPath) setStep(pos int) error {
	binary.LittleEndian.PutUint32(p.params[0:], uint32(pos))
	binary.LittleEndian.PutUint32(p.params[4:], uint32(pos+1))
	return p.s.SetVar(p.stepVar, p.params)
}

func (p *replayPath) step(pos int) error {
	if err := p.setStep(pos); err != nil {
		return err
	}
	return p.g.Replay()
}
