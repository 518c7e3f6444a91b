//go:build !linux

package tests

// limitAddressSpace cannot limit the address space here (no RLIMIT_AS, or
// no /proc to read the mapped size from).
func limitAddressSpace(uint64) bool { return false }
