package recorder

import "github.com/softgraph/softgraph/internal/driver"

// preencoder encodes a graph's next replay ahead of time, on a goroutine of
// its own, into a command buffer of its own.
//
// Why: encoding is most of a replay's host cost (wgpu-core validates and
// tracks every dispatch), and a WebGPU command buffer cannot be submitted
// twice. But nothing stops encoding the *next* replay's command buffer while
// the GPU runs this one and the caller waits, reads results or writes the
// next input. Replay then only joins it to the batch. Order is kept because
// a command buffer executes in submission order, not encoding order: writes
// issued before the Replay still land before it. The command buffer holds
// its own references on what it uses.
//
// One command buffer is kept ahead at most. It is dropped when the graph is
// released, and not used while a profile runs (profiled passes need
// timestamp writes), in which case Replay encodes inline.
type preencoder struct {
	enc     driver.Encoder // owned; used only by the worker goroutine
	prog    driver.Program
	req     chan struct{} // a request for the next command buffer
	ready   chan encoded  // its result
	quit    chan struct{}
	exited  chan struct{}
	pending bool // a request is outstanding; guarded by the stream's mutex
}

type encoded struct {
	cb  driver.CommandBuffer
	err error
}

func startPreencoder(drv driver.Device, prog driver.Program) (*preencoder, error) {
	enc, err := drv.NewEncoder()
	if err != nil {
		return nil, err
	}
	p := &preencoder{
		enc:    enc,
		prog:   prog,
		req:    make(chan struct{}, 1),
		ready:  make(chan encoded, 1),
		quit:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go p.work()
	return p, nil
}

func (p *preencoder) work() {
	defer close(p.exited)
	for {
		select {
		case <-p.quit:
			return
		case <-p.req:
			var r encoded
			if r.err = p.enc.Encode(p.prog, 0, p.prog.Len()); r.err == nil {
				r.cb, r.err = p.enc.Finish()
			} else {
				p.enc.Discard()
			}
			p.ready <- r
		}
	}
}

// request asks for the next command buffer. The caller holds the stream's
// mutex.
func (p *preencoder) request() {
	if !p.pending {
		p.pending = true
		p.req <- struct{}{}
	}
}

// take waits for the outstanding command buffer, if any.
func (p *preencoder) take() (encoded, bool) {
	if !p.pending {
		return encoded{}, false
	}
	p.pending = false
	return <-p.ready, true
}

// stop ends the worker and releases what it holds. The worker may exit
// with a request still unserved (select chose quit), so the result is
// drained without waiting: once it has exited nothing more is sent.
func (p *preencoder) stop() {
	close(p.quit)
	<-p.exited
	select {
	case r := <-p.ready:
		r.cb.Release()
	default:
	}
	p.pending = false
	p.enc.Release()
}
