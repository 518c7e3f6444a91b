package engine

import "github.com/softgraph/softgraph/internal/driver"

// Preencoder encodes a program's next replay ahead of time, on a goroutine
// of its own, into a command buffer of its own.
//
// Why: encoding is most of a replay's host cost (wgpu-core validates and
// tracks every dispatch), and a WebGPU command buffer cannot be submitted
// twice. But nothing stops encoding the *next* replay's command buffer
// while the GPU runs this one and the caller waits, reads results or
// writes the next input. A replay then only joins it to the batch. Order
// is kept because a command buffer executes in submission order, not
// encoding order: writes issued before the replay still land before it.
// The command buffer holds its own references on what it uses.
//
// One command buffer is kept ahead at most. Request and Take are called
// under the owner's lock (they share pending); Stop once, when the owner
// drops the program's replays.
type Preencoder struct {
	enc     driver.Encoder // owned; used only by the worker goroutine
	prog    driver.Program // the owner's; kept alive until Stop returned
	req     chan struct{}  // a request for the next command buffer
	ready   chan Encoded   // its result
	quit    chan struct{}
	exited  chan struct{}
	pending bool // a request is outstanding; guarded by the owner's lock
}

// Encoded is a pre-encoded replay: its command buffer (the taker's to
// submit or release), or the error that stopped it.
type Encoded struct {
	CB  driver.CommandBuffer
	Err error
}

// StartPreencoder starts encoding replays of prog for drv. The owner keeps
// prog alive until Stop returned.
func StartPreencoder(drv driver.Device, prog driver.Program) (*Preencoder, error) {
	enc, err := drv.NewEncoder()
	if err != nil {
		return nil, err
	}
	p := &Preencoder{
		enc:    enc,
		prog:   prog,
		req:    make(chan struct{}, 1),
		ready:  make(chan Encoded, 1),
		quit:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go p.work()
	return p, nil
}

func (p *Preencoder) work() {
	defer close(p.exited)
	for {
		select {
		case <-p.quit:
			return
		case <-p.req:
			var r Encoded
			if r.Err = p.enc.Encode(p.prog, 0, p.prog.Len()); r.Err == nil {
				r.CB, r.Err = p.enc.Finish()
			} else {
				p.enc.Discard()
			}
			p.ready <- r
		}
	}
}

// Request asks for the next command buffer, unless one is asked for
// already.
func (p *Preencoder) Request() {
	if !p.pending {
		p.pending = true
		p.req <- struct{}{}
	}
}

// Take waits for the outstanding command buffer, if any (ok false if none
// was asked for).
func (p *Preencoder) Take() (r Encoded, ok bool) {
	if !p.pending {
		return Encoded{}, false
	}
	p.pending = false
	return <-p.ready, true
}

// Stop ends the worker and releases what it holds. The worker may exit
// with a request still unserved (select chose quit), so the result is
// drained without waiting: once it has exited nothing more is sent.
func (p *Preencoder) Stop() {
	close(p.quit)
	<-p.exited
	select {
	case r := <-p.ready:
		r.CB.Release()
	default:
	}
	p.pending = false
	p.enc.Release()
}
