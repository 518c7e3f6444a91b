package recorder

import (
	"fmt"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/graphfile"
	"github.com/softgraph/softgraph/internal/lower"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// copyOp is a recorded buffer-to-buffer copy (Stream.Copy). Inside an If
// or While body it is lowered to a copy kernel's dispatch (control.go).
type copyOp struct {
	src, dst       *pool.Page
	srcBuf, dstBuf *Buffer
	srcOff, dstOff uint64
	size           uint64
}

func (c *copyOp) name() string   { return "copy" }
func (c *copyOp) detail() string { return fmt.Sprintf("%d B", c.size) }

func (c *copyOp) uses(use func(bufferUse)) {
	use(bufferUse{pg: c.src, buf: c.srcBuf, read: true})
	use(bufferUse{pg: c.dst, buf: c.dstBuf, write: true})
}

func (c *copyOp) pin(p *pinSet) {
	for _, pg := range []*pool.Page{c.src, c.dst} {
		pg.Ref()
		p.addPage(pg)
	}
}

func (c *copyOp) encode(p driver.Program) error {
	return p.CopyBuffer(c.src.Buffer(), c.srcOff, c.dst.Buffer(), c.dstOff, c.size)
}

func (c *copyOp) tally(t *tally) {
	t.transfers++
	t.byName[c.name()]++
}

func (c *copyOp) plan(lc *lower.Command, _ *pool.Page) {
	lc.Kind, lc.Words = lower.Copy, uint32(c.size/4)
}

func (c *copyOp) rebind(_ *Stream, i int, old, new *Buffer, npg *pool.Page, _ *pinSet) (nodeOp, bool, error) {
	if c.srcBuf != old && c.dstBuf != old {
		return c, false, nil
	}
	n := *c
	if n.srcBuf == old {
		n.src, n.srcBuf = npg, new
	}
	if n.dstBuf == old {
		n.dst, n.dstBuf = npg, new
	}
	if n.src == n.dst {
		return nil, false, argError(lifecycle.Rebind, ErrInvalidArgument, "command %d (%s): the copy's source and destination would be the same buffer", i, n.name())
	}
	return &n, true, nil
}

// clone copies: a copyOp holds no slices.
func (c *copyOp) clone() nodeOp {
	n := *c
	return &n
}

func (c *copyOp) tabulate(t *graphTables) {
	t.addPage(c.src, c.srcBuf)
	t.addPage(c.dst, c.dstBuf)
}

func (c *copyOp) save(t *graphTables, fn *graphfile.Node) {
	fn.Kind = graphfile.NodeCopy
	fn.Src, fn.SrcOffset, fn.Dst, fn.DstOffset, fn.Size = t.pageAt[c.src], c.srcOff, t.pageAt[c.dst], c.dstOff, c.size
}

// loadCopy records a graph file's copy n into the loader's recording,
// checked like Stream.Copy.
func loadCopy(l *loader, n *graphfile.Node) error {
	var c transfer
	if err := l.s.resolveCopy(lifecycle.Load, l.buffers[n.Dst], n.DstOffset, l.buffers[n.Src], n.SrcOffset, n.Size, &c); err != nil {
		c.release()
		return err
	}
	if n.Size == 0 {
		c.release()
		return fmt.Errorf("a copy of 0 bytes")
	}
	l.rec.addTransfer(&c)
	return nil
}
