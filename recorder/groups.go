package recorder

import "github.com/softgraph/softgraph/wgpu"

// maxCachedBindings is the most bindings a launch may have for its bind
// group to be cached; launches with more get a fresh bind group each time.
const maxCachedBindings = 8

// bindGroup is a wgpu bind group shared by whoever references it: the
// stream's bind group cache, the open batch that encoded it, and every
// recording or Graph that replays it. Guarded by the stream's mutex.
type bindGroup struct {
	bg   *wgpu.BindGroup // owned; released with the last reference
	refs int
}

func (g *bindGroup) ref() *bindGroup { g.refs++; return g }

func (g *bindGroup) unref() {
	g.refs--
	if g.refs == 0 {
		g.bg.Release()
	}
}

// groupKey is what a bind group binds: the kernel's layout and each
// binding's wgpu buffer and range. Two launches with equal keys can share
// one bind group whatever Buffers or params they came from, because a bind
// group is only a set of ranges: the contents are read when the dispatch
// runs. Pages and uniform pages are never released while the stream is
// open, so a cached key cannot outlive its buffers.
type groupKey struct {
	k *wgpu.Kernel
	n int
	b [maxCachedBindings]wgpu.Binding
}

// groupCache maps keys to shared bind groups. It is bounded crudely: when
// full it is emptied (cheap, and a working set larger than the limit would
// thrash an LRU just the same).
type groupCache struct {
	limit        int
	m            map[groupKey]*bindGroup
	hits, misses uint64
}

func (c *groupCache) clear() {
	for k, g := range c.m {
		g.unref()
		delete(c.m, k)
	}
}

// bindGroup returns a bind group for k and bindings, with one reference for
// the caller.
func (s *Stream) bindGroup(k *wgpu.Kernel, bindings []wgpu.Binding) (*bindGroup, error) {
	cacheable := len(bindings) <= maxCachedBindings
	var key groupKey
	if cacheable {
		key.k, key.n = k, len(bindings)
		copy(key.b[:], bindings)
		if g, ok := s.groups.m[key]; ok {
			s.groups.hits++
			return g.ref(), nil
		}
	}
	s.groups.misses++
	bg, err := s.dev.NewBindGroup(k, bindings)
	if err != nil {
		return nil, err
	}
	g := &bindGroup{bg: bg, refs: 1}
	if cacheable {
		if len(s.groups.m) >= s.groups.limit {
			s.groups.clear()
		}
		s.groups.m[key] = g.ref()
	}
	return g, nil
}
