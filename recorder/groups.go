package recorder

import (
	"unsafe"

	"github.com/softgraph/softgraph/internal/driver"
)

// maxCachedBindings is the most bindings one group of a launch may have for
// its bind group to be cached; larger groups get a fresh bind group each
// time.
const maxCachedBindings = 8

// bindGroup is a native bind group shared by whoever references it: the
// stream's bind group cache and every recording or graph that binds it.
// Work already encoded needs no reference: encoders and programs keep the
// native object alive themselves. Guarded by the stream's mutex.
type bindGroup struct {
	bg   driver.BindGroup // owned; released with the last reference
	refs int
}

func (g *bindGroup) ref() *bindGroup { g.refs++; return g }

func (g *bindGroup) unref() {
	g.refs--
	if g.refs == 0 {
		g.bg.Release()
	}
}

// groupKey is what a bind group binds: the kernel's layout (kernel and group
// index) and, per binding, the resource and range. Two launches with equal
// keys can share one bind group whatever Buffers or params they came from,
// because a bind group is only a set of ranges: contents are read when the
// dispatch runs. Resources are named by their pointers (page, params page,
// texture or sampler handle), which the key keeps alive, so a key cannot
// match a different resource at a reused address. A cached key cannot
// outlive its resources' native objects: pages and params pages live as
// long as the stream, and a texture's or sampler's release empties the
// cache.
type groupKey struct {
	k     driver.Kernel
	group uint32
	n     int
	e     [maxCachedBindings]keyEntry
}

// keyEntry is one binding of a groupKey: compact, so the cache's hashing
// and comparing stay cheap on the launch path.
type keyEntry struct {
	res       unsafe.Pointer
	off, size uint64
}

// keyOf is the key entry of a resolved access.
func keyOf(a *access) keyEntry {
	switch a.kind {
	case accessBuffer:
		return keyEntry{unsafe.Pointer(a.pg), 0, a.size}
	case accessParams:
		return keyEntry{unsafe.Pointer(a.meta.Page), a.meta.Off, a.size}
	case accessTexture:
		return keyEntry{unsafe.Pointer(a.tex.h), 0, 0}
	}
	return keyEntry{unsafe.Pointer(a.smp.h), 0, 0}
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

// bindGroup returns a bind group for group of k binding the accesses acc
// (those of that group, in binding order), with one reference for the
// caller.
func (s *Stream) bindGroup(k driver.Kernel, group uint32, acc []*access) (*bindGroup, error) {
	cacheable := len(acc) <= maxCachedBindings
	s.syncGroups()
	var key groupKey
	if cacheable {
		key.k, key.group, key.n = k, group, len(acc)
		for i, a := range acc {
			key.e[i] = keyOf(a)
		}
		if g, ok := s.groups.m[key]; ok {
			s.groups.hits++
			return g.ref(), nil
		}
	}
	s.groups.misses++
	entries := s.scratch.entries[:0]
	for _, a := range acc {
		entries = append(entries, a.entry())
	}
	bg, err := s.drv.NewBindGroup(k, group, entries)
	clear(entries)
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
