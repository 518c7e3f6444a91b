package wgpu

import (
	"fmt"

	"github.com/softgraph/softgraph/internal/lockrank"
)

// OpenAll opens one Device per adapter of the machine that matches o, best
// first, for work spread over several GPUs from one process (one goroutine
// per Device, say).
//
// Which adapters. OpenAll ranks the adapters that match o as Open does (see
// Adapters and o's Backend, Adapter and ForceFallback, and the SOFTGRAPH_*
// variables), takes the best one, and opens every matching adapter of the
// same kind on the same backend: every hardware adapter (discrete,
// integrated or unknown) on the best one's backend when it is hardware,
// every software adapter on its backend when the machine has no hardware
// one (so a CI machine with only Mesa's lavapipe gets one Device, not none).
// One backend only, because a platform with two native APIs lists each GPU
// once per API (Vulkan and DX12 on Windows): opening both would open one
// GPU twice. A machine with a discrete and an integrated GPU gets both;
// name the one you mean with o.Adapter (e.g. "nvidia") when unequal devices
// would skew the work.
//
// Independence. Each Device is what Open returns: its own adapter handle,
// native device and queue, kernel cache, error scopes, live-object counts
// and (in recorder) submission owner, streams, caches and graphs. Nothing
// made on one Device may be used on another (WebGPU forbids sharing
// resources between devices); a graph moves between them as a graph file
// (recorder's Graph.WriteTo, then Stream.LoadGraph on the other), which
// recompiles its kernels there. The instances behind them are the
// process's (created once, never released: see Adapters), so closing one
// Device never disturbs another, GL included: releasing an instance that
// started the GL backend would shut down the process's EGL display for
// every other instance, and no Device releases one. On OpenGL the Devices
// of one process share one GL context (wgpu-hal gives every adapter of the
// EGL display the same context), so their native calls that take it are
// serialised process-wide (see Device.glMu): GL devices work side by side
// but do not run their host-side GL work in parallel.
//
// It fails with an *AdapterError (wrapping ErrNoAdapter) when no adapter
// matches or one of those chosen cannot open or compile a compute kernel
// (it does not skip it, as Open does: a caller asking for every GPU must
// not silently get fewer), with an *Error wrapping ErrInvalidArgument for a
// bad SOFTGRAPH_BACKEND, and then closes every Device it had opened.
func OpenAll(o Options) ([]*Device, error) {
	return openSet("OpenAll", o, 0)
}

// OpenN opens n Devices on the adapters OpenAll would open, in its order,
// going round them again when there are fewer adapters than n: on a machine
// with two GPUs OpenN(o, 2) opens one on each, and on a machine with one
// adapter (a laptop, CI's lavapipe) it opens two independent Devices on that
// adapter, which is how multi-device code is tested where there is one GPU.
// Devices sharing an adapter share its hardware, so they measure nothing
// about scaling; each is still as independent as OpenAll's.
//
// It fails as OpenAll does, and with an *Error wrapping ErrInvalidArgument
// for n < 1, closing every Device it had opened.
func OpenN(o Options, n int) ([]*Device, error) {
	if n < 1 {
		return nil, opError("OpenN", ErrInvalidArgument, "n=%d (want at least 1)", n)
	}
	return openSet("OpenN", o, n)
}

// openSet opens the adapters chooseSet picks, n devices in all going round
// them (n = 0: each once).
func openSet(op string, o Options, n int) ([]*Device, error) {
	o, err := resolveOptions(o)
	if err != nil {
		return nil, err
	}
	log := o.Logger.With().Str("component", "softgraph/wgpu").Logger()
	var devs []*Device
	fail := func(err error) ([]*Device, error) {
		for _, d := range devs {
			d.Close()
		}
		return nil, err
	}
	// Each round enumerates again: every Device owns an adapter handle of
	// its own (Close releases it), so two Devices on one adapter hold two.
	for n == 0 || len(devs) < n {
		ranked, all, err := chooseAdapters(o)
		if err != nil {
			return fail(err)
		}
		set := chooseSet(ranked)
		for i, c := range set {
			if n > 0 && len(devs) == n {
				c.release()
				continue
			}
			d, err := openOn(c, log, o.NativeLog)
			if err == nil {
				if err = d.probe(); err != nil {
					d.Close()
				}
			}
			if err != nil {
				for _, rest := range set[i+1:] {
					rest.release()
				}
				return fail(&AdapterError{Want: wantString(o), Found: all, Failed: []string{fmt.Sprintf("%s: %s: %v", op, c.info, err)}})
			}
			devs = append(devs, d)
		}
		if n == 0 {
			break
		}
	}
	return devs, nil
}

// chooseSet keeps, of ranked candidates (best first, owned by the caller),
// those OpenAll opens — the best one's backend and class, hardware or
// software (setOf) — releases the others, and returns the kept ones in
// rank order.
func chooseSet(ranked []candidate) []candidate {
	infos := make([]AdapterInfo, len(ranked))
	for i, c := range ranked {
		infos[i] = c.info
	}
	keep := setOf(infos)
	var out []candidate
	for i, c := range ranked {
		if keep[i] {
			out = append(out, c)
		} else {
			c.release()
		}
	}
	return out
}

// setOf says which of ranked (best first) OpenAll opens: those on the best
// adapter's backend that are, like it, hardware, or like it software.
func setOf(ranked []AdapterInfo) []bool {
	keep := make([]bool, len(ranked))
	if len(ranked) == 0 {
		return keep
	}
	best := ranked[0]
	for i, a := range ranked {
		keep[i] = a.Backend == best.Backend && (a.Type == AdapterCPU) == (best.Type == AdapterCPU)
	}
	return keep
}

// glContext serialises, process-wide, the native calls of OpenGL Devices
// that take wgpu-hal's GL context (see Device.glMu): every adapter of the
// GL instance shares one EGL context, which two threads must not make
// current at once, while wgpu-hal's own lock on it is per adapter.
var glContext = lockrank.Mutex{Rank: lockrank.GL}

// onGLContext runs f, native calls on an adapter or instance of backend b,
// holding glContext when b is OpenGL: enumerating the GL instance's
// adapters, making a device on one and releasing an adapter make the
// shared context current, and done beside another GL Device's submit or
// poll they aborted the process (eglMakeCurrent: EGL_BAD_ACCESS, seen on
// llvmpipe with Open or Adapters called while another GL Device works).
func onGLContext(b Backend, f func()) {
	if b == BackendGL {
		glContext.Lock()
		defer glContext.Unlock()
	}
	f()
}
