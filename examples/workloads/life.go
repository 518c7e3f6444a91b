package workloads

import (
	_ "embed"
	"fmt"
	"math"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

//go:embed life.wgsl
var lifeWGSL string

// LifeWGSL is the Game of Life kernel's source (entry point "main"), as
// Life compiles it.
func LifeWGSL() string { return lifeWGSL }

// Life is Conway's Game of Life on a width×height torus of u32 cells (0
// dead, 1 alive, row-major), stepped on the GPU by life.wgsl. The current
// generation always lives in one buffer (Cells) between calls, whatever
// the number of steps, so a graph captured from Step or Steps replays from
// where the last one left off.
//
// A Life may be used from one goroutine at a time.
type Life struct {
	s      *recorder.Stream
	k      *wgpu.Kernel // owned by the device's kernel cache, never released here
	width  uint32
	height uint32
	grid   recorder.Params // struct Grid { width, height }

	// cells holds the current generation between calls; spare receives
	// the next one. Both are owned by the Life and released by Release;
	// a graph that binds them keeps their memory alive past that.
	cells, spare *recorder.Buffer
}

// LifeOption configures NewLife.
type LifeOption func(*lifeConfig)

type lifeConfig struct {
	constants map[string]float64
}

// WithBlockSize sets the WGSL override blockSize, the side of the square
// workgroup (@workgroup_size(blockSize, blockSize)), through
// wgpu.WithConstants. Without it the kernel keeps its default, 8.
// blockSize² must not exceed the device's maxComputeInvocationsPerWorkgroup
// (256 by WebGPU's default limits), or NewLife fails with wgpu.ErrCompile.
func WithBlockSize(n int) LifeOption {
	return func(c *lifeConfig) { c.constants = map[string]float64{"blockSize": float64(n)} }
}

// NewLife compiles the kernel and allocates two width×height cell
// buffers on s. The cells' contents are unspecified until Write.
//
// It fails with an error wrapping wgpu.ErrInvalidArgument for a size
// below 1, more cells than a u32 index reaches, or a grid whose workgroup counts exceed the device's
// maxComputeWorkgroupsPerDimension, wgpu.ErrCompile for a bad block size,
// and the stream's errors (wgpu.ErrClosed, ...).
func NewLife(s *recorder.Stream, width, height int, opts ...LifeOption) (*Life, error) {
	const op = "workloads.NewLife"
	if s == nil {
		return nil, &wgpu.Error{Op: op, Arg: "stream is nil", Err: wgpu.ErrInvalidArgument}
	}
	if width < 1 || height < 1 || uint64(width)*uint64(height) > math.MaxUint32 {
		return nil, &wgpu.Error{Op: op, Arg: fmt.Sprintf("size=%d×%d", width, height), Err: wgpu.ErrInvalidArgument}
	}
	var c lifeConfig
	for _, o := range opts {
		o(&c)
	}
	var kopts []wgpu.KernelOption
	if c.constants != nil {
		kopts = append(kopts, wgpu.WithConstants(c.constants))
	}
	k, err := s.Device().Kernel(lifeWGSL, "main", kopts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	l := &Life{s: s, k: k, width: uint32(width), height: uint32(height), grid: recorder.ParamsOf[uint32](uint32(width), uint32(height))}
	gx, gy := l.groups()
	if lim := s.Device().Info().Limits.MaxComputeWorkgroupsPerDimension; gx > lim || gy > lim {
		return nil, &wgpu.Error{Op: op, Arg: fmt.Sprintf("size=%d×%d needs %d×%d workgroups of %d×%d (limit %d per dimension)", width, height, gx, gy, l.BlockSize(), l.BlockSize(), lim), Err: wgpu.ErrInvalidArgument}
	}
	bytes := uint64(width) * uint64(height) * 4
	if l.cells, err = s.Alloc(bytes); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if l.spare, err = s.Alloc(bytes); err != nil {
		l.cells.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	l.cells.SetLabel("life.cells")
	l.spare.SetLabel("life.spare")
	return l, nil
}

// BlockSize is the side of the kernel's square workgroup, as compiled
// (the override's value).
func (l *Life) BlockSize() int { return int(l.k.WorkgroupSize()[0]) }

// Size is the grid's width and height.
func (l *Life) Size() (width, height int) { return int(l.width), int(l.height) }

// Cells is the buffer holding the current generation between calls.
func (l *Life) Cells() *recorder.Buffer { return l.cells }

// groups is the workgroup grid covering the cells.
func (l *Life) groups() (uint32, uint32) {
	b := l.k.WorkgroupSize()
	return (l.width + b[0] - 1) / b[0], (l.height + b[1] - 1) / b[1]
}

// Write sets the current generation: width×height cells, row-major. It is
// a Stream.Write, ordered after the work already enqueued (and so refused
// lazily inside a capture window: write before capturing, or between
// replays).
func (l *Life) Write(cells []uint32) error {
	if len(cells) != int(l.width*l.height) {
		return &wgpu.Error{Op: "workloads.Life.Write", Arg: fmt.Sprintf("%d cells for a %d×%d grid", len(cells), l.width, l.height), Err: wgpu.ErrInvalidArgument}
	}
	return recorder.WriteSlice(l.s, l.cells, 0, cells)
}

// Read waits for the enqueued work and returns the current generation.
func (l *Life) Read() ([]uint32, error) { return recorder.ReadSlice[uint32](l.s, l.cells) }

// Step enqueues one generation: a dispatch from Cells into the spare
// buffer, then a copy back into Cells.
func (l *Life) Step() error { return l.Steps(1) }

// Steps enqueues n ≥ 1 generations, ping-ponging between the two buffers
// (Cells → spare → Cells ...) with no copy, and, when n is odd, one copy of
// the last generation back into Cells. A graph captured from Steps(n) is n
// dispatches (plus that copy) that replay as n more generations each time.
//
// Host-side errors are returned on the spot (see Stream.Launch); device
// errors surface at the next Read or Sync.
func (l *Life) Steps(n int) error {
	if n < 1 {
		return &wgpu.Error{Op: "workloads.Life.Steps", Arg: fmt.Sprintf("n=%d", n), Err: wgpu.ErrInvalidArgument}
	}
	gx, gy := l.groups()
	d := recorder.Groups(gx, gy, 1)
	src, dst := l.cells, l.spare
	for range n {
		if err := l.s.Launch(l.k, d, l.grid, src, dst); err != nil {
			return err
		}
		src, dst = dst, src
	}
	if src != l.cells {
		return l.s.Copy(l.cells, 0, src, 0, src.Size())
	}
	return nil
}

// Release gives the two cell buffers back to the stream's pool. Graphs
// captured from the Life keep their memory until they are released.
// Idempotent.
func (l *Life) Release() {
	l.cells.Release()
	l.spare.Release()
}

// LifeReference returns the cells after the given number of generations
// of the same rule on a width×height torus, computed on the host the way
// life.wgsl computes it (the neighbours' values summed as u32; a cell is
// 1 when the sum is 3, or 2 and the cell is 1).
func LifeReference(cells []uint32, width, height, generations int) []uint32 {
	cur := append([]uint32(nil), cells...)
	next := make([]uint32, len(cur))
	w, h := width, height
	at := func(x, y int) uint32 { return cur[((y+h)%h)*w+(x+w)%w] }
	for range generations {
		for y := range h {
			for x := range w {
				n := at(x-1, y-1) + at(x, y-1) + at(x+1, y-1) +
					at(x-1, y) + at(x+1, y) +
					at(x-1, y+1) + at(x, y+1) + at(x+1, y+1)
				var out uint32
				if n == 3 || (n == 2 && at(x, y) == 1) {
					out = 1
				}
				next[y*w+x] = out
			}
		}
		cur, next = next, cur
	}
	return cur
}
