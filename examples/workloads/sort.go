package workloads

import (
	_ "embed"
	"fmt"
	"math/bits"
	"sort"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

var (
	//go:embed sort.wgsl
	sortWGSL string
	//go:embed sort_reset.wgsl
	sortResetWGSL string
)

// SortWGSL is the bitonic sort step kernel's source (entry point "main").
func SortWGSL() string { return sortWGSL }

// SortResetWGSL is the swap counter reset kernel's source (entry point
// "main"); it declares only @group(0) @binding(3), the counter.
func SortResetWGSL() string { return sortResetWGSL }

// sortGroupSize is sort.wgsl's @workgroup_size.
const sortGroupSize = 256

// Sort is a bitonic sort of n = 2^k u32 keys on the GPU: Run enqueues a
// reset of the swap counter, then k(k+1)/2 compare-exchange steps, each a
// dispatch from the keys buffer into a second one followed by a copy of it
// back (Stream.Copy). The keys stay in one buffer (Keys) between calls, so
// a graph captured from Run sorts whatever Write put there before each
// replay.
//
// A Sort may be used from one goroutine at a time.
type Sort struct {
	s     *recorder.Stream
	step  *wgpu.Kernel // owned by the device's kernel cache, never released here
	reset *wgpu.Kernel // likewise
	n     uint32

	// keys holds the keys between calls, out receives each step's result,
	// counter the swap count. All three are owned by the Sort and released
	// by Release; a graph that binds them keeps their memory alive.
	keys, out, counter *recorder.Buffer
	// steps holds one params uniform per step, in the order Run launches
	// them.
	steps []recorder.Params
}

// NewSort compiles the two kernels and allocates the buffers for n keys.
// n must be a power of two of at least 2, with n/256 workgroups within
// the device's maxComputeWorkgroupsPerDimension; otherwise the error wraps
// wgpu.ErrInvalidArgument. The keys are unspecified until Write.
func NewSort(s *recorder.Stream, n int) (*Sort, error) {
	const op = "workloads.NewSort"
	if s == nil {
		return nil, &wgpu.Error{Op: op, Arg: "stream is nil", Err: wgpu.ErrInvalidArgument}
	}
	if n < 2 || n > 1<<31 || n&(n-1) != 0 {
		return nil, &wgpu.Error{Op: op, Arg: fmt.Sprintf("n=%d (a power of two from 2 to 2^31)", n), Err: wgpu.ErrInvalidArgument}
	}
	q := &Sort{s: s, n: uint32(n)}
	if lim := s.Device().Info().Limits.MaxComputeWorkgroupsPerDimension; q.groups() > lim {
		return nil, &wgpu.Error{Op: op, Arg: fmt.Sprintf("n=%d needs %d workgroups of %d (limit %d)", n, q.groups(), sortGroupSize, lim), Err: wgpu.ErrInvalidArgument}
	}
	var err error
	if q.step, err = s.Device().Kernel(sortWGSL, "main"); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if q.reset, err = s.Device().Kernel(sortResetWGSL, "main"); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	for stage := uint32(2); stage <= q.n && stage != 0; stage <<= 1 {
		for step := stage >> 1; step > 0; step >>= 1 {
			q.steps = append(q.steps, recorder.ParamsOf[uint32](stage, step, q.n, 0))
		}
	}
	size := uint64(n) * 4
	if q.keys, err = s.Alloc(size); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if q.out, err = s.Alloc(size); err != nil {
		q.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if q.counter, err = s.Alloc(4); err != nil {
		q.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	q.keys.SetLabel("sort.keys")
	q.out.SetLabel("sort.out")
	q.counter.SetLabel("sort.counter")
	return q, nil
}

// groups is the number of workgroups of one step.
func (q *Sort) groups() uint32 { return (q.n + sortGroupSize - 1) / sortGroupSize }

// Len is the number of keys.
func (q *Sort) Len() int { return int(q.n) }

// Steps is the number of compare-exchange steps Run enqueues: k(k+1)/2
// for 2^k keys.
func (q *Sort) Steps() int { return len(q.steps) }

// Keys is the buffer holding the keys between calls.
func (q *Sort) Keys() *recorder.Buffer { return q.keys }

// Write sets the keys to sort (exactly Len of them). It is a Stream.Write:
// ordered after the work already enqueued, and refused lazily inside a
// capture window (write between replays instead).
func (q *Sort) Write(keys []uint32) error {
	if len(keys) != int(q.n) {
		return &wgpu.Error{Op: "workloads.Sort.Write", Arg: fmt.Sprintf("%d keys for a sort of %d", len(keys), q.n), Err: wgpu.ErrInvalidArgument}
	}
	return recorder.WriteSlice(q.s, q.keys, 0, keys)
}

// Run enqueues the sort of the keys in place: the counter reset, then
// every step's dispatch and copy back.
//
// Host-side errors are returned on the spot (see Stream.Launch); device
// errors surface at the next Read, Swaps or Sync.
func (q *Sort) Run() error {
	if err := q.s.Launch(q.reset, recorder.Groups(1, 1, 1), q.counter); err != nil {
		return err
	}
	d := recorder.Groups(q.groups(), 1, 1)
	for _, p := range q.steps {
		if err := q.s.Launch(q.step, d, q.keys, q.out, p, q.counter); err != nil {
			return err
		}
		if err := q.s.Copy(q.keys, 0, q.out, 0, q.keys.Size()); err != nil {
			return err
		}
	}
	return nil
}

// Read waits for the enqueued work and returns the keys.
func (q *Sort) Read() ([]uint32, error) { return recorder.ReadSlice[uint32](q.s, q.keys) }

// Swaps waits for the enqueued work and returns the number of
// compare-exchanges the last sort found out of order (BitonicSwaps).
func (q *Sort) Swaps() (uint32, error) {
	v, err := recorder.ReadSlice[uint32](q.s, q.counter)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// Release gives the three buffers back to the stream's pool. Graphs
// captured from Run keep their memory until they are released.
// Idempotent.
func (q *Sort) Release() {
	q.keys.Release()
	q.out.Release()
	q.counter.Release()
}

// SortReference returns the keys sorted in ascending order by sort.Slice,
// the answer any correct sort gives.
func SortReference(keys []uint32) []uint32 {
	out := append([]uint32(nil), keys...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// BitonicSwaps runs the bitonic network Sort runs on a copy of keys (a
// power of two of them) on the host and returns how many compare-exchanges
// found their pair out of order: what Swaps reports after sorting keys.
func BitonicSwaps(keys []uint32) uint32 {
	a := append([]uint32(nil), keys...)
	n := len(a)
	if n < 2 || bits.OnesCount(uint(n)) != 1 {
		return 0
	}
	var swaps uint32
	for stage := 2; stage <= n; stage <<= 1 {
		for step := stage >> 1; step > 0; step >>= 1 {
			for i := range n {
				j := i ^ step
				if j < i {
					continue
				}
				ascending := i&stage == 0
				if (ascending && a[i] > a[j]) || (!ascending && a[i] < a[j]) {
					a[i], a[j] = a[j], a[i]
					swaps++
				}
			}
		}
	}
	return swaps
}
