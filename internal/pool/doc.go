// Package pool is a stream's storage memory: whole native buffers (pages)
// handed out by size class, counted by reference, and taken back onto free
// lists when the last holder lets go, so that a loop allocating and
// releasing the same sizes makes no native buffer after its first pass.
//
// It owns the native buffers of its pages and nothing else. It never orders
// work: a page's holders (a Buffer, each recording and graph pin set, each
// open batch of any stream, a call in progress) each keep a reference, and
// counting the open batches is what makes a released page wait until the
// work that used it is submitted; after submission the queue's order
// protects it. It knows no streams, graphs or bind groups: the recorder
// passes a freed hook that is told whenever native buffers were released,
// because bind groups cached by any stream of the device may bind them.
//
// Modes come from lifecycle.PoolMode, decided by the caller's admission and
// passed to every Alloc: normal size classes outside capture, exact-fit
// persistent pages while priming (each held until EndPriming, so the warmup
// leaves its whole working set in the pool) and while capturing.
//
// Locking: one lockrank.Pool mutex per pool, because pages come back from
// other goroutines (Buffer.Release) and other streams (a batch that used the
// page is submitted). It is held while native buffers are released (taking
// the device's locks under it) and while the freed hook runs; it is never
// held while a native buffer is made.
//
// Costs: Ref and Unref are one atomic add each; Alloc is a map lookup under
// the mutex when a free page of the class exists, else one native buffer.
// Size classes are powers of two up to 1 MiB and quarter steps above, so a
// large page is at most 25% bigger than asked for.
//
// Pure Go: it builds with CGO_ENABLED=0 and its tests run on
// internal/driver/fake.
package pool
