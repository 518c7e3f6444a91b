package driver

import "errors"

// Sentinels every implementation wraps, so that the recorder and the public
// API branch on them with errors.Is whichever driver produced the error.
// Package wgpu re-exports each under the same name (wgpu.ErrClosed is
// ErrClosed), which is where their meaning is documented for callers; they
// live here so that a driver, the fake among them, needs no cgo to return
// them.
var (
	ErrClosed          = errors.New("closed")
	ErrDeviceLost      = errors.New("device lost")
	ErrReleased        = errors.New("object released")
	ErrCompile         = errors.New("kernel compile error")
	ErrInvalidArgument = errors.New("invalid argument")
	ErrForeignDevice   = errors.New("object belongs to another device")
	ErrValidation      = errors.New("device validation error")
	ErrOutOfMemory     = errors.New("device out of memory")
	ErrInternal        = errors.New("device internal error")
)
