package recorder

import (
	"fmt"
	"math"

	"github.com/softgraph/softgraph/internal/kernels"
	"github.com/softgraph/softgraph/lifecycle"
)

// copyIndirectMaxGroups bounds CopyIndirect's dispatch: its kernel strides
// over the words, so more workgroups only add idle ones.
const copyIndirectMaxGroups = 1024

// CopyOffsets packs the range of a CopyIndirect as the Params its Var
// holds: three little-endian u32, srcOffset, dstOffset and size, in bytes
// (multiples of 4) — ParamsOf[uint32](srcOffset, dstOffset, size) with
// the arguments checked to fit a u32 (ErrInvalidArgument otherwise).
func CopyOffsets(srcOffset, dstOffset, size uint64) (Params, error) {
	const op = "CopyOffsets" // no stream's operation: named as called
	if srcOffset > math.MaxUint32 || dstOffset > math.MaxUint32 || size > math.MaxUint32 || (srcOffset|dstOffset|size)%4 != 0 {
		return nil, &Error{Op: op, Arg: fmt.Sprintf("(%d, %d, %d): multiples of 4 below 4 GiB", srcOffset, dstOffset, size), Err: ErrInvalidArgument}
	}
	// The kernel's uniform struct places each: the order above is its.
	k, err := kernels.CopyIndirect()
	if err != nil {
		return nil, &Error{Op: op, Arg: "CopyIndirect kernel", Err: err}
	}
	return ParamsOf(k.Words(kernels.CopyRange{Src: uint32(srcOffset), Dst: uint32(dstOffset), Size: uint32(size)})...), nil
}

// CopyIndirect copies between two buffers with offsets and size read from
// the Var offsets when the copy runs: three u32 at its start, srcOffset,
// dstOffset and size in bytes (CopyOffsets packs them; a Var of 12 or 16
// bytes),
// so a copy whose offsets change every step (a KV-cache append at the
// current position, a row of an embedding table picked per token) is part
// of a graph: SetVar the offsets between replays. dst and src must be
// distinct buffers.
//
// It runs as a kernel, not a native copy: a Launch of an internal kernel
// that binds src (read-only), dst and offsets, with a dispatch sized for the
// smaller buffer, and records, replays and saves like any Launch (inside If
// and While bodies too). The GPU cannot refuse a range: words that would
// fall outside either buffer are skipped, and the rest are copied. Host
// errors (nil, released or foreign buffers or Var, a Var of another size,
// src and dst the same buffer, a buffer over maxStorageBufferBindingSize)
// are returned on the spot, as by Launch.
func (s *Stream) CopyIndirect(dst, src *Buffer, offsets *Var) error {
	const op = lifecycle.Launch
	if err := s.check(op); err != nil {
		return err
	}
	// Refused before its Launch takes the lock: each refusal is decided in
	// a hold of its own (refused); the Launch decides its own.
	if offsets != nil && offsets.n != 12 && offsets.n != 16 {
		return s.refused(op, argError(op, ErrInvalidArgument, "CopyIndirect: offsets Var of %d bytes (12 or 16: srcOffset, dstOffset, size as u32, see CopyOffsets)", offsets.n))
	}
	if dst == nil || src == nil {
		return s.refused(op, argError(op, ErrInvalidArgument, "CopyIndirect: nil buffer"))
	}
	ck, err := kernels.CopyIndirect()
	if err != nil {
		return s.refused(op, &Error{Op: op.String(), Arg: "CopyIndirect kernel", Err: err})
	}
	k, err := s.drv.Compile(ck.Source, ck.Entry, nil) // the device's cache keeps it
	if err != nil {
		return s.refused(op, &Error{Op: op.String(), Arg: "CopyIndirect kernel", Err: err})
	}
	words := min(src.size, dst.size) / 4
	groups := uint32(min((words+63)/64, copyIndirectMaxGroups))
	return s.launch(ownKernel{k}, Groups(max(groups, 1), 1, 1), kernels.InBindingOrder[Arg](ck, src, dst, offsets))
}
