//go:build windows

package clock

import (
	"syscall"
	"unsafe"
)

var (
	kernel32 = syscall.NewLazyDLL("kernel32.dll")
	qpc      = kernel32.NewProc("QueryPerformanceCounter")
	qpf      = kernel32.NewProc("QueryPerformanceFrequency")
	freq     = frequency()
)

// frequency is QueryPerformanceFrequency: counts per second, fixed at
// boot; Windows guarantees a non-zero value from XP on.
func frequency() int64 {
	var f int64
	qpf.Call(uintptr(unsafe.Pointer(&f)))
	if f <= 0 {
		f = 1
	}
	return f
}

// now is QueryPerformanceCounter in nanoseconds, split so the product
// cannot overflow (counters run at 10 MHz or more for years).
func now() int64 {
	var c int64
	qpc.Call(uintptr(unsafe.Pointer(&c)))
	return c/freq*1e9 + c%freq*1e9/freq
}
