package recorder

import (
	"fmt"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/graphfile"
	"github.com/softgraph/softgraph/internal/lower"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// clearOp is a recorded clear of a buffer range to zeros (Stream.Clear).
// Inside an If or While body it is lowered to a clear kernel's dispatch
// (control.go).
type clearOp struct {
	dst    *pool.Page
	dstBuf *Buffer
	dstOff uint64
	size   uint64
}

func (c *clearOp) name() string   { return "clear" }
func (c *clearOp) detail() string { return fmt.Sprintf("%d B", c.size) }

func (c *clearOp) uses(use func(bufferUse)) {
	use(bufferUse{pg: c.dst, buf: c.dstBuf, write: true})
}

func (c *clearOp) pin(p *pinSet) {
	c.dst.Ref()
	p.addPage(c.dst)
}

func (c *clearOp) encode(p driver.Program) error {
	return p.ClearBuffer(c.dst.Buffer(), c.dstOff, c.size)
}

func (c *clearOp) tally(t *tally) {
	t.transfers++
	t.byName[c.name()]++
}

func (c *clearOp) plan(lc *lower.Command, _ *pool.Page) {
	lc.Kind, lc.Words = lower.Clear, uint32(c.size/4)
}

func (c *clearOp) rebind(_ *Stream, _ int, old, new *Buffer, npg *pool.Page, _ *pinSet) (nodeOp, bool, error) {
	if c.dstBuf != old {
		return c, false, nil
	}
	n := *c
	n.dst, n.dstBuf = npg, new
	return &n, true, nil
}

// clone copies: a clearOp holds no slices.
func (c *clearOp) clone() nodeOp {
	n := *c
	return &n
}

func (c *clearOp) tabulate(t *graphTables) { t.addPage(c.dst, c.dstBuf) }

func (c *clearOp) save(t *graphTables, fn *graphfile.Node) {
	fn.Kind = graphfile.NodeClear
	fn.Dst, fn.DstOffset, fn.Size = t.pageAt[c.dst], c.dstOff, c.size
}

// loadClear records a graph file's clear n into the loader's recording,
// checked like Stream.Clear.
func loadClear(l *loader, n *graphfile.Node) error {
	b := l.buffers[n.Dst]
	if n.DstOffset%4 != 0 || n.Size%4 != 0 || n.Size == 0 || n.DstOffset > b.size || n.Size > b.size-n.DstOffset {
		return fmt.Errorf("clear of offset=%d size=%d in a %d-byte buffer", n.DstOffset, n.Size, b.size)
	}
	pg, err := b.acquire(lifecycle.Load, "buffer", l.s)
	if err != nil {
		return err
	}
	l.rec.addTransfer(&transfer{clear: true, dst: pg, dstBuf: b, dstOff: n.DstOffset, size: n.Size})
	return nil
}
